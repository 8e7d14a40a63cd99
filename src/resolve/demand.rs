//! Derivation on demand: the dependency lists of the few bundles whose dependencies a
//! search asks for, with the exclusions and preference facts of their candidates.
//!
//! The rules of `rules/*.dl` stay the specification: the whole program evaluates them with
//! crepe. The roots of derivation on demand (requirement lists, upgrade edges, the roots'
//! exclusions and preference facts) are evaluated natively by [`roots`], and held against
//! crepe's run of the same rules ([`super::derive::run_over`]). The rules a dependency list
//! reads are local to one dependent and its targets: `DependencyMatch` and `DependencyCandidate`
//! (`rules/candidates.dl`), `Excluded` (`rules/exclusions.dl`) and the preference facts of
//! `rules/preferences.dl`. [`DependencyRules`] evaluates exactly those, for one dependent at
//! a time, through the catalog's indexes: one crepe run per dependent cost about 3.5 µs per
//! bundle it loaded (43 µs a run on the synthetic catalog of 10,000 bundles, over half of a
//! request's time; docs/performance.md, 2026-11-27). [`compare`] holds every list, with its
//! exclusions and preference facts, against the whole program's
//! ([`super::Prepared::check_on_demand`]: `tests/derive_on_demand.rs`, the `resolve` fuzz
//! target), so a rule edited in `rules/*.dl` and not here fails there.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::catalog::BundleId;

use super::Adjustments;
use super::constraints::{ConstraintMatches, first_constraint_dependency};
use super::derive::{Derived, Exclusion, Preferences};
use super::facts::ChannelOrders;
use super::universe::Universe;

mod roots;
#[cfg(any(test, feature = "testing"))]
pub(crate) use roots::compare as compare_roots;

/// The rules a dependency list reads, evaluated for one dependent at a time over the
/// request's universe, adjustments and constraint matches (docs/semantics.md §2.2, §4,
/// §5.1, §6.1).
pub(crate) struct DependencyRules<'a> {
    u: &'a Universe,
    orders: &'a ChannelOrders,
    adjust: &'a Adjustments,
    matches: &'a ConstraintMatches,
    /// `Removed(b, i)`: the least rule number that removes each bundle.
    removed: FxHashMap<BundleId, u32>,
    /// Exclusions evaluated so far (None: a possible candidate).
    exclusions: FxHashMap<BundleId, Option<Exclusion>>,
}

