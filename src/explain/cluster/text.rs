//! A cluster answer as text, as `deppy cluster resolve` prints it.

use crate::cluster::{
    ClusterAnswer, NamespaceAnswer, Status, SubscriptionAction, SubscriptionAnswer,
};
use crate::explain::Detail;
use crate::resolve::Via;

/// The line naming an image catalog's digest, once per catalog (nothing for a path).
fn catalog_line(c: &crate::cluster::CatalogAnswer) -> String {
    let (Some(image), Some(digest)) = (&c.image, &c.digest) else {
        return String::new();
    };
    let name = match &c.namespace {
        Some(ns) => format!("{ns}/{}", c.name),
        None => c.name.clone(),
    };
    let pinned = match &c.pinned_by {
        Some(pod) => format!(", the digest its registry pod {pod} ran"),
        None => String::new(),
    };
    let shown = if image.ends_with(digest.as_str()) {
        image.clone()
    } else {
        format!("{image} ({digest})")
    };
    format!("catalog {name}: image {shown}{pinned}\n")
}

/// A cluster answer as text (`deppy cluster resolve`): a line per catalog pulled from an
/// image, then per namespace, one line per
/// Subscription, then the dependencies it pulls in, then warnings; an unsatisfiable
/// namespace's explanation (`detail` says how much of the proof) follows its lines.
pub fn render(answer: &ClusterAnswer, detail: Detail) -> String {
    let mut out = String::new();
    for c in &answer.catalogs {
        out.push_str(&catalog_line(c));
    }
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
            if let Some(check) = &s.install_would_fail {
                out.push_str(&format!(
                    "    resolves, but OLM will refuse the InstallPlan: {}\n",
                    crate::explain::crd::install_would_fail(check)
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
        if let Some(e) = &super::explanation(ns, detail) {
            for line in e.lines() {
                match line {
                    "" => out.push('\n'),
                    _ => out.push_str(&format!("  {line}\n")),
                }
            }
        }
        for c in &ns.crd_checks {
            for line in crate::explain::crd::check_lines(c) {
                out.push_str(&format!("  {line}\n"));
            }
        }
        for w in &super::warnings(ns) {
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
            crate::explain::crd::cluster_warning(w)
        ));
    }
    if answer.namespaces.is_empty() && answer.extensions.is_empty() {
        out.push_str("no namespace has a Subscription\n");
    }
    out.push_str(&crate::explain::olmv1::render(&answer.extensions));
    out
}

fn subscription_line(s: &SubscriptionAnswer, ns: &NamespaceAnswer) -> String {
    let via = s
        .action
        .via()
        .map(|v| format!(" ({})", via_name(v)))
        .unwrap_or_default();
    match (&s.action, &s.bundle) {
        (SubscriptionAction::Upgrade { .. }, Some(b)) => format!(
            "upgrade {} → {b}{via} from {}",
            s.installed.as_deref().unwrap_or("?"),
            s.catalog
        ),
        (SubscriptionAction::Install, Some(b)) => format!("install {b} from {}", s.catalog),
        (SubscriptionAction::Keep, Some(b)) => format!("up to date ({b})"),
        _ => match super::reason(ns) {
            Some(r) => format!("stuck: {r}"),
            None => "stuck (see below)".to_string(),
        },
    }
}

/// An upgrade edge's name, as the JSON spells it (`replaces`, `skipRange`, ...).
pub(super) fn via_name(v: Via) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
