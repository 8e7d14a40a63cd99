//! A cluster's Subscriptions against OLD and NEW: which ones NEW would strand (their CSV has
//! no upgrade path to the head of the channel they follow) or leave stuck (their package or
//! channel is gone, their channel has no head, or its head no longer installs).

use super::channel::{Side, judge_members};
use super::package::package;
use super::reach::Installed;
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
        let old_channel = sub.channel.clone().or(old_pkg.default_channel.clone());
        if !ChannelFilter::admits(&options.channels, &sub.package, old_channel.as_deref()) {
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
        let stuck = |why| (SubscriptionStatus::Stuck, Some(why));
        let (status, reason) = match (new_pkg, follows.as_deref()) {
            (None, _) => stuck(SubscriptionReason::PackageRemoved),
            (Some(_), None) => stuck(SubscriptionReason::ChannelRemoved),
            (Some(n), Some(f)) => match Side::find(new, n, f) {
                None => stuck(SubscriptionReason::ChannelRemoved),
                Some(new_side) => match new_side.reach() {
                    Err(_) => stuck(SubscriptionReason::ChannelBroken),
                    Ok(reach) => {
                        let old_side = old_channel
                            .as_deref()
                            .and_then(|c| Side::find(old, old_pkg, c));
                        let judged: Vec<Installed> = sub.installed().into_iter().collect();
                        let v = judge_members(old_side.as_ref(), &new_side, &reach, &judged);
                        let head_fails = (packages.iter())
                            .filter(|p| p.package == sub.package)
                            .flat_map(|p| &p.installability)
                            .any(|i| i.channel == f && i.before && !i.after);
                        if let Some(s) = v.stranded.into_iter().next() {
                            impact.rescue = s.rescue;
                            (
                                SubscriptionStatus::Stranded,
                                Some(SubscriptionReason::NoPathToHead),
                            )
                        } else if !v.already.is_empty() {
                            (
                                SubscriptionStatus::AlreadyStranded,
                                Some(SubscriptionReason::NoPathToHead),
                            )
                        } else if head_fails {
                            stuck(SubscriptionReason::HeadNotInstallable)
                        } else {
                            (SubscriptionStatus::Ok, None)
                        }
                    }
                },
            },
        };
        impact.status = status;
        impact.reason = reason;
        out.push(impact);
    }
    out
}