impl<'a> DependencyRules<'a> {
    /// The rules over `u` with `adjust`'s removals; `matches` must hold the
    /// constraint matches of every bundle asked for.
    pub fn new(
        u: &'a Universe,
        orders: &'a ChannelOrders,
        adjust: &'a Adjustments,
        matches: &'a ConstraintMatches,
    ) -> DependencyRules<'a> {
        let mut removed: FxHashMap<BundleId, u32> = FxHashMap::default();
        for &(b, i) in &adjust.removed {
            let least = removed.entry(b).or_insert(i);
            *least = (*least).min(i);
        }
        DependencyRules {
            u,
            orders,
            adjust,
            matches,
            removed,
            exclusions: FxHashMap::default(),
        }
    }

    /// The universe the rules read.
    pub fn universe(&self) -> &'a Universe {
        self.u
    }

    #[cfg(any(test, feature = "testing"))]
    /// The dependency lists of `demanded`: the matches and candidates of each of their
    /// dependencies (lists that would be empty are absent), the exclusions of the matches,
    /// the preference facts of the candidates (and of `demanded`).
    pub fn dependencies(&mut self, demanded: &[BundleId]) -> Derived {
        let mut d = Derived::default();
        self.add_dependencies(&mut d, demanded);
        d
    }

    /// Adds the dependency lists of `demanded` to `d` (see [`Self::dependencies`]). A
    /// bundle's preference facts are the same whichever list reaches it: those `d` has
    /// already are kept.
    pub fn add_dependencies(&mut self, d: &mut Derived, demanded: &[BundleId]) {
        for &a in demanded {
            self.reach(&mut d.preferences, a);
            let catalog = self.u.bundle(a).catalog;
            if let Some(e) = self.exclusion(a) {
                d.excluded.insert(a, e);
            }
            for (i, matched) in self.matches_of(a) {
                let mut candidates = Vec::with_capacity(matched.len());
                for &b in &matched {
                    if let Some(e) = self.exclusion(b) {
                        d.excluded.insert(b, e);
                    } else {
                        candidates.push(b);
                    }
                }
                for &b in &candidates {
                    if self.u.bundle(b).catalog == catalog {
                        d.preferences.same_catalog.insert((a, b));
                    }
                    self.reach(&mut d.preferences, b);
                }
                if !candidates.is_empty() {
                    d.dependencies.candidates.insert((a, i), candidates);
                }
                d.dependencies.matches.insert((a, i), matched);
            }
        }
    }

    /// Adds the preference facts of reached bundle `b` unless `p` has them (a catalog
    /// bundle reached has its catalog's priority).
    fn reach(&self, p: &mut Preferences, b: BundleId) {
        if !p.priority.contains_key(&b) {
            self.preferences_of(p, b);
        }
    }

    /// `DependencyMatch(a, i, b)` (`rules/candidates.dl`): per dependency number `i` of `a`
    /// that some bundle matches, the matching bundles in id order. Dependencies are numbered
    /// packages first, then APIs, labels and constraints.
    fn matches_of(&self, a: BundleId) -> Vec<(u32, Vec<BundleId>)> {
        let u = self.u;
        let bundle = u.bundle(a);
        let mut out: Vec<(u32, Vec<BundleId>)> = Vec::new();
        let mut i = 0u32;
        for req in &bundle.requires_packages {
            if let Some(p) = u.package_id(&req.package) {
                let fits = |b: &BundleId| req.range.matches(&u.bundle(*b).version);
                out.push((i, bundles_of(u, p).filter(fits).collect()));
            }
            i += 1;
        }
        for g in &bundle.requires_gvks {
            out.push((i, u.providers(*g)));
            i += 1;
        }
        for l in &bundle.requires_labels {
            let with_label = u.bundles().filter(|x| x.labels.contains(l));
            out.push((i, with_label.map(|x| x.id).collect()));
            i += 1;
        }
        let base = first_constraint_dependency(bundle);
        for k in 0..bundle.requires_constraints.len() as u32 {
            let found = self.matches.matches.get(&(a, base + k));
            out.push((base + k, found.cloned().unwrap_or_default()));
        }
        for (_, bs) in &mut out {
            bs.sort_unstable();
            bs.dedup();
        }
        out.retain(|(_, bs)| !bs.is_empty());
        out
    }

    /// `Excluded(b, _)` (`rules/exclusions.dl`), the least reason: installed bundles are
    /// exempt; else removed by a rule, deprecated by its own property, or on no channel's
    /// order (malformed when its only channels cannot be ordered).
    fn exclusion(&mut self, b: BundleId) -> Option<Exclusion> {
        if let Some(known) = self.exclusions.get(&b) {
            return *known;
        }
        let e = self.evaluate_exclusion(b);
        self.exclusions.insert(b, e);
        e
    }

    /// [`Self::exclusion`], evaluated.
    fn evaluate_exclusion(&self, b: BundleId) -> Option<Exclusion> {
        if self.u.is_installed(b) {
            return None;
        }
        let bundle = self.u.bundle(b);
        let removed = self.removed.get(&b).map(|i| Exclusion::Removed(*i));
        let deprecated = bundle.deprecated.then_some(Exclusion::Deprecated);
        let entries = || self.orders.of_package(bundle.package);
        let member = entries().any(|e| e.channels_of(b).next().is_some());
        let off_channel = (!member).then(|| {
            if entries().any(|e| e.in_malformed(b)) {
                Exclusion::MalformedChannel
            } else {
                Exclusion::NotInChannel
            }
        });
        [removed, deprecated, off_channel]
            .into_iter()
            .flatten()
            .min()
    }

    /// The preference facts of reached bundle `b` (`rules/preferences.dl`): its channels with
    /// their distances, the default channel it is in, its catalog's priority, its catalog's
    /// deprecation.
    fn preferences_of(&self, p: &mut Preferences, b: BundleId) {
        let u = self.u;
        let bundle = u.bundle(b);
        let mut channels: Vec<(Arc<str>, u32)> = self
            .orders
            .of_package(bundle.package)
            .flat_map(|e| e.channels_of(b))
            .map(|(ch, dist)| (ch.clone(), dist))
            .collect();
        channels.sort_unstable();
        channels.dedup();
        let default = u
            .set
            .package_in(bundle.package, bundle.catalog)
            .and_then(|pkg| pkg.default_channel.as_deref())
            .and_then(|dc| channels.iter().find(|(ch, _)| &**ch == dc));
        if let Some((dc, _)) = default {
            p.in_default_channel.insert(b, dc.clone());
        }
        if !channels.is_empty() {
            p.channels.insert(b, channels);
        }
        if let Some(c) = u.set.catalog(bundle.catalog) {
            p.priority.insert(b, c.priority);
        }
        if let Some(message) = self.orders.deprecated.get(&b) {
            p.deprecated.insert(b);
            p.deprecation_messages.insert(b, message.clone());
        }
    }
}

