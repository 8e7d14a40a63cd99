//! Bundle directories (registry+v1: `manifests/` with the ClusterServiceVersion and CRDs,
//! `metadata/` with `annotations.yaml` and optional dependencies and properties) rendered to
//! File-Based Catalog documents the way `opm render` renders them, with channels built in
//! replaces mode. The catalog loader feeds the rendered JSON text through the FBC parser, so
//! everything downstream (pipeline, traces, replay) sees an ordinary FBC file.
//!
//! Mapping, per bundle directory:
//!
//! - package: the annotation `operators.operatorframework.io.bundle.package.v1` (not the
//!   directory name); channels and default channel: the channel annotations;
//! - name, version, `replaces`, `skips`: the CSV's `metadata.name` and `spec`; `skipRange`:
//!   its `olm.skipRange` annotation;
//! - `olm.gvk`: every version of every CRD manifest, the CSV's owned API services, listed
//!   `olm.gvk` properties; `olm.gvk.required`: the CSV's required CRDs and API services,
//!   `olm.gvk` dependencies; `olm.package.required`: `olm.package` dependencies (their
//!   `version` is a range); other dependencies and properties (`metadata/` and the CSV's
//!   `olm.properties` annotation) pass through;
//! - the first file under `metadata/` (name order) that holds annotations, dependencies or
//!   properties is the one that counts for each, whatever its name; only the first document
//!   of any file counts.

mod channels;
mod csv;
mod detect;
mod doc;
mod props;
mod read;
#[cfg(test)]
mod tests;

use crate::parallel::parallel_map;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use self::channels::{BundleDoc, ChannelDoc, PackageDoc, package_docs};
use self::read::{BundleDir, read_bundle};
use super::error::LoadError;
use super::fbc::SourceFile;

pub(crate) use detect::Listings;
pub use detect::find_bundle_dirs;

/// One rendered FBC document.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
enum Document {
    Package(PackageDoc),
    Channel(ChannelDoc),
    Bundle(BundleDoc),
}

/// File-Based Catalog documents rendered from bundle directories: per package (in name
/// order) its `olm.package` document, its channels and its bundles (each in name order).
#[derive(Debug)]
pub struct RenderedCatalog {
    docs: Vec<Document>,
    packages: usize,
    bundles: usize,
    /// Tolerated oddities (a bundle left out of a channel, ignored dependency keys, ...),
    /// in directory order.
    pub warnings: Vec<String>,
}

impl RenderedCatalog {
    /// The documents as JSON, one compact document per line (what the loader parses).
    pub(crate) fn to_json(&self) -> String {
        let mut out = String::new();
        for d in &self.docs {
            out.push_str(&serde_json::to_string(d).unwrap_or_default());
            out.push('\n');
        }
        out
    }

    /// The documents as indented JSON, one after the other (as `opm render -o json`).
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::new();
        for d in &self.docs {
            out.push_str(&serde_json::to_string_pretty(d).unwrap_or_default());
            out.push('\n');
        }
        out
    }

    /// The documents as YAML, separated by `---`.
    pub fn to_yaml(&self) -> Result<String, serde_saphyr::ser::Error> {
        let text = serde_saphyr::to_string_multiple(&self.docs)?;
        Ok(format!("---\n{text}"))
    }

    /// Number of packages.
    pub fn package_count(&self) -> usize {
        self.packages
    }

    /// Number of bundles.
    pub fn bundle_count(&self) -> usize {
        self.bundles
    }
}

