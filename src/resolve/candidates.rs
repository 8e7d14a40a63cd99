//! Ordered candidate lists (docs/semantics.md §5.1), built from the derived preference facts.
//! Each list kind orders by a sequence of named key parts; the same parts say why one candidate
//! comes before another ([`preference`]). A bundle a static variable prefers comes first in
//! every list it is in.

use std::cmp::{Ordering, Reverse};

use rustc_hash::FxHashMap;

use crate::catalog::BundleId;
use crate::version::Version;

use super::derive::Derived;
use super::universe::Universe;

/// Which list a candidate is ordered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind<'a> {
    /// A required package's bundles for a new install, optionally within one channel.
    Install(Option<&'a str>),
    /// Upgrade successors of an installed bundle, optionally within one channel.
    Upgrade(Option<&'a str>),
    /// Candidates of a dependency of this bundle.
    Dependency(BundleId),
}

/// Why one candidate comes before another: the first key part where they differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Preference {
    /// A static variable prefers it.
    StaticPreference,
    /// The other is deprecated by its catalog.
    NotDeprecated,
    /// It is installed.
    Installed,
    /// It comes from the dependent bundle's own catalog.
    SameCatalog,
    /// Its catalog has a higher priority (this one's, the other's).
    CatalogPriority(i32, i32),
    /// Its catalog is in the namespace being resolved (the request's `localCatalogs`).
    LocalCatalog,
    /// Its catalog's name sorts first (this one's, the other's).
    CatalogName(String, String),
    /// It is in its package's default channel.
    DefaultChannel,
    /// Its package's name sorts first.
    PackageName,
    /// Its channel's name sorts first (this one's, the other's).
    ChannelName(String, String),
    /// It is nearer its channel's head (this one's distance, the other's).
    HeadDistance(u32, u32),
    /// Its version is higher.
    NewerVersion,
    /// Its name sorts first (nothing else differs).
    Name,
}

/// One part of an ordering key; smaller sorts first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part<'a> {
    Flag(bool),
    Priority(Reverse<i32>),
    Text(&'a str),
    Number(u32),
    Version(Reverse<&'a Version>),
    Id(BundleId),
}

/// Which [`Preference`] a part stands for.
#[derive(Clone, Copy)]
enum Tag {
    Static,
    Deprecated,
    Installed,
    SameCatalog,
    Priority,
    Local,
    CatalogName,
    Default,
    PackageName,
    Channel,
    Distance,
    Version,
    Name,
}

/// Where a bundle sits for ordering: default channel first, then channel name, then distance
/// from the head. `only` restricts to one channel.
fn channel_key<'a>(d: &'a Derived, b: BundleId, only: Option<&str>) -> (bool, &'a str, u32) {
    let chans = d
        .preferences
        .channels
        .get(&b)
        .map_or(&[][..], Vec::as_slice);
    let default = d.preferences.in_default_channel.get(&b).map(|ch| &**ch);
    chans
        .iter()
        .filter(|(ch, _)| only.is_none_or(|o| o == &**ch))
        .map(|(ch, dist)| (Some(&**ch) != default, &**ch, *dist))
        .min()
        // Not on any (allowed) channel: a pinned skipped entry or an installed-only bundle.
        .unwrap_or((true, "\u{10FFFF}", u32::MAX))
}

/// The channel a selected bundle is reported in.
pub(crate) fn reported_channel<'a>(
    d: &'a Derived,
    b: BundleId,
    only: Option<&str>,
) -> Option<&'a str> {
    let (_, ch, dist) = channel_key(d, b, only);
    (dist != u32::MAX).then_some(ch)
}