/// The bundles of package `p` the rules see (`Bundle(b, p, _, _)`): its catalogs' bundles,
/// then the installed bundles no catalog has.
fn bundles_of(u: &Universe, p: crate::catalog::PackageId) -> impl Iterator<Item = BundleId> + '_ {
    let installed = u.installed_only().iter().filter(move |b| b.package == p);
    (u.set.bundles_of(p).iter().copied()).chain(installed.map(|b| b.id))
}

#[cfg(any(test, feature = "testing"))]
/// Holds the dependency lists of `demanded` in `lazy` against the whole program's `full`:
/// matches, candidates, the exclusions of the matches and the preference facts of the
/// candidates. Returns the number of lists compared, or the first difference in words.
pub fn compare(full: &Derived, lazy: &Derived, demanded: &[BundleId]) -> Result<usize, String> {
    let mut lists = 0;
    let demanded: rustc_hash::FxHashSet<BundleId> = demanded.iter().copied().collect();
    let keys = |d: &Derived| -> Vec<(BundleId, u32)> {
        let mut k: Vec<_> = d
            .dependencies
            .matches
            .keys()
            .chain(d.dependencies.candidates.keys())
            .filter(|(a, _)| demanded.contains(a))
            .copied()
            .collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    let (kf, kl) = (keys(full), keys(lazy));
    if kf != kl {
        return Err(format!(
            "dependency keys differ: full {kf:?}, on demand {kl:?}"
        ));
    }
    let pf = &full.preferences;
    let pl = &lazy.preferences;
    for key in kf {
        lists += 1;
        let get = |d: &Derived| {
            (
                d.dependencies
                    .matches
                    .get(&key)
                    .cloned()
                    .unwrap_or_default(),
                d.dependencies
                    .candidates
                    .get(&key)
                    .cloned()
                    .unwrap_or_default(),
            )
        };
        let (f, l) = (get(full), get(lazy));
        if f != l {
            return Err(format!("dependency {key:?}: full {f:?}, on demand {l:?}"));
        }
        for b in &f.0 {
            if full.excluded.get(b) != lazy.excluded.get(b) {
                return Err(format!("exclusion of {b:?} differs for dependency {key:?}"));
            }
        }
        for b in &f.1 {
            let same = pf.channels.get(b) == pl.channels.get(b)
                && pf.in_default_channel.get(b) == pl.in_default_channel.get(b)
                && pf.priority.get(b) == pl.priority.get(b)
                && pf.deprecated.contains(b) == pl.deprecated.contains(b)
                && pf.same_catalog.contains(&(key.0, *b)) == pl.same_catalog.contains(&(key.0, *b));
            if !same {
                return Err(format!(
                    "preference facts of {b:?} differ for dependency {key:?}"
                ));
            }
        }
    }
    Ok(lists)
}