/// Renders bundle directories (each one bundle; see [`find_bundle_dirs`] for parent
/// directories) into one catalog. The same directories give byte-identical output in any
/// order. The first error in directory order is returned. A bundle name two directories
/// define is kept once (the first in version order), with a warning naming both.
pub fn render_bundle_dirs(dirs: &[PathBuf]) -> Result<RenderedCatalog, LoadError> {
    let mut dirs = dirs.to_vec();
    dirs.sort();
    dirs.dedup();
    let read = parallel_map(&dirs, |d| read_bundle(d));
    if read.len() != dirs.len() {
        return Err(LoadError::Io {
            path: dirs.first().cloned().unwrap_or_default(),
            source: std::io::Error::other("a bundle reader thread failed"),
        });
    }
    let mut bundles = read
        .into_iter()
        .collect::<Result<Vec<BundleDir>, LoadError>>()?;
    let mut warnings: Vec<String> = bundles.iter().flat_map(|b| b.warnings.clone()).collect();
    // A bundle name defined by two directories (a repository that kept an old copy): the
    // first in version order is kept, as a registry adds bundles in that order and refuses
    // a name it already holds; each other one is skipped with a warning naming both.
    bundles.sort_by(|a, b| {
        (a.package.as_str(), a.name.as_str(), &a.version, &a.dir).cmp(&(
            b.package.as_str(),
            b.name.as_str(),
            &b.version,
            &b.dir,
        ))
    });
    let mut kept: Vec<BundleDir> = Vec::with_capacity(bundles.len());
    for b in bundles {
        match kept.last() {
            Some(first) if first.package == b.package && first.name == b.name => {
                warnings.push(format!(
                    "bundle {} of package {} is defined twice, by {} ({}) and by {} ({}): the first in version order is kept, {} is skipped",
                    b.name,
                    b.package,
                    first.dir.display(),
                    first.version,
                    b.dir.display(),
                    b.version,
                    b.dir.display()
                ));
            }
            _ => kept.push(b),
        }
    }
    kept.sort_by(|a, b| a.dir.cmp(&b.dir));
    let bundles = kept;
    let mut by_package: BTreeMap<&str, Vec<&BundleDir>> = BTreeMap::new();
    for b in &bundles {
        by_package.entry(b.package.as_str()).or_default().push(b);
    }
    let mut docs = Vec::new();
    for (package, members) in &by_package {
        let (pkg, channels, bundle_docs) = package_docs(package, members, &mut warnings);
        docs.push(Document::Package(pkg));
        docs.extend(channels.into_iter().map(Document::Channel));
        docs.extend(bundle_docs.into_iter().map(Document::Bundle));
    }
    Ok(RenderedCatalog {
        docs,
        packages: by_package.len(),
        bundles: bundles.len(),
        warnings,
    })
}

/// What the CRD checks need of one bundle directory.
#[derive(Clone, Debug)]
pub struct BundleManifests {
    /// The directory.
    pub dir: PathBuf,
    /// Package.
    pub package: String,
    /// Bundle (CSV) name.
    pub bundle: String,
    /// Its CRD manifests (each file's first document), in file name order: the file and the
    /// object.
    pub crds: Vec<(String, serde_json::Value)>,
    /// The CSV's `alm-examples` annotation, as written.
    pub alm_examples: Option<String>,
}

/// The CRD manifests of every bundle directory at or below `path`, in directory order;
/// None when `path` is not bundle directories. A bundle name two directories define is
/// kept once, as [`render_bundle_dirs`] keeps it.
pub fn bundle_manifests(path: &Path) -> Result<Option<Vec<BundleManifests>>, LoadError> {
    let Some(mut dirs) = find_bundle_dirs(path)? else {
        return Ok(None);
    };
    dirs.sort();
    dirs.dedup();
    let mut read = parallel_map(&dirs, |d| read_bundle(d))
        .into_iter()
        .collect::<Result<Vec<BundleDir>, LoadError>>()?;
    read.sort_by(|a, b| {
        (a.package.as_str(), a.name.as_str(), &a.version, &a.dir).cmp(&(
            b.package.as_str(),
            b.name.as_str(),
            &b.version,
            &b.dir,
        ))
    });
    read.dedup_by(|b, a| a.package == b.package && a.name == b.name);
    read.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(Some(
        read.into_iter()
            .map(|b| BundleManifests {
                crds: b
                    .crds
                    .into_iter()
                    .map(|d| (d.origin.file, d.value))
                    .collect(),
                dir: b.dir,
                package: b.package,
                bundle: b.name,
                alm_examples: b.alm_examples,
            })
            .collect(),
    ))
}

/// The path a rendered catalog's text goes by (in errors, traces and the parse cache).
pub(crate) fn rendered_path(dir: &Path) -> String {
    format!("{} (rendered from bundle directories)", dir.display())
}

/// The catalog loader's hook: when `path` is a bundle directory or a directory of them, its
/// rendering as one in-memory FBC JSON file (warnings go to the log); else None.
/// The directory listings read to find out go to `listings`.
pub(crate) fn render_catalog_dir(
    path: &Path,
    listings: &mut Listings,
) -> Result<Option<SourceFile>, LoadError> {
    let Some(dirs) = detect::find_bundle_dirs_listing(path, listings)? else {
        return Ok(None);
    };
    let rendered = render_bundle_dirs(&dirs)?;
    for w in &rendered.warnings {
        log::warn!("{w}");
    }
    Ok(Some(SourceFile {
        path: rendered_path(path),
        text: rendered.to_json(),
    }))
}
