//! A bundle's properties, as opm renders them: `olm.package`, provided `olm.gvk` (CRD
//! manifests, owned API services, listed `olm.gvk` properties), `olm.gvk.required` (required
//! CRDs and API services, `olm.gvk` dependencies), `olm.package.required` (`olm.package`
//! dependencies), and every other listed property or dependency passed through; sorted by
//! type, then by the value's JSON text.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::csv::{Api, Csv};
use super::doc::Fields;
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;
use crate::range::VersionRange;

/// One FBC property.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(super) struct Property {
    /// Property type, e.g. `olm.gvk`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its value.
    pub value: Value,
}

/// What a bundle's properties are made from.
pub(super) struct Input<'a> {
    /// Package, from the annotations.
    pub package: &'a str,
    /// The CSV.
    pub csv: &'a Csv,
    /// Where the CSV is.
    pub csv_origin: &'a Origin,
    /// APIs of the bundle's CRD manifests.
    pub crd_apis: &'a [Api],
    /// The `dependencies` list of `metadata/` and the file it is in.
    pub dependencies: Option<(&'a Origin, &'a [Value])>,
    /// The `properties` list of `metadata/` and the file it is in.
    pub properties: Option<(&'a Origin, &'a [Value])>,
}

/// A GVK as opm keys it: group, kind, version (the order of its JSON keys).
type GvkKey = (String, String, String);

fn gvk_key(api: &Api) -> GvkKey {
    (api.group.clone(), api.kind.clone(), api.version.clone())
}

/// Properties being assembled.
#[derive(Default)]
struct Acc {
    provided: BTreeSet<GvkKey>,
    required: BTreeSet<GvkKey>,
    other: Vec<Property>,
}

/// `{group, kind, version}` of a listed `olm.gvk` value. Missing parts are empty, as in
/// opm; a part of another type is an error.
fn gvk_of(f: &Fields<'_>, value: &Value, field: &str) -> Result<GvkKey, LoadError> {
    let part = |k: &str| -> Result<String, LoadError> {
        let s = f.opt_str(value.get(k), &format!("{field}.{k}"))?;
        Ok(s.unwrap_or("").to_string())
    };
    Ok((part("group")?, part("kind")?, part("version")?))
}

/// `type` and `value` of a listed property or dependency.
fn type_and_value<'v>(
    f: &Fields<'_>,
    item: &'v Value,
    field: &str,
) -> Result<(&'v str, &'v Value), LoadError> {
    let kind = f.req_str(item.get("type"), &format!("{field}.type"))?;
    Ok((kind, item.get("value").unwrap_or(&Value::Null)))
}

/// Listed properties (`metadata/` properties, the CSV's `olm.properties`): `olm.gvk` is
/// provided, `olm.package` must agree with the bundle's own, others pass through.
fn add_properties(
    acc: &mut Acc,
    input: &Input<'_>,
    f: &Fields<'_>,
    list: &[Value],
    base: &str,
) -> Result<(), LoadError> {
    for (i, item) in list.iter().enumerate() {
        let field = format!("{base}[{i}]");
        let (kind, value) = type_and_value(f, item, &field)?;
        match kind {
            "olm.gvk" => {
                acc.provided
                    .insert(gvk_of(f, value, &format!("{field}.value"))?);
            }
            "olm.package" => {
                let same = value.get("packageName").and_then(Value::as_str) == Some(input.package)
                    && value
                        .get("version")
                        .and_then(Value::as_str)
                        .map(crate::version::Version::parse)
                        == Some(Ok(input.csv.version.clone()));
                if !same {
                    return Err(f.invalid(
                        &format!("{field}.value"),
                        format!(
                            "contradicts the bundle's package {} {} (package annotation and CSV spec.version)",
                            input.package, input.csv.version
                        ),
                    ));
                }
            }
            _ => acc.other.push(Property {
                kind: kind.to_string(),
                value: value.clone(),
            }),
        }
    }
    Ok(())
}

