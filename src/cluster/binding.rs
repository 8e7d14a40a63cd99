//! `--catalog NAMESPACE/NAME=PATH`: which files hold a CatalogSource's (or a ClusterCatalog's)
//! contents: files, or an image (pulled by `super::pull_catalogs`).

use std::path::PathBuf;

use super::error::StateError;
use crate::image::{Digest, ImageRef};

/// `--catalog NAMESPACE/NAME=PATH`: the contents of a CatalogSource.
///
/// The example on [`crate::resolve_cluster`] parses one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The CatalogSource's namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// An FBC file or directory, or bundle directories; for an image, the directory its
    /// catalog was pulled to (empty until pulled).
    pub path: PathBuf,
    /// The image the contents come from (`NAMESPACE/NAME=docker://REF`, or a CatalogSource's
    /// image pulled by [`super::pull_catalogs`]); None for a path.
    pub image: Option<ImageOrigin>,
}

/// The image a bound catalog comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageOrigin {
    /// The image pulled.
    pub image: ImageRef,
    /// The digest it resolved to; None until pulled.
    pub digest: Option<Digest>,
    /// The registry pod whose `imageID` named the digest, when one did.
    pub pinned_by: Option<String>,
}

impl ImageOrigin {
    /// The image as the answer names it: a registry reference without its transport.
    pub fn image_text(&self) -> String {
        match &self.image {
            ImageRef::Registry(r) => r.to_string(),
            other => other.to_string(),
        }
    }
}

impl Binding {
    /// Parses `NAMESPACE/NAME=PATH` (a CatalogSource) or `NAME=PATH` (an OLM v1
    /// ClusterCatalog, cluster-scoped: `namespace` is empty). PATH may be an image
    /// (`docker://REF`, `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]`) unless a file of that name
    /// exists; an image binding is pulled by [`super::pull_catalogs`].
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
        let image = if crate::image::reference::has_transport(path)
            && !std::path::Path::new(path).exists()
        {
            let image = ImageRef::parse(path).map_err(|e| bad(&e.to_string()))?;
            Some(ImageOrigin {
                image,
                digest: None,
                pinned_by: None,
            })
        } else {
            None
        };
        Ok(Binding {
            namespace: ns.to_string(),
            name: n.to_string(),
            path: if image.is_some() {
                PathBuf::new()
            } else {
                PathBuf::from(path)
            },
            image,
        })
    }

    /// `NAMESPACE/NAME` or `NAME`.
    pub fn catalog(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// The binding as given: `NAMESPACE/NAME=PATH` or `NAMESPACE/NAME=IMAGE`.
    pub fn describe(&self) -> String {
        match &self.image {
            Some(o) => format!("{}={}", self.catalog(), o.image),
            None => format!("{}={}", self.catalog(), self.path.display()),
        }
    }

    /// Binds a cluster-scoped ClusterCatalog (`NAME=PATH`) rather than a CatalogSource.
    pub(crate) fn is_cluster_scoped(&self) -> bool {
        self.namespace.is_empty()
    }
}
