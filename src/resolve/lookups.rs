//! The input relations of `rules/facts.dl` as lookups over the catalog's indexes, for the
//! on-demand evaluator build.rs generates from the rules (`build_support/`). This file is
//! the only hand-written part of that evaluator: each `fn relation_pattern` is one input
//! relation looked up with the arguments its pattern marks `b` bound (given) and `f` free
//! (returned), stated once. An all-bound pattern returns whether the fact holds; any other
//! returns the free arguments (one value, or a tuple in field order) of every fact with the
//! bound ones. build.rs reads the names of these functions: a rule that needs a pattern no
//! function here has fails the build with the pattern it needs (docs/rules.md, Limits).
//!
//! The facts are the ones `facts.rs` loads into crepe's program, for every bundle of the
//! universe (the request's installed-only bundles included); the whole program is their
//! oracle (`Prepared::check_on_demand`).

use rustc_hash::FxHashMap;

use crate::catalog::{Bundle, BundleId, CatalogId, GvkId, PackageId};
use crate::range::VersionRange;
use crate::version::Version;

use super::Adjustments;
use super::constraints::{ConstraintMatches, first_constraint_dependency};
use super::facts::{ChannelOrders, RequirementFacts};
use super::universe::Universe;

/// The input facts of one request.
pub(crate) struct Lookups<'a> {
    u: &'a Universe,
    orders: &'a ChannelOrders,
    requirements: &'a [RequirementFacts<'a>],
    adjust: &'a Adjustments,
    matches: &'a ConstraintMatches,
    /// `Removed(b, i)` by bundle.
    removed: FxHashMap<BundleId, Vec<u32>>,
}

