//! An installed ClusterServiceVersion as a bundle of OLM's `@existing` catalog: its
//! properties from the `operatorframework.io/properties` annotation, or inferred as OLM
//! infers them (docs/semantics.md §9).

use serde_json::{Value, json};

use super::error::StateError;
use super::object::{CsvSpec, CsvStatus, Kind, Object};
use crate::request::{EXISTING_CATALOG, InstalledBundle};
use crate::version::Version;

/// The annotation OLM projects a bundle's properties onto its CSV with.
pub const PROPERTIES_ANNOTATION: &str = "operatorframework.io/properties";

/// The CSV's typed parts (None for other kinds).
pub fn parts(o: &Object) -> Option<(&CsvSpec, &CsvStatus)> {
    match &o.kind {
        Kind::ClusterServiceVersion(s, t) => Some((s, t)),
        _ => None,
    }
}

/// True for a copy OLM made of a CSV in a namespace its operator watches: labelled
/// `olm.copiedFrom`, with status reason `Copied`, or annotated with another namespace as
/// `olm.operatorNamespace`.
pub(crate) fn is_copy(o: &Object) -> bool {
    let copied_reason = parts(o).is_some_and(|(_, st)| st.reason.as_deref() == Some("Copied"));
    let other_ns = o
        .annotation("olm.operatorNamespace")
        .is_some_and(|ns| ns != o.namespace());
    o.label("olm.copiedFrom").is_some() || copied_reason || other_ns
}

fn invalid(o: &Object, field: &str, message: String) -> StateError {
    StateError::Invalid {
        at: Box::new(o.source.clone()),
        object: super::read::describe(o.kind_name(), &o.metadata),
        field: field.to_string(),
        message,
    }
}

/// The CSV's version (`spec.version`; none when absent).
pub fn version(o: &Object) -> Result<Option<Version>, StateError> {
    let Some((spec, _)) = parts(o) else {
        return Ok(None);
    };
    spec.version
        .as_deref()
        .map(|v| Version::parse(v).map_err(|e| invalid(o, "spec.version", e.to_string())))
        .transpose()
}

/// The installed bundle a CSV is. `package` is the package of the one Subscription whose
/// `status.installedCSV` names it (None when zero or several do); `referenced` says whether
/// any does. A CSV nothing references is kept exactly as it is.
pub(crate) fn installed_bundle(
    o: &Object,
    package: Option<&str>,
    referenced: bool,
) -> Result<InstalledBundle, StateError> {
    let field = format!("metadata.annotations[\"{PROPERTIES_ANNOTATION}\"]");
    let version = version(o)?;
    let properties = match o.annotation(PROPERTIES_ANNOTATION) {
        Some(text) => annotated(text).map_err(|m| invalid(o, &field, m))?,
        None => inferred(o, package, version.as_ref())?,
    };
    let declared_package = properties.iter().find_map(|p| {
        (p.get("type")?.as_str()? == "olm.package")
            .then(|| {
                p.get("value")?
                    .get("packageName")?
                    .as_str()
                    .map(str::to_string)
            })
            .flatten()
    });
    Ok(InstalledBundle {
        bundle: o.name().to_string(),
        package: Some(declared_package.unwrap_or_default()),
        version: Some(version.unwrap_or_else(|| Version::new(0, 0, 0))),
        catalog: Some(EXISTING_CATALOG.to_string()),
        properties,
        keep: !referenced,
    })
}

/// The properties of the annotation: `{"properties": [{type, value}, ...]}`.
fn annotated(text: &str) -> Result<Vec<Value>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let list = v
        .get("properties")
        .and_then(Value::as_array)
        .ok_or("not an object with a `properties` list")?;
    for (i, p) in list.iter().enumerate() {
        if p.get("type").and_then(Value::as_str).is_none() {
            return Err(format!("properties[{i}] has no string `type`"));
        }
    }
    Ok(list.clone())
}

