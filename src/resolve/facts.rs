//! The facts stage: the loaded catalogs, the request and the installed state as input facts
//! of the Datalog program (`rules/facts.dl`), indexed by package so a derivation loads only
//! the packages it needs, and the channel orders they are computed from.

use rustc_hash::FxHashMap;

use crate::catalog::{BundleId, CatalogId, ChannelError, PackageId};
use crate::range::VersionRange;

use super::derive::program::*;
use super::universe::Universe;

/// A requirement as facts.
pub(crate) struct RequirementFacts<'a> {
    /// The package named (None when no catalog has it).
    pub package: Option<PackageId>,
    /// The channel asked for.
    pub channel: Option<&'a str>,
    /// The version range asked for.
    pub range: Option<&'a VersionRange>,
    /// The bundle pinned.
    pub pin: Option<&'a str>,
    /// The catalog asked for (an id no catalog has when it names none).
    pub catalog: Option<CatalogId>,
}

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

/// Channel orders of every package, computed once per catalog set.
#[derive(Default)]
pub(crate) struct ChannelOrders {
    /// (bundle, channel name, distance from head) for every ordered entry.
    pub members: Vec<(BundleId, String, u32)>,
    /// Channels with no head, a cycle or two chains.
    pub broken: Vec<BrokenChannel>,
    /// Bundles that are entries of malformed channels.
    pub malformed: Vec<BundleId>,
    /// Bundles deprecated by `olm.deprecations`, with the catalog's message.
    pub deprecated: FxHashMap<BundleId, String>,
    /// Per package: its stretches of `members` and of `malformed`, so a request loads the
    /// facts of the packages it reaches without scanning the others.
    by_package: FxHashMap<PackageId, PackageRanges>,
}

/// Where one package's facts sit in [`ChannelOrders`] (one stretch per catalog).
#[derive(Default)]
struct PackageRanges {
    members: Vec<std::ops::Range<usize>>,
    malformed: Vec<std::ops::Range<usize>>,
}

/// One package entry's channels, ordered: (members, malformed entries, broken channels).
type PackageOrders = (
    Vec<(BundleId, String, u32)>,
    Vec<BundleId>,
    Vec<BrokenChannel>,
);

fn order_package(p: &crate::catalog::Package) -> PackageOrders {
    let (mut members, mut malformed, mut broken) = (Vec::new(), Vec::new(), Vec::new());
    for ch in &p.channels {
        match crate::catalog::ChannelGraph::build(ch) {
            Ok(graph) => {
                for &entry in graph.order() {
                    let dist = graph.distance(entry).unwrap_or(0);
                    if let Some(b) = ch.entries.get(entry).and_then(|e| e.bundle) {
                        members.push((b, ch.name.clone(), dist));
                    }
                }
            }
            Err(error) => {
                malformed.extend(ch.entries.iter().filter_map(|e| e.bundle));
                broken.push(BrokenChannel {
                    package: p.id,
                    catalog: p.catalog,
                    channel: ch.name.clone(),
                    error,
                })
            }
        }
    }
    (members, malformed, broken)
}

impl ChannelOrders {
    /// Orders every channel of `set`.
    pub fn compute(set: &crate::catalog::CatalogSet) -> ChannelOrders {
        let mut out = ChannelOrders::default();
        // Packages are ordered independently (in parallel), then laid out in package order.
        let per_package = crate::parallel::parallel_map(&set.packages, order_package);
        // Every table at its final size first: growing them costs more than ordering.
        out.members
            .reserve_exact(per_package.iter().map(|(m, _, _)| m.len()).sum());
        out.malformed
            .reserve_exact(per_package.iter().map(|(_, x, _)| x.len()).sum());
        out.by_package.reserve(set.packages.len());
        for (p, (members, malformed, broken)) in set.packages.iter().zip(per_package) {
            let (m0, x0) = (out.members.len(), out.malformed.len());
            out.members.extend(members);
            out.malformed.extend(malformed);
            out.broken.extend(broken);
            let ranges = out.by_package.entry(p.id).or_default();
            ranges.members.push(m0..out.members.len());
            ranges.malformed.push(x0..out.malformed.len());
        }
        out.deprecated = catalog_deprecations(set, &out.members);
        out
    }
}

