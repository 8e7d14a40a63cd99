//! A channel of OLD or NEW with its entries' versions, and OLD's channel with the
//! reachability of its head: what the channel judgement and the rescues both read.

use super::reach::{Installed, Reach, Unusable};
use crate::catalog::{CatalogSet, Channel, Package};
use crate::version::Version;

/// A channel of one catalog, with each entry's bundle version (None: no bundle).
#[derive(Clone, Debug)]
pub(crate) struct Side<'a> {
    /// The channel.
    pub channel: &'a Channel,
    /// Each entry's version, by position in the channel's entries.
    pub versions: Vec<Option<&'a Version>>,
}

impl<'a> Side<'a> {
    /// A channel of `set`, with its entries' versions.
    pub(crate) fn of(set: &'a CatalogSet, channel: &'a Channel) -> Side<'a> {
        let versions = channel
            .entries
            .iter()
            .map(|e| e.bundle.and_then(|b| set.bundle(b)).map(|b| &b.version))
            .collect();
        Side { channel, versions }
    }

    /// The channel `name` of a package of `set`.
    pub(crate) fn find(set: &'a CatalogSet, package: &'a Package, name: &str) -> Option<Side<'a>> {
        let channel = package.channels.iter().find(|c| c.name == name)?;
        Some(Side::of(set, channel))
    }

    /// Every entry with a bundle, as installed: what a cluster may run from this channel.
    pub(crate) fn members(&self) -> Vec<Installed> {
        (self.channel.entries.iter().zip(&self.versions))
            .filter_map(|(e, v)| {
                Some(Installed {
                    name: e.name.clone(),
                    version: (*v)?.clone(),
                })
            })
            .collect()
    }

    /// The reachability of this channel's head.
    pub(crate) fn reach(&self) -> Result<Reach<'a>, Unusable> {
        Reach::build(self.channel, self.versions.clone())
    }
}

/// OLD's channel with the reachability of its head (None: it has no usable order).
#[derive(Clone, Copy)]
pub(crate) struct Old<'s, 'a> {
    /// The channel.
    pub side: &'s Side<'a>,
    /// Its head's reachability.
    pub reach: Option<&'s Reach<'a>>,
}
