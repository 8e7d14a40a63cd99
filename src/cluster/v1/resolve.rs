//! Every ClusterExtension of a state resolved as OLM v1 would, against the ClusterCatalogs
//! whose contents are bound with `--catalog NAME=PATH`.

use std::path::PathBuf;

use super::answer::{ExtensionAnswer, answer};
use super::catalogs::{ClusterCatalog, cluster_catalogs};
use super::choose::decide;
use crate::catalog::{CatalogSet, CatalogSource, LoadOptions};
use crate::cluster::error::StateError;
use crate::cluster::object::{Kind, KindName};
use crate::cluster::resolve::Binding;
use crate::cluster::state::ClusterState;

/// The cluster-scoped bindings (`NAME=PATH`), by catalog name.
fn bound(bindings: &[Binding]) -> Vec<(String, PathBuf)> {
    bindings
        .iter()
        .filter(|b| b.is_cluster_scoped())
        .map(|b| (b.name.clone(), b.path.clone()))
        .collect()
}

/// The bound ClusterCatalogs' contents, loaded together (None when none is bound).
fn load(catalogs: &[ClusterCatalog], opts: &LoadOptions) -> Result<Option<CatalogSet>, StateError> {
    let sources: Vec<CatalogSource> = catalogs
        .iter()
        .filter_map(|c| {
            c.path.as_ref().map(|p| CatalogSource {
                name: c.name.clone(),
                path: p.clone(),
                priority: c.priority,
            })
        })
        .collect();
    if sources.is_empty() {
        return Ok(None);
    }
    CatalogSet::load(&sources, opts)
        .map(Some)
        .map_err(|e| StateError::Binding {
            binding: sources
                .iter()
                .map(|s| format!("{}={}", s.name, s.path.display()))
                .collect::<Vec<_>>()
                .join(", "),
            message: e.to_string(),
        })
}

/// Every ClusterExtension's answer, by name.
pub fn resolve_extensions(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &LoadOptions,
) -> Result<Vec<ExtensionAnswer>, StateError> {
    let mut extensions = state.of_kind(KindName::ClusterExtension).peekable();
    if extensions.peek().is_none() {
        return Ok(Vec::new());
    }
    let catalogs = cluster_catalogs(state, &bound(bindings));
    let set = load(&catalogs, opts)?;
    let mut out = Vec::new();
    for o in extensions {
        let Kind::ClusterExtension(spec, status) = &o.kind else {
            continue;
        };
        let installed = status
            .installed()
            .map(|b| (b.name.as_str(), b.version.as_str()));
        let d = decide(&spec.filter(), installed, &catalogs, set.as_ref());
        out.push(answer(o.name(), &d, set.as_ref()));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}
