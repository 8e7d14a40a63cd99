//! Installed entries matched to bundles (docs/semantics.md §7).

use serde_json::{Value, json};

use super::version::Version;
use super::{Bundle, World};

impl World {
    /// §7: an entry is looked up by name (and package, when given) in every catalog; when
    /// several have it, the catalog the entry names wins, else it is bad input; `@existing`
    /// never matches a catalog bundle. One found nowhere is a bundle of no catalog, its
    /// package and version from the entry or its `olm.package` property.
    pub(super) fn find_installed(&mut self) -> Result<(), String> {
        let entries: Vec<_> = self
            .request
            .installed
            .iter()
            .map(|i| {
                (
                    i.bundle.clone(),
                    i.package.clone(),
                    i.version.clone(),
                    i.catalog.clone(),
                    i.properties.clone(),
                )
            })
            .collect();
        for (name, package, version, catalog, properties) in entries {
            let existing = catalog.as_deref() == Some("@existing");
            let found: Vec<usize> = (0..self.bundles.len())
                .filter(|&b| {
                    let x = &self.bundles[b];
                    !existing
                        && x.catalog.is_some()
                        && x.name == name
                        && package.as_ref().is_none_or(|p| *p == x.package)
                })
                .collect();
            let named: Vec<usize> = found
                .iter()
                .copied()
                .filter(|&b| catalog.is_some() && self.catalog_name(b) == catalog.as_deref())
                .collect();
            let b = match (found.as_slice(), named.as_slice()) {
                ([one], _) | (_, [one]) => *one,
                ([], _) => self.installed_only(&name, package, version, properties)?,
                (several, _) => {
                    return Err(format!(
                        "installed {name}: in {} catalogs, name one",
                        several.len()
                    ));
                }
            };
            self.installed.push(b);
        }
        let movable: Vec<&str> = self
            .installed
            .iter()
            .zip(&self.request.installed)
            .filter(|(_, i)| !i.keep)
            .map(|(b, _)| self.bundles[*b].package.as_str())
            .filter(|p| !p.is_empty())
            .collect();
        if let Some(p) = movable
            .iter()
            .find(|p| movable.iter().filter(|q| q == p).count() > 1)
        {
            return Err(format!("two movable installed bundles of package {p}"));
        }
        Ok(())
    }

    fn installed_only(
        &mut self,
        name: &str,
        package: Option<String>,
        version: Option<String>,
        properties: Vec<(String, Value)>,
    ) -> Result<usize, String> {
        let declared = properties
            .iter()
            .find(|(t, _)| t == "olm.package")
            .map(|(_, v)| v);
        let package = package
            .or_else(|| declared.and_then(|v| v.get("packageName")?.as_str().map(str::to_string)))
            .ok_or_else(|| format!("installed {name}: in no catalog and no package"))?;
        let version = version
            .or_else(|| declared.and_then(|v| v.get("version")?.as_str().map(str::to_string)))
            .ok_or_else(|| format!("installed {name}: in no catalog and no version"))?;
        let mut props = properties;
        if !props.iter().any(|(t, _)| t == "olm.package") {
            props.insert(
                0,
                (
                    "olm.package".into(),
                    json!({"packageName": package, "version": version}),
                ),
            );
        }
        self.bundles.push(Bundle {
            catalog: None,
            package,
            name: name.to_string(),
            version: Version::parse(&version)
                .ok_or_else(|| format!("installed {name}: bad version {version:?}"))?,
            properties: props,
            gvks: Vec::new(),
            deps: Vec::new(),
            cluster_may_meet: Vec::new(),
            deprecated: false,
            catalog_deprecated: false,
            members: Vec::new(),
            in_malformed: false,
            entry_of: Vec::new(),
        });
        Ok(self.bundles.len() - 1)
    }
}
