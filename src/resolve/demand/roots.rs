//! The roots of derivation on demand, evaluated natively: the requirement lists, the
//! upgrade edges out of installed bundles, and the exclusions and preference facts of the
//! packages of the requirements, installed and mandatory bundles. These are the rules of
//! `rules/candidates.dl` (requirement part), `rules/upgrades.dl`, `rules/exclusions.dl` and
//! `rules/preferences.dl` over those packages without what bundles require and provide,
//! what [`super::super::derive::run_over`] derives with crepe under
//! [`super::super::derive::Scope::WithoutDependencies`]. [`compare`] holds every field
//! against that run ([`super::super::Prepared::check_on_demand`]).

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;

use crate::catalog::{Bundle, BundleId, CatalogId, PackageId};

use super::super::derive::{Derived, Edge, Exclusion, Mismatch};
use super::super::facts::RequirementFacts;
use super::{DependencyRules, bundles_of};

/// `Successor(i, e, kind, ch)`: installed bundle `i`, channel entry `e`, edge kind, channel.
type Successor<'a> = (BundleId, BundleId, Edge, &'a str);

impl<'a> DependencyRules<'a> {
    /// The roots' derivation (module documentation): `requirements` numbered as in the
    /// request, `roots` the packages of the requirements, installed and mandatory bundles.
    pub fn roots(
        &mut self,
        requirements: &[RequirementFacts<'_>],
        roots: &FxHashSet<PackageId>,
    ) -> Derived {
        let mut d = Derived::default();
        let mut packages: Vec<PackageId> = roots.iter().copied().collect();
        packages.sort_unstable();
        for &p in &packages {
            for b in bundles_of(self.u, p).collect::<Vec<_>>() {
                if let Some(e) = self.exclusion(b) {
                    d.excluded.insert(b, e);
                }
            }
        }
        // `Removed` facts are loaded for every bundle, its package a root or not.
        for (&b, &i) in &self.removed {
            if !self.u.is_installed(b) {
                d.excluded.entry(b).or_insert(Exclusion::Removed(i));
            }
        }
        for (r, req) in (0u32..).zip(requirements) {
            if let Some(p) = req.package {
                self.requirement(&mut d, r, req, p);
            }
        }
        let lists = &mut d.requirements;
        lists.matches.sort_unstable();
        lists.mismatches.sort_unstable();
        lists.installed_for.sort_unstable();
        lists.installed_fits.sort_unstable();
        let successors = self.successors(roots);
        self.upgrades(&mut d, requirements, &successors);
        d.edges.successors = successors.iter().map(|s| (s.0, s.1, s.2)).collect();
        d.edges.successors.sort_unstable();
        let mut reached: Vec<BundleId> = d.requirements.matches.iter().map(|m| m.1).collect();
        reached.extend(self.u.installed.iter().copied());
        reached.extend(self.adjust.required.iter().map(|(b, _)| *b));
        reached.sort_unstable();
        reached.dedup();
        for &b in &reached {
            self.preferences_of(&mut d.preferences, b);
        }
        d.reached = reached;
        d.preferences.preferred = self.adjust.preferred.iter().copied().collect();
        d
    }

    /// `OnChannel`: bundle `b` is on the order of a channel named `ch`.
    fn on_channel(&self, b: &Bundle, ch: &str) -> bool {
        (self.orders.of_package(b.package)).any(|e| e.channels_of(b.id).any(|(c, _)| &**c == ch))
    }

    /// Requirement `r`'s lists over its package `p`, unsorted: `RequirementMismatch`,
    /// `RequirementMatch`, `InstalledFor` and `InstalledFits`.
    fn requirement(&mut self, d: &mut Derived, r: u32, req: &RequirementFacts<'_>, p: PackageId) {
        let u = self.u;
        for b in bundles_of(u, p).collect::<Vec<_>>() {
            let bundle = u.bundle(b);
            let mut mismatches: Vec<Mismatch> = Vec::new();
            if req.catalog.is_some_and(|c| c != bundle.catalog) {
                mismatches.push(Mismatch::OtherCatalog);
            }
            if req.range.is_some_and(|x| !x.matches(&bundle.version)) {
                mismatches.push(Mismatch::OutOfRange);
            }
            if req.pin.is_some_and(|pin| pin != bundle.name) {
                mismatches.push(Mismatch::NotPinned);
            }
            let off_channel = req.channel.is_some_and(|ch| !self.on_channel(bundle, ch));
            if off_channel && req.pin.is_none() {
                mismatches.push(Mismatch::OtherChannel);
            }
            if mismatches.is_empty() {
                // A pin may name an entry that is on no channel's order (skipped).
                let matches = match self.exclusion(b) {
                    None => true,
                    Some(e) => req.pin.is_some() && e == Exclusion::NotInChannel,
                };
                if matches {
                    d.requirements.matches.push((r, b));
                }
            }
            if u.is_installed(b) && !u.is_kept(b) {
                d.requirements.installed_for.push((r, b));
                let in_no_catalog = u.installed_only().iter().any(|x| x.id == b);
                let fits = mismatches.iter().all(|m| match m {
                    Mismatch::OtherCatalog => in_no_catalog,
                    Mismatch::OutOfRange | Mismatch::NotPinned => false,
                    Mismatch::OtherChannel => true,
                });
                if fits {
                    d.requirements.installed_fits.push((r, b));
                }
            }
            let rs = &mut d.requirements.mismatches;
            rs.extend(mismatches.into_iter().map(|m| (r, b, m)));
        }
    }

    /// `Successor` (`rules/upgrades.dl`): the channel entries of each installed bundle's
    /// package, on their channel's order, that replace or skip it by name or whose
    /// `skipRange` holds its version. A set, as the relation is.
    fn successors(&self, roots: &FxHashSet<PackageId>) -> BTreeSet<Successor<'a>> {
        let u = self.u;
        let mut out = BTreeSet::new();
        for &i in &u.installed {
            let installed = u.bundle(i);
            let p = installed.package;
            if !roots.contains(&p) {
                continue;
            }
            let entries = (0..u.set.catalogs.len())
                .filter_map(|c| u.set.package_in(p, CatalogId(c as u32)))
                .flat_map(|pkg| pkg.channels.iter())
                .flat_map(|ch| ch.entries.iter().map(move |e| (ch, e)));
            for (ch, entry) in entries {
                let Some(e) = entry.bundle else { continue };
                let target = u.bundle(e);
                if target.package != p || !self.on_channel(target, &ch.name) {
                    continue;
                }
                let name = installed.name.as_str();
                if entry.replaces.as_deref() == Some(name) {
                    out.insert((i, e, Edge::Replaces, ch.name.as_str()));
                }
                if entry.skips.iter().any(|s| s == name) {
                    out.insert((i, e, Edge::Skips, ch.name.as_str()));
                }
                if (entry.skip_range.as_ref()).is_some_and(|r| r.matches(&installed.version)) {
                    out.insert((i, e, Edge::SkipRange, ch.name.as_str()));
                }
            }
        }
        out
    }