/// Properties as OLM infers them for a CSV without the annotation: `olm.gvk` for each owned
/// CRD (group: the CRD name after its first ".") and API service, `olm.gvk.required` for each
/// required one, and `olm.package` when one Subscription names the CSV.
fn inferred(
    o: &Object,
    package: Option<&str>,
    version: Option<&Version>,
) -> Result<Vec<Value>, StateError> {
    let Some((spec, _)) = parts(o) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let crds = [
        ("owned", &spec.crds.owned),
        ("required", &spec.crds.required),
    ];
    for (which, list) in crds {
        let kind = if which == "owned" {
            "olm.gvk"
        } else {
            "olm.gvk.required"
        };
        for (i, c) in list.iter().enumerate() {
            let Some((_, group)) = c.name.split_once('.') else {
                let field = format!("spec.customresourcedefinitions.{which}[{i}].name");
                let msg = format!(
                    "CRD name {:?} has no \".\" (it must be <plural>.<group>)",
                    c.name
                );
                return Err(invalid(o, &field, msg));
            };
            out.push(json!({"type": kind, "value": {"group": group, "version": c.version, "kind": c.kind}}));
        }
    }
    let apis = [
        ("olm.gvk", &spec.api_services.owned),
        ("olm.gvk.required", &spec.api_services.required),
    ];
    for (kind, list) in apis {
        for a in list {
            out.push(json!({"type": kind, "value": {"group": a.group, "version": a.version, "kind": a.kind}}));
        }
    }
    if let Some(p) = package {
        let v = version.map(ToString::to_string).unwrap_or_default();
        out.push(json!({"type": "olm.package", "value": {"packageName": p, "version": v}}));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::read::read_text;

    fn csv(extra: &str) -> Object {
        let text = format!(
            "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: etcdoperator.v0.9.2\n  namespace: ops\n{extra}"
        );
        read_text("csv.yaml", &text).unwrap().objects.remove(0)
    }

    #[test]
    fn the_annotation_wins() {
        let o = csv(
            "  annotations:\n    operatorframework.io/properties: '{\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"etcd\",\"version\":\"0.9.2\"}}]}'\nspec:\n  version: 0.9.2\n  customresourcedefinitions:\n    owned: [{name: etcdclusters.etcd.database.coreos.com, version: v1beta2, kind: EtcdCluster}]\n",
        );
        let b = installed_bundle(&o, None, false).unwrap();
        assert_eq!(b.package.as_deref(), Some("etcd"));
        assert_eq!(b.properties.len(), 1, "the annotation replaces inference");
        assert!(b.keep);
        assert_eq!(b.catalog.as_deref(), Some("@existing"));
    }

    #[test]
    fn without_the_annotation_properties_are_inferred() {
        let o = csv(
            "spec:\n  version: 0.9.2\n  customresourcedefinitions:\n    owned: [{name: etcdclusters.etcd.database.coreos.com, version: v1beta2, kind: EtcdCluster}]\n    required: [{name: backups.b.io, version: v1, kind: Backup}]\n  apiservicedefinitions:\n    owned: [{name: things, group: t.io, version: v1, kind: Thing}]\n",
        );
        let b = installed_bundle(&o, Some("etcd"), true).unwrap();
        let types: Vec<&str> = b
            .properties
            .iter()
            .filter_map(|p| p["type"].as_str())
            .collect();
        assert_eq!(
            types,
            ["olm.gvk", "olm.gvk.required", "olm.gvk", "olm.package"]
        );
        assert_eq!(
            b.properties[0]["value"]["group"],
            "etcd.database.coreos.com"
        );
        assert_eq!(b.package.as_deref(), Some("etcd"));
        assert!(!b.keep);
        let none = installed_bundle(&o, None, false).unwrap();
        assert_eq!(none.package.as_deref(), Some(""));
    }

    #[test]
    fn bad_input_names_the_field() {
        let o = csv(
            "spec:\n  customresourcedefinitions:\n    owned: [{name: nodot, version: v1, kind: X}]\n",
        );
        let e = installed_bundle(&o, None, false).unwrap_err().to_string();
        assert!(
            e.contains("spec.customresourcedefinitions.owned[0].name"),
            "{e}"
        );
        let o = csv("spec: {version: 1.0.0.0}\n");
        let e = installed_bundle(&o, None, false).unwrap_err().to_string();
        assert!(e.contains("spec.version"), "{e}");
        let o = csv("  annotations: {operatorframework.io/properties: 'not json'}\n");
        let e = installed_bundle(&o, None, false).unwrap_err().to_string();
        assert!(e.contains("operatorframework.io/properties"), "{e}");
    }

    #[test]
    fn copies_are_recognised() {
        assert!(is_copy(&csv("  labels: {olm.copiedFrom: other}\n")));
        assert!(is_copy(&csv("status: {reason: Copied}\n")));
        assert!(is_copy(&csv(
            "  annotations: {olm.operatorNamespace: other}\n"
        )));
        assert!(!is_copy(&csv(
            "  annotations: {olm.operatorNamespace: ops}\n"
        )));
    }
}
