//! The CRDs each bundle ships, where the catalog says: bundle directories' `manifests/`
//! (read once per bound catalog), or a File-Based Catalog bundle's `olm.bundle.object`
//! properties (base64 of the object, as `opm render` writes them; read only when the state
//! holds CRDs to check against: kept in memory, or read back from the catalog cache).

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine;
use serde_json::Value;

use super::super::error::StateError;
use crate::catalog::CatalogSet;
use crate::crd::{Crd, is_crd};

/// A bundle's CRDs, each with where it came from.
pub(super) type Shipped = Vec<(String, Crd)>;

/// The CRD manifests of bundle-directory catalogs, by catalog name and bundle name.
#[derive(Debug, Default)]
pub(in crate::cluster) struct DirManifests {
    by_catalog: BTreeMap<String, BTreeMap<String, Shipped>>,
}

fn binding_error(catalog: &str, path: &Path, message: String) -> StateError {
    StateError::Binding {
        binding: format!("{catalog}={}", path.display()),
        message,
    }
}

impl DirManifests {
    /// Reads the manifests of each bound catalog that is bundle directories.
    pub(in crate::cluster) fn read<'a>(
        catalogs: impl Iterator<Item = (&'a str, &'a Path)>,
    ) -> Result<DirManifests, StateError> {
        let mut out = DirManifests::default();
        for (name, path) in catalogs {
            if out.by_catalog.contains_key(name) {
                continue;
            }
            let bundles = crate::catalog::bundle_manifests(path)
                .map_err(|e| binding_error(name, path, e.to_string()))?;
            let Some(bundles) = bundles else { continue };
            let mut map = BTreeMap::new();
            for b in bundles {
                let mut crds = Vec::new();
                for (file, value) in &b.crds {
                    let crd = crate::crd::parse(value).map_err(|e| {
                        binding_error(name, path, format!("{file}: CustomResourceDefinition: {e}"))
                    })?;
                    crds.push((file.clone(), crd));
                }
                map.insert(b.bundle, crds);
            }
            out.by_catalog.insert(name.to_string(), map);
        }
        Ok(out)
    }

    /// The CRDs of `bundle` of catalog `catalog`, when that catalog is bundle directories.
    pub(super) fn get(&self, catalog: &str, bundle: &str) -> Option<Shipped> {
        let c = self.by_catalog.get(catalog)?;
        Some(c.get(bundle).cloned().unwrap_or_default())
    }
}

/// The CRDs among a File-Based Catalog bundle's `olm.bundle.object` properties; None when
/// it has no such property (its manifests are unknown).
pub(super) fn from_properties(
    set: &CatalogSet,
    catalog: &str,
    bundle: &str,
) -> Result<Option<Shipped>, StateError> {
    let found = set
        .catalog_id(catalog)
        .and_then(|c| set.find_bundle(c, bundle))
        .and_then(|id| Some((set.bundle(id)?, set.bundle_properties(id)?)));
    let Some((b, properties)) = found else {
        return Ok(None);
    };
    let properties = properties.map_err(|e| StateError::Binding {
        binding: catalog.to_string(),
        message: format!(
            "{} bundle {bundle}: its olm.bundle.object values: {e}",
            b.origin
        ),
    })?;
    let objects: Vec<_> = properties
        .iter()
        .filter(|p| p.kind == "olm.bundle.object")
        .collect();
    if objects.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for (i, p) in objects.into_iter().enumerate() {
        let place = format!("{} bundle {bundle}, olm.bundle.object #{}", b.origin, i + 1);
        let fail = |m: String| StateError::Binding {
            binding: catalog.to_string(),
            message: format!("{place}: {m}"),
        };
        let object = decode(p.value.get()).map_err(fail)?;
        let api_version = object.get("apiVersion").and_then(Value::as_str);
        let kind = object.get("kind").and_then(Value::as_str);
        if !is_crd(api_version.unwrap_or(""), kind.unwrap_or("")) {
            continue;
        }
        let crd = crate::crd::parse(&object)
            .map_err(|e| fail(format!("CustomResourceDefinition: {e}")))?;
        out.push((place, crd));
    }
    Ok(Some(out))
}

/// An `olm.bundle.object` value (`{"data": BASE64}`) as the object it holds (JSON, or YAML).
fn decode(raw: &str) -> Result<Value, String> {
    let value: Value = serde_json::from_str(raw).map_err(|e| format!("value: {e}"))?;
    let data = value
        .get("data")
        .and_then(Value::as_str)
        .ok_or("field `value.data`: missing or not a string")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| format!("field `value.data`: not base64: {e}"))?;
    let text =
        String::from_utf8(bytes).map_err(|_| "field `value.data`: not UTF-8 text".to_string())?;
    serde_json::from_str(&text).or_else(|_| {
        // The budgets of every YAML input (alias work bounded by the object's size), and
        // the parser's words without its own names or positions inside the object.
        let options = crate::input::yaml_options(text.len());
        serde_saphyr::from_str_with_options::<Value>(&text, options).map_err(|e| {
            let line = e
                .location()
                .map(|l| format!(" (line {} of the object)", l.line()));
            format!(
                "field `value.data`: neither JSON nor YAML: {}{}",
                crate::input::yaml_reason(&e),
                line.unwrap_or_default()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_json_and_yaml_objects_and_names_bad_data() {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let json = format!("{{\"data\": \"{}\"}}", b64("{\"kind\": \"A\"}"));
        assert_eq!(decode(&json).unwrap()["kind"], "A");
        let yaml = format!("{{\"data\": \"{}\"}}", b64("kind: B\n"));
        assert_eq!(decode(&yaml).unwrap()["kind"], "B");
        assert!(
            decode("{\"data\": \"***\"}")
                .unwrap_err()
                .contains("not base64")
        );
        assert!(decode("{}").unwrap_err().contains("value.data"));
        // An alias bomb is refused in words, within the budget of its size.
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
        let e = decode(&format!("{{\"data\": \"{}\"}}", b64(bomb))).unwrap_err();
        assert!(e.contains("YAML safety limit exceeded"), "{e}");
        for internal in ["<input>", "Budget", "{ "] {
            assert!(!e.contains(internal), "{e}");
        }
        let e = decode(&format!("{{\"data\": \"{}\"}}", b64("a: [1\nb: 2\n"))).unwrap_err();
        assert!(!e.contains("<input>"), "{e}");
    }
}