/// The key of `b` in a list of `kind`, part by part (docs/semantics.md §5.1):
/// - dependency: installed, own catalog, priority, local catalog, catalog name, default
///   channel, package, channel, distance from head, newer version, name;
/// - install: priority, local catalog, catalog name, default (or given) channel, channel,
///   distance, version;
/// - upgrade: priority, local catalog, catalog name, default channel, distance, channel,
///   version.
fn key<'a>(
    u: &'a Universe,
    d: &'a Derived,
    kind: ListKind<'_>,
    b: BundleId,
) -> Vec<(Tag, Part<'a>)> {
    let bundle = u.bundle(b);
    let only = match kind {
        ListKind::Install(c) | ListKind::Upgrade(c) => c,
        ListKind::Dependency(_) => None,
    };
    let (not_default, ch, dist) = channel_key(d, b, only);
    let mut k = vec![
        (
            Tag::Static,
            Part::Flag(!d.preferences.preferred.contains(&b)),
        ),
        (
            Tag::Deprecated,
            Part::Flag(d.preferences.deprecated.contains(&b)),
        ),
    ];
    if let ListKind::Dependency(dependent) = kind {
        k.push((Tag::Installed, Part::Flag(!u.is_installed(b))));
        k.push((
            Tag::SameCatalog,
            Part::Flag(!d.preferences.same_catalog.contains(&(dependent, b))),
        ));
    }
    k.push((
        Tag::Priority,
        Part::Priority(Reverse(
            d.preferences
                .priority
                .get(&b)
                .copied()
                .unwrap_or_else(|| u.catalog_priority(bundle.catalog)),
        )),
    ));
    k.push((Tag::Local, Part::Flag(!u.is_local(b))));
    k.push((Tag::CatalogName, Part::Text(u.catalog_name(bundle.catalog))));
    k.push((Tag::Default, Part::Flag(not_default)));
    let (channel, distance) = (Part::Text(ch), Part::Number(dist));
    match kind {
        ListKind::Dependency(_) => {
            k.push((Tag::PackageName, Part::Text(u.package_name(bundle.package))));
            k.extend([(Tag::Channel, channel), (Tag::Distance, distance)]);
        }
        ListKind::Install(_) => k.extend([(Tag::Channel, channel), (Tag::Distance, distance)]),
        ListKind::Upgrade(_) => k.extend([(Tag::Distance, distance), (Tag::Channel, channel)]),
    }
    k.push((Tag::Version, Part::Version(Reverse(&bundle.version))));
    if !matches!(kind, ListKind::Upgrade(_)) {
        k.push((Tag::Name, Part::Text(&bundle.name)));
    }
    k.push((Tag::Name, Part::Id(b)));
    k
}

/// Orders candidates for a list of `kind`, most preferred first.
pub fn order(u: &Universe, d: &Derived, kind: ListKind<'_>, cands: &mut [BundleId]) {
    cands.sort_by_cached_key(|&b| {
        key(u, d, kind, b)
            .into_iter()
            .map(|(_, p)| p)
            .collect::<Vec<Part<'_>>>()
    });
}

/// Dependency lists ordered through precomputed ranks: a candidate's key in a dependency
/// list is the same for every dependent except its "same catalog" part, so the parts before
/// and after it are ranked once per request and each list compares integers. The order is
/// exactly [`order`]'s.
pub(crate) struct DependencyRanks {
    rank: FxHashMap<BundleId, (u32, u32)>,
}

impl DependencyRanks {
    /// Ranks every bundle that is a candidate of some dependency.
    pub fn new(u: &Universe, d: &Derived) -> DependencyRanks {
        let mut bundles: Vec<BundleId> = d
            .dependencies
            .candidates
            .values()
            .flatten()
            .copied()
            .collect();
        bundles.sort_unstable();
        bundles.dedup();
        let keys: Vec<(Vec<Part<'_>>, Vec<Part<'_>>)> = bundles
            .iter()
            .map(|&b| {
                let mut pre = Vec::new();
                let mut rest = Vec::new();
                let mut after = false;
                for (tag, part) in key(u, d, ListKind::Dependency(b), b) {
                    match tag {
                        Tag::SameCatalog => after = true,
                        _ if after => rest.push(part),
                        _ => pre.push(part),
                    }
                }
                (pre, rest)
            })
            .collect();
        let pre = dense_ranks(&keys, |k| &k.0);
        let rest = dense_ranks(&keys, |k| &k.1);
        let rank = bundles
            .iter()
            .zip(pre.into_iter().zip(rest))
            .map(|(b, r)| (*b, r))
            .collect();
        DependencyRanks { rank }
    }

    /// No ranks: every list is ordered by the key sort ([`order`]).
    pub fn none() -> DependencyRanks {
        DependencyRanks {
            rank: FxHashMap::default(),
        }
    }

    /// Orders the candidates of a dependency of `dependent`, most preferred first.
    pub fn order(&self, u: &Universe, d: &Derived, dependent: BundleId, cands: &mut [BundleId]) {
        if cands.iter().any(|b| !self.rank.contains_key(b)) {
            return order_dependency(u, d, dependent, cands);
        }
        #[cfg(debug_assertions)]
        let mut by_key = cands.to_vec();
        // Keys looked up once per candidate; `rest` ends in the bundle id, so keys are unique.
        let mut keyed: Vec<((u32, bool, u32), BundleId)> = cands
            .iter()
            .map(|b| {
                let (pre, rest) = self.rank.get(b).copied().unwrap_or_default();
                (
                    (
                        pre,
                        !d.preferences.same_catalog.contains(&(dependent, *b)),
                        rest,
                    ),
                    *b,
                )
            })
            .collect();
        keyed.sort_unstable();
        for (slot, (_, b)) in cands.iter_mut().zip(keyed) {
            *slot = b;
        }
        // Debug builds (every test) hold the ranks against the key sort they stand for.
        #[cfg(debug_assertions)]
        {
            order(u, d, ListKind::Dependency(dependent), &mut by_key);
            debug_assert_eq!(
                by_key, cands,
                "dependency ranks disagree with the key order"
            );
        }
    }
}