/// An `olm.package` dependency as `olm.package.required`: its `version` is a range.
fn package_required(
    f: &Fields<'_>,
    value: &Value,
    field: &str,
    warnings: &mut Vec<String>,
) -> Result<Property, LoadError> {
    let name = f.req_str(value.get("packageName"), &format!("{field}.packageName"))?;
    let version_field = format!("{field}.version");
    let range = f.req_str(value.get("version"), &version_field)?;
    VersionRange::parse_tolerant(range)
        .map_err(|e| f.invalid(&version_field, format!("invalid version range: {e}")))?;
    let extra: Vec<&str> = value
        .as_object()
        .map(|m| {
            m.keys()
                .map(String::as_str)
                .filter(|k| !matches!(*k, "packageName" | "version"))
                .collect()
        })
        .unwrap_or_default();
    if !extra.is_empty() {
        warnings.push(format!(
            "{}, field `{field}`: {} ignored (an olm.package dependency has only packageName and version)",
            f.origin,
            extra.join(", ")
        ));
    }
    Ok(Property {
        kind: "olm.package.required".into(),
        value: json!({"packageName": name, "versionRange": range}),
    })
}

/// `metadata/` dependencies: `olm.package` → `olm.package.required`, `olm.gvk` →
/// `olm.gvk.required`, others pass through (as opm renders them).
fn add_dependencies(
    acc: &mut Acc,
    f: &Fields<'_>,
    list: &[Value],
    warnings: &mut Vec<String>,
) -> Result<(), LoadError> {
    for (i, item) in list.iter().enumerate() {
        let field = format!("dependencies[{i}]");
        let (kind, value) = type_and_value(f, item, &field)?;
        match kind {
            "olm.package" => acc.other.push(package_required(
                f,
                value,
                &format!("{field}.value"),
                warnings,
            )?),
            "olm.gvk" => {
                let (group, kind, version) = gvk_of(f, value, &format!("{field}.value"))?;
                for (part, v) in [("kind", &kind), ("version", &version)] {
                    if v.is_empty() {
                        return Err(f.invalid(&format!("{field}.value.{part}"), "is missing"));
                    }
                }
                acc.required.insert((group, kind, version));
            }
            _ => {
                if kind == "olm.label" {
                    warnings.push(format!(
                        "{}, field `{field}`: opm renders an olm.label dependency as a provided olm.label property, so it constrains nothing",
                        f.origin
                    ));
                }
                acc.other.push(Property {
                    kind: kind.to_string(),
                    value: value.clone(),
                });
            }
        }
    }
    Ok(())
}

/// A value's JSON text as Go's `encoding/json` writes it (sorted keys, `<`, `>` and `&`
/// escaped): opm's sort key.
fn go_json(v: &Value) -> String {
    serde_json::to_string(v)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn gvk_property(kind: &str, (group, k, version): &GvkKey) -> Property {
    Property {
        kind: kind.into(),
        value: json!({"group": group, "kind": k, "version": version}),
    }
}

/// The bundle's properties, sorted by type and then by value text, without duplicates.
pub(super) fn bundle_properties(
    input: &Input<'_>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Property>, LoadError> {
    let mut acc = Acc::default();
    acc.provided.extend(
        input
            .crd_apis
            .iter()
            .chain(&input.csv.owned_apis)
            .map(gvk_key),
    );
    acc.required
        .extend(input.csv.required_apis.iter().map(gvk_key));
    if let Some((origin, list)) = input.properties {
        add_properties(&mut acc, input, &Fields { origin }, list, "properties")?;
    }
    let annotation = "metadata.annotations[\"olm.properties\"]";
    let csv_fields = Fields {
        origin: input.csv_origin,
    };
    add_properties(
        &mut acc,
        input,
        &csv_fields,
        &input.csv.properties,
        annotation,
    )?;
    if let Some((origin, list)) = input.dependencies {
        add_dependencies(&mut acc, &Fields { origin }, list, warnings)?;
    }
    let mut out = acc.other;
    out.push(Property {
        kind: "olm.package".into(),
        value: json!({"packageName": input.package, "version": input.csv.version.to_string()}),
    });
    out.extend(acc.provided.iter().map(|g| gvk_property("olm.gvk", g)));
    out.extend(
        acc.required
            .iter()
            .map(|g| gvk_property("olm.gvk.required", g)),
    );
    let mut keyed: Vec<(String, String, Property)> = out
        .into_iter()
        .map(|p| (p.kind.clone(), go_json(&p.value), p))
        .collect();
    keyed.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    keyed.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    Ok(keyed.into_iter().map(|(_, _, p)| p).collect())
}
