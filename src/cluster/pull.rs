//! Binding a cluster's catalogs to the images its objects name, so `deppy cluster resolve
//! STATE` answers without `--catalog`: every CatalogSource that some namespace sees and no
//! `--catalog` binds is pulled from `spec.image`, or from the digest its registry pod ran
//! (`status.containerStatuses[].imageID` of the pod labelled `olm.catalogSource=NAME`);
//! every available ClusterCatalog from `status.resolvedSource.image.ref` (the digest catalogd
//! served), else `spec.source.image.ref`. Image bindings given with `--catalog` are pulled
//! too. A CatalogSource with only `spec.address` stays unbound.
//!
//! A pull that fails is an error naming the catalog: a catalog is never taken as empty
//! because its image could not be read. Offline, an image not in the cache stays unbound,
//! with a warning saying so.

use std::collections::BTreeSet;

use super::binding::{Binding, ImageOrigin};
use super::error::StateError;
use super::object::{Kind, KindName};
use super::resolve::{ClusterOptions, plan_cluster};
use super::state::ClusterState;
use crate::image::{ImageError, ImageRef, Puller};

/// The bindings of a state with its images pulled, and what could not be pulled offline.
#[derive(Clone, Debug, Default)]
pub struct PulledBindings {
    /// The bindings given, image ones pulled, then one per catalog pulled from the state.
    pub bindings: Vec<Binding>,
    /// Catalogs left unbound because `--offline` forbids pulling their images, in words.
    pub warnings: Vec<String>,
}

/// Pulls every image a state's catalogs need (see the module documentation).
///
/// ```no_run
/// use deppy::advanced::cluster::{ClusterOptions, ClusterState, pull_catalogs, read_paths, resolve_cluster};
/// use deppy::advanced::image::{PullOptions, Puller};
///
/// let state = ClusterState::from_dump(read_paths(&["cluster.yaml".into()])?)?;
/// let opts = ClusterOptions::default();
/// let mut puller = Puller::new(PullOptions::default());
/// let pulled = pull_catalogs(&state, &[], &opts, &mut puller)?;
/// let answer = resolve_cluster(&state, &pulled.bindings, &opts)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pull_catalogs(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &ClusterOptions,
    puller: &mut Puller,
) -> Result<PulledBindings, StateError> {
    let mut out = PulledBindings::default();
    for b in bindings {
        let mut b = b.clone();
        if let Some(origin) = b.image.clone() {
            let ok = pull_one(puller, &b.catalog(), origin, &mut out.warnings)?;
            let Some((path, origin)) = ok else { continue };
            b.path = path;
            b.image = Some(origin);
        }
        out.bindings.push(b);
    }
    let bound: BTreeSet<String> = bindings.iter().map(Binding::catalog).collect();
    for (namespace, name, origin) in wanted(state, bindings, opts)? {
        let catalog = if namespace.is_empty() {
            name.clone()
        } else {
            format!("{namespace}/{name}")
        };
        if bound.contains(&catalog) {
            continue;
        }
        if let Some((path, origin)) = pull_one(puller, &catalog, origin, &mut out.warnings)? {
            out.bindings.push(Binding {
                namespace,
                name,
                path,
                image: Some(origin),
            });
        }
    }
    Ok(out)
}

/// Pulls one catalog's image; None when offline and not cached.
fn pull_one(
    puller: &mut Puller,
    catalog: &str,
    mut origin: ImageOrigin,
    warnings: &mut Vec<String>,
) -> Result<Option<(std::path::PathBuf, ImageOrigin)>, StateError> {
    match puller.pull(&origin.image) {
        Ok(p) => {
            origin.digest = Some(p.digest);
            Ok(Some((p.dir, origin)))
        }
        Err(ImageError::Offline { image }) => {
            warnings.push(format!(
                "catalog {catalog}: image {image} is not in the image cache, and --offline forbids pulling it: the catalog stays unbound"
            ));
            Ok(None)
        }
        Err(error) => Err(StateError::Pull {
            catalog: catalog.to_string(),
            error: Box::new(error),
        }),
    }
}

/// The catalogs to pull from the state: `(namespace, name, image)`, namespace empty for a
/// ClusterCatalog.
fn wanted(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &ClusterOptions,
) -> Result<Vec<(String, String, ImageOrigin)>, StateError> {
    let mut out = Vec::new();
    // The CatalogSources some namespace sees.
    let plans = plan_cluster(state, bindings, opts)?;
    let seen: BTreeSet<&str> = plans
        .iter()
        .flat_map(|p| &p.catalogs)
        .map(|c| c.name.as_str())
        .collect();
    for o in state.of_kind(KindName::CatalogSource) {
        let Kind::CatalogSource(spec) = &o.kind else {
            continue;
        };
        let (ns, name) = (o.namespace(), o.name());
        if !seen.contains(format!("{ns}/{name}").as_str()) {
            continue;
        }
        let pinned = super::pod::pinned(state.catalog_pods(ns, name));
        let origin = match (pinned, spec.image.as_deref().filter(|i| !i.is_empty())) {
            (Some((r, pod)), _) => ImageOrigin {
                image: ImageRef::Registry(r.clone()),
                digest: None,
                pinned_by: Some(pod.to_string()),
            },
            (None, Some(image)) => ImageOrigin {
                image: parse_image(image, o, "spec.image")?,
                digest: None,
                pinned_by: None,
            },
            (None, None) => continue,
        };
        out.push((ns.to_string(), name.to_string(), origin));
    }
    // ClusterCatalogs, when an extension can use them.
    if state.of_kind(KindName::ClusterExtension).next().is_none() {
        return Ok(out);
    }
    for o in state.of_kind(KindName::ClusterCatalog) {
        let Kind::ClusterCatalog(spec, status) = &o.kind else {
            continue;
        };
        if spec.unavailable() {
            continue;
        }
        let (image, field) = match (status.image(), spec.image()) {
            (Some(i), _) => (i, "status.resolvedSource.image.ref"),
            (None, Some(i)) => (i, "spec.source.image.ref"),
            (None, None) => continue,
        };
        let origin = ImageOrigin {
            image: parse_image(image, o, field)?,
            digest: None,
            pinned_by: None,
        };
        out.push((String::new(), o.name().to_string(), origin));
    }
    Ok(out)
}

fn parse_image(
    image: &str,
    o: &super::object::Object,
    field: &str,
) -> Result<ImageRef, StateError> {
    let r = crate::image::RegistryRef::parse(image).map_err(|e| StateError::Invalid {
        at: Box::new(o.source.clone()),
        object: super::read::describe(o.kind_name(), &o.metadata),
        field: field.to_string(),
        message: e.to_string(),
    })?;
    Ok(ImageRef::Registry(r))
}
