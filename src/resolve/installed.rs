//! Installed bundles that no catalog has (OLM's `@existing` catalog): every property the
//! request lists for them counts, wherever the bundle came from (docs/semantics.md §7).

use serde_json::Value;

use crate::catalog::bundle_properties;
use crate::catalog::{Bundle, BundleId, Gvk, OpaqueProperty, PackageRequirement};
use crate::constraint::{CandidateView, CelCache, Constraint, Limits};
use crate::range::VersionRange;
use crate::request::InstalledBundle;
use crate::version::Version;

use super::constraints::first_constraint_dependency;
use super::universe::RequestError;
use super::{ConstraintMatches, Universe};

/// The typed view of an installed-only bundle's properties, before interning.
#[derive(Debug, Default)]
pub(super) struct Declared {
    /// `olm.package`: package name and version.
    pub package: Option<(String, Option<Version>)>,
    /// `olm.gvk`.
    pub provides: Vec<Gvk>,
    /// `olm.label`.
    pub labels: Vec<String>,
    /// `olm.package.required`.
    pub requires_packages: Vec<PackageRequirement>,
    /// `olm.gvk.required`.
    pub requires_gvks: Vec<Gvk>,
    /// `olm.label.required`.
    pub requires_labels: Vec<String>,
    /// `olm.constraint` and the alias forms, parsed.
    pub requires_constraints: Vec<Constraint>,
    /// The raw values of the `olm.constraint` properties.
    pub constraints: Vec<Box<serde_json::value::RawValue>>,
    /// `olm.deprecated`.
    pub deprecated: bool,
    /// Every other property, opaque.
    pub properties: Vec<OpaqueProperty>,
    /// Every property as CEL sees it: (type, value).
    pub cel: Vec<(String, Value)>,
}

/// Reads the properties of installed entry number `i`.
pub(super) fn declared(i: usize, inst: &InstalledBundle) -> Result<Declared, RequestError> {
    let mut d = Declared::default();
    let mut cache = CelCache::new();
    let limits = Limits::default();
    for (k, p) in inst.properties.iter().enumerate() {
        let field = format!("installed[{i}].properties[{k}]");
        let bad = |what: &str| RequestError(format!("{field}: {what}"));
        let kind = p
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a property needs a string `type`"))?;
        let value = p.get("value").cloned().unwrap_or(Value::Null);
        d.cel.push((kind.to_string(), value.clone()));
        match kind {
            "olm.package" => {
                let name = text(&value, "packageName")
                    .ok_or_else(|| bad("olm.package needs a string `packageName` and `version`"))?;
                let version = match text(&value, "version") {
                    Some(v) if !v.is_empty() => {
                        Some(Version::parse(&v).map_err(|e| bad(&format!("olm.package {e}")))?)
                    }
                    _ => None,
                };
                d.package = Some((name, version));
            }
            "olm.gvk" => d
                .provides
                .push(gvk(&value).ok_or_else(|| bad("olm.gvk needs group, version and kind"))?),
            "olm.gvk.required" => d.requires_gvks.push(
                gvk(&value).ok_or_else(|| bad("olm.gvk.required needs group, version and kind"))?,
            ),
            "olm.label" => d.labels.push(
                text(&value, "label").ok_or_else(|| bad("olm.label needs a string `label`"))?,
            ),
            "olm.label.required" => d.requires_labels.push(
                text(&value, "label")
                    .ok_or_else(|| bad("olm.label.required needs a string `label`"))?,
            ),
            "olm.package.required" => {
                let package = text(&value, "packageName")
                    .ok_or_else(|| bad("olm.package.required needs a string `packageName`"))?;
                let raw = text(&value, "versionRange").unwrap_or_else(|| "*".to_string());
                let range = VersionRange::parse(&raw)
                    .map_err(|e| bad(&format!("versionRange {raw:?}: {e}")))?;
                d.requires_packages
                    .push(PackageRequirement { package, range });
            }
            "olm.deprecated" => d.deprecated = true,
            _ if Constraint::is_constraint_type(kind) => {
                let c = Constraint::from_typed_value(kind, &value, &limits, &mut cache)
                    .map_err(|e| bad(&format!("{kind}: {e}")))?;
                d.requires_constraints.push(c);
                if kind == "olm.constraint" {
                    d.constraints.push(raw(&value).map_err(|e| bad(&e))?);
                } else {
                    d.properties.push(OpaqueProperty {
                        kind: kind.to_string(),
                        value: raw(&value).map_err(|e| bad(&e))?,
                    });
                }
            }
            _ => d.properties.push(OpaqueProperty {
                kind: kind.to_string(),
                value: raw(&value).map_err(|e| bad(&e))?,
            }),
        }
    }
    Ok(d)
}

