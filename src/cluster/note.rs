//! What stops OLM from resolving a namespace, and what a user of a stuck Subscription should
//! know, as data; `crate::explain::cluster` words them.

use super::object::{InstallPlanSpec, InstallPlanStatus, Kind, KindName, Object};
use super::state::ClusterState;

/// Why a namespace is not resolved at all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Blocked {
    /// The namespace has no OperatorGroup: OLM installs nothing there.
    NoOperatorGroup,
    /// The namespace has several OperatorGroups: OLM refuses to pick one.
    OperatorGroups(Vec<String>),
    /// A Subscription names a catalog whose contents were not bound with `--catalog`.
    UnboundCatalog {
        /// The Subscription.
        subscription: String,
        /// `namespace/name` of the catalog.
        catalog: String,
    },
    /// Catalog content the namespace needs is invalid (a channel without a head, a cycle).
    BrokenCatalog(String),
}

/// A diagnostic for the namespace's answer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Note {
    /// A catalog the namespace sees has no bound contents: it is taken as empty.
    UnboundCatalog {
        /// `namespace/name`.
        catalog: String,
        /// `spec.image`.
        image: Option<String>,
        /// `spec.address`.
        address: Option<String>,
    },
    /// An installed CSV does not support the OperatorGroup's install mode.
    InstallMode {
        /// The CSV.
        csv: String,
        /// The mode the OperatorGroup asks for.
        mode: String,
        /// Its target namespaces.
        targets: Vec<String>,
    },
    /// OLM itself failed to resolve this Subscription (its `ResolutionFailed` condition).
    ResolutionFailed {
        /// The Subscription.
        subscription: String,
        /// OLM's message.
        message: String,
    },
    /// An InstallPlan waits for manual approval.
    ManualApproval {
        /// The Subscription.
        subscription: String,
        /// The InstallPlan.
        install_plan: String,
        /// The CSVs it would install.
        csvs: Vec<String>,
    },
    /// An upgrade is in progress: the new CSV replaces an old one that is still present.
    UpgradeInProgress {
        /// The old CSV.
        old: String,
        /// The new CSV.
        new: String,
    },
    /// A CSV no Subscription references shares its package with a Subscription: a left-over
    /// of an earlier install, in the way of the Subscription.
    LeftOverCsv {
        /// The CSV.
        csv: String,
        /// The Subscription.
        subscription: String,
    },
    /// A CSV whose package is not known: it has no `operatorframework.io/properties`
    /// annotation naming it, and the Subscriptions naming it as installed are not of one
    /// package. OLM cannot tell it from another operator's, so a second CSV of the same
    /// operator may be installed beside it.
    PackageUnknown {
        /// The CSV.
        csv: String,
    },
    /// A warning of the resolution itself (deprecations, malformed unused channels).
    Resolution(String),
}

/// The install mode an OperatorGroup's targets ask for (None when they are not known).
fn install_mode(ns: &str, og: &Object) -> Option<(String, Vec<String>)> {
    let Kind::OperatorGroup(spec, status) = &og.kind else {
        return None;
    };
    let targets = match (&status.namespaces, &spec.target_namespaces, &spec.selector) {
        (Some(t), _, _) => t.clone(),
        (None, Some(t), _) => t.clone(),
        (None, None, Some(_)) => return None,
        (None, None, None) => Vec::new(),
    };
    let mode = match targets.as_slice() {
        [] => "AllNamespaces",
        [t] if t.is_empty() => "AllNamespaces",
        [t] if t == ns => "OwnNamespace",
        [_] => "SingleNamespace",
        _ => "MultiNamespace",
    };
    Some((mode.to_string(), targets))
}

/// The diagnostics of namespace `ns` that need no resolution.
pub(super) fn diagnose(
    state: &ClusterState,
    ns: &str,
    subs: &[&Object],
    csvs: &[&Object],
    og: Option<&Object>,
) -> Vec<Note> {
    let mut out = Vec::new();
    if let Some((mode, targets)) = og.and_then(|g| install_mode(ns, g)) {
        for c in csvs {
            let Kind::ClusterServiceVersion(spec, _) = &c.kind else {
                continue;
            };
            let supported = spec
                .install_modes
                .iter()
                .any(|m| m.kind == mode && m.supported);
            if !spec.install_modes.is_empty() && !supported {
                out.push(Note::InstallMode {
                    csv: c.name().to_string(),
                    mode: mode.clone(),
                    targets: targets.clone(),
                });
            }
        }
    }
    for s in subs {
        let Kind::Subscription(spec, status) = &s.kind else {
            continue;
        };
        for c in &status.conditions {
            if c.kind == "ResolutionFailed" && c.status == "True" {
                out.push(Note::ResolutionFailed {
                    subscription: s.name().to_string(),
                    message: c.message.clone().unwrap_or_default(),
                });
            }
        }
        if spec.install_plan_approval.as_deref() == Some("Manual") {
            out.extend(pending_plan(state, ns, s, status));
        }
    }
    let names: std::collections::HashSet<&str> = csvs.iter().map(|c| c.name()).collect();
    for new in csvs {
        let Kind::ClusterServiceVersion(spec, _) = &new.kind else {
            continue;
        };
        if let Some(old) = spec.replaces.as_deref()
            && names.contains(old)
        {
            out.push(Note::UpgradeInProgress {
                old: old.to_string(),
                new: new.name().to_string(),
            });
        }
    }
    out
}

/// The InstallPlan a manual Subscription waits on, if one is pending.
fn pending_plan(
    state: &ClusterState,
    ns: &str,
    sub: &Object,
    status: &super::object::SubscriptionStatus,
) -> Option<Note> {
    let name = status
        .install_plan_ref
        .as_ref()
        .or(status.installplan.as_ref())
        .and_then(|r| r.name.clone())?;
    let plan = state.get(KindName::InstallPlan, ns, &name)?;
    let Kind::InstallPlan(
        InstallPlanSpec {
            approved,
            csv_names,
            ..
        },
        InstallPlanStatus { phase },
    ) = &plan.kind
    else {
        return None;
    };
    let done = matches!(phase.as_deref(), Some("Complete" | "Failed"));
    (!approved && !done).then(|| Note::ManualApproval {
        subscription: sub.name().to_string(),
        install_plan: name,
        csvs: csv_names.clone(),
    })
}
