//! The packages one request can reach: a superset of what the Datalog derivation can touch,
//! computed before it runs so only those packages' facts are loaded (the derivation is
//! demand-driven, but crepe takes every input fact it is given).

use rustc_hash::FxHashSet;

use crate::catalog::{BundleId, PackageId};

use super::universe::Universe;
use super::{Adjustments, ConstraintMatches};

/// Packages reachable from the requirements (`required`), installed bundles and mandatory
/// static variables through any bundle's package, API, label and constraint dependencies.
pub fn reachable(
    u: &Universe,
    required: &[PackageId],
    adjust: &Adjustments,
    matches: &ConstraintMatches,
) -> FxHashSet<PackageId> {
    reachable_until(u, required, adjust, matches, None).0
}

/// [`reachable`], stopping once the packages visited hold `enough` bundles of the set, when
/// it is given; says whether the walk ended (every reachable package is in).
pub fn reachable_until(
    u: &Universe,
    required: &[PackageId],
    adjust: &Adjustments,
    matches: &ConstraintMatches,
    enough: Option<usize>,
) -> (FxHashSet<PackageId>, bool) {
    let mut visited_bundles = 0usize;
    let mut walk = Walk::default();
    walk.push_all(required.iter().copied());
    walk.push_all(u.installed.iter().map(|b| u.package_of(*b)));
    walk.push_all(adjust.required.iter().map(|(b, _)| u.package_of(*b)));
    let mut labels_done = false;
    while let Some(p) = walk.queue.pop() {
        if enough.is_some_and(|n| visited_bundles >= n) {
            return (walk.seen, false);
        }
        visited_bundles += u.set.bundles_of(p).len();
        let installed = u
            .installed
            .iter()
            .copied()
            .filter(|b| u.package_of(*b) == p);
        let bundles: Vec<BundleId> = u
            .set
            .bundles_of(p)
            .iter()
            .copied()
            .chain(installed)
            .collect();
        for b in bundles {
            let bd = u.bundle(b);
            walk.push_all(
                bd.requires_packages
                    .iter()
                    .filter_map(|r| u.package_id(&r.package)),
            );
            for g in &bd.requires_gvks {
                if walk.gvks.insert(*g) {
                    walk.push_all(u.providers(*g).iter().map(|x| u.package_of(*x)));
                }
            }
            if !bd.requires_labels.is_empty() && !labels_done {
                // Rare: every package with a label joins once.
                labels_done = true;
                walk.push_all(
                    u.bundles()
                        .filter(|x| !x.labels.is_empty())
                        .map(|x| x.package),
                );
            }
            let base = super::constraints::first_constraint_dependency(bd);
            for k in 0..bd.requires_constraints.len() as u32 {
                let found = matches.matches.get(&(b, base + k)).into_iter().flatten();
                walk.push_all(found.map(|x| u.package_of(*x)));
            }
        }
    }
    (walk.seen, true)
}

/// The packages found so far, those still to visit, and the APIs whose providers are in.
#[derive(Default)]
struct Walk {
    seen: FxHashSet<PackageId>,
    queue: Vec<PackageId>,
    gvks: FxHashSet<crate::catalog::GvkId>,
}

impl Walk {
    /// Queues the packages not found before (a package is visited once).
    fn push_all(&mut self, packages: impl Iterator<Item = PackageId>) {
        for p in packages {
            if self.seen.insert(p) {
                self.queue.push(p);
            }
        }
    }
}
