//! A cluster's Subscriptions against OLD and NEW: which ones NEW would strand (their CSV has
//! no upgrade path to the head of the channel they follow) or leave stuck (their package or
//! channel is gone, their channel has no head, or its head no longer installs).

use super::channel::judge_members;
use super::reach::Installed;
use super::scope::package;
use super::side::{Old, Side};
use super::{
    BundleRef, ChannelFilter, DiffOptions, PackageDiff, SubscriptionImpact, SubscriptionReason,
    SubscriptionStatus,
};
use crate::catalog::CatalogSet;
use crate::cluster::{ClusterOptions, ClusterState, StateError, plan_cluster};
use crate::version::Version;

/// A Subscription of a cluster, as the diff judges it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscribed {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.name`: the package.
    pub package: String,
    /// `spec.channel` (None: the package's default channel).
    pub channel: Option<String>,
    /// `spec.sourceNamespace/spec.source`.
    pub catalog: String,
    /// The CSV `status.installedCSV` names, when the namespace has it, with its version.
    pub installed: Option<(String, Version)>,
}

impl Subscribed {
    /// The installed CSV as an installed bundle.
    pub(crate) fn installed(&self) -> Option<Installed> {
        let (name, version) = self.installed.clone()?;
        Some(Installed { name, version })
    }
}

/// The Subscriptions of a cluster's state, by namespace and name; with `source`
/// (`NAMESPACE/NAME`), only those of that CatalogSource.
pub fn subscriptions_of(
    state: &ClusterState,
    source: Option<&str>,
) -> Result<Vec<Subscribed>, StateError> {
    let plans = plan_cluster(state, &[], &ClusterOptions::default())?;
    let mut out = Vec::new();
    for plan in &plans {
        for s in &plan.subscriptions {
            if source.is_some_and(|src| src != s.catalog) {
                continue;
            }
            let installed = s.installed.as_ref().map(|csv| {
                let version = (plan.request.installed.iter())
                    .find(|i| &i.bundle == csv)
                    .and_then(|i| i.version.clone())
                    .unwrap_or_else(|| Version::new(0, 0, 0));
                (csv.clone(), version)
            });
            out.push(Subscribed {
                namespace: plan.namespace.clone(),
                name: s.name.clone(),
                package: s.package.clone(),
                channel: s.channel.clone(),
                catalog: s.catalog.clone(),
                installed,
            });
        }
    }
    out.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    Ok(out)
}

/// What NEW does to each Subscription of a package OLD has (and `--channel` admits).
pub(crate) fn impacts(
    old: &CatalogSet,
    new: &CatalogSet,
    subs: &[Subscribed],
    packages: &[PackageDiff],
    options: &DiffOptions,
) -> Vec<SubscriptionImpact> {
    let mut out = Vec::new();
    for sub in subs {
        let Some(old_pkg) = package(old, &sub.package) else {
            continue;
        };
        let old_channel = sub
            .channel
            .as_deref()
            .or(old_pkg.default_channel.as_deref());
        if !ChannelFilter::admits(&options.channels, &sub.package, old_channel) {
            continue;
        }
        let new_pkg = package(new, &sub.package);
        let follows = sub
            .channel
            .clone()
            .or_else(|| new_pkg.and_then(|p| p.default_channel.clone()));
        let mut impact = SubscriptionImpact {
            namespace: sub.namespace.clone(),
            name: sub.name.clone(),
            package: sub.package.clone(),
            channel: sub.channel.clone(),
            follows: follows.clone(),
            installed: sub.installed().map(|x| BundleRef {
                bundle: x.name,
                version: x.version.to_string(),
            }),
            status: SubscriptionStatus::Ok,
            reason: None,
            rescue: None,
        };
        let old_side = old_channel.and_then(|c| Side::find(old, old_pkg, c));
        let new_side = match (new_pkg, follows.as_deref()) {
            (None, _) => Err(SubscriptionReason::PackageRemoved),
            (Some(n), Some(f)) => Side::find(new, n, f).ok_or(SubscriptionReason::ChannelRemoved),
            (Some(_), None) => Err(SubscriptionReason::ChannelRemoved),
        };
        match new_side {
            Ok(new_side) => judge(&mut impact, sub, old_side.as_ref(), &new_side, packages),
            Err(why) => stuck(&mut impact, why),
        }
        out.push(impact);
    }
    out
}

fn stuck(impact: &mut SubscriptionImpact, why: SubscriptionReason) {
    impact.status = SubscriptionStatus::Stuck;
    impact.reason = Some(why);
}

/// Judges one Subscription against the channel of NEW it follows.
fn judge(
    impact: &mut SubscriptionImpact,
    sub: &Subscribed,
    old: Option<&Side<'_>>,
    new: &Side<'_>,
    packages: &[PackageDiff],
) {
    let Ok(reach) = new.reach() else {
        return stuck(impact, SubscriptionReason::ChannelBroken);
    };
    let judged: Vec<Installed> = sub.installed().into_iter().collect();
    let old_reach = old.and_then(|s| s.reach().ok());
    let old = old.map(|side| Old {
        side,
        reach: old_reach.as_ref(),
    });
    let verdicts = judge_members(old, new, &reach, &judged);
    let head_fails = (packages.iter())
        .filter(|p| p.package == sub.package)
        .flat_map(|p| &p.installability)
        .any(|i| i.channel == new.channel.name && i.before && !i.after);
    if let Some(s) = verdicts.stranded.into_iter().next() {
        impact.status = SubscriptionStatus::Stranded;
        impact.reason = Some(SubscriptionReason::NoPathToHead);
        impact.rescue = s.rescue;
    } else if !verdicts.already.is_empty() {
        impact.status = SubscriptionStatus::AlreadyStranded;
        impact.reason = Some(SubscriptionReason::NoPathToHead);
    } else if head_fails {
        stuck(impact, SubscriptionReason::HeadNotInstallable);
    }
}
