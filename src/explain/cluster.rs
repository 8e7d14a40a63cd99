//! Words for cluster answers: why a namespace is blocked, OLM's own refusals of a
//! Subscription, and the diagnostics a stuck Subscription needs, each with its remedy.

use crate::cluster::{Blocked, NamespacePlan, Note, Precheck};

/// The wording of one namespace's answer.
pub struct Words<'p> {
    plan: &'p NamespacePlan,
}

impl<'p> Words<'p> {
    /// Words for `plan`'s namespace.
    pub fn new(plan: &'p NamespacePlan) -> Words<'p> {
        Words { plan }
    }

    fn ns(&self) -> &str {
        &self.plan.namespace
    }

    /// Why OLM would not resolve the namespace.
    pub fn blocked(&self, b: &Blocked) -> String {
        let ns = self.ns();
        match b {
            Blocked::NoOperatorGroup => format!(
                "namespace {ns} has no OperatorGroup, so OLM installs nothing there; create one (kubectl create -n {ns} -f operatorgroup.yaml)"
            ),
            Blocked::OperatorGroups(names) => format!(
                "namespace {ns} has {} OperatorGroups ({}), and OLM resolves a namespace only with exactly one; delete all but one",
                names.len(),
                names.join(", ")
            ),
            Blocked::UnboundCatalog {
                subscription,
                catalog,
            } => format!(
                "subscription {subscription} uses catalog {catalog}, whose contents were not given: bind them with --catalog {catalog}=PATH"
            ),
            Blocked::BrokenCatalog(e) => {
                format!("catalog content this namespace needs is invalid: {e}")
            }
        }
    }

    /// The diagnostics, one sentence each, in a stable order (those an explanation already
    /// gives as causes are left out).
    pub fn notes(&self, notes: &[Note], explained: bool) -> Vec<String> {
        let mut sorted: Vec<&Note> = notes
            .iter()
            .filter(|n| !(explained && is_cause(n)))
            .collect();
        sorted.sort();
        sorted.dedup();
        sorted.into_iter().map(|n| self.note(n)).collect()
    }

    fn note(&self, n: &Note) -> String {
        let ns = self.ns();
        match n {
            Note::UnboundCatalog {
                catalog,
                image,
                address,
            } => {
                let fetch = match (image, address) {
                    (Some(image), _) => format!(
                        "fetch it with `opm render {image} -o yaml > DIR/catalog.yaml` and bind it with --catalog {catalog}=DIR"
                    ),
                    (None, Some(addr)) => format!(
                        "it is served at {addr} (grpc); render its contents to a directory and bind it with --catalog {catalog}=DIR"
                    ),
                    (None, None) => format!("bind its contents with --catalog {catalog}=PATH"),
                };
                format!("catalog {catalog} is taken as empty: its contents were not given; {fetch}")
            }
            Note::InstallMode { csv, mode, targets } => format!(
                "clusterserviceversion {csv} does not support install mode {mode}, which the OperatorGroup of {ns} asks for (targets: {}); OLM will not run it",
                if targets.is_empty() || targets.iter().all(String::is_empty) {
                    "all namespaces".to_string()
                } else {
                    targets.join(", ")
                }
            ),
            Note::ResolutionFailed {
                subscription,
                message,
            } => {
                format!("OLM reports for subscription {subscription}: ResolutionFailed: {message}")
            }
            Note::ManualApproval {
                subscription,
                install_plan,
                csvs,
            } => format!(
                "subscription {subscription} waits for manual approval: InstallPlan {install_plan} ({}) is not approved; approve it with `kubectl patch installplan {install_plan} -n {ns} --type merge -p '{{\"spec\":{{\"approved\":true}}}}'`",
                csvs.join(", ")
            ),
            Note::UpgradeInProgress { old, new } => format!(
                "an upgrade is in progress: clusterserviceversion {new} replaces {old}, which is still present; OLM resolves this namespace again only once {old} is gone"
            ),
            Note::LeftOverCsv { csv, subscription } => format!(
                "clusterserviceversion {csv} exists and is not referenced by a subscription; if it is left over from an earlier install, delete it (kubectl delete csv {csv} -n {ns}) so subscription {subscription} can install its package"
            ),
            Note::PackageUnknown { csv } => format!(
                "package unknown for clusterserviceversion {csv}: it has no {} annotation and no Subscription of one package names it as installed, so OLM cannot tell which operator it is: a second CSV of the same operator may be installed beside it",
                crate::cluster::PROPERTIES_ANNOTATION
            ),
            Note::Resolution(w) => w.clone(),
        }
    }

    /// OLM's refusals of Subscriptions, with OLM's own messages.
    pub fn prechecks(&self, checks: &[Precheck]) -> String {
        let mut out = format!("OLM cannot resolve namespace {}. Because:\n", self.ns());
        for c in checks {
            out.push_str("  - ");
            out.push_str(&precheck(c));
            if let Precheck::NoCatalog { catalog, .. } = c {
                out.push_str(&self.catalogs_seen(catalog));
            }
            out.push('\n');
        }
        out
    }

    /// The CatalogSources the namespace sees, and the one nearest `wanted` by name.
    fn catalogs_seen(&self, wanted: &str) -> String {
        let seen: Vec<&str> = self
            .plan
            .catalogs
            .iter()
            .map(|c| c.name.as_str())
            .filter(|c| *c != wanted)
            .collect();
        if seen.is_empty() {
            return "; the namespace sees no CatalogSource".into();
        }
        let mut s = format!(
            "; the CatalogSources it sees are {}",
            super::words::list(
                &seen.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "and"
            )
        );
        let nearest = seen
            .iter()
            .map(|c| (distance(c, wanted), *c))
            .min()
            .filter(|(d, c)| *d <= (c.len().max(wanted.len()) / 3).max(2));
        if let Some((_, c)) = nearest {
            s.push_str(&format!(" (did you mean {c}?)"));
        }
        s
    }

    /// The proof of an unsatisfiable namespace, with what the notes add to it.
    pub fn unsatisfiable(&self, proof: &str, notes: &[Note]) -> String {
        let mut out = format!("In namespace {}: {proof}", self.ns());
        let mut causes: Vec<&Note> = notes.iter().filter(|n| is_cause(n)).collect();
        causes.sort();
        causes.dedup();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        for n in causes {
            out.push_str("  - ");
            out.push_str(&self.note(n));
            out.push('\n');
        }
        out
    }

    /// A search that ran out of budget: `line` says after how many conflicts and which
    /// budget ([`crate::solver::GaveUpLine`]).
    pub fn gave_up(&self, line: &str, partial: &str) -> String {
        format!("In namespace {}: {line}\n{partial}", self.ns())
    }
}

/// A note that explains an unsatisfiable namespace (it goes with the proof).
fn is_cause(n: &Note) -> bool {
    matches!(n, Note::UpgradeInProgress { .. } | Note::LeftOverCsv { .. })
}

fn precheck(c: &Precheck) -> String {
    match c {
        Precheck::NoCatalog {
            subscription,
            catalog,
        } => {
            let (ns, name) = catalog.split_once('/').unwrap_or(("", catalog));
            format!(
                "no operators found from catalog {name} in namespace {ns} referenced by subscription {subscription} (the catalog is not in this namespace or the global namespace, or holds nothing)"
            )
        }
        Precheck::NoPackage {
            subscription,
            package,
            installed,
            channel_of,
        } => {
            let mut s = format!(
                "no operators found in package {package} in the catalog referenced by subscription {subscription}"
            );
            if !channel_of.is_empty() {
                s.push_str(&format!(
                    " ({package} is a channel of package {} there: spec.name is the package, spec.channel the channel)",
                    super::words::list(channel_of, "and")
                ));
            }
            if let Some(csv) = installed {
                s.push_str(&format!(
                    " (package {package} left the catalog; clusterserviceversion {csv} stays installed, but OLM fails the Subscription until the catalog offers the package again or the Subscription is deleted)"
                ));
            }
            s
        }
        Precheck::NoChannel {
            subscription,
            package,
            channel,
        } => format!(
            "no operators found in channel {channel} of package {package} in the catalog referenced by subscription {subscription}"
        ),
        Precheck::NoStartingCsv {
            subscription,
            package,
            channel,
            csv,
        } => format!(
            "no operators found with name {csv} in channel {channel} of package {package} in the catalog referenced by subscription {subscription}"
        ),
    }
}

/// A cluster answer as text: per namespace, one line per Subscription, then the dependencies
/// it pulls in, then warnings; an unsatisfiable namespace's explanation follows its lines.
pub fn render(answer: &crate::cluster::ClusterAnswer) -> String {
    use crate::cluster::Status;
    let mut out = String::new();
    for ns in &answer.namespaces {
        let status = match ns.status {
            Status::Resolved => "resolved",
            Status::Unsatisfiable => "unsatisfiable",
            Status::Blocked => "blocked",
            Status::GaveUp => "gave up",
        };
        out.push_str(&format!(
            "namespace {} ({status}; global catalog namespace {}):\n",
            ns.namespace, ns.global_namespace
        ));
        for s in &ns.subscriptions {
            out.push_str(&format!(
                "  {}/{}: {}\n",
                ns.namespace,
                s.name,
                subscription_line(s, ns)
            ));
            if let Some(r) = &s.install_would_fail {
                out.push_str(&format!(
                    "    resolves, but OLM will refuse the InstallPlan: {r}\n"
                ));
            }
        }
        let wanted: Vec<&str> = ns
            .subscriptions
            .iter()
            .filter_map(|s| s.bundle.as_deref())
            .collect();
        for d in ns.selected.iter().filter(|d| {
            !wanted.contains(&d.bundle.as_str()) && d.action != crate::resolve::Action::Keep
        }) {
            let verb = match &d.from {
                Some(from) => format!("upgrade {from} → {}", d.bundle),
                None => format!("install {}", d.bundle),
            };
            out.push_str(&format!(
                "  dependency: {verb} (package {}) from {}\n",
                d.package, d.catalog
            ));
        }
        if let Some(e) = &ns.explanation {
            for line in e.lines() {
                match line {
                    "" => out.push('\n'),
                    _ => out.push_str(&format!("  {line}\n")),
                }
            }
        }
        for c in &ns.crd_checks {
            for line in super::crd::check_lines(c) {
                out.push_str(&format!("  {line}\n"));
            }
        }
        for w in &ns.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
    }
    let mut unchecked: Vec<&str> = answer
        .namespaces
        .iter()
        .flat_map(|n| n.crd_unchecked.iter().map(String::as_str))
        .collect();
    unchecked.sort_unstable();
    unchecked.dedup();
    if !unchecked.is_empty() {
        out.push_str(&format!(
            "CRD safety not checked: catalog carries no manifests ({})\n",
            unchecked.join(", ")
        ));
    }
    for w in &answer.cluster_warnings {
        out.push_str(&format!(
            "cluster warning: {}\n",
            super::crd::cluster_warning(w)
        ));
    }
    if answer.namespaces.is_empty() && answer.extensions.is_empty() {
        out.push_str("no namespace has a Subscription\n");
    }
    out.push_str(&super::olmv1::render(&answer.extensions));
    out
}

fn subscription_line(
    s: &crate::cluster::SubscriptionAnswer,
    ns: &crate::cluster::NamespaceAnswer,
) -> String {
    let via = s
        .via
        .map(|v| {
            format!(
                " ({})",
                serde_json::to_value(v)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            )
        })
        .unwrap_or_default();
    match (s.action.as_str(), &s.bundle) {
        ("upgrade", Some(b)) => format!(
            "upgrade {} → {b}{via} from {}",
            s.installed.as_deref().unwrap_or("?"),
            s.catalog
        ),
        ("install", Some(b)) => format!("install {b} from {}", s.catalog),
        ("keep", Some(b)) => format!("up to date ({b})"),
        _ => match &ns.reason {
            Some(r) => format!("stuck: {r}"),
            None => "stuck (see below)".to_string(),
        },
    }
}

/// The edit distance between two names (Levenshtein, by character).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let (mut diag, mut left) = (i, i + 1);
        let mut next = Vec::with_capacity(row.len());
        next.push(left);
        for (j, cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let d = (diag + usize::from(ca != *cb))
                .min(left + 1)
                .min(up.saturating_add(1));
            next.push(d);
            diag = up;
            left = d;
        }
        row = next;
    }
    row.last().copied().unwrap_or_default()
}
