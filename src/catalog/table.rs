//! The bundles and package entries of a [`super::CatalogSet`], held whole or decoded on first
//! use from a stored set (the catalog cache), one unit at a time. A unit is one package entry
//! of one catalog with that entry's bundles: bundle ids are assigned in (catalog, package,
//! name) order, so a unit's bundles are one run of consecutive ids.
//!
//! Both tables read like slices ([`std::ops::Deref`]): a caller that walks every bundle gets
//! every unit decoded, once. Lookups by id or position ([`Bundles::get`],
//! [`Packages::get`]) decode only the unit they land in. A unit whose bytes do not check out
//! is recorded ([`Units::damage`]) and reads as empty: whoever answers from the set must
//! ask, and refuse to answer, as the resolver does.

use std::fmt;
use std::ops::{Deref, DerefMut, Index};
use std::sync::{Arc, OnceLock};

use super::model::{Bundle, CatalogId, Package, PackageId};

/// One unit as decoded: a package entry and its bundles, in id order.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    pub package: Package,
    pub bundles: Vec<Bundle>,
}

/// Where one unit sits in the id spaces of the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct UnitSpan {
    /// Its package.
    pub package: PackageId,
    /// Its catalog.
    pub catalog: CatalogId,
    /// The id of its first bundle.
    pub first: u32,
    /// How many bundles it has.
    pub count: u32,
}

/// Decodes the units of a stored set.
pub(crate) trait UnitSource: Send + Sync {
    /// Unit `i` (in bundle order), checked.
    fn decode(&self, i: usize) -> Result<Unit, String>;
    /// Every bundle's name, in id order, checked.
    fn names(&self) -> Result<Vec<String>, String>;
    /// Called once, when a unit does not decode: the store can drop the damaged entry.
    fn damaged(&self, why: &str);
}

/// The units of a stored set, each decoded on first use.
pub(crate) struct Units {
    source: Box<dyn UnitSource>,
    /// In bundle order: (catalog, package).
    spans: Vec<UnitSpan>,
    /// For each position of the set's package entries (sorted by package, catalog): its unit.
    by_position: Vec<u32>,
    cells: Vec<OnceLock<Unit>>,
    damage: OnceLock<String>,
    bundles: usize,
}

impl fmt::Debug for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Units({} units, {} decoded)",
            self.spans.len(),
            self.decoded()
        )
    }
}

impl Units {
    /// The units of `spans` (in bundle order, tiling the bundle ids from 0), read from
    /// `source`. None when the spans do not tile the ids.
    pub fn new(source: Box<dyn UnitSource>, spans: Vec<UnitSpan>) -> Option<Units> {
        let mut next = 0u32;
        for s in &spans {
            if s.first != next {
                return None;
            }
            next = next.checked_add(s.count)?;
        }
        let mut by_position: Vec<u32> = (0..spans.len() as u32).collect();
        by_position.sort_by_key(|&i| spans.get(i as usize).map(|s| (s.package, s.catalog)));
        let cells = spans.iter().map(|_| OnceLock::new()).collect();
        Some(Units {
            source,
            spans,
            by_position,
            cells,
            damage: OnceLock::new(),
            bundles: next as usize,
        })
    }

    /// The spans, in bundle order.
    pub fn spans(&self) -> &[UnitSpan] {
        &self.spans
    }

    /// The span of the `pos`th package entry.
    pub fn span_at(&self, pos: usize) -> Option<&UnitSpan> {
        self.spans.get(*self.by_position.get(pos)? as usize)
    }

    /// How many units have been decoded.
    pub fn decoded(&self) -> usize {
        self.cells.iter().filter(|c| c.get().is_some()).count()
    }

