//! Changing a loaded catalog set in place: a catalog's priority, a property added to a
//! bundle (typed properties update the typed fields, so resolution sees them).

use serde_json::Value;

use super::model::{BundleId, Gvk, OpaqueProperty, PackageRequirement};
use super::set::CatalogSet;
use crate::range::VersionRange;

fn text(v: &Value, key: &str, kind: &str) -> Result<String, String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("{kind} value needs a string `{key}`"))
}

fn gvk(v: &Value, kind: &str) -> Result<Gvk, String> {
    Ok(Gvk {
        group: text(v, "group", kind)?,
        version: text(v, "version", kind)?,
        kind: text(v, "kind", kind)?,
    })
}

impl CatalogSet {
    /// Sets the priority of the catalog named `name`; false when there is none.
    pub(crate) fn set_priority(&mut self, name: &str, priority: i32) -> bool {
        let mut found = false;
        for c in self.catalogs.iter_mut().filter(|c| c.name == name) {
            c.priority = priority;
            found = true;
        }
        found
    }

    /// Adds a property to a bundle, as if the catalog had declared it: `olm.gvk`,
    /// `olm.label`, `olm.deprecated`, `olm.package.required`, `olm.gvk.required`,
    /// `olm.label.required` and `olm.constraint` change what resolution sees; any other
    /// type is kept as an opaque property (visible to CEL).
    pub(crate) fn add_property(
        &mut self,
        bundle: BundleId,
        kind: &str,
        value: &Value,
    ) -> Result<(), String> {
        let new_gvk = match kind {
            "olm.gvk" | "olm.gvk.required" => Some(self.gvks.intern(&gvk(value, kind)?)),
            _ => None,
        };
        let b = self
            .bundles
            .get_mut(bundle.0 as usize)
            .ok_or_else(|| format!("no bundle {}", bundle.0))?;
        match (kind, new_gvk) {
            ("olm.gvk", Some(g)) => b.provides.push(super::GvkId(g)),
            ("olm.gvk.required", Some(g)) => b.requires_gvks.push(super::GvkId(g)),
            ("olm.label", _) => b.labels.push(text(value, "label", kind)?),
            ("olm.label.required", _) => b.requires_labels.push(text(value, "label", kind)?),
            ("olm.deprecated", _) => b.deprecated = true,
            ("olm.package.required", _) => {
                let raw = text(value, "versionRange", kind)?;
                let range = VersionRange::parse(&raw).map_err(|e| format!("versionRange: {e}"))?;
                b.requires_packages.push(PackageRequirement {
                    package: text(value, "packageName", kind)?,
                    range,
                });
            }
            ("olm.package", _) => {
                return Err("olm.package cannot be added: a bundle has one package".into());
            }
            ("olm.constraint", _) => b.constraints.push(raw(value)?),
            _ => b.properties.push(OpaqueProperty {
                kind: kind.to_string(),
                value: raw(value)?,
            }),
        }
        b.provides.sort();
        b.provides.dedup();
        self.reindex();
        Ok(())
    }
}

fn raw(v: &Value) -> Result<Box<serde_json::value::RawValue>, String> {
    serde_json::value::to_raw_value(v).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::catalog::{CatalogSource, LoadOptions};

    fn set() -> CatalogSet {
        let s = CatalogSource {
            name: "odf".into(),
            path: PathBuf::from("catalogs/odf-dev"),
            priority: 0,
        };
        CatalogSet::load(&[s], &LoadOptions::default()).expect("load")
    }

    #[test]
    fn typed_properties_change_the_model() {
        let mut s = set();
        let b = BundleId(0);
        let g = serde_json::json!({"group": "x.io", "version": "v1", "kind": "X"});
        s.add_property(b, "olm.gvk", &g).expect("gvk");
        let id = s.gvk_id(&gvk(&g, "t").expect("gvk")).expect("interned");
        assert_eq!(s.providers(id), &[b]);
        s.add_property(b, "olm.deprecated", &Value::Null)
            .expect("deprecated");
        assert!(s.bundles[0].deprecated);
        let r = serde_json::json!({"packageName": "p", "versionRange": ">=1.0.0"});
        s.add_property(b, "olm.package.required", &r).expect("req");
        assert_eq!(
            s.bundles[0]
                .requires_packages
                .last()
                .map(|p| p.package.as_str()),
            Some("p")
        );
        let bad = serde_json::json!({"packageName": "p", "versionRange": ">=x"});
        assert!(s.add_property(b, "olm.package.required", &bad).is_err());
        s.add_property(b, "example.com/tier", &serde_json::json!("gold"))
            .expect("opaque");
        assert!(s.set_priority("odf", 7));
        assert!(!s.set_priority("nope", 7));
    }
}
