//! The merged view of every loaded catalog, with interned ids and lookup indexes.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::error::{LoadError, Warning};
use super::intern::Interner;
use super::model::{
    Bundle, BundleId, CatalogId, Deprecation, Gvk, GvkId, OpaqueProperty, Origin, Package,
    PackageId,
};
use super::table::{Bundles, Packages};

/// A catalog to load: a name, a file or directory, and a priority (higher is preferred).
///
/// The example on [`CatalogSet`] names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogSource {
    /// Name used in answers and preferences.
    pub name: String,
    /// File or directory of FBC documents.
    pub path: PathBuf,
    /// Catalog priority; higher is preferred (OLM `CatalogSource.spec.priority`).
    pub priority: i32,
}

/// A loaded catalog's identity.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CatalogInfo {
    /// Name.
    pub name: String,
    /// Priority; higher is preferred.
    pub priority: i32,
    /// Path it was loaded from.
    pub path: String,
}

impl CatalogInfo {
    /// The catalog a source names.
    pub(crate) fn of(source: &CatalogSource) -> CatalogInfo {
        CatalogInfo {
            name: source.name.clone(),
            priority: source.priority,
            path: source.path.display().to_string(),
        }
    }
}

/// Every loaded catalog, merged. Ids are assigned in a canonical order (catalog, package
/// name, bundle name), so the same inputs in any file or document order give the same ids.
///
/// ```
/// use deppy::{CatalogSet, CatalogSource, LoadOptions};
///
/// let source = CatalogSource { name: "etcd".into(), path: "tests/pipeline/catalog".into(), priority: 0 };
/// let set = CatalogSet::load(&[source], &LoadOptions::default())?;
/// assert!(set.bundles.iter().any(|b| b.name == "etcd.v0.9.2"));
/// # Ok::<(), deppy::LoadError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CatalogSet {
    /// Loaded catalogs, indexed by [`CatalogId`].
    pub catalogs: Vec<CatalogInfo>,
    /// `olm.package` entries, sorted by (package name, catalog). Reads as a slice; a set
    /// read from the catalog cache decodes an entry when it is first looked up
    /// ([`Packages::get`]), or every entry when it is walked.
    pub packages: Packages,
    /// Bundles, indexed by [`BundleId`]. Reads as a slice; a set read from the catalog cache
    /// decodes a package's bundles when one of them is first looked up ([`Bundles::get`],
    /// [`CatalogSet::bundle`]), or every bundle when they are walked.
    pub bundles: Bundles,
    /// `olm.deprecations` entries.
    pub deprecations: Vec<Deprecation>,
    /// Non-fatal problems found while loading.
    pub warnings: Vec<Warning>,
    pub(crate) package_names: Interner<String>,
    pub(crate) gvks: Interner<Gvk>,
    pub(crate) index: Index,
    /// Where the heavy property values left out of memory are, for a set loaded through the
    /// catalog cache without keeping them ([`CatalogSet::bundle_properties`]).
    pub(crate) heavy: Option<Arc<dyn HeavyValues>>,
}

/// The heavy values of one bundle: (position among its opaque properties, property), in
/// document order.
pub(crate) type Values = Vec<(usize, OpaqueProperty)>;

/// Where a set loaded without its heavy property values finds a bundle's.
pub(crate) trait HeavyValues: std::fmt::Debug + Send + Sync {
    /// The heavy values of the bundle whose document is at `origin`.
    fn values(&self, origin: &Origin) -> Result<Values, LoadError>;
}

/// A bundle's properties with its heavy values put back where the document had them.
pub(crate) fn merge(light: &[OpaqueProperty], mut heavy: Values) -> Vec<OpaqueProperty> {
    let mut out = light.to_vec();
    out.reserve(heavy.len());
    // Recorded in document order, each at its position counting those before it.
    for (position, p) in heavy.drain(..) {
        let at = position.min(out.len());
        out.insert(at, p);
    }
    out
}

