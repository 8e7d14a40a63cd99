//! The bundles one resolution can see: every catalog bundle plus installed bundles that no
//! catalog ships any more (OLM's `@existing` catalog), with the request's requirements and
//! installed state matched to them.

use std::sync::Arc;

use crate::catalog::{Bundle, BundleId, CatalogId, CatalogSet, Gvk, GvkId, Origin, PackageId};
use crate::request::{InstalledBundle, Request};

use super::ResolveError;

/// Name of the pseudo-catalog holding installed bundles no catalog has.
pub const INSTALLED_CATALOG: &str = "@installed";

/// Catalog bundles and installed-only bundles under one id space.
pub struct Universe {
    /// The loaded catalogs.
    pub set: Arc<CatalogSet>,
    /// Installed bundles found in no catalog; ids follow the catalog's.
    extra: Vec<Bundle>,
    /// Package names no catalog has; ids follow the catalog's.
    extra_packages: Vec<String>,
    /// The installed bundles, in request order.
    pub installed: Vec<BundleId>,
    /// Rules that removed candidates or injected variables before resolution, indexed by
    /// [`super::Exclusion::Removed`] and [`super::reason::Reason::Injected`].
    pub rules: Vec<super::Rule>,
    /// Warnings those rules raised (installed bundles violating one, evaluation errors).
    pub notes: Vec<String>,
    /// The cluster node, when the request gives one.
    pub cluster: Option<crate::constraint::Cluster>,
}

impl Universe {
    /// Matches the request's installed bundles against the catalogs.
    pub fn new(set: Arc<CatalogSet>, request: &Request) -> Result<Universe, ResolveError> {
        let mut u = Universe {
            set,
            extra: Vec::new(),
            extra_packages: Vec::new(),
            installed: Vec::new(),
            rules: Vec::new(),
            notes: Vec::new(),
            cluster: None,
        };
        for (i, inst) in request.installed.iter().enumerate() {
            let id = match u.find_catalog_bundle(inst) {
                Some(id) => id,
                None => u.add_installed_only(i, inst)?,
            };
            if u.installed
                .iter()
                .any(|b| u.package_of(*b) == u.package_of(id))
            {
                return Err(ResolveError::Request(format!(
                    "installed[{i}]: a second installed bundle of package {:?}; at most one bundle per package can be installed",
                    inst.package
                )));
            }
            u.installed.push(id);
        }
        Ok(u)
    }

    fn find_catalog_bundle(&self, inst: &InstalledBundle) -> Option<BundleId> {
        let candidates: Vec<BundleId> = match &inst.catalog {
            Some(name) => {
                let c = self.set.catalog_id(name)?;
                self.set.find_bundle(c, &inst.bundle).into_iter().collect()
            }
            None => (0..self.set.catalogs.len())
                .filter_map(|c| self.set.find_bundle(CatalogId(c as u32), &inst.bundle))
                .collect(),
        };
        // The first catalog (in id order) whose bundle has the installed package.
        candidates.into_iter().find(|b| {
            self.set
                .bundle(*b)
                .is_some_and(|b| self.set.package_name(b.package) == inst.package)
        })
    }

    fn add_installed_only(
        &mut self,
        i: usize,
        inst: &InstalledBundle,
    ) -> Result<BundleId, ResolveError> {
        let package = match self.set.package_id(&inst.package) {
            Some(p) => p,
            None => {
                self.extra_packages.push(inst.package.clone());
                PackageId((self.set.package_count() + self.extra_packages.len() - 1) as u32)
            }
        };
        let mut provides = Vec::new();
        for (k, p) in inst.properties.iter().enumerate() {
            if p.get("type").and_then(|t| t.as_str()) != Some("olm.gvk") {
                continue;
            }
            let gvk: Gvk = p
                .get("value")
                .and_then(|v| serde_json::from_value::<GvkValue>(v.clone()).ok())
                .map(|v| Gvk {
                    group: v.group,
                    version: v.version,
                    kind: v.kind,
                })
                .ok_or_else(|| {
                    ResolveError::Request(format!(
                        "installed[{i}].properties[{k}]: olm.gvk needs group, version and kind"
                    ))
                })?;
            // A GVK no catalog bundle mentions cannot matter to any dependency.
            if let Some(g) = self.set.gvk_id(&gvk) {
                provides.push(g);
            }
        }
        let id = BundleId((self.set.bundles.len() + self.extra.len()) as u32);
        self.extra.push(Bundle {
            id,
            catalog: CatalogId(self.set.catalogs.len() as u32),
            package,
            name: inst.bundle.clone(),
            version: inst.version.clone(),
            image: None,
            provides,
            labels: Vec::new(),
            requires_packages: Vec::new(),
            requires_gvks: Vec::new(),
            requires_labels: Vec::new(),
            constraints: Vec::new(),
            requires_constraints: Vec::new(),
            deprecated: false,
            properties: Vec::new(),
            origin: Origin {
                file: "request".into(),
                document: 1,
                line: None,
            },
        });
        Ok(id)
    }

    /// Installed bundles no catalog has (made from the request).
    pub fn installed_only(&self) -> &[Bundle] {
        &self.extra
    }

    /// Every bundle, catalog ones first.
    pub fn bundles(&self) -> impl Iterator<Item = &Bundle> {
        self.set.bundles.iter().chain(self.extra.iter())
    }

    /// A bundle by id.
    pub fn bundle(&self, id: BundleId) -> &Bundle {
        let n = self.set.bundles.len();
        let i = id.0 as usize;
        // Invariant: every BundleId a resolution uses was minted by this universe (catalog
        // ids are < n, installed-only ids are n..n + extra.len()), and the universe is not
        // changed after `new`, so one of the two lookups always hits.
        self.set
            .bundles
            .get(i)
            .or_else(|| self.extra.get(i.wrapping_sub(n)))
            .unwrap_or_else(|| unreachable!("bundle id {i} was not minted by this universe"))
    }

    /// A bundle's package.
    pub fn package_of(&self, id: BundleId) -> PackageId {
        self.bundle(id).package
    }

    /// A package's name.
    pub fn package_name(&self, id: PackageId) -> &str {
        let n = self.set.package_count();
        match (id.0 as usize).checked_sub(n) {
            Some(k) => self.extra_packages.get(k).map_or("?", String::as_str),
            None => self.set.package_name(id),
        }
    }

    /// A catalog's name (the installed pseudo-catalog included).
    pub fn catalog_name(&self, id: CatalogId) -> &str {
        self.set
            .catalog(id)
            .map_or(INSTALLED_CATALOG, |c| c.name.as_str())
    }

    /// A catalog's priority (the installed pseudo-catalog has 0).
    pub fn catalog_priority(&self, id: CatalogId) -> i32 {
        self.set.catalog(id).map_or(0, |c| c.priority)
    }

    /// A GVK, for wording.
    pub fn gvk(&self, id: GvkId) -> Option<&Gvk> {
        self.set.gvk(id)
    }

    /// True when `id` is installed.
    pub fn is_installed(&self, id: BundleId) -> bool {
        self.installed.contains(&id)
    }
}

#[derive(serde::Deserialize)]
struct GvkValue {
    group: String,
    version: String,
    kind: String,
}
