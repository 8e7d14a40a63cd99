//! What OLM checks of each Subscription before it resolves: its catalog, package, channel and
//! starting CSV must exist. A Subscription that fails one makes its namespace unsatisfiable,
//! with OLM's own message (docs/semantics.md §9).

use std::collections::HashSet;

use super::namespace::{NamespacePlan, SubscriptionRef};
use super::note::Note;
use crate::catalog::{CatalogSet, PackageId};

/// A Subscription OLM would refuse before resolving, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Precheck {
    /// Its catalog is not one the namespace sees, or holds nothing.
    NoCatalog {
        /// The Subscription.
        subscription: String,
        /// `namespace/name` of the catalog it names.
        catalog: String,
    },
    /// Its catalog has no such package (with the installed CSV, when the package left).
    NoPackage {
        /// The Subscription.
        subscription: String,
        /// The package.
        package: String,
        /// The installed CSV of the Subscription, when there is one.
        installed: Option<String>,
        /// The catalog's packages that have a channel of the name `spec.name` gives (it
        /// names the package, not a channel), by name.
        channel_of: Vec<String>,
    },
    /// The package has no such channel in the catalog.
    NoChannel {
        /// The Subscription.
        subscription: String,
        /// The package.
        package: String,
        /// The channel.
        channel: String,
    },
    /// The channel has no such bundle (`spec.startingCSV`).
    NoStartingCsv {
        /// The Subscription.
        subscription: String,
        /// The package.
        package: String,
        /// The channel (empty for every channel).
        channel: String,
        /// The bundle.
        csv: String,
    },
}

/// The Subscriptions of `plan` that OLM would refuse, in name order.
pub fn subscriptions(plan: &NamespacePlan, set: &CatalogSet) -> Vec<Precheck> {
    let mut out = Vec::new();
    for s in &plan.subscriptions {
        let catalog = set
            .catalog_id(&s.catalog)
            .filter(|c| set.has_bundles_in(*c));
        let Some(c) = catalog else {
            out.push(Precheck::NoCatalog {
                subscription: s.name.clone(),
                catalog: s.catalog.clone(),
            });
            continue;
        };
        let entry = set
            .package_id(&s.package)
            .and_then(|p: PackageId| set.package_in(p, c));
        let has_bundles = set.package_id(&s.package).is_some_and(|p| {
            set.bundles_of(p)
                .iter()
                .any(|b| set.bundle(*b).is_some_and(|b| b.catalog == c))
        });
        let Some(entry) = entry.filter(|_| has_bundles) else {
            let mut channel_of: Vec<String> = set
                .packages
                .iter()
                .filter(|p| p.catalog == c && p.channels.iter().any(|ch| ch.name == s.package))
                .map(|p| set.package_name(p.id).to_string())
                .collect();
            channel_of.sort();
            channel_of.dedup();
            out.push(Precheck::NoPackage {
                subscription: s.name.clone(),
                package: s.package.clone(),
                installed: s.installed.clone(),
                channel_of,
            });
            continue;
        };
        let channels: Vec<&crate::catalog::Channel> = entry
            .channels
            .iter()
            .filter(|ch| s.channel.as_deref().is_none_or(|want| ch.name == want))
            .filter(|ch| !ch.entries.is_empty())
            .collect();
        if channels.is_empty() {
            out.push(Precheck::NoChannel {
                subscription: s.name.clone(),
                package: s.package.clone(),
                channel: s.channel.clone().unwrap_or_default(),
            });
            continue;
        }
        if let Some(csv) = &s.starting_csv
            && !channels
                .iter()
                .any(|ch| ch.entries.iter().any(|e| &e.name == csv))
        {
            out.push(Precheck::NoStartingCsv {
                subscription: s.name.clone(),
                package: s.package.clone(),
                channel: s.channel.clone().unwrap_or_default(),
                csv: csv.clone(),
            });
        }
    }
    out
}

/// CSVs no Subscription references that are in a Subscription's way: of its package, or,
/// when their package is unknown, providing an API that a bundle of the Subscription's
/// package in its catalog provides too (only one provider of an API can be installed).
pub(crate) fn left_over(plan: &NamespacePlan, set: &CatalogSet) -> Vec<Note> {
    let mut out = Vec::new();
    let upgrading = |csv: &str| {
        plan.notes
            .iter()
            .any(|n| matches!(n, Note::UpgradeInProgress { old, .. } if old == csv))
    };
    for i in plan
        .request
        .installed
        .iter()
        .filter(|i| i.keep && !upgrading(&i.bundle))
    {
        let in_the_way: Vec<&SubscriptionRef> = match i.package.as_deref().filter(|p| !p.is_empty())
        {
            Some(pkg) => plan
                .subscriptions
                .iter()
                .filter(|s| s.package == pkg)
                .collect(),
            None => {
                let apis = provided_apis(&i.properties);
                plan.subscriptions
                    .iter()
                    .filter(|s| !apis.is_empty() && offers_api(set, s, &apis))
                    .collect()
            }
        };
        for s in in_the_way {
            out.push(Note::LeftOverCsv {
                csv: i.bundle.clone(),
                subscription: s.name.clone(),
            });
        }
    }
    out
}

/// The APIs (group, version, kind) of an installed bundle's `olm.gvk` properties.
fn provided_apis(properties: &[serde_json::Value]) -> HashSet<(String, String, String)> {
    properties
        .iter()
        .filter(|p| p.get("type").and_then(serde_json::Value::as_str) == Some("olm.gvk"))
        .filter_map(|p| {
            let v = p.get("value")?;
            let s = |k: &str| {
                v.get(k)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string)
            };
            Some((s("group")?, s("version")?, s("kind")?))
        })
        .collect()
}

/// Whether a bundle of the Subscription's package in its catalog provides one of `apis`.
fn offers_api(
    set: &CatalogSet,
    s: &SubscriptionRef,
    apis: &HashSet<(String, String, String)>,
) -> bool {
    let (Some(c), Some(p)) = (set.catalog_id(&s.catalog), set.package_id(&s.package)) else {
        return false;
    };
    set.bundles_of(p)
        .iter()
        .filter_map(|b| set.bundle(*b))
        .filter(|b| b.catalog == c)
        .flat_map(|b| b.provides.iter().filter_map(|g| set.gvk(*g)))
        .any(|g| apis.contains(&(g.group.clone(), g.version.clone(), g.kind.clone())))
}
