//! Channel orders: each channel of each package entry ordered from its head (members with
//! their distance), or found malformed (docs/semantics.md §4). A package entry's channels
//! are ordered the first time a resolution needs them and kept for every later one, so a
//! request over a large catalog set orders only the packages it reaches. Warnings about
//! malformed channels need every channel: [`ChannelOrders::broken`] orders the rest then,
//! in parallel.

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::catalog::{Bundle, BundleId, CatalogId, CatalogSet, ChannelError, DeprecationRef};
use crate::catalog::{Package, PackageId};

/// A channel that could not be ordered.
#[derive(Clone, Debug)]
pub(crate) struct BrokenChannel {
    /// Its package.
    pub package: PackageId,
    /// Its catalog.
    pub catalog: CatalogId,
    /// Its name.
    pub channel: String,
    /// Why it cannot be ordered.
    pub error: ChannelError,
}

/// One package entry's channels, ordered.
#[derive(Default)]
pub(crate) struct EntryOrders {
    /// (bundle, channel name, distance from head) for every ordered entry.
    pub members: Vec<(BundleId, Arc<str>, u32)>,
    /// Bundles that are entries of malformed channels, sorted.
    pub malformed: Vec<BundleId>,
    /// Channels with no head, a cycle or two chains.
    pub broken: Vec<BrokenChannel>,
    /// (bundle, position in `members`), sorted: a bundle's channels by binary search.
    by_bundle: Vec<(BundleId, u32)>,
    /// (bundle, channel index, entry index) of every channel entry naming a bundle, sorted:
    /// a bundle's entries by binary search. Built on first need (only upgrade edges read it).
    entries: OnceLock<Vec<(BundleId, u32, u32)>>,
}

impl EntryOrders {
    /// The channels that order `b` in this entry: (channel name, distance from the head).
    pub fn channels_of(&self, b: BundleId) -> impl Iterator<Item = (&Arc<str>, u32)> {
        let from = self.by_bundle.partition_point(|(x, _)| *x < b);
        self.by_bundle
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(move |(x, _)| *x == b)
            .filter_map(|(_, i)| self.members.get(*i as usize))
            .map(|(_, ch, dist)| (ch, *dist))
    }

    /// The channel entries of `b` in this package entry, `p`: (channel index, entry index)
    /// into `p.channels`.
    pub fn entries_of(&self, p: &Package, b: BundleId) -> impl Iterator<Item = (usize, usize)> {
        let entries = self.entries.get_or_init(|| entry_index(p));
        let from = entries.partition_point(|(x, _, _)| *x < b);
        (entries.get(from..).unwrap_or_default().iter())
            .take_while(move |(x, _, _)| *x == b)
            .map(|(_, ch, e)| (*ch as usize, *e as usize))
    }

    /// True when `b` is an entry of a malformed channel of this entry.
    pub fn in_malformed(&self, b: BundleId) -> bool {
        self.malformed.binary_search(&b).is_ok()
    }
}

/// Channel orders of a catalog set, each package entry's on first need.
pub(crate) struct ChannelOrders {
    set: Arc<CatalogSet>,
    /// Per entry of the set's `packages`, in that order.
    entries: Vec<OnceLock<EntryOrders>>,
    /// Bundles deprecated by `olm.deprecations`, with the catalog's message.
    pub deprecated: FxHashMap<BundleId, String>,
}

impl ChannelOrders {
    /// The orders of `set`: the packages that `olm.deprecations` entries name are ordered
    /// now (a channel's deprecation applies to the bundles it orders), the others on first
    /// need.
    pub fn new(set: Arc<CatalogSet>) -> ChannelOrders {
        let entries = (0..set.packages.len()).map(|_| OnceLock::new()).collect();
        let mut out = ChannelOrders {
            set,
            entries,
            deprecated: FxHashMap::default(),
        };
        out.deprecated = catalog_deprecations(&out);
        out
    }

    /// The orders of the `i`th package entry of the set.
    fn entry(&self, i: usize) -> Option<&EntryOrders> {
        let cell = self.entries.get(i)?;
        if let Some(done) = cell.get() {
            return Some(done);
        }
        let package = self.set.packages.get(i)?;
        Some(cell.get_or_init(|| order_package(package)))
    }

    /// The orders of package `p`'s entries, one per catalog that has it, in catalog order.
    pub fn of_package(&self, p: PackageId) -> impl Iterator<Item = &EntryOrders> {
        (0..self.set.catalogs.len())
            .filter_map(move |c| self.entry(self.set.package_position(p, CatalogId(c as u32))?))
    }

    /// The orders of package `p`'s entry in catalog `c`.
    pub fn of_package_in(&self, p: PackageId, c: CatalogId) -> Option<&EntryOrders> {
        self.entry(self.set.package_position(p, c)?)
    }

    /// Every malformed channel of the set, in the order of its package entries. Orders
    /// every entry not ordered yet (in parallel), or only those the set knows to have a
    /// malformed channel (a set read from the catalog cache knows).
    pub fn broken(&self) -> impl Iterator<Item = &BrokenChannel> {
        let candidates: Vec<usize> = match self.set.broken_channel_hint() {
            Some(known) => known.to_vec(),
            None => (0..self.entries.len()).collect(),
        };
        let missing: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|i| self.entries.get(*i).is_some_and(|c| c.get().is_none()))
            .collect();
        let ordered = crate::parallel::parallel_map(&missing, |i| {
            self.set.packages.get(*i).map(order_package)
        });
        for (i, orders) in missing.into_iter().zip(ordered) {
            if let (Some(cell), Some(orders)) = (self.entries.get(i), orders) {
                // Another thread may have ordered it meanwhile: the same orders.
                let _ = cell.set(orders);
            }
        }
        candidates
            .into_iter()
            .filter_map(|i| self.entry(i))
            .flat_map(|e| e.broken.iter())
    }
}

