//! The fields of a ClusterServiceVersion that rendering needs: name, version, upgrade
//! edges, the `olm.properties` annotation, and owned and required APIs.

use serde_json::{Map, Value};

use super::doc::{Fields, FirstDoc};
use crate::catalog::error::LoadError;
use crate::version::Version;

/// An API as opm keys it: group, version, kind and plural.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Api {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural resource name (compared in the owned-CRD check only).
    pub plural: String,
}

impl Api {
    /// An API from its parts.
    pub fn new(group: &str, version: &str, kind: &str, plural: &str) -> Api {
        Api {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            plural: plural.to_string(),
        }
    }
}

/// A CSV, read.
pub(super) struct Csv {
    /// `metadata.name`.
    pub name: String,
    /// `spec.version`.
    pub version: Version,
    /// `spec.replaces` (an empty string counts as none).
    pub replaces: Option<String>,
    /// `spec.skips`.
    pub skips: Vec<String>,
    /// The `olm.skipRange` annotation (an empty string counts as none).
    pub skip_range: Option<String>,
    /// The properties of the `olm.properties` annotation (a JSON list in a string).
    pub properties: Vec<Value>,
    /// APIs of `spec.apiservicedefinitions.owned`.
    pub owned_apis: Vec<Api>,
    /// APIs of `spec.customresourcedefinitions.required` and
    /// `spec.apiservicedefinitions.required`.
    pub required_apis: Vec<Api>,
}

/// `name` of a CRD description (`plural.group`) split into plural and group.
fn split_crd_name<'a>(
    f: &Fields<'_>,
    name: &'a str,
    field: &str,
) -> Result<(&'a str, &'a str), LoadError> {
    name.split_once('.')
        .ok_or_else(|| f.invalid(field, format!("{name:?} is not <plural>.<group>")))
}

/// CRD descriptions (`spec.customresourcedefinitions.owned` or `.required`) as APIs.
fn crd_descriptions(
    f: &Fields<'_>,
    section: Option<&Map<String, Value>>,
    key: &str,
) -> Result<Vec<Api>, LoadError> {
    let base = format!("spec.customresourcedefinitions.{key}");
    let mut out = Vec::new();
    for (i, d) in f
        .opt_list(section.and_then(|s| s.get(key)), &base)?
        .iter()
        .enumerate()
    {
        let at = |k: &str| format!("{base}[{i}].{k}");
        let name = f.req_str(d.get("name"), &at("name"))?;
        let (plural, group) = split_crd_name(f, name, &at("name"))?;
        let version = f.req_str(d.get("version"), &at("version"))?;
        let kind = f.req_str(d.get("kind"), &at("kind"))?;
        out.push(Api::new(group, version, kind, plural));
    }
    Ok(out)
}

/// API service descriptions (`spec.apiservicedefinitions.owned` or `.required`) as APIs.
fn api_descriptions(
    f: &Fields<'_>,
    section: Option<&Map<String, Value>>,
    key: &str,
) -> Result<Vec<Api>, LoadError> {
    let base = format!("spec.apiservicedefinitions.{key}");
    let mut out = Vec::new();
    for (i, d) in f
        .opt_list(section.and_then(|s| s.get(key)), &base)?
        .iter()
        .enumerate()
    {
        let at = |k: &str| format!("{base}[{i}].{k}");
        let group = f.opt_str(d.get("group"), &at("group"))?.unwrap_or("");
        let version = f.req_str(d.get("version"), &at("version"))?;
        let kind = f.req_str(d.get("kind"), &at("kind"))?;
        let plural = f.opt_str(d.get("name"), &at("name"))?.unwrap_or("");
        out.push(Api::new(group, version, kind, plural));
    }
    Ok(out)
}

/// The `olm.properties` annotation: a JSON list of `{type, value}` in a string.
fn annotation_properties(f: &Fields<'_>, text: Option<&str>) -> Result<Vec<Value>, LoadError> {
    let field = "metadata.annotations[\"olm.properties\"]";
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(Vec::new());
    };
    let list: Vec<Value> = serde_json::from_str(text)
        .map_err(|e| f.invalid(field, format!("not a JSON list of properties: {e}")))?;
    Ok(list)
}

/// Every CRD the CSV owns must be served by a CRD manifest of the bundle, as opm requires.
fn check_owned_crds(f: &Fields<'_>, owned: &[Api], crd_apis: &[Api]) -> Result<(), LoadError> {
    for (i, api) in owned.iter().enumerate() {
        if !crd_apis.contains(api) {
            return Err(f.invalid(
                &format!("spec.customresourcedefinitions.owned[{i}]"),
                format!(
                    "the CSV owns {} ({}.{} {}), but no CustomResourceDefinition manifest of the bundle serves it (opm refuses such a bundle)",
                    api.kind, api.plural, api.group, api.version
                ),
            ));
        }
    }
    Ok(())
}

impl Csv {
    /// Reads a CSV document. Every CRD the CSV owns must have a CRD manifest in the bundle
    /// (`crd_apis`), as opm requires.
    pub fn read(doc: &FirstDoc, crd_apis: &[Api]) -> Result<Csv, LoadError> {
        let f = Fields {
            origin: &doc.origin,
        };
        let metadata = f.req_map(doc.value.get("metadata"), "metadata")?;
        let name = f.req_str(metadata.get("name"), "metadata.name")?;
        let annotations = f.opt_map(metadata.get("annotations"), "metadata.annotations")?;
        let annotation = |k: &str| {
            let field = format!("metadata.annotations[\"{k}\"]");
            f.opt_str(annotations.and_then(|a| a.get(k)), &field)
        };
        let skip_range = annotation("olm.skipRange")?
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let properties = annotation_properties(&f, annotation("olm.properties")?)?;
        let spec = f.req_map(doc.value.get("spec"), "spec")?;
        let version_text = f.req_str(spec.get("version"), "spec.version")?;
        let version =
            Version::parse(version_text).map_err(|e| f.invalid("spec.version", e.to_string()))?;
        let replaces = f
            .opt_str(spec.get("replaces"), "spec.replaces")?
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let mut skips = Vec::new();
        for (i, s) in f
            .opt_list(spec.get("skips"), "spec.skips")?
            .iter()
            .enumerate()
        {
            skips.push(f.req_str(Some(s), &format!("spec.skips[{i}]"))?.to_string());
        }
        let crds = f.opt_map(
            spec.get("customresourcedefinitions"),
            "spec.customresourcedefinitions",
        )?;
        let apis = f.opt_map(
            spec.get("apiservicedefinitions"),
            "spec.apiservicedefinitions",
        )?;
        check_owned_crds(&f, &crd_descriptions(&f, crds, "owned")?, crd_apis)?;
        let mut required_apis = crd_descriptions(&f, crds, "required")?;
        required_apis.extend(api_descriptions(&f, apis, "required")?);
        Ok(Csv {
            name: name.to_string(),
            version,
            replaces: replaces.map(str::to_string),
            skips,
            skip_range: skip_range.map(str::to_string),
            properties,
            owned_apis: api_descriptions(&f, apis, "owned")?,
            required_apis,
        })
    }
}
