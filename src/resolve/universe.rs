//! The bundles one resolution can see: every catalog bundle plus installed bundles that no
//! catalog ships any more (OLM's `@existing` catalog), with the request's requirements and
//! installed state matched to them.

use std::sync::Arc;

use crate::catalog::{Bundle, BundleId, CatalogId, CatalogSet, Gvk, GvkId, Origin, PackageId};
use crate::request::{EXISTING_CATALOG, InstalledBundle, Request};

/// A request that does not fit the catalogs (names the field); the resolver reports it as
/// [`super::ResolveError::Request`], with the same words.
#[derive(Debug, thiserror::Error)]
#[error("request: {0}")]
pub struct RequestError(pub String);

/// Name of the pseudo-catalog holding installed bundles no catalog has.
pub const INSTALLED_CATALOG: &str = "@installed";

/// Catalog bundles and installed-only bundles under one id space.
///
/// [`crate::Resolver::resolve`] returns it beside the outcome; [`crate::explain_failure`]
/// needs it to name bundles (see the example on [`crate::Failure`]).
#[derive(Clone)]
pub struct Universe {
    /// The loaded catalogs.
    pub set: Arc<CatalogSet>,
    /// Installed bundles found in no catalog; ids follow the catalog's.
    extra: Vec<Bundle>,
    /// Each installed-only bundle's properties as CEL sees them, in `extra` order.
    extra_cel: Vec<Vec<(String, serde_json::Value)>>,
    /// Package names no catalog has; ids follow the catalog's. An installed bundle with no
    /// package gets an entry of its own with the empty name, so it conflicts with nothing.
    extra_packages: Vec<String>,
    /// APIs only installed-only bundles mention; ids follow the catalog's.
    extra_gvks: Vec<Gvk>,
    /// `extra_gvks` and `extra_packages` (non-empty names) by value, so that looking one up
    /// is not a scan (an installed CSV may list 100,000 APIs).
    extra_index: ExtraIndex,
    /// The installed bundles, in request order.
    pub installed: Vec<BundleId>,
    /// Installed bundles that stay exactly as they are (`keep: true`).
    pub kept: Vec<BundleId>,
    /// Catalogs in the namespace being resolved (`localCatalogs`).
    pub local_catalogs: Vec<CatalogId>,
    /// Rules that removed candidates or injected variables before resolution, indexed by
    /// [`super::Exclusion::Removed`] and [`super::reason::Reason::Injected`].
    pub rules: Vec<super::Rule>,
    /// Warnings those rules raised (installed bundles violating one, evaluation errors).
    pub notes: Vec<super::AdjustmentWarning>,
    /// The cluster node, when the request gives one.
    pub cluster: Option<crate::constraint::Cluster>,
}

/// Installed-only APIs and packages by value (see `Universe::extra_index`).
#[derive(Clone, Debug, Default)]
struct ExtraIndex {
    gvks: rustc_hash::FxHashMap<Gvk, usize>,
    packages: rustc_hash::FxHashMap<String, usize>,
}

impl Universe {
    /// Matches the request's installed bundles against the catalogs.
    pub fn new(set: Arc<CatalogSet>, request: &Request) -> Result<Universe, RequestError> {
        let local_catalogs = request
            .local_catalogs
            .iter()
            .filter_map(|c| set.catalog_id(c))
            .collect();
        let mut u = Universe {
            set,
            extra: Vec::new(),
            extra_cel: Vec::new(),
            extra_packages: Vec::new(),
            extra_gvks: Vec::new(),
            extra_index: ExtraIndex::default(),
            installed: Vec::new(),
            kept: Vec::new(),
            local_catalogs,
            rules: Vec::new(),
            notes: Vec::new(),
            cluster: None,
        };
        for (i, inst) in request.installed.iter().enumerate() {
            let id = match u.find_catalog_bundle(i, inst)? {
                Some(id) => id,
                None => u.add_installed_only(i, inst)?,
            };
            if inst.keep {
                u.kept.push(id);
            }
            u.installed.push(id);
        }
        u.check_one_movable_per_package(request)?;
        Ok(u)
    }

