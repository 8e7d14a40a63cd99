//! The facts stage: the loaded catalogs, the request and the installed state as input facts
//! of crepe's whole program (`rules/facts.dl`), indexed by package so a derivation loads
//! only the packages it needs, and the channel orders they are computed from. The on-demand
//! evaluator reads the same facts through [`super::lookups`].

use crate::catalog::{CatalogId, PackageId};
use crate::range::VersionRange;

pub(crate) use super::orders::ChannelOrders;

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

/// Defines, in the module it is invoked in, `load_facts`: the loader of one request's facts
/// into the `Crepe` runtime of the program compiled there from the rules (the shipped one in
/// [`super::derive::program`]; in tests, the walk-through's). A macro so that each program
/// loads its own relation types.
macro_rules! fact_loaders {
    () => {
        /// Loads the facts of one request: the catalog's for the packages of `reach`, the
        /// requirements', the installed bundles', the adjustments' removals and seeds, and the
        /// constraint matches of the bundles of `reach`.
        pub(in super::super) fn load_facts<'a>(
            rt: &mut Crepe<'a>,
            u: &'a crate::resolve::universe::Universe,
            orders: &'a crate::resolve::orders::ChannelOrders,
            requirements: &[crate::resolve::facts::RequirementFacts<'a>],
            adjust: &'a crate::resolve::admin::Adjustments,
            matches: &crate::resolve::constraints::ConstraintMatches,
            reach: &rustc_hash::FxHashSet<crate::catalog::PackageId>,
        ) {
            load_catalog(rt, u, orders, reach);
            for (r, req) in (0u32..).zip(requirements) {
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
            let of_reach = |a: &crate::catalog::BundleId| reach.contains(&u.package_of(*a));
            for ((a, d), bs) in (matches.matches.iter()).filter(|((a, _), _)| of_reach(a)) {
                rt.extend(bs.iter().map(|b| ConstraintMatch(*a, *d, *b)));
            }
        }

        /// Loads the facts of the reachable packages: per package, through the catalog's and the
        /// channel orders' indexes, so the cost follows what the request reaches. The channel
        /// entries' upgrade facts are left out when nothing is installed: every rule reading them
        /// starts from an installed bundle (`rules/upgrades.dl`).
        fn load_catalog<'a>(
            rt: &mut Crepe<'a>,
            u: &'a crate::resolve::universe::Universe,
            orders: &'a crate::resolve::orders::ChannelOrders,
            reach: &rustc_hash::FxHashSet<crate::catalog::PackageId>,
        ) {
            let mut packages: Vec<crate::catalog::PackageId> = reach.iter().copied().collect();
            packages.sort_unstable();
            for &p in &packages {
                for b in u.set.bundles_of(p) {
                    load_bundle(rt, u, orders, u.bundle(*b));
                }
                load_orders(rt, orders, p);
                for c in 0..u.set.catalogs.len() {
                    if let Some(pkg) = u.set.package_in(p, crate::catalog::CatalogId(c as u32)) {
                        load_package(rt, pkg, !u.installed.is_empty());
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
                rt.extend([CatalogPriority(
                    crate::catalog::CatalogId(i as u32),
                    c.priority,
                )]);
            }
        }

        /// A bundle's facts: its own, and what it requires and provides.
        fn load_bundle<'a>(
            rt: &mut Crepe<'a>,
            u: &'a crate::resolve::universe::Universe,
            orders: &crate::resolve::orders::ChannelOrders,
            b: &'a crate::catalog::Bundle,
        ) {
            rt.extend([Bundle(b.id, b.package, b.catalog, &b.version)]);
            rt.extend([BundleName(b.id, &b.name)]);
            if b.deprecated {
                rt.extend([DeprecatedProperty(b.id)]);
            }
            if orders.deprecated.contains_key(&b.id) {
                rt.extend([CatalogDeprecated(b.id)]);
            }
            rt.extend(b.provides.iter().map(|g| Provides(b.id, *g)));
            rt.extend(b.labels.iter().map(|l| ProvidesLabel(b.id, l)));
            load_requires(rt, u, b);
        }

        /// A bundle's dependencies, numbered packages first, then APIs, then labels.
        fn load_requires<'a>(
            rt: &mut Crepe<'a>,
            u: &'a crate::resolve::universe::Universe,
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

        /// A package's channel orders in every catalog: members with their distance, entries of
        /// malformed channels.
        fn load_orders<'a>(
            rt: &mut Crepe<'a>,
            orders: &'a crate::resolve::orders::ChannelOrders,
            p: crate::catalog::PackageId,
        ) {
            for e in orders.of_package(p) {
                rt.extend(e.members.iter().map(|(b, ch, d)| ChannelMember(*b, ch, *d)));
                rt.extend(e.malformed.iter().map(|b| InMalformedChannel(*b)));
            }
        }

        /// A package entry's default channel and, with `upgrades`, its channel entries' upgrade
        /// facts.
        fn load_package<'a>(rt: &mut Crepe<'a>, p: &'a crate::catalog::Package, upgrades: bool) {
            if let Some(dc) = &p.default_channel {
                rt.extend([DefaultChannel(p.id, p.catalog, dc)]);
            }
            if !upgrades {
                return;
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
    };
}
pub(super) use fact_loaders;