/// Adds the constraint matches installed-only bundles take part in to `m`: their own
/// constraints tested against every bundle, and every constraint in `m` tested against
/// them (catalog bundles' constraints can be met by what is installed).
pub(super) fn add_matches(u: &Universe, m: &mut ConstraintMatches) {
    let only = u.installed_only();
    if only.is_empty() {
        return;
    }
    let views: Vec<CandidateView<'_>> = only.iter().map(|b| view(u, b)).collect();
    for (key, found) in m.matches.iter_mut() {
        let Some(c) = constraint_of(u, *key) else {
            continue;
        };
        for (b, v) in only.iter().zip(&views) {
            let verdict = c.test(v);
            if verdict.is_match() {
                found.push(b.id);
            }
        }
    }
    let owners: Vec<&Bundle> = only
        .iter()
        .filter(|b| !b.requires_constraints.is_empty())
        .collect();
    if owners.is_empty() {
        return;
    }
    let catalog_props: Vec<Vec<(String, Value)>> = u
        .set
        .bundles
        .iter()
        .map(|b| bundle_properties(b, &u.set))
        .collect();
    for a in owners {
        let base = first_constraint_dependency(a);
        for (k, c) in a.requires_constraints.iter().enumerate() {
            let key = (a.id, base + k as u32);
            let mut found = Vec::new();
            let mut errors = Vec::new();
            let catalog = u
                .set
                .bundles
                .iter()
                .zip(&catalog_props)
                .map(|(b, p)| (b.id, CandidateView::of_bundle(b, &u.set, p)));
            let installed = only.iter().zip(&views).map(|(b, v)| (b.id, v.clone()));
            for (id, v) in catalog.chain(installed) {
                let verdict = c.test(&v);
                if verdict.is_match() {
                    found.push(id);
                }
                errors.extend(
                    verdict
                        .errors
                        .into_iter()
                        .map(|e| format!("{}: {e}", u.bundle(id).name)),
                );
            }
            m.matches.insert(key, found);
            if !errors.is_empty() {
                m.errors.insert(key, errors);
            }
        }
    }
}

/// The constraint behind dependency `d` of bundle `a`, when it is one.
fn constraint_of(u: &Universe, (a, d): (BundleId, u32)) -> Option<&Constraint> {
    let b = u.bundle(a);
    let k = d.checked_sub(first_constraint_dependency(b))?;
    b.requires_constraints.get(k as usize)
}

/// An installed-only bundle as constraints see it.
fn view<'u>(u: &'u Universe, b: &'u Bundle) -> CandidateView<'u> {
    CandidateView {
        package: u.package_name(b.package),
        version: &b.version,
        provides: b.provides.iter().filter_map(|g| u.gvk(*g)).collect(),
        properties: u.installed_only_properties(b.id).unwrap_or_default(),
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn gvk(v: &Value) -> Option<Gvk> {
    Some(Gvk {
        group: text(v, "group")?,
        version: text(v, "version")?,
        kind: text(v, "kind")?,
    })
}

fn raw(v: &Value) -> Result<Box<serde_json::value::RawValue>, String> {
    serde_json::value::to_raw_value(v).map_err(|e| format!("value cannot be kept: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn inst(props: Value) -> InstalledBundle {
        InstalledBundle {
            bundle: "a.v1".into(),
            properties: serde_json::from_value(props).unwrap(),
            ..InstalledBundle::default()
        }
    }

    #[test]
    fn every_property_kind_is_read() {
        let d = declared(
            0,
            &inst(json!([
                {"type": "olm.package", "value": {"packageName": "a", "version": "1.0.0"}},
                {"type": "olm.gvk", "value": {"group": "g.io", "version": "v1", "kind": "A"}},
                {"type": "olm.gvk.required", "value": {"group": "h.io", "version": "v1", "kind": "H"}},
                {"type": "olm.package.required", "value": {"packageName": "b", "versionRange": "1.0.0"}},
                {"type": "olm.label", "value": {"label": "x"}},
                {"type": "olm.label.required", "value": {"label": "y"}},
                {"type": "olm.constraint", "value": {"package": {"packageName": "c", "versionRange": ">=1.0.0"}}},
                {"type": "olm.maxOpenShiftVersion", "value": "4.14"}
            ])),
        )
        .unwrap();
        assert_eq!(d.package.as_ref().map(|p| p.0.as_str()), Some("a"));
        assert_eq!(d.provides.len(), 1);
        assert_eq!(d.requires_gvks.len(), 1);
        assert_eq!(d.requires_packages[0].package, "b");
        assert_eq!(d.labels, ["x"]);
        assert_eq!(d.requires_labels, ["y"]);
        assert_eq!(d.requires_constraints.len(), 1);
        assert_eq!(d.constraints.len(), 1);
        assert_eq!(d.properties.len(), 1);
        assert_eq!(d.cel.len(), 8);
    }

    #[test]
    fn malformed_properties_name_the_field() {
        let e = declared(
            3,
            &inst(json!([{"type": "olm.gvk", "value": {"group": "g"}}])),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("installed[3].properties[0]"), "{e}");
        let e = declared(0, &inst(json!([{"value": {}}])))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`type`"), "{e}");
        let e = declared(
            0,
            &inst(json!([{"type": "olm.package.required", "value": {"packageName": "b", "versionRange": ">=>1"}}])),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("versionRange"), "{e}");
    }
}