impl<'a> Lookups<'a> {
    /// The facts of `u` and its channel `orders`, a request's `requirements`, `adjust`'s
    /// removals and seeds, and the constraint `matches` of every bundle asked about.
    pub fn new(
        u: &'a Universe,
        orders: &'a ChannelOrders,
        requirements: &'a [RequirementFacts<'a>],
        adjust: &'a Adjustments,
        matches: &'a ConstraintMatches,
    ) -> Lookups<'a> {
        let mut removed: FxHashMap<BundleId, Vec<u32>> = FxHashMap::default();
        for &(b, i) in &adjust.removed {
            removed.entry(b).or_default().push(i);
        }
        Lookups {
            u,
            orders,
            requirements,
            adjust,
            matches,
            removed,
        }
    }

    /// The universe the facts are of.
    pub fn universe(&self) -> &'a Universe {
        self.u
    }

    /// The bundles asked to be removed, with the rules that remove them.
    pub fn removed(&self) -> impl Iterator<Item = BundleId> + '_ {
        self.removed.keys().copied()
    }

    /// The bundles a static variable prefers.
    pub fn preferred(&self) -> impl Iterator<Item = BundleId> + 'a {
        self.adjust.preferred.iter().copied()
    }

    /// The catalog's deprecation message for bundle `b`.
    pub fn deprecation_message(&self, b: BundleId) -> Option<&'a str> {
        self.orders.deprecated.get(&b).map(String::as_str)
    }

    fn bundle(&self, b: BundleId) -> &'a Bundle {
        self.u.bundle(b)
    }

    /// The channel orders of the package entry `b` is in: a bundle is an entry of its own
    /// catalog's channels only (of none when it is in no catalog).
    fn own_orders(&self, b: BundleId) -> Option<&'a super::orders::EntryOrders> {
        let x = self.bundle(b);
        self.orders.of_package_in(x.package, x.catalog)
    }

    /// `Bundle(b, p, c, v)` by id.
    pub fn bundle_bfff(&self, b: BundleId) -> Option<(PackageId, CatalogId, &'a Version)> {
        let x = self.bundle(b);
        Some((x.package, x.catalog, &x.version))
    }

    /// `Bundle(b, p, c, v)` by package: its catalogs' bundles, then the installed bundles no
    /// catalog has.
    pub fn bundle_fbff(
        &self,
        p: PackageId,
    ) -> impl Iterator<Item = (BundleId, CatalogId, &'a Version)> + 'a {
        let u = self.u;
        let installed = u.installed_only().iter().filter(move |b| b.package == p);
        (u.set.bundles_of(p).iter().map(|b| u.bundle(*b)))
            .chain(installed)
            .map(|x| (x.id, x.catalog, &x.version))
    }

    /// `BundleName(b, name)` by id.
    pub fn bundle_name_bf(&self, b: BundleId) -> Option<&'a str> {
        Some(self.bundle(b).name.as_str())
    }

    /// `ChannelMember(b, ch, dist)` by bundle: the channels whose order lists it.
    pub fn channel_member_bff(&self, b: BundleId) -> impl Iterator<Item = (&'a str, u32)> + 'a {
        (self.own_orders(b).into_iter())
            .flat_map(move |e| e.channels_of(b))
            .map(|(ch, d)| (&**ch, d))
    }

    /// `InMalformedChannel(b)`.
    pub fn in_malformed_channel_b(&self, b: BundleId) -> bool {
        self.own_orders(b).is_some_and(|e| e.in_malformed(b))
    }

    /// `DefaultChannel(p, c, ch)` by package and catalog.
    pub fn default_channel_bbf(&self, p: PackageId, c: CatalogId) -> Option<&'a str> {
        self.u.set.package_in(p, c)?.default_channel.as_deref()
    }

    /// `CatalogPriority(c, prio)` by catalog.
    pub fn catalog_priority_bf(&self, c: CatalogId) -> Option<i32> {
        self.u.set.catalog(c).map(|x| x.priority)
    }

    /// `Provides(b, g)` by API: its providers.
    pub fn provides_fb(&self, g: GvkId) -> Vec<BundleId> {
        self.u.providers(g)
    }

    /// `ProvidesLabel(b, l)` by label (no index: every bundle is read).
    pub fn provides_label_fb(&self, l: &'a str) -> impl Iterator<Item = BundleId> + 'a {
        let with = self
            .u
            .bundles()
            .filter(move |x| x.labels.iter().any(|y| y == l));
        with.map(|x| x.id)
    }

    /// `RequiresPackage(a, d, p, range)` by dependent: its package dependencies, numbered
    /// from 0 (a package no catalog has takes its number and gives no fact).
    pub fn requires_package_bfff(
        &self,
        a: BundleId,
    ) -> impl Iterator<Item = (u32, PackageId, &'a VersionRange)> + 'a {
        let u = self.u;
        let reqs = (0u32..).zip(&self.bundle(a).requires_packages);
        reqs.filter_map(move |(d, r)| Some((d, u.package_id(&r.package)?, &r.range)))
    }

    /// `RequiresGvk(a, d, g)` by dependent: its API dependencies, numbered after its packages.
    pub fn requires_gvk_bff(&self, a: BundleId) -> impl Iterator<Item = (u32, GvkId)> + 'a {
        let b = self.bundle(a);
        let first = b.requires_packages.len() as u32;
        (first..).zip(b.requires_gvks.iter().copied())
    }

    /// `RequiresLabel(a, d, l)` by dependent: its label dependencies, numbered after its APIs.
    pub fn requires_label_bff(&self, a: BundleId) -> impl Iterator<Item = (u32, &'a str)> + 'a {
        let b = self.bundle(a);
        let first = (b.requires_packages.len() + b.requires_gvks.len()) as u32;
        (first..).zip(b.requires_labels.iter().map(String::as_str))
    }

    /// `DeprecatedProperty(b)`.
    pub fn deprecated_property_b(&self, b: BundleId) -> bool {
        self.bundle(b).deprecated
    }

    /// `CatalogDeprecated(b)`.
    pub fn catalog_deprecated_b(&self, b: BundleId) -> bool {
        self.orders.deprecated.contains_key(&b)
    }

    /// The channel entries of bundle `e`: (channel name, entry) in its package's entry in
    /// its catalog.
    fn entries(
        &self,
        e: BundleId,
    ) -> impl Iterator<Item = (&'a str, &'a crate::catalog::ChannelEntry)> + 'a {
        let b = self.bundle(e);
        let package = self.u.set.package_in(b.package, b.catalog);
        let orders = self.orders.of_package_in(b.package, b.catalog);
        let at = (package.zip(orders).into_iter()).flat_map(move |(p, o)| o.entries_of(p, e));
        at.filter_map(move |(ch, k)| {
            let ch = package?.channels.get(ch)?;
            Some((ch.name.as_str(), ch.entries.get(k)?))
        })
    }

    /// `EntryReplaces(e, ch, name)` by entry.
    pub fn entry_replaces_bff(&self, e: BundleId) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.entries(e)
            .filter_map(|(ch, x)| Some((ch, x.replaces.as_deref()?)))
    }

    /// `EntrySkips(e, ch, name)` by entry.
    pub fn entry_skips_bff(&self, e: BundleId) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.entries(e)
            .flat_map(|(ch, x)| x.skips.iter().map(move |s| (ch, s.as_str())))
    }

    /// `EntrySkipRange(e, ch, range)` by entry.
    pub fn entry_skip_range_bff(
        &self,
        e: BundleId,
    ) -> impl Iterator<Item = (&'a str, &'a VersionRange)> + 'a {
        self.entries(e)
            .filter_map(|(ch, x)| Some((ch, x.skip_range.as_ref()?)))
    }

    /// `Installed(b)`.
    pub fn installed_b(&self, b: BundleId) -> bool {
        self.u.is_installed(b)
    }

    /// `Installed(b)`: every installed bundle.
    pub fn installed_f(&self) -> impl Iterator<Item = BundleId> + 'a {
        self.u.installed.iter().copied()
    }

    /// `Kept(b)`.
    pub fn kept_b(&self, b: BundleId) -> bool {
        self.u.is_kept(b)
    }

    /// `InNoCatalog(b)`.
    pub fn in_no_catalog_b(&self, b: BundleId) -> bool {
        self.u.installed_only().iter().any(|x| x.id == b)
    }

    /// `Requirement(r, p)`: every requirement naming a package some catalog (or installed
    /// bundle) has.
    pub fn requirement_ff(&self) -> impl Iterator<Item = (u32, PackageId)> + 'a {
        (0u32..)
            .zip(self.requirements)
            .filter_map(|(r, q)| Some((r, q.package?)))
    }

    /// `Requirement(r, p)` by requirement.
    pub fn requirement_bf(&self, r: u32) -> Option<PackageId> {
        self.requirements.get(r as usize)?.package
    }

    /// The facts of requirement `r` that names a package.
    fn requirement(&self, r: u32) -> Option<&'a RequirementFacts<'a>> {
        self.requirements
            .get(r as usize)
            .filter(|q| q.package.is_some())
    }

    /// `RequirementChannel(r, ch)` by requirement.
    pub fn requirement_channel_bf(&self, r: u32) -> Option<&'a str> {
        self.requirement(r)?.channel
    }

    /// `RequirementRange(r, range)` by requirement.
    pub fn requirement_range_bf(&self, r: u32) -> Option<&'a VersionRange> {
        self.requirement(r)?.range
    }

    /// `RequirementPin(r, name)` by requirement.
    pub fn requirement_pin_bf(&self, r: u32) -> Option<&'a str> {
        self.requirement(r)?.pin
    }

    /// `RequirementCatalog(r, c)` by requirement.
    pub fn requirement_catalog_bf(&self, r: u32) -> Option<CatalogId> {
        self.requirement(r)?.catalog
    }

    /// `Removed(b, i)` by bundle.
    pub fn removed_bf(&self, b: BundleId) -> impl Iterator<Item = u32> + '_ {
        self.removed.get(&b).into_iter().flatten().copied()
    }

    /// `Seeded(b)`: every bundle a static variable makes mandatory.
    pub fn seeded_f(&self) -> impl Iterator<Item = BundleId> + 'a {
        self.adjust.required.iter().map(|(b, _)| *b)
    }

    /// `ConstraintMatch(a, d, b)` by dependent: the bundles each of its constraint
    /// dependencies matched (CEL, evaluated in Rust beforehand).
    pub fn constraint_match_bff(&self, a: BundleId) -> impl Iterator<Item = (u32, BundleId)> + 'a {
        let x = self.bundle(a);
        let base = first_constraint_dependency(x);
        let m = self.matches;
        (base..base + x.requires_constraints.len() as u32).flat_map(move |d| {
            m.matches
                .get(&(a, d))
                .into_iter()
                .flatten()
                .map(move |b| (d, *b))
        })
    }
}
