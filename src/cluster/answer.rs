//! The answer for a cluster: per namespace, what happens to each Subscription and which
//! bundles the namespace ends with (the JSON of `deppy cluster resolve -o json`).

use serde::Serialize;

use super::namespace::{NamespacePlan, SubscriptionRef};
use crate::crd::Problem;
use crate::resolve::{Action, Answer, INSTALLED_CATALOG};

/// How a namespace (or the whole cluster) came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Every Subscription resolves.
    Resolved,
    /// The search's budget ran out before an answer.
    GaveUp,
    /// OLM would not resolve the namespace at all (see `reason`).
    Blocked,
    /// No answer exists (see `explanation`).
    Unsatisfiable,
}

/// What happens to one Subscription.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// `install`, `upgrade`, `keep`, or `stuck` when the namespace does not resolve.
    pub action: String,
    /// How an upgrade gets there: `replaces`, `skips`, `skipRange`, `requested`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<crate::resolve::Via>,
    /// Why OLM would refuse the InstallPlan that installs or upgrades it, when a CRD check
    /// fails (docs/cluster.md, "CRD checks").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_would_fail: Option<String>,
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

/// One namespace's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceAnswer {
    /// The namespace.
    pub namespace: String,
    /// How it came out.
    pub status: Status,
    /// The global catalog namespace it sees (or would, without the OperatorGroup's
    /// exclusion).
    pub global_namespace: String,
    /// Its Subscriptions, by name.
    pub subscriptions: Vec<SubscriptionAnswer>,
    /// Every bundle it ends with, by package and name (empty unless resolved).
    pub selected: Vec<SelectedAnswer>,
    /// Diagnostics, in words.
    pub warnings: Vec<String>,
    /// Why no answer exists (unsatisfiable only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// Why OLM would not resolve it (blocked only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Each CRD a bundle it installs or upgrades ships, checked against the cluster's CRD of
    /// that name, by CRD and bundle (left out when none was checked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crd_checks: Vec<CrdCheck>,
    /// Bundles it installs or upgrades whose CRD manifests the catalog does not carry (left
    /// out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crd_unchecked: Vec<String>,
}

/// The answer for a whole cluster.
///
/// The example on [`crate::resolve_cluster`] reads its namespaces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterAnswer {
    /// `resolved` when every namespace is; else `unsatisfiable` when any namespace is; else
    /// `blocked` when any is; else `gaveUp`.
    pub status: Status,
    /// Namespaces with Subscriptions, by name.
    pub namespaces: Vec<NamespaceAnswer>,
    /// Objects of kinds deppy does not read, counted.
    pub skipped: usize,
    /// Namespaces that end with different bundles holding one API (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cluster_warnings: Vec<ClusterWarning>,
    /// OLM v1 ClusterExtensions, by name (left out when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<super::v1::ExtensionAnswer>,
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
        }
    }

    /// True when OLM will refuse a namespace's InstallPlan (a Subscription has
    /// `installWouldFail`): the namespaces resolve, but the changes will not go through.
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

/// Each Subscription's line when the namespace did not resolve.
pub(super) fn stuck(subs: &[SubscriptionRef]) -> Vec<SubscriptionAnswer> {
    subs.iter()
        .map(|s| SubscriptionAnswer {
            name: s.name.clone(),
            package: s.package.clone(),
            channel: s.channel.clone(),
            catalog: s.catalog.clone(),
            installed: s.installed.clone(),
            bundle: None,
            action: "stuck".into(),
            via: None,
            install_would_fail: None,
        })
        .collect()
}

/// The Subscriptions and bundles of a resolved namespace.
pub(super) fn resolved(
    plan: &NamespacePlan,
    answer: &Answer,
) -> (Vec<SubscriptionAnswer>, Vec<SelectedAnswer>) {
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
    let subs = plan
        .subscriptions
        .iter()
        .map(|sub| {
            let s = answer.selected.iter().find(|s| {
                s.package == sub.package
                    && (s.catalog == sub.catalog || sub.installed.as_deref() == Some(&s.bundle))
            });
            let action = match s.map(|s| s.action) {
                Some(Action::Install) => "install",
                Some(Action::Upgrade) => "upgrade",
                Some(Action::Keep) | None => "keep",
            };
            SubscriptionAnswer {
                name: sub.name.clone(),
                package: sub.package.clone(),
                channel: sub.channel.clone(),
                catalog: sub.catalog.clone(),
                installed: sub.installed.clone(),
                bundle: s.map(|s| s.bundle.clone()),
                action: action.into(),
                via: s.and_then(|s| s.via),
                install_would_fail: None,
            }
        })
        .collect();
    (subs, selected)
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