/// Bundles deprecated by `olm.deprecations`: the whole package, the bundle by name, or every
/// channel that orders the bundle.
fn catalog_deprecations(
    set: &crate::catalog::CatalogSet,
    members: &[(BundleId, String, u32)],
) -> FxHashMap<BundleId, String> {
    use crate::catalog::DeprecationRef;
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
                    let mut chans = members.iter().filter(|(x, _, _)| *x == b.id).peekable();
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
fn channel_deprecated(
    set: &crate::catalog::CatalogSet,
    b: &crate::catalog::Bundle,
    c: &str,
    named: &str,
) -> bool {
    c == named
        || set.deprecations.iter().any(|d| {
            d.package == b.package
                && d.catalog == b.catalog
                && matches!(&d.reference, crate::catalog::DeprecationRef::Channel(x) if x == c)
        })
}

/// Loads the facts of the reachable packages: per package, through the catalog's and the
/// channel orders' indexes, so the cost follows what the request reaches.
pub fn load_catalog<'a>(
    rt: &mut Crepe<'a>,
    u: &'a Universe,
    orders: &'a ChannelOrders,
    reach: &rustc_hash::FxHashSet<PackageId>,
) {
    let mut packages: Vec<PackageId> = reach.iter().copied().collect();
    packages.sort_unstable();
    for &p in &packages {
        for b in u.set.bundles_of(p) {
            load_bundle(rt, u, orders, u.bundle(*b));
        }
        if let Some(ranges) = orders.by_package.get(&p) {
            for r in &ranges.members {
                let members = orders.members.get(r.clone()).unwrap_or_default();
                rt.extend(members.iter().map(|(b, ch, d)| ChannelMember(*b, ch, *d)));
            }
            for r in &ranges.malformed {
                let malformed = orders.malformed.get(r.clone()).unwrap_or_default();
                rt.extend(malformed.iter().map(|b| InMalformedChannel(*b)));
            }
        }
        for c in 0..u.set.catalogs.len() {
            if let Some(pkg) = u.set.package_in(p, CatalogId(c as u32)) {
                load_package(rt, pkg);
            }
        }
    }
    for b in u
        .installed_only()
        .iter()
        .filter(|b| reach.contains(&b.package))
    {
        load_bundle(rt, u, orders, b);
    }
    for (i, c) in u.set.catalogs.iter().enumerate() {
        rt.extend([CatalogPriority(CatalogId(i as u32), c.priority)]);
    }
}

/// A bundle's own facts.
fn load_bundle<'a>(
    rt: &mut Crepe<'a>,
    u: &'a Universe,
    orders: &ChannelOrders,
    b: &'a crate::catalog::Bundle,
) {
    load_target(rt, orders, b);
    load_requires(rt, u, b);
}

/// What a bundle is as a possible dependency target: identity, what it provides, its
/// deprecation (not what it requires).
pub(crate) fn load_target<'a>(
    rt: &mut Crepe<'a>,
    orders: &ChannelOrders,
    b: &'a crate::catalog::Bundle,
) {
    rt.extend([Bundle(b.id, b.package, b.catalog, &b.version)]);
    rt.extend([BundleName(b.id, &b.name)]);
    rt.extend(b.provides.iter().map(|g| Provides(b.id, *g)));
    rt.extend(b.labels.iter().map(|l| ProvidesLabel(b.id, l)));
    if b.deprecated {
        rt.extend([DeprecatedProperty(b.id)]);
    }
    if orders.deprecated.contains_key(&b.id) {
        rt.extend([CatalogDeprecated(b.id)]);
    }
}

/// A bundle's dependencies, numbered packages first, then APIs, then labels.
pub(crate) fn load_requires<'a>(
    rt: &mut Crepe<'a>,
    u: &'a Universe,
    b: &'a crate::catalog::Bundle,
) {
    let mut d = 0u32;
    for req in &b.requires_packages {
        if let Some(p) = u.package_id(&req.package) {
            rt.extend([RequiresPackage(b.id, d, p, &req.range)]);
        }
        d += 1;
    }
    for g in &b.requires_gvks {
        rt.extend([RequiresGvk(b.id, d, *g)]);
        d += 1;
    }
    for l in &b.requires_labels {
        rt.extend([RequiresLabel(b.id, d, l)]);
        d += 1;
    }
}

/// A package's channel facts in every catalog: members with their distance, entries of
/// malformed channels, default channels.
pub(crate) fn load_channels<'a>(
    rt: &mut Crepe<'a>,
    u: &'a Universe,
    orders: &'a ChannelOrders,
    p: PackageId,
) {
    if let Some(ranges) = orders.by_package.get(&p) {
        for r in &ranges.members {
            let members = orders.members.get(r.clone()).unwrap_or_default();
            rt.extend(members.iter().map(|(b, ch, d)| ChannelMember(*b, ch, *d)));
        }
        for r in &ranges.malformed {
            let malformed = orders.malformed.get(r.clone()).unwrap_or_default();
            rt.extend(malformed.iter().map(|b| InMalformedChannel(*b)));
        }
    }
    for c in 0..u.set.catalogs.len() {
        if let Some(pkg) = u.set.package_in(p, CatalogId(c as u32))
            && let Some(dc) = &pkg.default_channel
        {
            rt.extend([DefaultChannel(pkg.id, pkg.catalog, dc)]);
        }
    }
}

/// A package entry's default channel and its channel entries' upgrade facts.
fn load_package<'a>(rt: &mut Crepe<'a>, p: &'a crate::catalog::Package) {
    if let Some(dc) = &p.default_channel {
        rt.extend([DefaultChannel(p.id, p.catalog, dc)]);
    }
    for ch in &p.channels {
        for e in &ch.entries {
            let Some(b) = e.bundle else { continue };
            rt.extend(e.replaces.as_deref().map(|r| EntryReplaces(b, &ch.name, r)));
            rt.extend(e.skips.iter().map(|s| EntrySkips(b, &ch.name, s)));
            rt.extend(
                e.skip_range
                    .as_ref()
                    .map(|r| EntrySkipRange(b, &ch.name, r)),
            );
        }
    }
}
