//! CRD checks of a cluster answer (docs/semantics.md §11): each CRD a
//! bundle the answer installs or upgrades ships, against the cluster's CRD of that name and
//! its custom resources, as OLM's catalog operator checks the update.

mod manifests;
mod shared;

use std::collections::BTreeMap;

pub(in crate::cluster) use manifests::DirManifests;
pub(super) use shared::cluster_warnings;

use super::answer::{CrdCheck, NamespaceAnswer};
use super::custom::Custom;
use super::error::StateError;
use super::object::{Kind, KindName};
use super::state::ClusterState;
use crate::catalog::CatalogSet;
use crate::crd::{Crd, CustomResource, compare, is_crd};
use crate::resolve::Action;

/// The state's CRDs, each with its custom resources and owners.
#[derive(Debug, Default)]
pub struct ClusterCrds<'s> {
    by_name: BTreeMap<String, Entry<'s>>,
}

#[derive(Debug)]
struct Entry<'s> {
    crd: Crd,
    objects: Vec<&'s Custom>,
    owners: Vec<String>,
}

impl<'s> ClusterCrds<'s> {
    /// Reads the state's CRDs (a malformed one is an error naming its file and field), the
    /// custom resources of each, and the installed CSVs that own each.
    pub fn read(state: &'s ClusterState) -> Result<ClusterCrds<'s>, StateError> {
        let mut by_name = BTreeMap::new();
        for c in state.custom().filter(|c| is_crd(&c.api_version, &c.kind)) {
            let crd = crate::crd::parse(&c.object).map_err(|e| StateError::Invalid {
                at: Box::new(c.source.clone()),
                object: c.describe(),
                field: e.field,
                message: e.message,
            })?;
            let entry = Entry {
                crd,
                objects: Vec::new(),
                owners: Vec::new(),
            };
            by_name.insert(c.name.clone(), entry);
        }
        let by_kind: BTreeMap<(String, String), String> = by_name
            .iter()
            .map(|(n, e)| ((e.crd.group.clone(), e.crd.kind.clone()), n.clone()))
            .collect();
        for c in state.custom() {
            let key = (c.group().to_string(), c.kind.clone());
            if let Some(e) = by_kind.get(&key).and_then(|n| by_name.get_mut(n)) {
                e.objects.push(c);
            }
        }
        for o in state.of_kind(KindName::ClusterServiceVersion) {
            let Kind::ClusterServiceVersion(spec, _) = &o.kind else {
                continue;
            };
            if super::csv::is_copy(o) {
                continue;
            }
            for owned in &spec.crds.owned {
                if let Some(e) = by_name.get_mut(&owned.name) {
                    e.owners.push(format!("{}/{}", o.namespace(), o.name()));
                }
            }
        }
        for e in by_name.values_mut() {
            e.owners.sort();
            e.owners.dedup();
        }
        Ok(ClusterCrds { by_name })
    }

    /// True when the state holds no CRD: then every CRD a bundle ships is new, and nothing
    /// is checked.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The check of `new`, shipped by `bundle`, when the cluster has a CRD of its name.
    fn check(&self, bundle: &str, new: &Crd) -> Option<CrdCheck> {
        let e = self.by_name.get(&new.name)?;
        let ids: Vec<String> = e.objects.iter().map(|o| o.id()).collect();
        let objects: Vec<CustomResource<'_>> = e
            .objects
            .iter()
            .zip(&ids)
            .map(|(o, id)| CustomResource {
                id,
                version: o.version(),
                object: &o.object,
            })
            .collect();
        let c = compare(&e.crd, new, &objects);
        Some(CrdCheck {
            crd: new.name.clone(),
            bundle: bundle.to_string(),
            safe: c.safe(),
            owners: e.owners.clone(),
            problems: c.problems,
        })
    }
}

/// Checks the CRDs of every bundle a resolved namespace installs or upgrades; records the
/// checks, the bundles whose manifests are unknown, and on each Subscription that installs
/// or upgrades why OLM would refuse the namespace's InstallPlan.
pub(super) fn check_namespace(
    crds: &ClusterCrds<'_>,
    dirs: &DirManifests,
    set: Option<&CatalogSet>,
    answer: &mut NamespaceAnswer,
) -> Result<(), StateError> {
    if crds.is_empty() {
        return Ok(());
    }
    let mut checks = Vec::new();
    for s in answer.selected.iter().filter(|s| s.action != Action::Keep) {
        let shipped = match dirs.get(&s.catalog, &s.bundle) {
            Some(found) => Some(found),
            None => match set {
                Some(set) => manifests::from_properties(set, &s.catalog, &s.bundle)?,
                None => None,
            },
        };
        let Some(shipped) = shipped else {
            answer.crd_unchecked.push(s.bundle.clone());
            continue;
        };
        checks.extend(
            shipped
                .iter()
                .filter_map(|(_, crd)| crds.check(&s.bundle, crd)),
        );
    }
    checks.sort_by(|a, b| (&a.crd, &a.bundle).cmp(&(&b.crd, &b.bundle)));
    answer.crd_unchecked.sort();
    answer.crd_unchecked.dedup();
    if let Some(failing) = checks.iter().find(|c| !c.safe) {
        let reason = crate::explain::crd::install_would_fail(failing);
        for sub in answer
            .subscriptions
            .iter_mut()
            .filter(|s| matches!(s.action.as_str(), "install" | "upgrade"))
        {
            sub.install_would_fail = Some(reason.clone());
        }
    }
    answer.crd_checks = checks;
    Ok(())
}
