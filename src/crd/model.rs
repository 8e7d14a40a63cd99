//! A CustomResourceDefinition as the CRD checks read it: its name, group and kind, each
//! version (served, storage, `openAPIV3Schema`), the conversion strategy and
//! `status.storedVersions`. Both `apiextensions.k8s.io/v1` and the older `v1beta1` layout
//! (one `spec.version`, one `spec.validation` for every version) are read.

use serde::Deserialize;
use serde_json::Value;

/// The API version of CRDs deppy reads from a cluster.
pub const CRD_API_V1: &str = "apiextensions.k8s.io/v1";
/// The older layout, still found in bundles.
pub const CRD_API_V1BETA1: &str = "apiextensions.k8s.io/v1beta1";

/// True for `kind`/`apiVersion` of a CustomResourceDefinition.
pub fn is_crd(api_version: &str, kind: &str) -> bool {
    kind == "CustomResourceDefinition" && matches!(api_version, CRD_API_V1 | CRD_API_V1BETA1)
}

/// One CRD.
#[derive(Clone, Debug, PartialEq)]
pub struct Crd {
    /// `metadata.name` (`<plural>.<group>`).
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.scope` is `Namespaced` (the default), not `Cluster`.
    pub namespaced: bool,
    /// `spec.versions`, in the order written.
    pub versions: Vec<CrdVersion>,
    /// `status.storedVersions` (empty for a manifest).
    pub stored_versions: Vec<String>,
    /// `spec.conversion.strategy` is `Webhook`.
    pub webhook: bool,
}

/// One version of a CRD.
#[derive(Clone, Debug, PartialEq)]
pub struct CrdVersion {
    /// e.g. `v1alpha1`.
    pub name: String,
    /// Served by the API server.
    pub served: bool,
    /// The storage version.
    pub storage: bool,
    /// Its `openAPIV3Schema`, when it has one.
    pub schema: Option<Value>,
}

impl Crd {
    /// The version named `name`.
    pub fn version(&self, name: &str) -> Option<&CrdVersion> {
        self.versions.iter().find(|v| v.name == name)
    }

    /// The names of its served versions.
    pub fn served(&self) -> impl Iterator<Item = &str> {
        self.versions
            .iter()
            .filter(|v| v.served)
            .map(|v| v.name.as_str())
    }

    /// The name of its storage version.
    pub fn storage(&self) -> Option<&str> {
        self.versions
            .iter()
            .find(|v| v.storage)
            .map(|v| v.name.as_str())
    }
}

#[derive(Deserialize)]
struct Raw {
    #[serde(rename = "apiVersion", default)]
    api_version: String,
    metadata: RawMeta,
    spec: RawSpec,
    #[serde(default)]
    status: Option<RawStatus>,
}

#[derive(Deserialize)]
struct RawMeta {
    name: String,
}

#[derive(Deserialize)]
struct RawSpec {
    group: String,
    names: RawNames,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    versions: Vec<RawVersion>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    validation: Option<RawValidation>,
    #[serde(default)]
    conversion: Option<RawConversion>,
}

#[derive(Deserialize)]
struct RawNames {
    kind: String,
    #[serde(default)]
    plural: Option<String>,
}

#[derive(Deserialize)]
struct RawVersion {
    name: String,
    #[serde(default)]
    served: bool,
    #[serde(default)]
    storage: bool,
    #[serde(default)]
    schema: Option<RawValidation>,
}

#[derive(Deserialize)]
struct RawValidation {
    #[serde(rename = "openAPIV3Schema", default)]
    open_api_v3_schema: Option<Value>,
}

#[derive(Deserialize)]
struct RawConversion {
    #[serde(default)]
    strategy: Option<String>,
}

#[derive(Deserialize)]
struct RawStatus {
    #[serde(rename = "storedVersions", default)]
    stored_versions: Option<Vec<String>>,
}

/// Why a CRD cannot be read: the field and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct CrdError {
    /// e.g. `spec.versions[0].name`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// A CRD's `metadata.name` must be `<spec.names.plural>.<spec.group>`, as the API server
/// requires (and OLM and kubectl look a CRD up by that name).
fn check_name(name: &str, plural: Option<&str>, group: &str) -> Result<(), CrdError> {
    let Some(plural) = plural.filter(|p| !p.is_empty()) else {
        return Err(CrdError {
            field: "spec.names.plural".into(),
            message: "missing: a CRD's name is <spec.names.plural>.<spec.group>".into(),
        });
    };
    let want = format!("{plural}.{group}");
    if name != want {
        return Err(CrdError {
            field: "metadata.name".into(),
            message: format!(
                "{name:?} is not <spec.names.plural>.<spec.group> ({want:?}), as the API server requires of a CRD's name"
            ),
        });
    }
    Ok(())
}

/// Reads a CRD from the whole object.
pub fn parse(value: &Value) -> Result<Crd, CrdError> {
    let raw: Raw = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        CrdError {
            field: if path == "." { "(object)".into() } else { path },
            message: e.into_inner().to_string(),
        }
    })?;
    let spec = raw.spec;
    let shared = spec.validation.and_then(|v| v.open_api_v3_schema);
    let mut versions: Vec<CrdVersion> = spec
        .versions
        .into_iter()
        .map(|v| CrdVersion {
            name: v.name,
            served: v.served,
            storage: v.storage,
            schema: v
                .schema
                .and_then(|s| s.open_api_v3_schema)
                .or_else(|| shared.clone()),
        })
        .collect();
    if raw.api_version == CRD_API_V1BETA1
        && let Some(v) = spec.version
        && !versions.iter().any(|x| x.name == v)
    {
        // The v1beta1 single-version form: served and stored.
        versions.push(CrdVersion {
            name: v,
            served: true,
            storage: versions.is_empty(),
            schema: shared,
        });
    }
    if versions.is_empty() {
        return Err(CrdError {
            field: "spec.versions".into(),
            message: "no version".into(),
        });
    }
    check_name(
        &raw.metadata.name,
        spec.names.plural.as_deref(),
        &spec.group,
    )?;
    let webhook = spec
        .conversion
        .and_then(|c| c.strategy)
        .is_some_and(|s| s == "Webhook");
    Ok(Crd {
        name: raw.metadata.name,
        group: spec.group,
        kind: spec.names.kind,
        namespaced: spec.scope.as_deref() != Some("Cluster"),
        versions,
        stored_versions: raw
            .status
            .and_then(|s| s.stored_versions)
            .unwrap_or_default(),
        webhook,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_v1_and_v1beta1() {
        let v1 = json!({"apiVersion": CRD_API_V1, "metadata": {"name": "as.x.io"},
            "spec": {"group": "x.io", "names": {"kind": "A", "plural": "as"}, "conversion": {"strategy": "Webhook"},
              "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]},
            "status": {"storedVersions": ["v1"]}});
        let c = parse(&v1).unwrap();
        assert_eq!(c.storage(), Some("v1"));
        assert!(c.webhook);
        assert_eq!(c.stored_versions, ["v1"]);
        let beta = json!({"apiVersion": CRD_API_V1BETA1, "metadata": {"name": "as.x.io"},
            "spec": {"group": "x.io", "names": {"kind": "A", "plural": "as"}, "version": "v1alpha1",
              "validation": {"openAPIV3Schema": {"type": "object"}}}});
        let c = parse(&beta).unwrap();
        assert_eq!(c.served().collect::<Vec<_>>(), ["v1alpha1"]);
        assert!(c.versions[0].schema.is_some());
    }

    #[test]
    fn a_bad_crd_names_the_field() {
        let bad = json!({"metadata": {"name": "as.x.io"},
            "spec": {"group": "x.io", "names": {"kind": "A"}, "versions": [{"served": true}]}});
        let e = parse(&bad).unwrap_err();
        assert_eq!(e.field, "spec.versions[0]");
        assert!(e.message.contains("name"), "{e}");
        let none =
            json!({"metadata": {"name": "a"}, "spec": {"group": "x", "names": {"kind": "A"}}});
        assert_eq!(parse(&none).unwrap_err().field, "spec.versions");
    }

    #[test]
    fn a_crd_named_other_than_plural_dot_group_is_refused() {
        let crd = |name: &str| {
            json!({"metadata": {"name": name}, "spec": {"group": "x.io",
                "names": {"kind": "A", "plural": "as"}, "versions": [{"name": "v1", "served": true}]}})
        };
        assert!(parse(&crd("as.x.io")).is_ok());
        let e = parse(&crd("a.x.io")).unwrap_err();
        assert_eq!(e.field, "metadata.name");
        assert!(
            e.message
                .contains("not <spec.names.plural>.<spec.group> (\"as.x.io\")"),
            "{e}"
        );
        let mut no_plural = crd("as.x.io");
        no_plural["spec"]["names"] = json!({"kind": "A"});
        assert_eq!(parse(&no_plural).unwrap_err().field, "spec.names.plural");
    }
}
