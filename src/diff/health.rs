//! Whether NEW still installs what OLD installed: each judged channel's head (and the default
//! channel's) alone on an empty cluster, OLD's head on OLD against NEW's head on NEW, with
//! deppy's explanation when NEW's does not; and the dependencies of NEW's heads that OLD had
//! a provider for and NEW has none.

use std::collections::{BTreeMap, BTreeSet};

use super::scope::{PackageScope, package};
use super::{Dependency, InstallabilityChange, LostProvider, PackageDiff};
use crate::catalog::{BundleId, CatalogSet, ChannelGraph, Package, PackageRequirement};
use crate::explain::Detail;
use crate::gvk::Gvk;
use crate::installability::{Verdict, check_bundle};
use crate::resolve::Resolver;

/// The bundle at the head of a package's channel, when the channel has a usable order.
fn head(package: &Package, channel: &str) -> Option<BundleId> {
    let ch = package.channels.iter().find(|c| c.name == channel)?;
    let graph = ChannelGraph::build(ch).ok()?;
    ch.entries.get(graph.head())?.bundle
}

/// A pair of heads to compare: package position, NEW's channel, OLD's head, NEW's head.
type Pair = (usize, String, BundleId, BundleId);

/// The heads to compare: every judged channel in both, and the default channel's head.
fn pairs(old: &CatalogSet, new: &CatalogSet, packages: &[PackageDiff]) -> Vec<Pair> {
    let mut out = Vec::new();
    for (k, p) in packages.iter().enumerate() {
        let (Some(o), Some(n)) = (package(old, &p.package), package(new, &p.package)) else {
            continue;
        };
        for c in p.channels.iter().filter(|c| !c.removed) {
            if let (Some(a), Some(b)) = (head(o, &c.channel), head(n, &c.channel)) {
                out.push((k, c.channel.clone(), a, b));
            }
        }
        let d = &p.default_channel;
        if let (Some(before), Some(after)) = (&d.before, &d.after)
            && !p.channels.iter().any(|c| &c.channel == after)
            && let (Some(a), Some(b)) = (head(o, before), head(n, after))
        {
            out.push((k, after.clone(), a, b));
        }
    }
    out
}

/// Checks each bundle once, in parallel.
fn verdicts(resolver: &Resolver, bundles: BTreeSet<BundleId>) -> BTreeMap<BundleId, Verdict> {
    let list: Vec<BundleId> = bundles.into_iter().collect();
    let checked = crate::parallel::parallel_map(&list, |b| {
        check_bundle(resolver, *b, Detail::Summary)
            .unwrap_or_else(|| Verdict::Failed("no such bundle".into()))
    });
    list.into_iter().zip(checked).collect()
}

/// Adds to each package the heads that install on OLD and not on NEW. NEW's heads are
/// checked first; OLD's only where NEW's does not install.
pub(crate) fn installability(old: &Resolver, new: &Resolver, packages: &mut [PackageDiff]) {
    let pairs = pairs(old.catalogs(), new.catalogs(), packages);
    let after = verdicts(new, pairs.iter().map(|p| p.3).collect());
    let failing = |b: &BundleId| after.get(b).is_some_and(|v| *v != Verdict::Installable);
    let before = verdicts(
        old,
        pairs
            .iter()
            .filter(|p| failing(&p.3))
            .map(|p| p.2)
            .collect(),
    );
    for (k, channel, a, b) in pairs {
        let (Some(now), Some(then)) = (after.get(&b), before.get(&a)) else {
            continue;
        };
        let gave_up = matches!(now, Verdict::GaveUp(_)) || matches!(then, Verdict::GaveUp(_));
        if *now == Verdict::Installable || !(gave_up || *then == Verdict::Installable) {
            continue;
        }
        let Some(p) = packages.get_mut(k) else {
            continue;
        };
        let bundle = new.catalogs().bundle(b).map(|x| x.name.clone());
        let explanation = match then {
            Verdict::GaveUp(_) => then.to_string(),
            _ => now.to_string(),
        };
        p.installability.push(InstallabilityChange {
            channel,
            bundle: bundle.unwrap_or_default(),
            before: *then == Verdict::Installable,
            after: false,
            explanation: explanation.trim_end().to_string(),
            gave_up,
        });
    }
    for p in packages.iter_mut() {
        p.installability
            .sort_by(|a, b| (&a.channel, &a.bundle).cmp(&(&b.channel, &b.bundle)));
        p.installability.dedup();
    }
}

/// The dependencies of NEW's judged heads that some bundle of OLD meets and no bundle of NEW
/// (a bundle of the head's own package meets none: one bundle per package is installed).
pub(crate) fn lost_providers(
    old: &CatalogSet,
    new: &CatalogSet,
    new_pkg: Option<&Package>,
    scope: &PackageScope,
) -> Vec<LostProvider> {
    let Some(n) = new_pkg else {
        return Vec::new();
    };
    let mut channels: BTreeSet<&str> = scope.channels.keys().map(String::as_str).collect();
    channels.extend(
        n.default_channel
            .as_deref()
            .filter(|_| scope.default.is_some()),
    );
    let heads: BTreeSet<BundleId> = channels.iter().filter_map(|c| head(n, c)).collect();
    let mut out = Vec::new();
    for b in heads.iter().filter_map(|b| new.bundle(*b)) {
        let packages = b.requires_packages.iter().map(Need::Package);
        let apis = (b.requires_gvks.iter()).filter_map(|g| new.gvk(*g).map(Need::Api));
        let own = new.package_name(b.package);
        for need in packages.chain(apis) {
            if !met_by(new, &need, own).is_empty() {
                continue;
            }
            let before = met_by(old, &need, own);
            if !before.is_empty() {
                out.push(LostProvider {
                    bundle: b.name.clone(),
                    dependency: need.dependency(),
                    providers_before: sorted(before),
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A dependency of a head, as its catalog gives it.
enum Need<'a> {
    Package(&'a PackageRequirement),
    Api(&'a Gvk),
}

impl Need<'_> {
    fn dependency(&self) -> Dependency {
        match self {
            Need::Package(req) => Dependency::Package {
                package: req.package.clone(),
                range: req.range.raw().to_string(),
            },
            Need::Api(gvk) => Dependency::Api {
                group: gvk.group.clone(),
                version: gvk.version.clone(),
                kind: gvk.kind.clone(),
            },
        }
    }
}

/// The bundles of `set` that meet `need`, a dependency of a bundle of package `own`: none of
/// `own`'s, since at most one bundle of a package is selected.
fn met_by(set: &CatalogSet, need: &Need<'_>, own: &str) -> Vec<String> {
    let ids = match need {
        Need::Package(req) => set.package_id(&req.package).map(|id| set.bundles_of(id)),
        Need::Api(gvk) => set.gvk_id(gvk).map(|id| set.providers(id)),
    };
    (ids.unwrap_or_default().iter())
        .filter_map(|x| set.bundle(*x))
        .filter(|x| set.package_name(x.package) != own)
        .filter(|x| match need {
            Need::Package(req) => req.range.matches(&x.version),
            Need::Api(_) => true,
        })
        .map(|x| x.name.clone())
        .collect()
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names.dedup();
    names
}
