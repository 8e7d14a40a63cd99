//! What is judged: every package and channel of OLD, the ones `--channel` names, or the
//! ones a cluster's Subscriptions use.

use std::collections::BTreeMap;

use super::reach::Installed;
use super::{ChannelFilter, DiffOptions};
use crate::catalog::{CatalogSet, Package};

/// One package to judge.
#[derive(Clone, Debug, Default)]
pub(crate) struct PackageScope {
    /// Package name.
    pub package: String,
    /// Channels of OLD to judge, each with the bundles judged on it (None: every member).
    pub channels: BTreeMap<String, Option<Vec<Installed>>>,
    /// Whether to judge a move of the default channel, and for which bundles (None: every
    /// member of OLD's default channel).
    pub default: Option<Option<Vec<Installed>>>,
}

impl PackageScope {
    /// The bundle names judged (None: every bundle).
    pub(crate) fn bundles(&self) -> Option<Vec<&str>> {
        let lists = self.channels.values().chain(self.default.iter());
        let mut out = Vec::new();
        for list in lists {
            out.extend(list.as_ref()?.iter().map(|x| x.name.as_str()));
        }
        Some(out)
    }
}

/// The first `olm.package` entry of a package in a set.
pub(crate) fn package<'a>(set: &'a CatalogSet, name: &str) -> Option<&'a Package> {
    set.package_entries(set.package_id(name)?).next()
}

/// What to judge, by package name.
pub(crate) fn scope(old: &CatalogSet, options: &DiffOptions) -> Vec<PackageScope> {
    let filters = &options.channels;
    let mut out: BTreeMap<String, PackageScope> = BTreeMap::new();
    match &options.subscriptions {
        None => {
            for name in old.package_names() {
                let Some(p) = package(old, &name) else {
                    continue;
                };
                if !ChannelFilter::admits(filters, &name, None) {
                    continue;
                }
                let mut s = PackageScope {
                    package: name.clone(),
                    ..PackageScope::default()
                };
                for c in &p.channels {
                    if ChannelFilter::admits(filters, &name, Some(&c.name)) {
                        s.channels.insert(c.name.clone(), None);
                    }
                }
                let default = p.default_channel.as_deref();
                if default.is_none_or(|d| ChannelFilter::admits(filters, &name, Some(d))) {
                    s.default = Some(None);
                }
                out.insert(name, s);
            }
        }
        Some(subs) => {
            for sub in subs {
                let Some(p) = package(old, &sub.package) else {
                    continue;
                };
                let channel = sub.channel.as_deref().or(p.default_channel.as_deref());
                if !ChannelFilter::admits(filters, &sub.package, channel) {
                    continue;
                }
                let s = out
                    .entry(sub.package.clone())
                    .or_insert_with(|| PackageScope {
                        package: sub.package.clone(),
                        ..PackageScope::default()
                    });
                let installed: Vec<Installed> = sub.installed().into_iter().collect();
                if let Some(c) = channel.filter(|c| p.channels.iter().any(|o| o.name == *c)) {
                    let list = s.channels.entry(c.to_string()).or_insert(Some(Vec::new()));
                    list.get_or_insert_with(Vec::new)
                        .extend(installed.iter().cloned());
                }
                if sub.channel.is_none() {
                    s.default
                        .get_or_insert(Some(Vec::new()))
                        .get_or_insert_with(Vec::new)
                        .extend(installed);
                }
            }
        }
    }
    out.into_values().collect()
}