    /// Why a unit did not decode, when one did not.
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }

    /// Every bundle's name, in id order (empty, and recorded, when they do not decode).
    pub fn names(&self) -> Vec<String> {
        match self.source.names() {
            Ok(names) if names.len() == self.bundles => names,
            Ok(names) => {
                self.record(&format!(
                    "{} bundle names for {} bundles",
                    names.len(),
                    self.bundles
                ));
                Vec::new()
            }
            Err(why) => {
                self.record(&why);
                Vec::new()
            }
        }
    }

    fn record(&self, why: &str) {
        log::error!("catalog cache: {why}");
        if self.damage.set(why.to_string()).is_ok() {
            self.source.damaged(why);
        }
    }

    fn unit(&self, i: usize) -> Option<&Unit> {
        let cell = self.cells.get(i)?;
        Some(cell.get_or_init(|| self.decode_or_empty(i)))
    }

    /// Unit `i`, decoded now (not kept); a unit that does not decode is recorded and empty.
    fn decode_or_empty(&self, i: usize) -> Unit {
        let checked = self.source.decode(i).and_then(|u| {
            let span = self.spans.get(i).ok_or("no such unit")?;
            let fits = u.package.id == span.package
                && u.package.catalog == span.catalog
                && u.bundles.len() == span.count as usize
                && (span.first..).zip(&u.bundles).all(|(id, b)| {
                    b.id.0 == id && b.package == span.package && b.catalog == span.catalog
                });
            if fits {
                Ok(u)
            } else {
                Err(format!("unit {i} does not match its place in the set"))
            }
        });
        checked.unwrap_or_else(|why| {
            self.record(&why);
            let span = self.spans.get(i).copied().unwrap_or(UnitSpan {
                package: PackageId(u32::MAX),
                catalog: CatalogId(u32::MAX),
                first: 0,
                count: 0,
            });
            Unit {
                package: Package {
                    id: span.package,
                    catalog: span.catalog,
                    default_channel: None,
                    channels: Vec::new(),
                    origin: None,
                },
                bundles: Vec::new(),
            }
        })
    }

    /// The unit holding bundle `id`.
    fn unit_of(&self, id: usize) -> Option<usize> {
        let i = self
            .spans
            .partition_point(|s| s.first as usize <= id)
            .checked_sub(1)?;
        let s = self.spans.get(i)?;
        (id < s.first as usize + s.count as usize).then_some(i)
    }

    /// The package of bundle `id`, from the unit table (decodes nothing).
    fn package_of(&self, id: usize) -> Option<PackageId> {
        Some(self.spans.get(self.unit_of(id)?)?.package)
    }

    fn bundle(&self, id: usize) -> Option<&Bundle> {
        let i = self.unit_of(id)?;
        let first = self.spans.get(i)?.first as usize;
        self.unit(i)?.bundles.get(id - first)
    }

    fn package_at(&self, pos: usize) -> Option<&Package> {
        Some(&self.unit(*self.by_position.get(pos)? as usize)?.package)
    }

    /// Every bundle, in id order: decoded units copied, the others decoded straight in.
    fn all_bundles(&self) -> Vec<Bundle> {
        let mut out = Vec::with_capacity(self.bundles);
        for (i, cell) in self.cells.iter().enumerate() {
            match cell.get() {
                Some(u) => out.extend(u.bundles.iter().cloned()),
                None => out.extend(self.decode_or_empty(i).bundles),
            }
        }
        out
    }

    /// Every package entry, in position order.
    fn all_packages(&self) -> Vec<Package> {
        self.by_position
            .iter()
            .map(
                |&i| match self.cells.get(i as usize).and_then(OnceLock::get) {
                    Some(u) => u.package.clone(),
                    None => self.decode_or_empty(i as usize).package,
                },
            )
            .collect()
    }
}

/// The bundles of a set, indexed by [`BundleId`](super::BundleId); reads as a slice.
#[derive(Clone, Default)]
pub struct Bundles {
    all: OnceLock<Vec<Bundle>>,
    units: Option<Arc<Units>>,
}

/// The `olm.package` entries of a set, sorted by (package name, catalog); reads as a slice.
#[derive(Clone, Default)]
pub struct Packages {
    all: OnceLock<Vec<Package>>,
    units: Option<Arc<Units>>,
}

impl From<Vec<Bundle>> for Bundles {
    fn from(v: Vec<Bundle>) -> Bundles {
        Bundles {
            all: OnceLock::from(v),
            units: None,
        }
    }
}

impl From<Vec<Package>> for Packages {
    fn from(v: Vec<Package>) -> Packages {
        Packages {
            all: OnceLock::from(v),
            units: None,
        }
    }
}

