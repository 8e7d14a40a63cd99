//! What a new version of a catalog does to the users of the old one (`deppy catalog diff OLD
//! NEW`): the bundles a cluster may run from OLD that have no upgrade path to NEW's head
//! (stranded, with the smallest change that rescues each, verified by recomputing the
//! channel), channels and packages that went away, default channels that moved, heads that
//! went backwards, heads that installed on OLD and do not on NEW (with deppy's explanation),
//! dependency providers that disappeared, and new deprecations; with a cluster's state, only
//! what its Subscriptions use, and which of them would be stranded or stuck.
//! docs/semantics.md §13 states the rules.
//!
//! The answer is data ([`CatalogDiff`]); [`to_text`] words it, and serde gives the JSON and
//! YAML forms. The same inputs in any file order give the same answer.
//!
//! ```
//! use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
//! use deppy::advanced::diff::{DiffOptions, DiffStatus, diff};
//!
//! let load = |dir: &str| {
//!     let source = CatalogSource { name: dir.into(), path: dir.into(), priority: 0 };
//!     CatalogSet::load(&[source], &LoadOptions::default())
//! };
//! let old = load("tests/catalog-diff/middle-of-chain-removed/old")?;
//! let new = load("tests/catalog-diff/middle-of-chain-removed/new")?;
//! let answer = diff(old, new, &DiffOptions::default());
//! assert_eq!(answer.status, DiffStatus::Broken);
//! let stranded = &answer.packages[0].channels[0].stranded;
//! assert_eq!(stranded[0].bundle, "app.v1.1.0");
//! # Ok::<(), deppy::LoadError>(())
//! ```

mod channel;
mod health;
mod package;
mod reach;
mod rescue;
mod scope;
mod side;
mod state;
mod text;

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::catalog::CatalogSet;
use crate::resolve::Resolver;
use crate::solver::SolveOptions;

pub use state::{Subscribed, subscriptions_of};
pub use text::to_text;

/// Whether NEW strands or breaks anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DiffStatus {
    /// Nothing stranded or broken (new deprecations may be listed).
    Ok,
    /// Something is stranded or broken.
    Broken,
    /// A budget ran out before every package was judged or every head checked.
    GaveUp,
}

/// The whole answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogDiff {
    /// Whether anything is stranded or broken.
    pub status: DiffStatus,
    /// OLD's catalog name, as loaded.
    pub old: String,
    /// NEW's catalog name, as loaded.
    pub new: String,
    /// Every package judged, by name.
    pub packages: Vec<PackageDiff>,
    /// With a cluster's state: each Subscription judged, by namespace and name.
    pub subscriptions: Vec<SubscriptionImpact>,
    /// Packages left unjudged because the time budget ran out (status `gaveUp`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_judged: Vec<String>,
}

/// One package of OLD.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageDiff {
    /// Package name.
    pub package: String,
    /// Its channels judged, by name.
    pub channels: Vec<ChannelDiff>,
    /// Its default channel in OLD and NEW.
    pub default_channel: DefaultChannelChange,
    /// NEW has no such package.
    pub removed: bool,
    /// Channel heads that install on OLD and not on NEW.
    pub installability: Vec<InstallabilityChange>,
    /// Dependencies of NEW's heads that OLD could meet and NEW cannot.
    pub lost_providers: Vec<LostProvider>,
    /// `olm.deprecations` entries NEW has and OLD had not (information only).
    pub deprecations: Vec<NewDeprecation>,
}

/// One channel of OLD.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelDiff {
    /// Channel name.
    pub channel: String,
    /// Bundles that reach OLD's head in OLD and have no upgrade path to NEW's head in NEW,
    /// highest version first.
    pub stranded: Vec<Stranded>,
    /// The lowest version from which NEW's head is reachable with every higher member of
    /// OLD's channel reaching it too (walking OLD's members down from the highest version).
    pub last_reaching: Option<BundleRef>,
    /// OLD's head (None when OLD's channel has no usable order).
    pub head_before: Option<String>,
    /// NEW's head (None when the channel is gone or has no usable order).
    pub head_after: Option<String>,
    /// NEW's package has no such channel.
    pub removed: bool,
    /// For a removed channel: the NEW channel that holds its head (or most of its entries).
    pub renamed_to: Option<String>,
    /// NEW's head has a lower version than OLD's.
    pub head_went_back: bool,
    /// Why NEW's channel has no head to upgrade to (no single head, a cycle, a head without
    /// a bundle), when OLD's had one.
    pub broken_after: Option<String>,
    /// Bundles that had no upgrade path to OLD's head in OLD already, and have none in NEW
    /// (not counted).
    pub already_stranded: Vec<BundleRef>,
}

/// A bundle and its version.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct BundleRef {
    /// Bundle name.
    pub bundle: String,
    /// Its version.
    pub version: String,
}