fn order_package(p: &Package) -> EntryOrders {
    let mut out = EntryOrders::default();
    for ch in &p.channels {
        match crate::catalog::ChannelGraph::build(ch) {
            Ok(graph) => {
                let name: Arc<str> = Arc::from(ch.name.as_str());
                for &entry in graph.order() {
                    let dist = graph.distance(entry).unwrap_or(0);
                    if let Some(b) = ch.entries.get(entry).and_then(|e| e.bundle) {
                        out.members.push((b, name.clone(), dist));
                    }
                }
            }
            Err(error) => {
                out.malformed
                    .extend(ch.entries.iter().filter_map(|e| e.bundle));
                out.broken.push(BrokenChannel {
                    package: p.id,
                    catalog: p.catalog,
                    channel: ch.name.clone(),
                    error,
                })
            }
        }
    }
    out.malformed.sort_unstable();
    out.malformed.dedup();
    out.by_bundle = (0u32..)
        .zip(&out.members)
        .map(|(i, (b, _, _))| (*b, i))
        .collect();
    out.by_bundle.sort_unstable();
    out
}

/// (bundle, channel index, entry index) of every channel entry of `p` naming a bundle, sorted.
fn entry_index(p: &Package) -> Vec<(BundleId, u32, u32)> {
    let mut out = Vec::new();
    for (ci, ch) in (0u32..).zip(&p.channels) {
        for (ei, e) in (0u32..).zip(&ch.entries) {
            out.extend(e.bundle.map(|b| (b, ci, ei)));
        }
    }
    out.sort_unstable();
    out
}

/// Bundles deprecated by `olm.deprecations`: the whole package, the bundle by name, or every
/// channel that orders the bundle.
fn catalog_deprecations(orders: &ChannelOrders) -> FxHashMap<BundleId, String> {
    let set = &*orders.set;
    let mut out: FxHashMap<BundleId, String> = FxHashMap::default();
    for d in &set.deprecations {
        let of_package = set
            .bundles_of(d.package)
            .iter()
            .filter_map(|b| set.bundle(*b))
            .filter(|b| b.catalog == d.catalog);
        for b in of_package {
            let hit = match &d.reference {
                DeprecationRef::Package => true,
                DeprecationRef::Bundle(name) => *name == b.name,
                DeprecationRef::Channel(ch) => {
                    let mut chans = orders
                        .of_package(b.package)
                        .flat_map(|e| e.members.iter())
                        .filter(|(x, _, _)| *x == b.id)
                        .peekable();
                    chans.peek().is_some()
                        && chans.all(|(_, c, _)| channel_deprecated(set, b, c, ch))
                }
            };
            if hit {
                out.entry(b.id).or_insert_with(|| d.message.clone());
            }
        }
    }
    out
}

/// Is channel `c` of bundle `b`'s package deprecated (by an entry naming `named` or another)?
fn channel_deprecated(set: &CatalogSet, b: &Bundle, c: &str, named: &str) -> bool {
    c == named
        || set.deprecations.iter().any(|d| {
            d.package == b.package
                && d.catalog == b.catalog
                && matches!(&d.reference, DeprecationRef::Channel(x) if x == c)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{CatalogSource, LoadOptions};

    fn set(path: &str) -> Arc<CatalogSet> {
        let source = CatalogSource {
            name: "c".into(),
            path: path.into(),
            priority: 0,
        };
        Arc::new(CatalogSet::load(&[source], &LoadOptions::default()).expect("loads"))
    }

    /// Ordering on first need gives what ordering every entry at once gives.
    #[test]
    fn on_first_need_equals_every_entry_at_once() {
        let set = set(concat!(env!("CARGO_MANIFEST_DIR"), "/catalogs/odf-dev"));
        let lazy = ChannelOrders::new(set.clone());
        let ordered = |o: &ChannelOrders| o.entries.iter().filter(|c| c.get().is_some()).count();
        let before = ordered(&lazy);
        let first = set.packages.first().map(|p| p.id).expect("a package");
        assert!(lazy.of_package(first).count() > 0);
        assert_eq!(
            ordered(&lazy),
            before + 1,
            "one package entry ordered, no other"
        );
        let eager = ChannelOrders::new(set.clone());
        let broken: Vec<String> = eager.broken().map(|b| format!("{b:?}")).collect();
        let mut ids: Vec<PackageId> = set.packages.iter().map(|p| p.id).collect();
        ids.dedup();
        for p in ids.iter().rev() {
            let a: Vec<_> = lazy
                .of_package(*p)
                .flat_map(|e| e.members.clone())
                .collect();
            let b: Vec<_> = set
                .packages
                .iter()
                .filter(|e| e.id == *p)
                .flat_map(|e| order_package(e).members)
                .collect();
            assert_eq!(a, b, "members of {}", set.package_name(*p));
        }
        let again: Vec<String> = lazy.broken().map(|b| format!("{b:?}")).collect();
        assert_eq!(broken, again);
        assert!(lazy.entries.iter().all(|c| c.get().is_some()));
    }
}
