//! One package of OLD against NEW: its channels, its default channel, its new deprecations.

use super::channel::{self, judge_members};
use super::reach::Installed;
use super::scope::{PackageScope, package};
use super::side::{Old, Side};
use super::{DefaultChannelChange, NewDeprecation, PackageDiff};
use crate::catalog::{CatalogSet, DeprecationRef, Package};

/// Judges one package: its channels, default channel and deprecations (installability and
/// lost providers are added by `super::health`).
pub(crate) fn judge(old: &CatalogSet, new: &CatalogSet, scope: &PackageScope) -> PackageDiff {
    let old_pkg = package(old, &scope.package);
    let new_pkg = package(new, &scope.package);
    let channels = match old_pkg {
        Some(o) => (scope.channels.iter())
            .map(|(name, judged)| channel::judge(old, o, new, new_pkg, name, judged.as_deref()))
            .collect(),
        None => Vec::new(),
    };
    let default_channel = match (old_pkg, &scope.default) {
        (Some(o), Some(judged)) => default_channel(old, o, new, new_pkg, judged.as_deref()),
        _ => DefaultChannelChange {
            before: old_pkg.and_then(|p| p.default_channel.clone()),
            after: new_pkg.and_then(|p| p.default_channel.clone()),
            unusable_after: false,
            stranded: Vec::new(),
        },
    };
    PackageDiff {
        package: scope.package.clone(),
        channels,
        default_channel,
        removed: new_pkg.is_none(),
        installability: Vec::new(),
        lost_providers: super::health::lost_providers(old, new, new_pkg, scope),
        deprecations: deprecations(old, new, scope),
    }
}

/// The default channel before and after; when it moved, the bundles of OLD's default channel
/// with no path to the head of NEW's.
fn default_channel(
    old: &CatalogSet,
    old_pkg: &Package,
    new: &CatalogSet,
    new_pkg: Option<&Package>,
    judged: Option<&[Installed]>,
) -> DefaultChannelChange {
    let before = old_pkg.default_channel.clone();
    let after = new_pkg.and_then(|p| p.default_channel.clone());
    let mut out = DefaultChannelChange {
        before: before.clone(),
        after: after.clone(),
        unusable_after: false,
        stranded: Vec::new(),
    };
    let Some(new_pkg) = new_pkg else {
        return out;
    };
    let new_side = after.as_deref().and_then(|a| Side::find(new, new_pkg, a));
    let reach = new_side.as_ref().map(Side::reach);
    let moved = before != after;
    if !moved && reach.is_some() {
        // The same channel: its own entry says what became of it.
        return out;
    }
    let old_side = before.as_deref().and_then(|b| Side::find(old, old_pkg, b));
    let old_reach = old_side.as_ref().and_then(|s| s.reach().ok());
    let old_channel = old_side.as_ref().map(|side| Old {
        side,
        reach: old_reach.as_ref(),
    });
    match (&new_side, reach) {
        (Some(new_side), Some(Ok(reach))) => {
            let all = old_side.as_ref().map(Side::members).unwrap_or_default();
            let judged = judged.unwrap_or(&all);
            out.stranded = judge_members(old_channel, new_side, &reach, judged).stranded;
        }
        _ => out.unusable_after = old_reach.is_some(),
    }
    out
}

/// `olm.deprecations` entries of NEW that OLD had not, for what is judged.
fn deprecations(old: &CatalogSet, new: &CatalogSet, scope: &PackageScope) -> Vec<NewDeprecation> {
    let of = |set: &CatalogSet| -> Vec<(String, String, String)> {
        let Some(id) = set.package_id(&scope.package) else {
            return Vec::new();
        };
        (set.deprecations.iter())
            .filter(|d| d.package == id)
            .map(|d| {
                let (kind, name) = match &d.reference {
                    DeprecationRef::Package => ("package", String::new()),
                    DeprecationRef::Channel(c) => ("channel", c.clone()),
                    DeprecationRef::Bundle(b) => ("bundle", b.clone()),
                };
                (kind.to_string(), name, d.message.clone())
            })
            .collect()
    };
    let before = of(old);
    let bundles = scope.bundles();
    let mut out: Vec<NewDeprecation> = of(new)
        .into_iter()
        .filter(|(kind, name, _)| !before.iter().any(|(k, n, _)| k == kind && n == name))
        .filter(|(kind, name, _)| match kind.as_str() {
            "channel" => scope.channels.contains_key(name),
            "bundle" => bundles.as_ref().is_none_or(|b| b.contains(&name.as_str())),
            _ => true,
        })
        .map(|(kind, name, message)| NewDeprecation {
            kind,
            name,
            message,
        })
        .collect();
    out.sort();
    out.dedup();
    out
}
