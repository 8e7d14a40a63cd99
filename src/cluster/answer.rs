//! The answer for a cluster, as data: per namespace, what happens to each Subscription, which
//! bundles the namespace ends with, and when it does not resolve, why (a blocked reason,
//! OLM's refusals, the proof, or the search's budget). `crate::explain::cluster` words it,
//! the text and the JSON of `deppy cluster resolve`.

use std::sync::Arc;

use serde::Serialize;

use super::namespace::{NamespacePlan, SubscriptionRef};
use super::note::{Blocked, Note};
use super::precheck::Precheck;
use crate::crd::Problem;
use crate::resolve::{Action, Answer, INSTALLED_CATALOG, Partial, Proof, Via};
use crate::solver::GaveUpLine;

/// How a namespace (or the whole cluster) came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Every Subscription resolves.
    Resolved,
    /// The search's budget ran out before an answer.
    GaveUp,
    /// OLM would not resolve the namespace at all (see [`NamespaceOutcome::Blocked`]).
    Blocked,
    /// No answer exists (see [`NamespaceOutcome::Refused`] and
    /// [`NamespaceOutcome::Unsatisfiable`]).
    Unsatisfiable,
}

/// What happens to one Subscription (serialized as `install`, `upgrade`, `keep` or `stuck`;
/// the JSON gives `via` beside it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubscriptionAction {
    /// Nothing of its package is installed: its bundle is installed.
    Install,
    /// Its installed bundle moves to its new bundle.
    Upgrade {
        /// The installed bundle (CSV) it replaces.
        from: String,
        /// How the upgrade gets there.
        via: Via,
    },
    /// Its installed bundle stays.
    Keep,
    /// The namespace does not resolve, so nothing happens to it (the namespace's
    /// [`NamespaceOutcome`] says why).
    Stuck,
}

impl SubscriptionAction {
    /// The action's name in the JSON: `install`, `upgrade`, `keep` or `stuck`.
    pub fn name(&self) -> &'static str {
        match self {
            SubscriptionAction::Install => "install",
            SubscriptionAction::Upgrade { .. } => "upgrade",
            SubscriptionAction::Keep => "keep",
            SubscriptionAction::Stuck => "stuck",
        }
    }

    /// How an upgrade gets there (None for the other actions).
    pub fn via(&self) -> Option<Via> {
        match self {
            SubscriptionAction::Upgrade { via, .. } => Some(*via),
            _ => None,
        }
    }
}

impl Serialize for SubscriptionAction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What happens to one Subscription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionAnswer {
    /// `metadata.name`.
    pub name: String,
    /// `spec.name`.
    pub package: String,
    /// `spec.channel` (None: every channel).
    pub channel: Option<String>,
    /// `namespace/name` of its CatalogSource.
    pub catalog: String,
    /// `status.installedCSV`, when that CSV is present.
    pub installed: Option<String>,
    /// The bundle it ends with (None when the namespace does not resolve).
    pub bundle: Option<String>,
    /// What happens to it.
    pub action: SubscriptionAction,
    /// The CRD check that makes OLM refuse the InstallPlan that installs or upgrades it
    /// (the namespace's first unsafe one; docs/cluster.md, "CRD checks").
    pub install_would_fail: Option<CrdCheck>,
}

/// A bundle the namespace ends with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectedAnswer {
    /// Package (empty for a CSV whose package is unknown).
    pub package: String,
    /// Bundle (CSV) name.
    pub bundle: String,
    /// Version.
    pub version: String,
    /// `namespace/name` of the CatalogSource, or `@existing` for a CSV that stays.
    pub catalog: String,
    /// Channel it comes from, for a new bundle.
    pub channel: Option<String>,
    /// `install`, `upgrade` or `keep`.
    pub action: Action,
    /// The CSV it replaces (upgrades only).
    pub from: Option<String>,
}

