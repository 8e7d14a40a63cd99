//! Derivation on demand: the rules of `rules/*.dl` run for the few bundles whose
//! dependencies are asked for, over those bundles' facts and their dependencies' possible
//! targets only (one crepe run per demand). The bundles are `Seeded`, so the program starts
//! from them; targets are loaded without what they require, so the derivation stops there.
//! Every relation a dependency list reads is local to the dependent and its targets (see
//! the rules), so each list equals the one the whole program derives: [`compare`] holds the
//! two against each other (tests, fuzz target).

use rustc_hash::FxHashSet;

use crate::catalog::{BundleId, CatalogId, PackageId};

use super::Adjustments;
use super::constraints::{ConstraintMatches, first_constraint_dependency};
use super::derive::program::*;
use super::derive::{Derived, collect};
use super::facts::{ChannelOrders, load_channels, load_requires, load_target};
use super::universe::Universe;

/// The possible targets of `a`'s dependencies: bundles of required packages, providers of
/// required APIs and labels, and the bundles its constraints match.
fn targets(u: &Universe, a: BundleId, matches: &ConstraintMatches) -> Vec<BundleId> {
    let b = u.bundle(a);
    let extra = u.installed_only();
    let mut out: Vec<BundleId> = Vec::new();
    // Only the bundles in the range can match (the rule's own test, `range.matches(v)`).
    for req in &b.requires_packages {
        if let Some(p) = u.set.package_id(&req.package) {
            let in_range = |x: &&crate::catalog::Bundle| req.range.matches(&x.version);
            out.extend(
                u.set
                    .bundles_of(p)
                    .iter()
                    .filter(|x| in_range(&u.bundle(**x)))
                    .copied(),
            );
            out.extend(
                extra
                    .iter()
                    .filter(|x| x.package == p && in_range(x))
                    .map(|x| x.id),
            );
        }
    }
    for g in &b.requires_gvks {
        out.extend_from_slice(u.set.providers(*g));
        out.extend(
            extra
                .iter()
                .filter(|x| x.provides.contains(g))
                .map(|x| x.id),
        );
    }
    if !b.requires_labels.is_empty() {
        out.extend(
            u.bundles()
                .filter(|x| x.labels.iter().any(|l| b.requires_labels.contains(l)))
                .map(|x| x.id),
        );
    }
    let base = first_constraint_dependency(b);
    for k in 0..b.requires_constraints.len() as u32 {
        out.extend(matches.matches.get(&(a, base + k)).into_iter().flatten());
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The dependency lists of `demanded` (constraint matches of their constraints must already
/// be in `matches`), with the exclusions and preference facts of their targets, in one run.
pub fn dependencies(
    u: &Universe,
    orders: &ChannelOrders,
    adjust: &Adjustments,
    matches: &ConstraintMatches,
    demanded: &[BundleId],
) -> Derived {
    let mut rt = Crepe::new();
    let mut loaded: FxHashSet<BundleId> = FxHashSet::default();
    let mut packages: FxHashSet<PackageId> = FxHashSet::default();
    for &a in demanded {
        let bundle = u.bundle(a);
        rt.extend([Seeded(a)]);
        if loaded.insert(a) {
            load_target(&mut rt, orders, bundle);
            packages.insert(bundle.package);
        }
        load_requires(&mut rt, u, bundle);
        let base = first_constraint_dependency(bundle);
        for k in 0..bundle.requires_constraints.len() as u32 {
            let found = matches.matches.get(&(a, base + k)).into_iter().flatten();
            rt.extend(found.map(|b| ConstraintMatch(a, base + k, *b)));
        }
        for t in targets(u, a, matches) {
            if loaded.insert(t) {
                let tb = u.bundle(t);
                load_target(&mut rt, orders, tb);
                packages.insert(tb.package);
            }
        }
    }
    let mut packages: Vec<PackageId> = packages.into_iter().collect();
    packages.sort_unstable();
    for p in packages {
        load_channels(&mut rt, u, orders, p, Some(&loaded));
    }
    rt.extend(u.installed.iter().map(|b| Installed(*b)));
    rt.extend(adjust.removed.iter().map(|(b, i)| Removed(*b, *i)));
    for (i, c) in u.set.catalogs.iter().enumerate() {
        rt.extend([CatalogPriority(CatalogId(i as u32), c.priority)]);
    }
    let mut d = collect(rt.run_with_hasher::<rustc_hash::FxBuildHasher>().into());
    d.preferences.preferred = adjust.preferred.iter().copied().collect();
    d
}

/// Holds the dependency lists of `demanded` in `lazy` against the whole program's `full`:
/// matches, candidates, the exclusions of the matches and the preference facts of the
/// candidates. Returns the number of lists compared, or the first difference in words.
pub fn compare(full: &Derived, lazy: &Derived, demanded: &[BundleId]) -> Result<usize, String> {
    let mut lists = 0;
    let demanded: FxHashSet<BundleId> = demanded.iter().copied().collect();
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