/// A stranded bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stranded {
    /// Bundle name.
    pub bundle: String,
    /// Its version.
    pub version: String,
    /// The smallest change to NEW that gives it a path to the head, verified; None when no
    /// change tried did.
    pub rescue: Option<Rescue>,
}

/// A change to NEW's channel that gives a stranded bundle an upgrade path to the head. Each
/// one offered was applied and the channel recomputed: the bundle reaches the head, the head
/// stays the head, and every bundle that reached it still does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "camelCase")]
pub enum Rescue {
    /// Keep these entries of OLD's channel (with their bundles) in NEW.
    KeepEntries {
        /// Entry names, highest version first.
        entries: Vec<String>,
    },
    /// Give the head this `skipRange` (`before` is the one it has).
    SetSkipRange {
        /// The head.
        head: String,
        /// Its `skipRange` in NEW.
        before: Option<String>,
        /// The `skipRange` that rescues.
        after: String,
    },
    /// Add the stranded bundle to the head's `skips`.
    AddSkips {
        /// The head.
        head: String,
        /// The bundle to skip.
        bundle: String,
    },
}

/// A package's default channel before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefaultChannelChange {
    /// OLD's default channel.
    pub before: Option<String>,
    /// NEW's default channel.
    pub after: Option<String>,
    /// NEW's default channel is not one of NEW's channels, or has no head to upgrade to
    /// (when OLD's had one): a Subscription without a channel cannot resolve.
    pub unusable_after: bool,
    /// When it moved: bundles of OLD's default channel with no upgrade path to the head of
    /// NEW's (what Subscriptions without a channel follow), highest version first.
    pub stranded: Vec<Stranded>,
}

/// A channel head that installs on OLD and not on NEW.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallabilityChange {
    /// NEW's channel.
    pub channel: String,
    /// NEW's head.
    pub bundle: String,
    /// OLD's head of the channel installs alone on OLD.
    pub before: bool,
    /// NEW's head installs alone on NEW.
    pub after: bool,
    /// Why not: deppy's explanation (a budget that ran out says so).
    pub explanation: String,
    /// The check of NEW's head ran out of budget.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
}

/// A dependency that OLD had a provider for and NEW has none.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LostProvider {
    /// The NEW head that requires it.
    pub bundle: String,
    /// What it requires.
    pub dependency: Dependency,
    /// The bundles of OLD that provided it.
    pub providers_before: Vec<String>,
}

/// A dependency of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Dependency {
    /// `olm.package.required`.
    Package {
        /// The package.
        package: String,
        /// The version range.
        range: String,
    },
    /// `olm.gvk.required`.
    Api {
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// Kind.
        kind: String,
    },
}

/// An `olm.deprecations` entry new in NEW.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewDeprecation {
    /// `package`, `channel` or `bundle`.
    pub kind: String,
    /// The channel or bundle name (empty for the package).
    pub name: String,
    /// The catalog's message.
    pub message: String,
}

/// What NEW does to one Subscription of the cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionImpact {
    /// Namespace.
    pub namespace: String,
    /// Subscription name.
    pub name: String,
    /// `spec.name`.
    pub package: String,
    /// `spec.channel` (None: the package's default channel).
    pub channel: Option<String>,
    /// The channel it follows in NEW (its own, or NEW's default).
    pub follows: Option<String>,
    /// The installed CSV it names, when the namespace has it.
    pub installed: Option<BundleRef>,
    /// What happens to it.
    pub status: SubscriptionStatus,
    /// Why, when it is not `ok`.
    pub reason: Option<SubscriptionReason>,
    /// For a stranded one: the verified change that rescues its CSV.
    pub rescue: Option<Rescue>,
}

/// What happens to a Subscription.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SubscriptionStatus {
    /// It upgrades to NEW's head (or installs it) as before.
    Ok,
    /// Its CSV has no upgrade path to NEW's head: it never upgrades again, without an error.
    Stranded,
    /// It cannot resolve on NEW.
    Stuck,
    /// Its CSV had no path to OLD's head either (not counted).
    AlreadyStranded,
}

/// Why a Subscription is stranded or stuck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SubscriptionReason {
    /// No upgrade path from its CSV to the head.
    NoPathToHead,
    /// Its package is not in NEW.
    PackageRemoved,
    /// Its channel is not in NEW.
    ChannelRemoved,
    /// Its channel has no head to upgrade to in NEW.
    ChannelBroken,
    /// Its channel's head installs on OLD and not on NEW.
    HeadNotInstallable,
}

/// One `--channel` filter: a package, or one of its channels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelFilter {
    /// Package name.
    pub package: String,
    /// Channel name (None: every channel of the package).
    pub channel: Option<String>,
}