/// How a namespace came out, with what each way carries.
///
/// A caller counts stuck Subscriptions by why, and keeps the proof of an unsatisfiable
/// namespace, from this data alone (`examples/cluster_report.rs` does both):
///
/// ```
/// use deppy::advanced::cluster::{NamespaceOutcome, SubscriptionAction};
/// use deppy::{Binding, ClusterOptions, ClusterState, read_paths, resolve_cluster};
///
/// let state = ClusterState::from_dump(read_paths(&["catalogs/cluster-example/cluster.yaml".into()])?)?;
/// let catalog = Binding::parse("openshift-marketplace/community-operators=catalogs/community-v4.22")?;
/// let answer = resolve_cluster(&state, &[catalog], &ClusterOptions::default())?;
/// let mut unsatisfiable = Vec::new();
/// for ns in &answer.namespaces {
///     let stuck = ns.subscriptions.iter().filter(|s| s.action == SubscriptionAction::Stuck).count();
///     match &ns.outcome {
///         NamespaceOutcome::Resolved => assert_eq!(stuck, 0),
///         NamespaceOutcome::Unsatisfiable(proof) => {
///             assert!(proof.failure.tree.root().is_some());
///             unsatisfiable.push((ns.namespace.as_str(), stuck));
///         }
///         other => panic!("{}: {other:?}", ns.namespace),
///     }
/// }
/// // The left-over kepler-operator CSV blocks its Subscription (catalogs/cluster-example).
/// assert_eq!(unsatisfiable, [("monitoring", 1)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub enum NamespaceOutcome {
    /// Every Subscription resolves (the answer's `subscriptions` and `selected` say how).
    Resolved,
    /// OLM would not resolve the namespace at all.
    Blocked(Blocked),
    /// OLM refuses these Subscriptions before it resolves (a catalog, package, channel or
    /// starting CSV is missing), so the namespace is unsatisfiable.
    Refused(Vec<Precheck>),
    /// No answer exists: the proof ([`crate::explain_failure`] words it), its Subscriptions
    /// named as requirements.
    Unsatisfiable(Box<Proof>),
    /// The search's budget ran out before an answer.
    GaveUp(GaveUp),
}

/// A search that ran out of budget: after how many conflicts and which budget, and what it
/// had proven.
#[derive(Clone, Debug)]
pub struct GaveUp {
    /// How many conflicts, which budget.
    pub line: GaveUpLine,
    /// What it had proven when it stopped.
    pub partial: Arc<Partial>,
}

impl NamespaceOutcome {
    /// The status this outcome has.
    pub fn status(&self) -> Status {
        match self {
            NamespaceOutcome::Resolved => Status::Resolved,
            NamespaceOutcome::Blocked(_) => Status::Blocked,
            NamespaceOutcome::Refused(_) | NamespaceOutcome::Unsatisfiable(_) => {
                Status::Unsatisfiable
            }
            NamespaceOutcome::GaveUp(_) => Status::GaveUp,
        }
    }
}

/// One namespace's answer.
#[derive(Clone, Debug)]
pub struct NamespaceAnswer {
    /// The namespace.
    pub namespace: String,
    /// How it came out (the kind of `outcome`).
    pub status: Status,
    /// Why it came out so: the data behind `status`.
    pub outcome: NamespaceOutcome,
    /// The global catalog namespace it sees (or would, without the OperatorGroup's
    /// exclusion).
    pub global_namespace: String,
    /// The catalogs it sees (`namespace/name`), by name.
    pub catalogs: Vec<String>,
    /// Its Subscriptions, by name.
    pub subscriptions: Vec<SubscriptionAnswer>,
    /// Every bundle it ends with, by package and name (empty unless resolved).
    pub selected: Vec<SelectedAnswer>,
    /// Diagnostics, sorted, each once.
    pub warnings: Vec<Note>,
    /// Each CRD a bundle it installs or upgrades ships, checked against the cluster's CRD of
    /// that name, by CRD and bundle.
    pub crd_checks: Vec<CrdCheck>,
    /// Bundles it installs or upgrades whose CRD manifests the catalog does not carry.
    pub crd_unchecked: Vec<String>,
}

