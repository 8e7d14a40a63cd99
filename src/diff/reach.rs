//! Which installed bundles can still reach a channel's head (docs/semantics.md §4, §13): a
//! bundle reaches the head when it is the head, or when one of its direct successors on the
//! channel's order (an entry that replaces it, skips it, or whose `skipRange` holds its
//! version) reaches the head. Computed once per channel, backwards from the head.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::catalog::{Channel, ChannelError, ChannelGraph};
use crate::version::Version;

/// A bundle as a cluster has it installed: its name and version (the installed CSV's).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Installed {
    /// Bundle (CSV) name.
    pub name: String,
    /// Its version.
    pub version: Version,
}

/// Why a channel has no head to reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unusable {
    /// No single head, or a `replaces` cycle.
    Order(ChannelError),
    /// The head entry names no bundle of the catalog.
    HeadWithoutBundle(String),
}

/// One channel's upgrade graph with, for each entry, whether the head is reachable from it.
/// Edges are indexed: the members that replace or skip a name, by that name, and the members
/// with a `skipRange`; building is linear in the channel plus members × ranged members.
#[derive(Debug)]
pub(crate) struct Reach<'a> {
    graph: ChannelGraph<'a>,
    /// Each entry's version: its bundle's, None when the catalog has no bundle for it.
    versions: Vec<Option<&'a Version>>,
    /// Entries from which the head is reachable (members of the order only).
    reaches: Vec<bool>,
    /// Entries on the order with a bundle.
    member: Vec<bool>,
    /// Members whose `replaces` or `skips` names a bundle, by that name.
    by_name: FxHashMap<&'a str, Vec<usize>>,
    /// Members with a `skipRange`.
    ranged: Vec<usize>,
    /// Of those, the ones that reach the head.
    ranged_reaching: Vec<usize>,
    /// The work of one build: entries times ranged members.
    cost: usize,
}

impl<'a> Reach<'a> {
    /// The reachability of `channel`'s head; `versions` holds each entry's bundle version (by
    /// position in the channel's entries; None: no bundle). Members of the channel are the
    /// entries on its order that have a bundle; only they are steps of an upgrade path.
    pub(crate) fn build(
        channel: &'a Channel,
        versions: Vec<Option<&'a Version>>,
    ) -> Result<Reach<'a>, Unusable> {
        let graph = ChannelGraph::build(channel).map_err(Unusable::Order)?;
        let n = channel.entries.len();
        let mut member = vec![false; n];
        for &i in graph.order() {
            if let (Some(m), Some(Some(_))) = (member.get_mut(i), versions.get(i)) {
                *m = true;
            }
        }
        let head = graph.head();
        if !member.get(head).copied().unwrap_or(false) {
            let name = graph
                .entry(head)
                .map(|e| e.name.clone())
                .unwrap_or_default();
            return Err(Unusable::HeadWithoutBundle(name));
        }
        let mut by_name: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        let mut ranged = Vec::new();
        for (i, e) in channel.entries.iter().enumerate() {
            if !member.get(i).copied().unwrap_or(false) {
                continue;
            }
            let named = e.replaces.iter().chain(&e.skips);
            for name in named {
                let list = by_name.entry(name.as_str()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
            if e.skip_range.is_some() {
                ranged.push(i);
            }
        }
        let mut reach = Reach {
            graph,
            versions,
            reaches: vec![false; n],
            member,
            cost: n.saturating_mul(ranged.len() + 1),
            by_name,
            ranged,
            ranged_reaching: Vec::new(),
        };
        // Each member's predecessors: the members it is a direct successor of.
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, e) in channel.entries.iter().enumerate() {
            let Some(Some(v)) = reach.versions.get(i) else {
                continue;
            };
            if !reach.member.get(i).copied().unwrap_or(false) {
                continue;
            }
            for s in reach.successors(&e.name, v, &reach.ranged) {
                if let Some(p) = preds.get_mut(s) {
                    p.push(i);
                }
            }
        }
        let mut queue = VecDeque::from([head]);
        if let Some(r) = reach.reaches.get_mut(head) {
            *r = true;
        }
        while let Some(s) = queue.pop_front() {
            for &p in preds.get(s).map_or(&[][..], Vec::as_slice) {
                if let Some(r @ false) = reach.reaches.get_mut(p) {
                    *r = true;
                    queue.push_back(p);
                }
            }
        }
        let reaches = &reach.reaches;
        reach.ranged_reaching = (reach.ranged.iter().copied())
            .filter(|&i| reaches.get(i).copied().unwrap_or(false))
            .collect();
        Ok(reach)
    }