impl Bundles {
    /// The bundles of stored units, decoded on first use.
    pub(crate) fn lazy(units: Arc<Units>) -> Bundles {
        Bundles {
            all: OnceLock::new(),
            units: Some(units),
        }
    }

    /// Number of bundles (decodes nothing).
    pub fn len(&self) -> usize {
        match (self.all.get(), &self.units) {
            (Some(v), _) => v.len(),
            (None, Some(u)) => u.bundles,
            (None, None) => 0,
        }
    }

    /// True when there is no bundle.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bundle at index `i` (its id), decoding only its unit.
    pub fn get(&self, i: usize) -> Option<&Bundle> {
        match (self.all.get(), &self.units) {
            (Some(v), _) => v.get(i),
            (None, Some(u)) => u.bundle(i),
            (None, None) => None,
        }
    }

    /// The package of the bundle at index `i`, decoding nothing: a set read from the cache
    /// knows it from its unit table.
    pub fn package_of(&self, i: usize) -> Option<PackageId> {
        match (self.all.get(), &self.units) {
            (Some(v), _) => v.get(i).map(|b| b.package),
            (None, Some(u)) => u.package_of(i),
            (None, None) => None,
        }
    }

    /// The stored units, for a set read from the cache.
    pub(crate) fn units(&self) -> Option<&Arc<Units>> {
        self.units.as_ref()
    }

    fn whole(&self) -> &Vec<Bundle> {
        self.all.get_or_init(|| {
            self.units
                .as_ref()
                .map(|u| u.all_bundles())
                .unwrap_or_default()
        })
    }
}

impl Packages {
    /// The package entries of stored units, decoded on first use.
    pub(crate) fn lazy(units: Arc<Units>) -> Packages {
        Packages {
            all: OnceLock::new(),
            units: Some(units),
        }
    }

    /// Number of package entries (decodes nothing).
    pub fn len(&self) -> usize {
        match (self.all.get(), &self.units) {
            (Some(v), _) => v.len(),
            (None, Some(u)) => u.spans.len(),
            (None, None) => 0,
        }
    }

    /// True when there is no package entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry at position `i`, decoding only its unit.
    pub fn get(&self, i: usize) -> Option<&Package> {
        match (self.all.get(), &self.units) {
            (Some(v), _) => v.get(i),
            (None, Some(u)) => u.package_at(i),
            (None, None) => None,
        }
    }

    /// (package, catalog) of the entry at position `i`, decoding nothing.
    pub(crate) fn key_at(&self, i: usize) -> Option<(PackageId, CatalogId)> {
        match (self.all.get(), &self.units) {
            (Some(v), _) => v.get(i).map(|p| (p.id, p.catalog)),
            (None, Some(u)) => u.span_at(i).map(|s| (s.package, s.catalog)),
            (None, None) => None,
        }
    }

    fn whole(&self) -> &Vec<Package> {
        self.all.get_or_init(|| {
            self.units
                .as_ref()
                .map(|u| u.all_packages())
                .unwrap_or_default()
        })
    }
}

macro_rules! slice_like {
    ($table:ty, $item:ty) => {
        impl $table {
            /// Every item, as a slice (a table read from the cache decodes every unit).
            pub fn as_slice(&self) -> &[$item] {
                self.whole()
            }
        }

        impl Deref for $table {
            type Target = [$item];
            fn deref(&self) -> &[$item] {
                self.whole()
            }
        }

        impl DerefMut for $table {
            /// Every item decoded and held whole from now on.
            fn deref_mut(&mut self) -> &mut [$item] {
                self.whole();
                self.units = None;
                self.all.get_mut().map_or(&mut [], Vec::as_mut_slice)
            }
        }

        impl Index<usize> for $table {
            type Output = $item;
            fn index(&self, i: usize) -> &$item {
                match self.get(i) {
                    Some(x) => x,
                    None => panic!("index {i} out of range for {} items", self.len()),
                }
            }
        }

        impl<'a> IntoIterator for &'a $table {
            type Item = &'a $item;
            type IntoIter = std::slice::Iter<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.whole().iter()
            }
        }

        impl fmt::Debug for $table {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.whole(), f)
            }
        }
    };
}

slice_like!(Bundles, Bundle);
slice_like!(Packages, Package);