/// The answer for a whole cluster.
///
/// The example on [`crate::resolve_cluster`] reads its namespaces.
#[derive(Clone, Debug)]
pub struct ClusterAnswer {
    /// `resolved` when every namespace is; else `unsatisfiable` when any namespace is; else
    /// `blocked` when any is; else `gaveUp`.
    pub status: Status,
    /// Namespaces with Subscriptions, by name.
    pub namespaces: Vec<NamespaceAnswer>,
    /// Objects of kinds deppy does not read, counted.
    pub skipped: usize,
    /// Namespaces that end with different bundles holding one API.
    pub cluster_warnings: Vec<ClusterWarning>,
    /// OLM v1 ClusterExtensions, by name.
    pub extensions: Vec<super::v1::ExtensionAnswer>,
    /// Every bound catalog: where its contents came from, by namespace and name.
    pub catalogs: Vec<CatalogAnswer>,
}

/// Where a bound catalog's contents came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogAnswer {
    /// The CatalogSource's namespace (null for an OLM v1 ClusterCatalog).
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// `path` (bound with `--catalog NAME=PATH`) or `image` (pulled).
    pub source: CatalogOrigin,
    /// The image pulled (null for a path).
    pub image: Option<String>,
    /// The digest pulled (null for a path).
    pub digest: Option<String>,
    /// The registry pod whose `imageID` named the digest (left out when none did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned_by: Option<String>,
}

/// Where a catalog's contents came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CatalogOrigin {
    /// A file or directory.
    Path,
    /// An image.
    Image,
}

impl ClusterAnswer {
    /// The answer of these namespaces.
    pub fn new(mut namespaces: Vec<NamespaceAnswer>, skipped: usize) -> ClusterAnswer {
        namespaces.sort_by(|a, b| a.namespace.cmp(&b.namespace));
        let worst = |s: Status| namespaces.iter().any(|n| n.status == s);
        let status = [Status::Unsatisfiable, Status::Blocked, Status::GaveUp]
            .into_iter()
            .find(|s| worst(*s))
            .unwrap_or(Status::Resolved);
        ClusterAnswer {
            status,
            namespaces,
            skipped,
            cluster_warnings: Vec::new(),
            extensions: Vec::new(),
            catalogs: Vec::new(),
        }
    }

    /// True when OLM will refuse a namespace's InstallPlan (a Subscription has
    /// `install_would_fail`): the namespaces resolve, but the changes will not go through.
    pub fn install_would_fail(&self) -> bool {
        self.namespaces
            .iter()
            .flat_map(|n| &n.subscriptions)
            .any(|s| s.install_would_fail.is_some())
    }

    /// The same answer with OLM v1's extensions: an unsatisfiable one makes the whole
    /// answer unsatisfiable.
    pub(crate) fn with_extensions(
        mut self,
        extensions: Vec<super::v1::ExtensionAnswer>,
    ) -> ClusterAnswer {
        use super::v1::ExtensionStatus;
        if extensions
            .iter()
            .any(|e| e.status == ExtensionStatus::Unsatisfiable)
        {
            self.status = Status::Unsatisfiable;
        }
        self.extensions = extensions;
        self
    }
}

/// The answer of a namespace that did not resolve: every Subscription stuck.
pub(super) fn unresolved(
    plan: &NamespacePlan,
    outcome: NamespaceOutcome,
    warnings: Vec<Note>,
) -> NamespaceAnswer {
    NamespaceAnswer {
        subscriptions: stuck(&plan.subscriptions),
        ..namespace(plan, outcome, warnings)
    }
}

