//! Admin constraints (a request's `constraints:`) and cluster runtime constraints as
//! adjustments: the candidates each removes, with the rule that removed them (docs/semantics.md
//! §6.2, §6.3). Installed bundles are exempt; the answer warns about each one that violates a rule.

use rustc_hash::FxHashSet;

use crate::catalog::{BundleId, CatalogSet};
use crate::constraint::{
    Action, AdminConstraint, AdminEntry, CandidateView, Cluster, Prohibit, bundle_properties,
};
use crate::request::InstalledBundle;

use super::{Adjustments, Rule};

/// Most evaluation errors reported per rule.
const MAX_ERRORS: usize = 3;

fn describe(c: &AdminConstraint) -> String {
    let what = c.constraint.describe();
    let text = match c.action {
        Action::Require => format!("requires {what}"),
        Action::Conflict => format!("conflicts with {what}"),
    };
    match &c.constraint.failure_message {
        Some(m) => format!("{m}: {text}"),
        None => text,
    }
}

/// Bundles a `prohibit` entry names.
fn prohibited(set: &CatalogSet, p: &Prohibit) -> FxHashSet<BundleId> {
    let of = |f: &dyn Fn(&crate::catalog::Bundle) -> bool| -> FxHashSet<BundleId> {
        set.bundles.iter().filter(|b| f(b)).map(|b| b.id).collect()
    };
    match p {
        Prohibit::Package(name) => of(&|b| set.package_name(b.package) == name),
        Prohibit::Bundle(name) => of(&|b| &b.name == name),
        Prohibit::Catalog(name) => of(&|b| set.catalog(b.catalog).is_some_and(|c| &c.name == name)),
        // Nothing is installed through the channel: its entries that no other channel of
        // the package lists.
        Prohibit::Channel { package, channel } => set
            .packages
            .iter()
            .filter(|p| set.package_name(p.id) == package)
            .flat_map(|p| {
                let elsewhere: FxHashSet<BundleId> = p
                    .channels
                    .iter()
                    .filter(|c| &c.name != channel)
                    .flat_map(|c| c.entries.iter().filter_map(|e| e.bundle))
                    .collect();
                p.channels
                    .iter()
                    .filter(|c| &c.name == channel)
                    .flat_map(|c| c.entries.iter().filter_map(|e| e.bundle))
                    .filter(move |b| !elsewhere.contains(b))
                    .collect::<Vec<_>>()
            })
            .collect(),
    }
}

/// Applies `constraints` (each with the rule origin for explanations) to every catalog bundle.
fn apply(
    set: &CatalogSet,
    entries: &[(String, AdminEntry)],
    installed: &[InstalledBundle],
) -> Adjustments {
    let mut out = Adjustments::default();
    let needs_props = entries
        .iter()
        .any(|(_, e)| matches!(e, AdminEntry::Constraint(_)));
    let props: Vec<Vec<(String, serde_json::Value)>> = if needs_props {
        set.bundles
            .iter()
            .map(|b| bundle_properties(b, set))
            .collect()
    } else {
        Vec::new()
    };
    for (origin, entry) in entries {
        let rule = out.rules.len() as u32;
        let (description, removed, errors) = match entry {
            AdminEntry::Prohibit {
                target,
                failure_message,
            } => {
                let text = format!("prohibits {target}");
                let d = failure_message
                    .as_ref()
                    .map_or(text.clone(), |m| format!("{m}: {text}"));
                let mut r: Vec<BundleId> = prohibited(set, target).into_iter().collect();
                r.sort();
                (d, r, Vec::new())
            }
            AdminEntry::Constraint(c) => {
                let mut removed = Vec::new();
                let mut errors = Vec::new();
                for (b, p) in set.bundles.iter().zip(&props) {
                    let v = c.constraint.test(&CandidateView::of_bundle(b, set, p));
                    errors.extend(v.errors.iter().map(|e| format!("{}: {e}", b.name)));
                    let drop = match c.action {
                        Action::Require => !v.is_match(),
                        Action::Conflict => v.is_match(),
                    };
                    if drop {
                        removed.push(b.id);
                    }
                }
                (describe(c), removed, errors)
            }
        };
        for e in errors.iter().take(MAX_ERRORS) {
            out.warnings.push(format!(
                "{origin}: evaluation error, the rule is false for {e}"
            ));
        }
        if errors.len() > MAX_ERRORS {
            out.warnings.push(format!(
                "{origin}: {} more evaluation errors",
                errors.len() - MAX_ERRORS
            ));
        }
        for i in installed {
            let hit = removed.iter().any(|b| {
                set.bundle(*b).is_some_and(|x| {
                    x.name == i.bundle
                        && i.catalog.as_deref() != Some(crate::request::EXISTING_CATALOG)
                        && i.package
                            .as_deref()
                            .is_none_or(|p| set.package_name(x.package) == p)
                })
            });
            if hit {
                out.warnings.push(format!(
                    "installed bundle {} violates {origin} ({description}); installed bundles are exempt, so it is kept",
                    i.bundle
                ));
            }
        }
        out.rules.push(Rule {
            origin: origin.clone(),
            description,
        });
        out.removed.extend(removed.into_iter().map(|b| (b, rule)));
    }
    out
}

/// The adjustments of a request's admin constraints.
pub fn admin_adjustments(
    set: &CatalogSet,
    entries: &[AdminEntry],
    installed: &[InstalledBundle],
) -> Adjustments {
    let named: Vec<(String, AdminEntry)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (format!("admin constraint constraints[{i}]"), e.clone()))
        .collect();
    apply(set, &named, installed)
}

/// The adjustments of the cluster node: its runtime constraints, and no bundle may provide
/// an API the cluster already serves.
pub fn cluster_adjustments(
    set: &CatalogSet,
    cluster: &Cluster,
    installed: &[InstalledBundle],
) -> Adjustments {
    let named: Vec<(String, AdminEntry)> = cluster
        .constraints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                format!("cluster constraint constraints[{i}]"),
                AdminEntry::Constraint(c.clone()),
            )
        })
        .collect();
    let mut out = apply(set, &named, installed);
    for g in cluster.provides() {
        let Some(id) = set.gvk_id(&g) else { continue };
        let providers = set.providers(id);
        if providers.is_empty() {
            continue;
        }
        let rule = out.rules.len() as u32;
        out.rules.push(Rule {
            origin: "the cluster".into(),
            description: format!("already serves API {g}, so no bundle may provide it"),
        });
        out.removed.extend(providers.iter().map(|b| (*b, rule)));
    }
    out
}