impl ChannelFilter {
    /// Parses `PKG` or `PKG/CHANNEL`.
    pub fn parse(spec: &str) -> Result<ChannelFilter, String> {
        let (package, channel) = match spec.split_once('/') {
            Some((p, c)) => (p, Some(c)),
            None => (spec, None),
        };
        if package.is_empty() || channel.is_some_and(|c| c.is_empty() || c.contains('/')) {
            return Err(format!(
                "{spec:?}: expected PACKAGE or PACKAGE/CHANNEL, each part non-empty"
            ));
        }
        Ok(ChannelFilter {
            package: package.to_string(),
            channel: channel.map(str::to_string),
        })
    }

    /// An error naming the first filter OLD has no package or channel for (a typo would
    /// otherwise judge nothing and say nothing is stranded).
    pub fn check_all(filters: &[ChannelFilter], old: &CatalogSet) -> Result<(), String> {
        for f in filters {
            let Some(p) = scope::package(old, &f.package) else {
                return Err(format!("OLD has no package {:?}", f.package));
            };
            if let Some(c) = &f.channel
                && !p.channels.iter().any(|x| &x.name == c)
            {
                return Err(format!(
                    "OLD's package {:?} has no channel {c:?}",
                    f.package
                ));
            }
        }
        Ok(())
    }

    fn admits(filters: &[ChannelFilter], package: &str, channel: Option<&str>) -> bool {
        filters.is_empty()
            || filters.iter().any(|f| {
                f.package == package
                    && match (&f.channel, channel) {
                        (Some(want), Some(c)) => want == c,
                        _ => true,
                    }
            })
    }
}

/// What to judge and how.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Only these packages and channels (empty: every one of OLD).
    pub channels: Vec<ChannelFilter>,
    /// A cluster's Subscriptions ([`subscriptions_of`]): only their channels and installed
    /// CSVs are judged. None: every channel and every member of OLD.
    pub subscriptions: Option<Vec<Subscribed>>,
    /// The budget of the installability checks.
    pub solve: SolveOptions,
    /// Leave out the installability checks of the heads (and the lost providers stay).
    pub skip_installability: bool,
}

/// Compares OLD with NEW (each one catalog, or several merged; a package is read from the
/// first catalog that declares it).
pub fn diff(old: CatalogSet, new: CatalogSet, options: &DiffOptions) -> CatalogDiff {
    let old = Resolver::new(Arc::new(old)).with_options(options.solve.clone());
    let new = Resolver::new(Arc::new(new)).with_options(options.solve.clone());
    let scope = scope::scope(old.catalogs(), options);
    // The time budget is looked at between packages: one in progress is finished.
    let deadline = options.solve.deadline_from(Instant::now());
    let mut packages: Vec<PackageDiff> = Vec::new();
    let mut not_judged = Vec::new();
    for s in &scope {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            not_judged.push(s.package.clone());
        } else {
            packages.push(package::judge(old.catalogs(), new.catalogs(), s));
        }
    }
    if !options.skip_installability {
        health::installability(&old, &new, &mut packages);
    }
    let subscriptions = match &options.subscriptions {
        Some(subs) => state::impacts(old.catalogs(), new.catalogs(), subs, &packages, options),
        None => Vec::new(),
    };
    let status = match status(&packages, &subscriptions) {
        _ if !not_judged.is_empty() => DiffStatus::GaveUp,
        s => s,
    };
    CatalogDiff {
        status,
        old: catalog_name(old.catalogs()),
        new: catalog_name(new.catalogs()),
        packages,
        subscriptions,
        not_judged,
    }
}

fn catalog_name(set: &CatalogSet) -> String {
    let names: Vec<&str> = set.catalogs.iter().map(|c| c.name.as_str()).collect();
    names.join(", ")
}

/// Broken when anything is stranded, removed, moved away, unusable or not installable any
/// more; gave up when a head's check ran out of budget. Deprecations alone count for nothing.
fn status(packages: &[PackageDiff], subscriptions: &[SubscriptionImpact]) -> DiffStatus {
    let gave_up = packages
        .iter()
        .flat_map(|p| &p.installability)
        .any(|i| i.gave_up);
    let channel_broken = |c: &ChannelDiff| {
        !c.stranded.is_empty() || c.removed || c.head_went_back || c.broken_after.is_some()
    };
    let package_broken = |p: &PackageDiff| {
        p.removed
            || p.channels.iter().any(channel_broken)
            || p.default_channel.unusable_after
            || !p.default_channel.stranded.is_empty()
            || p.installability.iter().any(|i| i.before && !i.after)
            || !p.lost_providers.is_empty()
    };
    let subscription_broken = |s: &SubscriptionImpact| {
        matches!(
            s.status,
            SubscriptionStatus::Stranded | SubscriptionStatus::Stuck
        )
    };
    if gave_up {
        DiffStatus::GaveUp
    } else if packages.iter().any(package_broken) || subscriptions.iter().any(subscription_broken) {
        DiffStatus::Broken
    } else {
        DiffStatus::Ok
    }
}
