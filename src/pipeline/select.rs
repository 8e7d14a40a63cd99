//! Which bundles a [`Selector`] picks in a catalog set.

use rustc_hash::FxHashSet;

use super::params::Selector;
use crate::catalog::{BundleId, CatalogSet};

/// Bundles `sel` selects, in id order.
pub fn select(set: &CatalogSet, sel: &Selector) -> Vec<BundleId> {
    let in_channel: Option<FxHashSet<BundleId>> = sel.channel.as_ref().map(|ch| {
        set.packages
            .iter()
            .flat_map(|p| p.channels.iter())
            .filter(|c| &c.name == ch)
            .flat_map(|c| c.entries.iter().filter_map(|e| e.bundle))
            .collect()
    });
    set.bundles
        .iter()
        .filter(|b| {
            sel.package
                .as_ref()
                .is_none_or(|p| set.package_name(b.package) == p)
                && sel.bundle.as_ref().is_none_or(|n| &b.name == n)
                && sel
                    .catalog
                    .as_ref()
                    .is_none_or(|c| set.catalog(b.catalog).is_some_and(|i| &i.name == c))
                && sel
                    .version_range
                    .as_ref()
                    .is_none_or(|r| r.matches(&b.version))
                && in_channel.as_ref().is_none_or(|s| s.contains(&b.id))
        })
        .map(|b| b.id)
        .collect()
}
