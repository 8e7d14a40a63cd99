//! Runs the Datalog program of `rules/*.dl` over the catalog and request facts and returns
//! its output relations as typed, sorted data.

#![allow(missing_docs, clippy::all)]

type HashSet<T> = std::collections::HashSet<T, rustc_hash::FxBuildHasher>;

use rustc_hash::FxHashMap;

use crate::catalog::{BundleId, CatalogId, ChannelError, GvkId, PackageId};
use crate::range::VersionRange;
use crate::version::Version;

use super::universe::Universe;

/// Why a bundle is never a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exclusion {
    /// Removed before resolution by rule number `.0` of [`super::Universe::rules`] (a
    /// pipeline filter, a static variable, an admin or cluster constraint).
    Removed(u32),
    /// It carries the `olm.deprecated` property.
    Deprecated,
    /// No channel lists it on its upgrade order (skipped, or in no channel).
    NotInChannel,
    /// Its only channels cannot be ordered (no head, a cycle, two chains).
    MalformedChannel,
}

/// Why a bundle of a required package does not satisfy the requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mismatch {
    /// From another catalog than the one asked for.
    OtherCatalog,
    /// Not on the channel asked for.
    OtherChannel,
    /// Outside the version range asked for.
    OutOfRange,
    /// Not the bundle pinned.
    NotPinned,
}

/// An upgrade edge kind (docs/semantics.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Edge {
    /// The entry's `replaces` names the installed bundle.
    Replaces,
    /// The entry's `skips` names the installed bundle.
    Skips,
    /// The entry's `skipRange` contains the installed version.
    SkipRange,
}

// The program stitched from rules/*.dl by build.rs.
include!(concat!(env!("OUT_DIR"), "/rules.rs"));

/// A requirement as facts.
pub struct RequirementFacts<'a> {
    pub package: Option<PackageId>,
    pub channel: Option<&'a str>,
    pub range: Option<&'a VersionRange>,
    pub pin: Option<&'a str>,
    pub catalog: Option<CatalogId>,
}

/// A channel that could not be ordered.
#[derive(Clone, Debug)]
pub struct BrokenChannel {
    pub package: PackageId,
    pub catalog: CatalogId,
    pub channel: String,
    pub error: ChannelError,
}