/// Lookup tables built once after loading. Package and GVK ids are dense (interned from 0),
/// so their tables are vectors indexed by id.
#[derive(Clone, Debug, Default)]
pub(crate) struct Index {
    /// Bundles of each package (all catalogs), in id order, indexed by [`PackageId`].
    pub bundles_of: Vec<Vec<BundleId>>,
    /// Bundles providing each GVK, in id order, indexed by [`GvkId`].
    pub providers: Vec<Vec<BundleId>>,
    /// Per catalog (by id): bundle name → bundle (a set read from the cache builds it on
    /// first lookup, from the bundles' names alone).
    pub by_name: OnceLock<Vec<FxHashMap<String, BundleId>>>,
    /// (package, catalog) → position in `packages`.
    pub package_entry: FxHashMap<(PackageId, CatalogId), usize>,
    /// Positions in `packages` of the entries with a channel that cannot be ordered, when
    /// known without ordering every channel (a set read from the cache knows).
    pub broken_channels: Option<Vec<usize>>,
}

impl CatalogSet {
    /// Rebuilds the lookup indexes from `packages` and `bundles`.
    pub(crate) fn reindex(&mut self) {
        let mut by_name = vec![FxHashMap::default(); self.catalogs.len()];
        for b in &self.bundles {
            if let Some(m) = by_name.get_mut(b.catalog.0 as usize) {
                m.insert(b.name.clone(), b.id);
            }
        }
        self.reindex_with(by_name);
    }

    /// Rebuilds the lookup indexes, given each catalog's bundles by name.
    pub(crate) fn reindex_with(&mut self, by_name: Vec<FxHashMap<String, BundleId>>) {
        let mut index = Index {
            by_name: OnceLock::from(by_name),
            bundles_of: vec![Vec::new(); self.package_names.len()],
            providers: vec![Vec::new(); self.gvks.len()],
            ..Index::default()
        };
        for b in &self.bundles {
            if let Some(of) = index.bundles_of.get_mut(b.package.0 as usize) {
                of.push(b.id);
            }
            for g in &b.provides {
                if let Some(of) = index.providers.get_mut(g.0 as usize) {
                    of.push(b.id);
                }
            }
        }
        for (i, p) in self.packages.iter().enumerate() {
            index.package_entry.insert((p.id, p.catalog), i);
        }
        self.index = index;
    }

    /// The bundle with this id.
    pub fn bundle(&self, id: BundleId) -> Option<&Bundle> {
        self.bundles.get(id.0 as usize)
    }