/// [`key`] of `b` in a dependency list of `dependent`, as a tuple of the same parts in the
/// same order: compared without building a list of parts per candidate.
#[allow(clippy::type_complexity)] // the key's parts, spelled out
fn dependency_key<'a>(
    u: &'a Universe,
    d: &'a Derived,
    dependent: BundleId,
    b: BundleId,
) -> (
    (bool, bool, bool, bool, Reverse<i32>, bool),
    (&'a str, bool, &'a str, &'a str, u32),
    (Reverse<&'a Version>, &'a str, BundleId),
) {
    let bundle = u.bundle(b);
    let p = &d.preferences;
    let (not_default, ch, dist) = channel_key(d, b, None);
    let priority = p.priority.get(&b).copied();
    (
        (
            !p.preferred.contains(&b),
            p.deprecated.contains(&b),
            !u.is_installed(b),
            !p.same_catalog.contains(&(dependent, b)),
            Reverse(priority.unwrap_or_else(|| u.catalog_priority(bundle.catalog))),
            !u.is_local(b),
        ),
        (
            u.catalog_name(bundle.catalog),
            not_default,
            u.package_name(bundle.package),
            ch,
            dist,
        ),
        (Reverse(&bundle.version), &bundle.name, b),
    )
}

/// Orders the candidates of a dependency of `dependent` by [`dependency_key`]; debug builds
/// (every test) hold the order against [`order`]'s.
fn order_dependency(u: &Universe, d: &Derived, dependent: BundleId, cands: &mut [BundleId]) {
    #[cfg(debug_assertions)]
    let mut by_key = cands.to_vec();
    cands.sort_by_cached_key(|&b| dependency_key(u, d, dependent, b));
    #[cfg(debug_assertions)]
    {
        order(u, d, ListKind::Dependency(dependent), &mut by_key);
        debug_assert_eq!(
            by_key, cands,
            "the dependency key disagrees with the key order"
        );
    }
}

/// Dense ranks of `keys` by the part `by` selects: equal parts get equal ranks.
fn dense_ranks<K, P: Ord + ?Sized>(keys: &[K], by: impl Fn(&K) -> &P) -> Vec<u32> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by(|&a, &b| keys.get(a).map(&by).cmp(&keys.get(b).map(&by)));
    let mut ranks = vec![0u32; keys.len()];
    let mut rank = 0u32;
    let mut last: Option<usize> = None;
    for &i in &idx {
        if let Some(l) = last
            && keys.get(l).map(&by) != keys.get(i).map(&by)
        {
            rank += 1;
        }
        if let Some(slot) = ranks.get_mut(i) {
            *slot = rank;
        }
        last = Some(i);
    }
    ranks
}

/// Why `a` comes before `b` in a list of `kind` (None when it does not).
pub fn preference(
    u: &Universe,
    d: &Derived,
    kind: ListKind<'_>,
    a: BundleId,
    b: BundleId,
) -> Option<Preference> {
    let (ka, kb) = (key(u, d, kind, a), key(u, d, kind, b));
    let (tag, pa, pb) = ka
        .into_iter()
        .zip(kb)
        .map(|((t, pa), (_, pb))| (t, pa, pb))
        .find(|(_, pa, pb)| pa != pb)?;
    if pa.cmp(&pb) != Ordering::Less {
        return None;
    }
    let text = |p: &Part<'_>| match p {
        Part::Text(s) => s.to_string(),
        _ => String::new(),
    };
    let num = |p: &Part<'_>| match p {
        Part::Number(n) => *n,
        _ => 0,
    };
    let prio = |p: &Part<'_>| match p {
        Part::Priority(Reverse(n)) => *n,
        _ => 0,
    };
    Some(match tag {
        Tag::Static => Preference::StaticPreference,
        Tag::Deprecated => Preference::NotDeprecated,
        Tag::Installed => Preference::Installed,
        Tag::SameCatalog => Preference::SameCatalog,
        Tag::Priority => Preference::CatalogPriority(prio(&pa), prio(&pb)),
        Tag::Local => Preference::LocalCatalog,
        Tag::CatalogName => Preference::CatalogName(text(&pa), text(&pb)),
        Tag::Default => Preference::DefaultChannel,
        Tag::PackageName => Preference::PackageName,
        Tag::Channel => Preference::ChannelName(text(&pa), text(&pb)),
        Tag::Distance => Preference::HeadDistance(num(&pa), num(&pb)),
        Tag::Version => Preference::NewerVersion,
        Tag::Name => Preference::Name,
    })
}