    /// The direct successors of an installed bundle among the members (docs/semantics.md §4):
    /// members other than itself that replace it, skip it, or hold its version in their
    /// `skipRange` (of the members `ranged`). Costs the number of ranged members.
    fn successors<'s>(
        &'s self,
        name: &'s str,
        version: &'s Version,
        ranged: &'s [usize],
    ) -> impl Iterator<Item = usize> + 's {
        let entries = &self.graph.channel().entries;
        let not_itself = move |i: &usize| entries.get(*i).is_some_and(|e| e.name != name);
        let named = self.by_name.get(name).into_iter().flatten().copied();
        let ranged = ranged.iter().copied().filter(move |&i| {
            let range = entries.get(i).and_then(|e| e.skip_range.as_ref());
            range.is_some_and(|r| r.matches(version))
        });
        named.chain(ranged).filter(not_itself)
    }

    /// The head entry's name.
    pub(crate) fn head_name(&self) -> &'a str {
        self.graph
            .entry(self.graph.head())
            .map_or("", |e| e.name.as_str())
    }

    /// The head's version.
    pub(crate) fn head_version(&self) -> Option<&'a Version> {
        self.versions.get(self.graph.head()).copied().flatten()
    }

    /// The channel's upgrade graph.
    pub(crate) fn graph(&self) -> &ChannelGraph<'a> {
        &self.graph
    }

    /// Whether an installed bundle has an upgrade path to the head: it is the head, or a
    /// direct successor of it reaches the head.
    pub(crate) fn reaches(&self, name: &str, version: &Version) -> bool {
        // A member at its own version: known from the build.
        if let Some(i) = self.graph.index_of(name)
            && self.member.get(i) == Some(&true)
            && self.versions.get(i).copied().flatten() == Some(version)
        {
            return self.reaches.get(i) == Some(&true);
        }
        name == self.head_name()
            || self
                .successors(name, version, &self.ranged_reaching)
                .any(|i| self.reaches.get(i).copied().unwrap_or(false))
    }

    /// The members that are direct successors of an installed bundle, and the work it took
    /// to find them (the number of ranged members looked at).
    pub(crate) fn successors_of(&self, name: &str, version: &Version) -> (Vec<usize>, usize) {
        let found = self.successors(name, version, &self.ranged).collect();
        (found, self.ranged.len() + 1)
    }

    /// As [`Reach::reaches`], for an installed bundle.
    pub(crate) fn reaches_installed(&self, x: &Installed) -> bool {
        self.reaches(&x.name, &x.version)
    }

    /// Whether the channel has an entry of this name (a member or not).
    pub(crate) fn has_entry(&self, name: &str) -> bool {
        self.graph.index_of(name).is_some()
    }

    /// The work one build of this channel took, roughly: entries times ranged members.
    pub(crate) fn cost(&self) -> usize {
        self.cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ChannelEntry, Origin};
    use crate::range::VersionRange;

    /// (name, version, replaces, skips, skipRange); an empty version: no bundle.
    type Spec<'s> = (&'s str, &'s str, &'s str, &'s [&'s str], &'s str);

    fn channel(spec: &[Spec<'_>]) -> (Channel, Vec<Option<Version>>) {
        let entries = spec
            .iter()
            .map(|&(name, _, replaces, skips, range)| ChannelEntry {
                name: name.to_string(),
                replaces: (!replaces.is_empty()).then(|| replaces.to_string()),
                skips: skips.iter().map(|s| s.to_string()).collect(),
                skip_range: (!range.is_empty()).then(|| VersionRange::parse(range).unwrap()),
                bundle: None,
            })
            .collect();
        let versions = spec
            .iter()
            .map(|s| (!s.1.is_empty()).then(|| Version::parse(s.1).unwrap()))
            .collect();
        let ch = Channel {
            name: "stable".into(),
            entries,
            origin: Origin {
                file: "t".into(),
                document: 1,
                line: None,
            },
        };
        (ch, versions)
    }

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn reaches_along_every_kind_of_edge() {
        let (ch, vs) = channel(&[
            ("a.4", "4.0.0", "a.3", &[], ">=1.0.0 <2.0.0"),
            ("a.3", "3.0.0", "a.2", &["a.x"], ""),
            ("a.2", "2.0.0", "", &[], ""),
        ]);
        let r = Reach::build(&ch, vs.iter().map(Option::as_ref).collect()).unwrap();
        assert_eq!(r.head_name(), "a.4");
        assert!(r.reaches("a.4", &v("4.0.0")));
        assert!(r.reaches("a.2", &v("2.0.0")), "replaces, twice");
        assert!(r.reaches("a.x", &v("9.0.0")), "skipped by a.3");
        assert!(r.reaches("gone", &v("1.5.0")), "skipRange of the head");
        assert!(!r.reaches("gone", &v("2.5.0")));
        assert!(r.reaches("a.1", &v("1.0.0")), "a lower bound is inclusive");
    }

    #[test]
    fn skipped_and_bundleless_entries_are_no_steps() {
        // a.3 skips a.2: a.2 is off the order, so a.1 (replaced by a.2 only) is stranded.
        let (ch, vs) = channel(&[
            ("a.3", "3.0.0", "a.2", &["a.2"], ""),
            ("a.2", "2.0.0", "a.1", &[], ""),
            ("a.1", "1.0.0", "", &[], ""),
        ]);
        let r = Reach::build(&ch, vs.iter().map(Option::as_ref).collect()).unwrap();
        assert!(r.reaches("a.2", &v("2.0.0")));
        assert!(!r.reaches("a.1", &v("1.0.0")));
        // An entry without a bundle is no step either.
        let (ch, vs) = channel(&[
            ("a.3", "3.0.0", "a.2", &[], ""),
            ("a.2", "", "a.1", &[], ""),
        ]);
        let r = Reach::build(&ch, vs.iter().map(Option::as_ref).collect()).unwrap();
        assert!(r.reaches("a.2", &v("2.0.0")));
        assert!(!r.reaches("a.1", &v("1.0.0")));
        let (ch, vs) = channel(&[("a.3", "", "a.2", &[], "")]);
        assert_eq!(
            Reach::build(&ch, vs.iter().map(Option::as_ref).collect()).unwrap_err(),
            Unusable::HeadWithoutBundle("a.3".into())
        );
    }
}
