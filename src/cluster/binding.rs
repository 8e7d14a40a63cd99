//! `--catalog NAMESPACE/NAME=PATH`: which files hold a CatalogSource's (or a ClusterCatalog's)
//! contents.

use std::path::PathBuf;

use super::error::StateError;

/// `--catalog NAMESPACE/NAME=PATH`: the contents of a CatalogSource.
///
/// The example on [`crate::resolve_cluster`] parses one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The CatalogSource's namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// An FBC file or directory, or bundle directories.
    pub path: PathBuf,
}

impl Binding {
    /// Parses `NAMESPACE/NAME=PATH` (a CatalogSource) or `NAME=PATH` (an OLM v1
    /// ClusterCatalog, cluster-scoped: `namespace` is empty).
    pub fn parse(spec: &str) -> Result<Binding, StateError> {
        let bad = |m: &str| StateError::Binding {
            binding: spec.to_string(),
            message: m.to_string(),
        };
        let (name, path) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected NAMESPACE/NAME=PATH or NAME=PATH"))?;
        let (ns, n) = name.split_once('/').unwrap_or(("", name));
        if (name.contains('/') && ns.is_empty())
            || n.is_empty()
            || n.contains('/')
            || path.is_empty()
        {
            return Err(bad(
                "expected NAMESPACE/NAME=PATH or NAME=PATH, each part non-empty",
            ));
        }
        Ok(Binding {
            namespace: ns.to_string(),
            name: n.to_string(),
            path: PathBuf::from(path),
        })
    }

    /// Binds a cluster-scoped ClusterCatalog (`NAME=PATH`) rather than a CatalogSource.
    pub(crate) fn is_cluster_scoped(&self) -> bool {
        self.namespace.is_empty()
    }
}
