//! CRD checks of a cluster answer (docs/semantics.md §11): each CRD a
//! bundle the answer installs or upgrades ships, against the cluster's CRD of that name and
//! its custom resources, as OLM's catalog operator checks the update.

mod manifests;
mod shared;

use std::collections::{BTreeMap, HashMap};

pub(in crate::cluster) use manifests::DirManifests;
pub(super) use shared::cluster_warnings;

use super::answer::{CrdCheck, NamespaceAnswer};
use super::budget::{Exhausted, Meter, Stage};
use super::custom::Custom;
use super::error::StateError;
use super::object::{Kind, KindName};
use super::state::ClusterState;
use crate::catalog::CatalogSet;
use crate::crd::{Crd, CustomResource, compare_until, is_crd};
use crate::resolve::Action;

/// The state's CRDs, each with its custom resources and owners.
#[derive(Debug, Default)]
pub struct ClusterCrds<'s> {
    by_name: BTreeMap<String, Entry<'s>>,
}

#[derive(Debug)]
struct Entry<'s> {
    crd: Crd,
    /// Each custom resource with its `namespace/name`.
    objects: Vec<(&'s Custom, String)>,
    owners: Vec<String>,
}

/// `namespace/name` of a custom resource of `crd`: one of a namespaced CRD that names no
/// namespace takes the one `-n` gave, and is an error without one.
fn resource_id(c: &Custom, crd: &Crd) -> Result<String, StateError> {
    if !c.namespace.is_empty() || !crd.namespaced {
        return Ok(c.id());
    }
    match &c.namespace_default {
        Some(ns) => Ok(format!("{ns}/{}", c.name)),
        None => Err(StateError::Invalid {
            at: Box::new(c.source.clone()),
            object: c.describe(),
            field: "metadata.namespace".into(),
            message: format!(
                "missing: CRD {} is namespaced; give the object's namespace in the file, or with -n/--namespace NS as for `kubectl apply -n NS -f`",
                crd.name
            ),
        }),
    }
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
                let id = resource_id(c, &e.crd)?;
                e.objects.push((c, id));
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

    /// The check of `new`, shipped by `bundle`, when the cluster has a CRD of its name;
    /// `Err` when the time budget ran out.
    fn check(
        &self,
        bundle: &str,
        new: &Crd,
        meter: &Meter,
    ) -> Result<Option<CrdCheck>, StateError> {
        let Some(e) = self.by_name.get(&new.name) else {
            return Ok(None);
        };
        let objects: Vec<CustomResource<'_>> = e
            .objects
            .iter()
            .map(|(o, id)| CustomResource {
                id,
                version: o.version(),
                object: &o.object,
            })
            .collect();
        let stop = || meter.out_of_time();
        let Some(c) = compare_until(&e.crd, new, &objects, &stop) else {
            return Err(StateError::Budget {
                stage: Stage::CrdChecks,
                exhausted: Exhausted::Time,
                detail: format!("CRD {} of {bundle}", new.name),
            });
        };
        Ok(Some(CrdCheck {
            crd: new.name.clone(),
            bundle: bundle.to_string(),
            safe: c.safe(),
            owners: e.owners.clone(),
            problems: c.problems,
        }))
    }
}

/// The CRD checks of each bundle, done once whatever the number of namespaces that
/// install it: by catalog and bundle, None when the catalog carries no manifests.
#[derive(Debug, Default)]
pub(in crate::cluster) struct BundleChecks {
    by_bundle: HashMap<(String, String), Option<Vec<CrdCheck>>>,
}

impl BundleChecks {
    /// The checks of `bundle` of `catalog` (computed on first need).
    fn of(
        &mut self,
        crds: &ClusterCrds<'_>,
        dirs: &DirManifests,
        set: Option<&CatalogSet>,
        (catalog, bundle): (&str, &str),
        meter: &Meter,
    ) -> Result<Option<&Vec<CrdCheck>>, StateError> {
        let key = (catalog.to_string(), bundle.to_string());
        if !self.by_bundle.contains_key(&key) {
            meter.check_time(Stage::CrdChecks)?;
            let shipped = match dirs.get(catalog, bundle) {
                Some(found) => Some(found),
                None => match set {
                    Some(set) => manifests::from_properties(set, catalog, bundle)?,
                    None => None,
                },
            };
            let checks = match shipped {
                Some(shipped) => {
                    let mut checks = Vec::new();
                    for (_, crd) in &shipped {
                        checks.extend(crds.check(bundle, crd, meter)?);
                    }
                    Some(checks)
                }
                None => None,
            };
            self.by_bundle.insert(key.clone(), checks);
        }
        Ok(self.by_bundle.get(&key).and_then(Option::as_ref))
    }
}

/// Checks the CRDs of every bundle a resolved namespace installs or upgrades; records the
/// checks, the bundles whose manifests are unknown, and on each Subscription that installs
/// or upgrades why OLM would refuse the namespace's InstallPlan.
pub(super) fn check_namespace(
    crds: &ClusterCrds<'_>,
    dirs: &DirManifests,
    set: Option<&CatalogSet>,
    cache: &mut BundleChecks,
    meter: &Meter,
    answer: &mut NamespaceAnswer,
) -> Result<(), StateError> {
    if crds.is_empty() {
        return Ok(());
    }
    let mut checks = Vec::new();
    for s in answer.selected.iter().filter(|s| s.action != Action::Keep) {
        match cache.of(crds, dirs, set, (&s.catalog, &s.bundle), meter)? {
            Some(found) => checks.extend(found.iter().cloned()),
            None => answer.crd_unchecked.push(s.bundle.clone()),
        }
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