    /// `UpgradeCandidate` (`rules/upgrades.dl`): a successor of an installed bundle that
    /// still fits requirement `r`, itself a match of `r`, by an edge of `r`'s channel when
    /// `r` names one.
    fn upgrades(
        &self,
        d: &mut Derived,
        requirements: &[RequirementFacts<'_>],
        successors: &BTreeSet<Successor<'_>>,
    ) {
        let r = &d.requirements;
        if r.installed_fits.is_empty() {
            return;
        }
        let matches: FxHashSet<(u32, BundleId)> = r.matches.iter().copied().collect();
        let mut out: BTreeSet<(u32, BundleId, Edge)> = BTreeSet::new();
        for &(req, i) in &r.installed_fits {
            let channel = requirements.get(req as usize).and_then(|x| x.channel);
            let from_i = successors.range((i, BundleId(0), Edge::Replaces, "")..);
            for &(_, e, kind, ch) in from_i.take_while(|s| s.0 == i) {
                if matches.contains(&(req, e)) && channel.is_none_or(|c| c == ch) {
                    out.insert((req, e, kind));
                }
            }
        }
        d.requirements.upgrades = out.into_iter().collect();
    }
}

#[cfg(any(test, feature = "testing"))]
/// Holds the roots' derivation `native` against crepe's run of the same rules, `crepe`:
/// every field. Returns the first difference in words.
pub fn compare(crepe: &Derived, native: &Derived) -> Result<(), String> {
    let differs = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        Err(format!("roots: {what} differ: crepe {a:?}, native {b:?}"))
    };
    let (c, n) = (&crepe.requirements, &native.requirements);
    let pairs = [
        ("requirement matches", &c.matches, &n.matches),
        ("installed-for lists", &c.installed_for, &n.installed_for),
        ("installed-fits lists", &c.installed_fits, &n.installed_fits),
    ];
    for (what, a, b) in pairs {
        if a != b {
            return differs(what, a, b);
        }
    }
    if c.mismatches != n.mismatches {
        return differs("mismatches", &c.mismatches, &n.mismatches);
    }
    if c.upgrades != n.upgrades {
        return differs("upgrades", &c.upgrades, &n.upgrades);
    }
    if crepe.edges.successors != native.edges.successors {
        return differs(
            "successors",
            &crepe.edges.successors,
            &native.edges.successors,
        );
    }
    if crepe.excluded != native.excluded {
        return differs(
            "exclusions",
            &sorted(&crepe.excluded),
            &sorted(&native.excluded),
        );
    }
    if crepe.reached != native.reached {
        return differs("reached bundles", &crepe.reached, &native.reached);
    }
    if !native.dependencies.matches.is_empty() || !native.dependencies.candidates.is_empty() {
        return Err("roots: dependency lists derived with the roots".into());
    }
    let (pc, pn) = (&crepe.preferences, &native.preferences);
    let same = pc.channels == pn.channels
        && pc.in_default_channel == pn.in_default_channel
        && pc.same_catalog == pn.same_catalog
        && pc.priority == pn.priority
        && pc.deprecated == pn.deprecated
        && pc.deprecation_messages == pn.deprecation_messages
        && pc.preferred == pn.preferred;
    if !same {
        return differs("preference facts", pc, pn);
    }
    Ok(())
}

#[cfg(any(test, feature = "testing"))]
fn sorted<K: Ord + Copy, V: Copy>(m: &rustc_hash::FxHashMap<K, V>) -> Vec<(K, V)> {
    let mut v: Vec<(K, V)> = m.iter().map(|(k, v)| (*k, *v)).collect();
    v.sort_unstable_by_key(|x| x.0);
    v
}
