//! Reading one bundle directory: the files under `metadata/` (annotations, dependencies,
//! properties, whatever their names) and the manifests under `manifests/` (the CSV and the
//! CRDs), as opm's bundle parser does.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::csv::{Api, Csv};
use super::doc::{Fields, FirstDoc, read_first_doc};
use super::props::{self, Property};
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;
use crate::catalog::walk::{self, Kind, Root};
use crate::version::Version;

/// The annotation that names the bundle's package.
pub(super) const PACKAGE_ANNOTATION: &str = "operators.operatorframework.io.bundle.package.v1";
/// The annotation that lists the bundle's channels (comma-separated).
const CHANNELS_ANNOTATION: &str = "operators.operatorframework.io.bundle.channels.v1";
/// The annotation that names the package's default channel.
const DEFAULT_CHANNEL_ANNOTATION: &str = "operators.operatorframework.io.bundle.channel.default.v1";

/// One bundle directory, read and mapped to what its FBC documents need.
#[derive(Debug)]
pub(super) struct BundleDir {
    /// The directory.
    pub dir: PathBuf,
    /// Bundle name: the CSV's `metadata.name`.
    pub name: String,
    /// Package, from the package annotation (not from the directory name).
    pub package: String,
    /// Version, from the CSV's `spec.version`.
    pub version: Version,
    /// The CSV's `spec.replaces`.
    pub replaces: Option<String>,
    /// The CSV's `spec.skips`.
    pub skips: Vec<String>,
    /// The CSV's `olm.skipRange` annotation.
    pub skip_range: Option<String>,
    /// Channels from the channels annotation, in the order written.
    pub channels: Vec<String>,
    /// The default channel annotation.
    pub default_channel: Option<String>,
    /// Properties, sorted as opm sorts them.
    pub properties: Vec<Property>,
    /// Tolerated oddities, for the caller to report.
    pub warnings: Vec<String>,
    /// The CRD manifests, in file name order.
    pub crds: Vec<FirstDoc>,
    /// The CSV's `alm-examples` annotation.
    pub alm_examples: Option<String>,
}

/// The bundle's annotations.
struct Annotations {
    package: String,
    channels: Vec<String>,
    default_channel: Option<String>,
}

/// What `metadata/` holds: the first file with annotations, the first with a non-empty
/// `dependencies` list and the first with a non-empty `properties` list (in name order).
#[derive(Default)]
struct Metadata {
    annotations: Option<(Origin, Annotations)>,
    dependencies: Option<(Origin, Vec<Value>)>,
    properties: Option<(Origin, Vec<Value>)>,
}

/// The regular files of a directory of bundle `root`, as the catalog walk lists them,
/// sorted by name (subdirectories are skipped, as opm skips them; a special file or a link
/// out of the bundle is skipped with a warning).
fn sorted_files(
    dir: &Path,
    root: &Root,
    warnings: &mut Vec<String>,
) -> Result<Vec<PathBuf>, LoadError> {
    let mut files = Vec::new();
    for entry in walk::list(dir, root)? {
        match entry.kind {
            Kind::File => files.push(entry.path),
            Kind::Dir => {}
            Kind::Skipped(_) => warnings.extend(entry.skipped_warning()),
        }
    }
    Ok(files)
}

/// The annotations of a file's first document, when it holds any of the three bundle
/// annotations (opm's test for "this is the annotations file").
fn annotations_of(doc: &FirstDoc) -> Result<Option<Annotations>, LoadError> {
    let f = Fields {
        origin: &doc.origin,
    };
    let Some(map) = f.opt_map(doc.value.get("annotations"), "annotations")? else {
        return Ok(None);
    };
    let keys = [
        PACKAGE_ANNOTATION,
        CHANNELS_ANNOTATION,
        DEFAULT_CHANNEL_ANNOTATION,
    ];
    if !keys.iter().any(|k| map.contains_key(*k)) {
        return Ok(None);
    }
    let field = |k: &str| format!("annotations[\"{k}\"]");
    let package = f.req_str(map.get(PACKAGE_ANNOTATION), &field(PACKAGE_ANNOTATION))?;
    let channels_text = f.req_str(map.get(CHANNELS_ANNOTATION), &field(CHANNELS_ANNOTATION))?;
    let channels: Vec<String> = channels_text
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    if channels.is_empty() {
        return Err(f.invalid(&field(CHANNELS_ANNOTATION), "names no channel"));
    }
    let default_channel = f
        .opt_str(
            map.get(DEFAULT_CHANNEL_ANNOTATION),
            &field(DEFAULT_CHANNEL_ANNOTATION),
        )?
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    Ok(Some(Annotations {
        package: package.to_string(),
        channels,
        default_channel,
    }))
}

/// Reads every file under `metadata/` (each file's first document only). A later file that
/// also holds dependencies or properties is ignored, as opm ignores it, with a warning.
fn read_metadata(dir: &Path, warnings: &mut Vec<String>) -> Result<Metadata, LoadError> {
    let mut meta = Metadata::default();
    for file in sorted_files(&dir.join("metadata"), &Root::new(dir), warnings)? {
        let Some(doc) = read_first_doc(&file)? else {
            continue;
        };
        let f = Fields {
            origin: &doc.origin,
        };
        if meta.annotations.is_none()
            && let Some(a) = annotations_of(&doc)?
        {
            meta.annotations = Some((doc.origin.clone(), a));
        }
        for (key, slot) in [
            ("dependencies", &mut meta.dependencies),
            ("properties", &mut meta.properties),
        ] {
            let list = f.opt_list(doc.value.get(key), key)?;
            if list.is_empty() {
                continue;
            }
            match slot {
                None => *slot = Some((doc.origin.clone(), list.to_vec())),
                Some((first, _)) => warnings.push(format!(
                    "{}: `{key}` ignored: {} already holds them (only the first file counts)",
                    doc.origin.file, first.file
                )),
            }
        }
    }
    Ok(meta)
}