/// A namespace's answer without Subscriptions or bundles yet; the warnings sorted, each once.
fn namespace(
    plan: &NamespacePlan,
    outcome: NamespaceOutcome,
    mut warnings: Vec<Note>,
) -> NamespaceAnswer {
    warnings.sort();
    warnings.dedup();
    NamespaceAnswer {
        namespace: plan.namespace.clone(),
        status: outcome.status(),
        outcome,
        global_namespace: plan.global_namespace.clone(),
        catalogs: plan.catalogs.iter().map(|c| c.name.clone()).collect(),
        subscriptions: Vec::new(),
        selected: Vec::new(),
        warnings,
        crd_checks: Vec::new(),
        crd_unchecked: Vec::new(),
    }
}

/// Each Subscription's line when the namespace did not resolve.
fn stuck(subs: &[SubscriptionRef]) -> Vec<SubscriptionAnswer> {
    subs.iter()
        .map(|s| SubscriptionAnswer {
            name: s.name.clone(),
            package: s.package.clone(),
            channel: s.channel.clone(),
            catalog: s.catalog.clone(),
            installed: s.installed.clone(),
            bundle: None,
            action: SubscriptionAction::Stuck,
            install_would_fail: None,
        })
        .collect()
}

/// The answer of a resolved namespace: its Subscriptions and bundles.
pub(super) fn resolved(
    plan: &NamespacePlan,
    answer: &Answer,
    warnings: Vec<Note>,
) -> NamespaceAnswer {
    let catalog = |c: &str| {
        if c == INSTALLED_CATALOG {
            crate::request::EXISTING_CATALOG.to_string()
        } else {
            c.to_string()
        }
    };
    let selected: Vec<SelectedAnswer> = answer
        .selected
        .iter()
        .map(|s| SelectedAnswer {
            package: s.package.clone(),
            bundle: s.bundle.clone(),
            version: s.version.clone(),
            catalog: catalog(&s.catalog),
            channel: s.channel.clone(),
            action: s.action,
            from: s.from.clone(),
        })
        .collect();
    let subscriptions = plan
        .subscriptions
        .iter()
        .map(|sub| {
            let s = answer.selected.iter().find(|s| {
                s.package == sub.package
                    && (s.catalog == sub.catalog || sub.installed.as_deref() == Some(&s.bundle))
            });
            let action = match s {
                Some(s) if s.action == Action::Install => SubscriptionAction::Install,
                Some(s) if s.action == Action::Upgrade => SubscriptionAction::Upgrade {
                    from: s.from.clone().unwrap_or_default(),
                    via: s.via.unwrap_or(Via::Requested),
                },
                _ => SubscriptionAction::Keep,
            };
            SubscriptionAnswer {
                name: sub.name.clone(),
                package: sub.package.clone(),
                channel: sub.channel.clone(),
                catalog: sub.catalog.clone(),
                installed: sub.installed.clone(),
                bundle: s.map(|s| s.bundle.clone()),
                action,
                install_would_fail: None,
            }
        })
        .collect();
    NamespaceAnswer {
        subscriptions,
        selected,
        ..namespace(plan, NamespaceOutcome::Resolved, warnings)
    }
}

/// One CRD a bundle ships checked against the cluster's (JSON `crdChecks`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdCheck {
    /// The CRD's name (`<plural>.<group>`).
    pub crd: String,
    /// The bundle that ships it.
    pub bundle: String,
    /// True when today's OLM accepts the update.
    pub safe: bool,
    /// Installed CSVs that own the CRD (`namespace/name`), for information: OLM checks the
    /// update whatever their number.
    pub owners: Vec<String>,
    /// Every risk found, refusals first.
    pub problems: Vec<Problem>,
}

/// A namespace's bundle holding an API.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ApiHolder {
    /// The namespace.
    pub namespace: String,
    /// The bundle it ends with.
    pub bundle: String,
    /// The versions of the API the bundle provides, sorted.
    pub versions: Vec<String>,
}

/// Namespaces ending with different bundles that hold one API (JSON `clusterWarnings`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ClusterWarning {
    /// The API group.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// Every namespace's bundle holding it, by namespace and bundle (at least two
    /// namespaces and two different bundles).
    pub holders: Vec<ApiHolder>,
}
