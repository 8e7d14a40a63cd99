//! CRDs are cluster-wide while OLM resolves each namespace alone: two namespaces that end
//! with different bundles holding one API (the same group and kind, at the same or other
//! versions) fight over its CRD (docs/semantics.md §11).

use std::collections::{BTreeMap, BTreeSet};

use super::super::answer::{ApiHolder, ClusterWarning, NamespaceAnswer};
use super::super::object::{Kind, KindName};
use super::super::state::ClusterState;
use crate::catalog::CatalogSet;
use crate::request::EXISTING_CATALOG;

/// (group, kind) → version, for one bundle.
type Apis = Vec<(String, String, String)>;

/// The APIs of a bundle an answer selects: its catalog's `olm.gvk` properties, or for a CSV
/// that stays, the CRDs and API services it owns.
fn apis_of(
    state: &ClusterState,
    set: Option<&CatalogSet>,
    namespace: &str,
    catalog: &str,
    bundle: &str,
) -> Apis {
    if catalog == EXISTING_CATALOG {
        let Some(o) = state.get(KindName::ClusterServiceVersion, namespace, bundle) else {
            return Vec::new();
        };
        let Kind::ClusterServiceVersion(spec, _) = &o.kind else {
            return Vec::new();
        };
        let crds = spec.crds.owned.iter().map(|c| {
            let group = c.name.split_once('.').map_or("", |(_, g)| g);
            (group.to_string(), c.kind.clone(), c.version.clone())
        });
        let services = spec
            .api_services
            .owned
            .iter()
            .map(|a| (a.group.clone(), a.kind.clone(), a.version.clone()));
        return crds.chain(services).collect();
    }
    let Some(set) = set else { return Vec::new() };
    let found = set
        .catalog_id(catalog)
        .and_then(|c| set.find_bundle(c, bundle))
        .and_then(|id| set.bundle(id));
    found.map_or_else(Vec::new, |b| {
        b.provides
            .iter()
            .filter_map(|g| set.gvk(*g))
            .map(|g| (g.group.clone(), g.kind.clone(), g.version.clone()))
            .collect()
    })
}

/// The warnings of a cluster's answers: one per API that namespaces hold with different
/// bundles, naming every holder. `sets` gives each namespace's loaded catalogs.
pub(in crate::cluster) fn cluster_warnings(
    state: &ClusterState,
    answers: &[&NamespaceAnswer],
    sets: &BTreeMap<String, &CatalogSet>,
) -> Vec<ClusterWarning> {
    let mut holders: BTreeMap<(String, String), Vec<ApiHolder>> = BTreeMap::new();
    for a in answers {
        let set = sets.get(&a.namespace).copied();
        for s in &a.selected {
            let mut by_api: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
            for (g, k, v) in apis_of(state, set, &a.namespace, &s.catalog, &s.bundle) {
                by_api.entry((g, k)).or_default().push(v);
            }
            for (api, mut versions) in by_api {
                versions.sort();
                versions.dedup();
                holders.entry(api).or_default().push(ApiHolder {
                    namespace: a.namespace.clone(),
                    bundle: s.bundle.clone(),
                    versions,
                });
            }
        }
    }
    let mut out = Vec::new();
    for ((group, kind), mut list) in holders {
        list.sort();
        let namespaces: BTreeSet<&str> = list.iter().map(|h| h.namespace.as_str()).collect();
        let bundles: BTreeSet<&str> = list.iter().map(|h| h.bundle.as_str()).collect();
        if namespaces.len() < 2 || bundles.len() < 2 {
            continue;
        }
        out.push(ClusterWarning {
            group,
            kind,
            holders: list,
        });
    }
    out
}