    /// At most one installed bundle of a package may be moved by requirements: the others
    /// of that package must be kept (`keep: true`).
    fn check_one_movable_per_package(&self, request: &Request) -> Result<(), RequestError> {
        for (i, &a) in self.installed.iter().enumerate() {
            let earlier = self.installed.iter().take(i);
            let movable = |b: &BundleId| !self.kept.contains(b);
            if movable(&a)
                && earlier
                    .filter(|b| movable(b))
                    .any(|b| self.package_of(*b) == self.package_of(a))
            {
                let name = request.installed.get(i).map_or("?", |x| x.bundle.as_str());
                return Err(RequestError(format!(
                    "installed[{i}]: {name} is a second installed bundle of package {:?}; at most one bundle per package can be installed (mark the others `keep: true` to hold them as they are)",
                    self.package_name(self.package_of(a))
                )));
            }
        }
        Ok(())
    }

    /// The catalog bundle an installed entry names: looked up by name (and package, when
    /// given) in every catalog; when several catalogs have it, the one the entry names wins,
    /// else it is an error naming them. `@existing` entries are never matched.
    fn find_catalog_bundle(
        &self,
        i: usize,
        inst: &InstalledBundle,
    ) -> Result<Option<BundleId>, RequestError> {
        if inst.catalog.as_deref() == Some(EXISTING_CATALOG) {
            return Ok(None);
        }
        let found: Vec<BundleId> = (0..self.set.catalogs.len())
            .filter_map(|c| self.set.find_bundle(CatalogId(c as u32), &inst.bundle))
            .filter(|b| {
                let pkg = self
                    .set
                    .bundle(*b)
                    .map(|x| self.set.package_name(x.package));
                inst.package.as_deref().is_none_or(|p| pkg == Some(p))
            })
            .collect();
        let named = inst.catalog.as_deref().and_then(|c| self.set.catalog_id(c));
        if let Some(b) = found
            .iter()
            .find(|b| named.is_some_and(|c| self.bundle(**b).catalog == c))
        {
            return Ok(Some(*b));
        }
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            many => Err(RequestError(format!(
                "installed[{i}]: bundle {} is in catalogs {}; say which with `catalog`",
                inst.bundle,
                many.iter()
                    .map(|b| self.catalog_name(self.bundle(*b).catalog))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn add_installed_only(
        &mut self,
        i: usize,
        inst: &InstalledBundle,
    ) -> Result<BundleId, RequestError> {
        let d = super::installed::declared(i, inst)?;
        let (declared_package, declared_version) = match d.package.clone() {
            Some((p, v)) => (Some(p), v),
            None => (None, None),
        };
        let package_name = inst.package.clone().or(declared_package).ok_or_else(|| {
            RequestError(format!(
                "installed[{i}]: no catalog has bundle {}; give its `package` and `version` (or an olm.package property)",
                inst.bundle
            ))
        })?;
        let version = inst.version.clone().or(declared_version).ok_or_else(|| {
            RequestError(format!(
                "installed[{i}]: no catalog has bundle {}; give its `version` (or an olm.package property)",
                inst.bundle
            ))
        })?;
        let package = self.package_for(&package_name);
        let provides = self.gvk_ids(&d.provides);
        let requires_gvks = self.gvk_ids(&d.requires_gvks);
        let id = BundleId((self.set.bundles.len() + self.extra.len()) as u32);
        let mut cel = d.cel;
        if d.package.is_none() && !package_name.is_empty() {
            cel.push((
                "olm.package".to_string(),
                serde_json::json!({"packageName": package_name, "version": version.to_string()}),
            ));
        }
        self.extra_cel.push(cel);
        self.extra.push(Bundle {
            id,
            catalog: CatalogId(self.set.catalogs.len() as u32),
            package,
            name: inst.bundle.clone(),
            version,
            image: None,
            provides,
            labels: d.labels,
            requires_packages: d.requires_packages,
            requires_gvks,
            requires_labels: d.requires_labels,
            constraints: d.constraints,
            requires_constraints: d.requires_constraints,
            deprecated: d.deprecated,
            properties: d.properties,
            origin: Origin {
                file: "request".into(),
                document: 1,
                line: Some(i + 1),
            },
        });
        Ok(id)
    }

    /// The package id of a name (a new one when no catalog has it; a fresh one for the
    /// empty name, so package-less bundles conflict with nothing).
    fn package_for(&mut self, name: &str) -> PackageId {
        if let Some(p) = self.package_id(name).filter(|_| !name.is_empty()) {
            return p;
        }
        self.extra_packages.push(name.to_string());
        let k = self.extra_packages.len() - 1;
        if !name.is_empty() {
            self.extra_index.packages.insert(name.to_string(), k);
        }
        PackageId((self.set.package_count() + k) as u32)
    }

    fn gvk_ids(&mut self, gvks: &[Gvk]) -> Vec<GvkId> {
        let base = self.set.gvks.len();
        let mut ids: Vec<GvkId> = gvks
            .iter()
            .map(|g| match self.set.gvk_id(g) {
                Some(id) => id,
                None => {
                    let k = match self.extra_index.gvks.get(g) {
                        Some(k) => *k,
                        None => {
                            self.extra_gvks.push(g.clone());
                            let k = self.extra_gvks.len() - 1;
                            self.extra_index.gvks.insert(g.clone(), k);
                            k
                        }
                    };
                    GvkId((base + k) as u32)
                }
            })
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// The id of a package name, in a catalog or only among installed-only bundles.
    pub fn package_id(&self, name: &str) -> Option<PackageId> {
        self.set.package_id(name).or_else(|| {
            let k = *self.extra_index.packages.get(name)?;
            Some(PackageId((self.set.package_count() + k) as u32))
        })
    }

    /// Every bundle providing an API: catalog bundles, then installed-only ones.
    pub fn providers(&self, gvk: GvkId) -> Vec<BundleId> {
        let mut out = self.set.providers(gvk).to_vec();
        out.extend(
            self.extra
                .iter()
                .filter(|b| b.provides.contains(&gvk))
                .map(|b| b.id),
        );
        out
    }

    /// An installed-only bundle's properties as CEL sees them (None for catalog bundles).
    pub(crate) fn installed_only_properties(
        &self,
        id: BundleId,
    ) -> Option<&[(String, serde_json::Value)]> {
        let k = (id.0 as usize).checked_sub(self.set.bundles.len())?;
        self.extra_cel.get(k).map(Vec::as_slice)
    }

    /// True when `id` is installed and must stay exactly as it is.
    pub(crate) fn is_kept(&self, id: BundleId) -> bool {
        self.kept.contains(&id)
    }

    /// True when `id` comes from a catalog of the namespace being resolved.
    pub(crate) fn is_local(&self, id: BundleId) -> bool {
        self.local_catalogs.contains(&self.bundle(id).catalog)
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

    /// A bundle's package. A catalog bundle's comes from the set's unit table, so that asking
    /// it (the walk of the reachable packages asks it of every API provider) decodes nothing.
    pub(crate) fn package_of(&self, id: BundleId) -> PackageId {
        self.set
            .bundles
            .package_of(id.0 as usize)
            .unwrap_or_else(|| self.bundle(id).package)
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
    pub(crate) fn catalog_priority(&self, id: CatalogId) -> i32 {
        self.set.catalog(id).map_or(0, |c| c.priority)
    }

    /// A GVK (one only installed-only bundles mention included).
    pub fn gvk(&self, id: GvkId) -> Option<&Gvk> {
        self.set.gvk(id).or_else(|| {
            let k = (id.0 as usize).checked_sub(self.set.gvks.len())?;
            self.extra_gvks.get(k)
        })
    }

    /// True when `id` is installed.
    pub fn is_installed(&self, id: BundleId) -> bool {
        self.installed.contains(&id)
    }
}
