//! Ordered candidate lists (SEMANTICS.md §5), built from the derived preference facts. A
//! bundle a static variable prefers comes first in every list it is in.

use std::cmp::Reverse;

use crate::catalog::{BundleId, CatalogId};

use super::derive::Derived;
use super::universe::Universe;

/// Where a bundle sits for ordering: default channel first, then channel name, then distance
/// from the head. `only` restricts to one channel.
fn channel_key<'a>(d: &'a Derived, b: BundleId, only: Option<&str>) -> (bool, &'a str, u32) {
    let chans = d.channels.get(&b).map_or(&[][..], Vec::as_slice);
    let default = d.in_default_channel.get(&b).map(String::as_str);
    chans
        .iter()
        .filter(|(ch, _)| only.is_none_or(|o| o == ch))
        .map(|(ch, dist)| (Some(ch.as_str()) != default, ch.as_str(), *dist))
        .min()
        // Not on any (allowed) channel: a pinned skipped entry or an installed-only bundle.
        .unwrap_or((true, "\u{10FFFF}", u32::MAX))
}

/// The channel a selected bundle is reported in.
pub fn reported_channel<'a>(d: &'a Derived, b: BundleId, only: Option<&str>) -> Option<&'a str> {
    let (_, ch, dist) = channel_key(d, b, only);
    (dist != u32::MAX).then_some(ch)
}

fn catalog_key(u: &Universe, c: CatalogId) -> (Reverse<i32>, &str) {
    (Reverse(u.catalog_priority(c)), u.catalog_name(c))
}

/// Orders the candidates of a dependency of bundle `dependent` (OLM order): installed first,
/// then the dependent's own catalog, priority, catalog name, default channel, package name,
/// channel name, distance from head; then newer versions, then name.
pub fn order_dependency(u: &Universe, d: &Derived, dependent: BundleId, cands: &mut [BundleId]) {
    cands.sort_by_cached_key(|&b| {
        let bundle = u.bundle(b);
        let (not_default, ch, dist) = channel_key(d, b, None);
        (
            !d.preferred.contains(&b),
            d.deprecated.contains(&b),
            !u.is_installed(b),
            !d.same_catalog.contains(&(dependent, b)),
            catalog_key(u, bundle.catalog),
            not_default,
            u.package_name(bundle.package).to_string(),
            ch,
            dist,
            Reverse(bundle.version.clone()),
            bundle.name.clone(),
            b,
        )
    });
}

/// Orders the candidates of a required package for a new install: catalog-major (priority,
/// name), then the given channel or default channel first and channel name, then head first.
pub fn order_install(u: &Universe, d: &Derived, channel: Option<&str>, cands: &mut [BundleId]) {
    cands.sort_by_cached_key(|&b| {
        let bundle = u.bundle(b);
        (
            !d.preferred.contains(&b),
            d.deprecated.contains(&b),
            catalog_key(u, bundle.catalog),
            channel_key(d, b, channel),
            Reverse(bundle.version.clone()),
            bundle.name.clone(),
            b,
        )
    });
}

/// Orders upgrade candidates of an installed bundle: the head-most successor first.
pub fn order_upgrades(u: &Universe, d: &Derived, channel: Option<&str>, cands: &mut [BundleId]) {
    cands.sort_by_cached_key(|&b| {
        let bundle = u.bundle(b);
        let (not_default, ch, dist) = channel_key(d, b, channel);
        (
            !d.preferred.contains(&b),
            d.deprecated.contains(&b),
            catalog_key(u, bundle.catalog),
            not_default,
            dist,
            ch,
            Reverse(bundle.version.clone()),
            b,
        )
    });
}