/// What `manifests/` holds: the first CSV, the APIs of every CRD, and the CRDs.
struct Manifests {
    csv: FirstDoc,
    crd_apis: Vec<Api>,
    crds: Vec<FirstDoc>,
}

/// The APIs a CRD manifest provides: one per `spec.versions[].name`, plus `spec.version`
/// of an `apiextensions.k8s.io/v1beta1` CRD.
fn crd_apis(doc: &FirstDoc, out: &mut Vec<Api>) -> Result<(), LoadError> {
    let f = Fields {
        origin: &doc.origin,
    };
    let spec = f.req_map(doc.value.get("spec"), "spec")?;
    let group = f.req_str(spec.get("group"), "spec.group")?;
    let names = f.req_map(spec.get("names"), "spec.names")?;
    let kind = f.req_str(names.get("kind"), "spec.names.kind")?;
    let plural = f
        .opt_str(names.get("plural"), "spec.names.plural")?
        .unwrap_or("");
    // The API server requires a CRD's name to be <plural>.<group>; a CSV owns it by that name.
    let name = doc
        .value
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str);
    let want = format!("{plural}.{group}");
    if let Some(name) = name
        && name != want
    {
        return Err(f.invalid(
            "metadata.name",
            format!(
                "{name:?} is not <spec.names.plural>.<spec.group> ({want:?}), as the API server requires of a CRD's name"
            ),
        ));
    }
    let api = |version: &str| Api::new(group, version, kind, plural);
    for (i, v) in f
        .opt_list(spec.get("versions"), "spec.versions")?
        .iter()
        .enumerate()
    {
        let field = format!("spec.versions[{i}].name");
        out.push(api(f.req_str(v.get("name"), &field)?));
    }
    let v1beta1 =
        doc.value.get("apiVersion").and_then(Value::as_str) == Some("apiextensions.k8s.io/v1beta1");
    if v1beta1 && let Some(v) = f.opt_str(spec.get("version"), "spec.version")? {
        out.push(api(v));
    }
    Ok(())
}

/// Reads every file under `manifests/` (each file's first document only): the first CSV,
/// and every CRD. Other kinds are not needed.
fn read_manifests(dir: &Path, warnings: &mut Vec<String>) -> Result<Manifests, LoadError> {
    let manifests = dir.join("manifests");
    let mut csv: Option<FirstDoc> = None;
    let mut crd_apis_all = Vec::new();
    let mut crds = Vec::new();
    for file in sorted_files(&manifests, &Root::new(dir), warnings)? {
        let Some(doc) = read_first_doc(&file)? else {
            continue;
        };
        match doc.value.get("kind").and_then(Value::as_str) {
            Some("ClusterServiceVersion") => match &csv {
                None => csv = Some(doc),
                Some(first) => warnings.push(format!(
                    "{}: a second ClusterServiceVersion is ignored ({} is the bundle's)",
                    doc.origin.file, first.origin.file
                )),
            },
            Some("CustomResourceDefinition") => {
                crd_apis(&doc, &mut crd_apis_all)?;
                crds.push(doc);
            }
            _ => {}
        }
    }
    let csv = csv.ok_or_else(|| LoadError::Invalid {
        origin: dir_origin(&manifests),
        field: "kind".into(),
        message: "no manifest is a ClusterServiceVersion".into(),
    })?;
    Ok(Manifests {
        csv,
        crd_apis: crd_apis_all,
        crds,
    })
}

/// An origin for a problem with a directory rather than with one file.
fn dir_origin(dir: &Path) -> Origin {
    Origin {
        file: dir.display().to_string(),
        document: 1,
        line: None,
    }
}

/// Reads one bundle directory.
pub(super) fn read_bundle(dir: &Path) -> Result<BundleDir, LoadError> {
    let mut warnings = Vec::new();
    let meta = read_metadata(dir, &mut warnings)?;
    let Some((_, annotations)) = meta.annotations else {
        return Err(LoadError::Invalid {
            origin: dir_origin(&dir.join("metadata/annotations.yaml")),
            field: format!("annotations[\"{PACKAGE_ANNOTATION}\"]"),
            message: "no file under metadata/ holds the bundle annotations (package and channels)"
                .into(),
        });
    };
    let manifests = read_manifests(dir, &mut warnings)?;
    let csv = Csv::read(&manifests.csv, &manifests.crd_apis)?;
    let input = props::Input {
        package: &annotations.package,
        csv: &csv,
        csv_origin: &manifests.csv.origin,
        crd_apis: &manifests.crd_apis,
        dependencies: meta.dependencies.as_ref().map(|(o, l)| (o, l.as_slice())),
        properties: meta.properties.as_ref().map(|(o, l)| (o, l.as_slice())),
    };
    let properties = props::bundle_properties(&input, &mut warnings)?;
    let alm_examples = manifests
        .csv
        .value
        .pointer("/metadata/annotations/alm-examples")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(BundleDir {
        crds: manifests.crds,
        alm_examples,
        dir: dir.to_path_buf(),
        name: csv.name,
        package: annotations.package,
        version: csv.version,
        replaces: csv.replaces,
        skips: csv.skips,
        skip_range: csv.skip_range,
        channels: annotations.channels,
        default_channel: annotations.default_channel,
        properties,
        warnings,
    })
}
