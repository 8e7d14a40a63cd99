//! The ClusterCatalogs a cluster has: each with its labels (the automatic name label
//! included), priority, availability and bound contents (`--catalog NAME=PATH`). A binding
//! without a ClusterCatalog object stands for one with priority 0 (docs/semantics.md §10).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::object::{CATALOG_NAME_LABEL, ClusterCatalogSpec};
use crate::cluster::object::{Kind, KindName};
use crate::cluster::state::ClusterState;

/// One ClusterCatalog as resolution sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterCatalog {
    /// `metadata.name`.
    pub name: String,
    /// Its labels, with `olm.operatorframework.io/metadata.name` set to its name.
    pub labels: BTreeMap<String, String>,
    /// `spec.priority`.
    pub priority: i32,
    /// `spec.availabilityMode: Unavailable`.
    pub unavailable: bool,
    /// `spec.source.image.ref`.
    pub image: Option<String>,
    /// The bound contents, when given.
    pub path: Option<PathBuf>,
}

/// Every ClusterCatalog of the state plus bindings without one, by name.
pub(crate) fn cluster_catalogs(
    state: &ClusterState,
    bound: &[(String, PathBuf)],
) -> Vec<ClusterCatalog> {
    let mut out: BTreeMap<String, ClusterCatalog> = BTreeMap::new();
    for o in state.of_kind(KindName::ClusterCatalog) {
        let Kind::ClusterCatalog(spec, _) = &o.kind else {
            continue;
        };
        let labels = o.metadata.labels.clone().unwrap_or_default();
        out.insert(o.name().to_string(), catalog(o.name(), labels, spec));
    }
    for (name, path) in bound {
        out.entry(name.clone())
            .or_insert_with(|| catalog(name, BTreeMap::new(), &ClusterCatalogSpec::default()))
            .path = Some(path.clone());
    }
    out.into_values().collect()
}

fn catalog(
    name: &str,
    mut labels: BTreeMap<String, String>,
    spec: &ClusterCatalogSpec,
) -> ClusterCatalog {
    labels.insert(CATALOG_NAME_LABEL.to_string(), name.to_string());
    ClusterCatalog {
        name: name.to_string(),
        labels,
        priority: spec.priority,
        unavailable: spec.unavailable(),
        image: spec.image().map(str::to_string),
        path: None,
    }
}