    /// Every opaque property of a bundle, heavy ones (`olm.csv.metadata`,
    /// `olm.bundle.object`) included, in the order of its document. A set that kept them
    /// ([`crate::advanced::catalog::LoadOptions::keep_heavy_properties`]) has them in
    /// [`Bundle::properties`]; one loaded through the catalog cache without them reads the
    /// bundle's back from the cache, or from its catalog file when the cache lacks them
    /// (the file must still hold what was loaded). Any other set has none to add. None for
    /// an id from another set.
    pub fn bundle_properties(
        &self,
        id: BundleId,
    ) -> Option<Result<Cow<'_, [OpaqueProperty]>, LoadError>> {
        let b = self.bundle(id)?;
        let Some(store) = &self.heavy else {
            return Some(Ok(Cow::Borrowed(&b.properties)));
        };
        Some(store.values(&b.origin).map(|heavy| match heavy.is_empty() {
            true => Cow::Borrowed(&b.properties[..]),
            false => Cow::Owned(merge(&b.properties, heavy)),
        }))
    }

    /// The name of a package id ("?" for an id from another set).
    pub fn package_name(&self, id: PackageId) -> &str {
        self.package_names.value(id.0).map_or("?", String::as_str)
    }

    /// The id of a package name, if any catalog mentions it.
    pub fn package_id(&self, name: &str) -> Option<PackageId> {
        self.package_names.get(name).map(PackageId)
    }

    /// The GVK of an id.
    pub fn gvk(&self, id: GvkId) -> Option<&Gvk> {
        self.gvks.value(id.0)
    }

    /// The id of a GVK, if any bundle provides or requires it.
    pub(crate) fn gvk_id(&self, gvk: &Gvk) -> Option<GvkId> {
        self.gvks.get(gvk).map(GvkId)
    }

    /// Every bundle of a package, across catalogs.
    pub fn bundles_of(&self, package: PackageId) -> &[BundleId] {
        self.index
            .bundles_of
            .get(package.0 as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// Every bundle providing a GVK.
    pub fn providers(&self, gvk: GvkId) -> &[BundleId] {
        self.index
            .providers
            .get(gvk.0 as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// A bundle by catalog and name.
    pub fn find_bundle(&self, catalog: CatalogId, name: &str) -> Option<BundleId> {
        self.by_name().get(catalog.0 as usize)?.get(name).copied()
    }

    /// Per catalog: bundle name → bundle.
    pub(crate) fn by_name(&self) -> &[FxHashMap<String, BundleId>] {
        self.index.by_name.get_or_init(|| {
            let mut by_name = vec![FxHashMap::default(); self.catalogs.len()];
            let mut add = |c: CatalogId, name: String, id: BundleId| {
                if let Some(m) = by_name.get_mut(c.0 as usize) {
                    m.insert(name, id);
                }
            };
            match self.bundles.units() {
                Some(units) => {
                    let names = units.names();
                    let ids = units.spans().iter().flat_map(|s| {
                        (s.first..s.first + s.count).map(move |i| (s.catalog, BundleId(i)))
                    });
                    for ((c, id), name) in ids.zip(names) {
                        add(c, name, id);
                    }
                }
                None => {
                    for b in &self.bundles {
                        add(b.catalog, b.name.clone(), b.id);
                    }
                }
            }
            by_name
        })
    }

    /// How many package entries (each with its bundles) a set read from the catalog cache
    /// has decoded so far, of how many: `None` for a set assembled in memory, which holds
    /// every entry decoded.
    pub fn decoded_entries(&self) -> Option<(usize, usize)> {
        let units = self.bundles.units()?;
        Some((units.decoded(), units.spans().len()))
    }

    /// Why a set read from the catalog cache could not decode some package entry (its
    /// bytes did not check out): that entry then reads as empty, and no answer may be taken
    /// from the set. The damaged cache entry has been removed; loading again rebuilds it.
    /// `None` for a sound set (and for every set assembled in memory).
    pub fn cache_damage(&self) -> Option<&str> {
        self.bundles.units().and_then(|u| u.damage())
    }

    /// True when some bundle states a constraint (`olm.constraint` or an alias form). A set
    /// read from the catalog cache has none (such sets are not stored) and decodes nothing
    /// to say so.
    pub fn has_constraints(&self) -> bool {
        self.bundles.units().is_none()
            && self
                .bundles
                .iter()
                .any(|b| !b.requires_constraints.is_empty())
    }

    /// True when catalog `c` has at least one bundle (a set read from the catalog cache
    /// decodes nothing to say so).
    pub fn has_bundles_in(&self, c: CatalogId) -> bool {
        match self.bundles.units() {
            Some(units) => units.spans().iter().any(|s| s.catalog == c && s.count > 0),
            None => self.bundles.iter().any(|b| b.catalog == c),
        }
    }

    /// Positions in [`CatalogSet::packages`] of the entries that have a channel that cannot
    /// be ordered, when the set knows them without ordering every channel.
    pub(crate) fn broken_channel_hint(&self) -> Option<&[usize]> {
        self.index.broken_channels.as_deref()
    }

    /// The `olm.package` entry of a package in a catalog.
    pub(crate) fn package_in(&self, package: PackageId, catalog: CatalogId) -> Option<&Package> {
        self.packages.get(self.package_position(package, catalog)?)
    }

    /// Where the `olm.package` entry of a package in a catalog sits in `packages`.
    pub(crate) fn package_position(&self, package: PackageId, catalog: CatalogId) -> Option<usize> {
        self.index.package_entry.get(&(package, catalog)).copied()
    }

    /// Every catalog's entry for a package, in catalog id order.
    pub fn package_entries(&self, package: PackageId) -> impl Iterator<Item = &Package> {
        (0..self.catalogs.len()).filter_map(move |c| self.package_in(package, CatalogId(c as u32)))
    }

    /// A catalog by name.
    pub fn catalog_id(&self, name: &str) -> Option<CatalogId> {
        let i = self.catalogs.iter().position(|c| c.name == name)?;
        Some(CatalogId(u32::try_from(i).ok()?))
    }

    /// A catalog's info.
    pub fn catalog(&self, id: CatalogId) -> Option<&CatalogInfo> {
        self.catalogs.get(id.0 as usize)
    }

    /// Number of distinct package names.
    pub fn package_count(&self) -> usize {
        self.package_names.len()
    }

    /// The distinct package names, in name order (a package in two catalogs once).
    pub fn package_names(&self) -> Vec<String> {
        let mut names: Vec<String> = (0..self.packages.len())
            .filter_map(|i| self.packages.key_at(i))
            .map(|(p, _)| self.package_name(p).to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}