/// Channel orders of every package, computed once per catalog set.
#[derive(Default)]
pub struct ChannelOrders {
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
    pub fn compute(set: &crate::catalog::CatalogSet) -> ChannelOrders {
        let mut out = ChannelOrders::default();
        // Packages are ordered independently (in parallel), then laid out in package order.
        let per_package = crate::parallel::parallel_map(&set.packages, order_package);
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

/// The program's output relations, sorted.
#[derive(Default, Debug)]
pub struct Derived {
    pub excluded: FxHashMap<BundleId, Exclusion>,
    pub requirement_match: Vec<(u32, BundleId)>,
    pub requirement_mismatch: Vec<(u32, BundleId, Mismatch)>,
    /// Bundles matching each (bundle, dependency number), before exclusions.
    pub dependency_match: FxHashMap<(BundleId, u32), Vec<BundleId>>,
    pub dependency_candidates: FxHashMap<(BundleId, u32), Vec<BundleId>>,
    pub installed_for: Vec<(u32, BundleId)>,
    pub installed_fits: Vec<(u32, BundleId)>,
    pub upgrade_candidates: Vec<(u32, BundleId, Edge)>,
    pub successors: Vec<(BundleId, BundleId, Edge)>,
    pub reached: Vec<BundleId>,
    /// Channels of each reached bundle: (channel, distance), sorted.
    pub channels: FxHashMap<BundleId, Vec<(String, u32)>>,
    pub in_default_channel: FxHashMap<BundleId, String>,
    pub same_catalog: rustc_hash::FxHashSet<(BundleId, BundleId)>,
    /// Reached bundles deprecated by their catalog.
    pub deprecated: rustc_hash::FxHashSet<BundleId>,
    /// The catalog's message for each deprecated reached bundle.
    pub deprecation_messages: FxHashMap<BundleId, String>,
    /// Bundles a static variable prefers: first in every candidate list they are in.
    pub preferred: rustc_hash::FxHashSet<BundleId>,
}

/// Runs the rules for one request.
pub fn run<'a>(
    u: &'a Universe,
    orders: &'a ChannelOrders,
    requirements: &[RequirementFacts<'a>],
    adjust: &'a super::Adjustments,
    matches: &super::ConstraintMatches,
) -> Derived {
    let mut rt = Crepe::new();
    let required: Vec<PackageId> = requirements.iter().filter_map(|r| r.package).collect();
    let reach = super::reach::reachable(u, &required, adjust, matches);
    load_catalog(&mut rt, u, orders, &reach);
    for (r, req) in requirements.iter().enumerate() {
        let r = r as u32;
        let Some(p) = req.package else { continue };
        rt.extend([Requirement(r, p)]);
        rt.extend(req.channel.map(|c| RequirementChannel(r, c)));
        rt.extend(req.range.map(|x| RequirementRange(r, x)));
        rt.extend(req.pin.map(|x| RequirementPin(r, x)));
        rt.extend(req.catalog.map(|x| RequirementCatalog(r, x)));
    }
    rt.extend(u.installed.iter().map(|b| Installed(*b)));
    rt.extend(u.kept.iter().map(|b| Kept(*b)));
    rt.extend(u.installed_only().iter().map(|b| InNoCatalog(b.id)));
    rt.extend(adjust.removed.iter().map(|(b, i)| Removed(*b, *i)));
    rt.extend(adjust.required.iter().map(|(b, _)| Seeded(*b)));
    for ((a, d), bs) in matches
        .matches
        .iter()
        .filter(|((a, _), _)| reach.contains(&u.package_of(*a)))
    {
        rt.extend(bs.iter().map(|b| ConstraintMatch(*a, *d, *b)));
    }
    let mut d = collect(rt.run_with_hasher::<rustc_hash::FxBuildHasher>());
    d.deprecation_messages = d
        .deprecated
        .iter()
        .filter_map(|b| orders.deprecated.get(b).map(|m| (*b, m.clone())))
        .collect();
    d.preferred = adjust.preferred.iter().copied().collect();
    d
}

/// Loads the facts of the reachable packages: per package, through the catalog's and the
/// channel orders' indexes, so the cost follows what the request reaches.
fn load_catalog<'a>(
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
    rt.extend([Bundle(b.id, b.package, b.catalog, &b.version)]);
    rt.extend([BundleName(b.id, &b.name)]);
    rt.extend(b.provides.iter().map(|g| Provides(b.id, *g)));
    rt.extend(b.labels.iter().map(|l| ProvidesLabel(b.id, l)));
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
    if b.deprecated {
        rt.extend([DeprecatedProperty(b.id)]);
    }
    if orders.deprecated.contains_key(&b.id) {
        rt.extend([CatalogDeprecated(b.id)]);
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

/// The output relations, in the order the rules declare them (build.rs stitches
/// candidates, exclusions, preferences, upgrades in file-name order after facts).
type Output<'a> = (
    HashSet<RequirementMismatch>,
    HashSet<RequirementMatch>,
    HashSet<Reached>,
    HashSet<DependencyMatch>,
    HashSet<DependencyCandidate>,
    HashSet<Excluded>,
    HashSet<CandidateChannel<'a>>,
    HashSet<InDefaultChannel<'a>>,
    HashSet<SameCatalog>,
    HashSet<CandidatePriority>,
    HashSet<DeprecatedCandidate>,
    HashSet<Successor>,
    HashSet<InstalledFor>,
    HashSet<InstalledFits>,
    HashSet<UpgradeCandidate>,
);

fn sorted<T: Ord>(it: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = it.into_iter().collect();
    v.sort();
    v
}

fn collect(out: Output<'_>) -> Derived {
    let (
        mism,
        rmatch,
        reached,
        dmatch,
        dcand,
        excl,
        chans,
        defc,
        same,
        _prio,
        depr,
        succ,
        ifor,
        ifits,
        upc,
    ) = out;
    let mut d = Derived::default();
    for Excluded(b, why) in excl {
        let e = d.excluded.entry(b).or_insert(why);
        *e = (*e).min(why);
    }
    d.requirement_mismatch = sorted(
        mism.into_iter()
            .map(|RequirementMismatch(r, b, m)| (r, b, m)),
    );
    d.requirement_match = sorted(rmatch.into_iter().map(|RequirementMatch(r, b)| (r, b)));
    d.reached = sorted(reached.into_iter().map(|Reached(b)| b));
    for (a, i, b) in sorted(dmatch.into_iter().map(|DependencyMatch(a, i, b)| (a, i, b))) {
        d.dependency_match.entry((a, i)).or_default().push(b);
    }
    for (a, i, b) in sorted(
        dcand
            .into_iter()
            .map(|DependencyCandidate(a, i, b)| (a, i, b)),
    ) {
        d.dependency_candidates.entry((a, i)).or_default().push(b);
    }
    d.successors = sorted(succ.into_iter().map(|Successor(i, e, k)| (i, e, k)));
    d.installed_for = sorted(ifor.into_iter().map(|InstalledFor(r, i)| (r, i)));
    d.installed_fits = sorted(ifits.into_iter().map(|InstalledFits(r, i)| (r, i)));
    d.upgrade_candidates = sorted(upc.into_iter().map(|UpgradeCandidate(r, e, k)| (r, e, k)));
    for (b, ch, dist) in sorted(
        chans
            .into_iter()
            .map(|CandidateChannel(b, ch, dist)| (b, ch, dist)),
    ) {
        d.channels
            .entry(b)
            .or_default()
            .push((ch.to_string(), dist));
    }
    for InDefaultChannel(b, ch) in defc {
        d.in_default_channel.insert(b, ch.to_string());
    }
    d.same_catalog = same.into_iter().map(|SameCatalog(a, b)| (a, b)).collect();
    d.deprecated = depr.into_iter().map(|DeprecatedCandidate(b)| b).collect();
    d
}

/// Unused-import guard for types only the rules mention.
#[allow(dead_code)]
fn _types(_: GvkId, _: &Version) {}
