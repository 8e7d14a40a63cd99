//! A channel's upgrade graph (OLM semantics, docs/semantics.md §4): the head, the `replaces`
//! order with skipped entries dropped, each entry's distance from the head, and the upgrade edges
//! out of an installed bundle. Built on demand, so a malformed channel is only an error for
//! the requests that use it. Everything is iterative: a 100,000-entry chain is fine.

use std::fmt;

use rustc_hash::FxHashMap;

use super::model::{Channel, ChannelEntry};
use crate::version::Version;

/// Why a channel has no usable order (OLM's three channel errors).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
pub enum ChannelError {
    /// Every entry is replaced or skipped by another entry.
    #[error("channel {channel:?} has no head: every entry is replaced or skipped by another")]
    NoHead {
        /// Channel name.
        channel: String,
    },
    /// `replaces` goes round in a circle.
    #[error("channel {channel:?} has a replaces cycle: {}", cycle_text(entries))]
    Cycle {
        /// Channel name.
        channel: String,
        /// The entries of the cycle, each replacing the next; the last replaces the first.
        entries: Vec<String>,
    },
    /// More than one entry is neither replaced nor skipped: the channel holds several chains.
    #[error("channel {channel:?} has {} heads (more than one chain): {}", heads.len(), heads_text(heads))]
    MultipleHeads {
        /// Channel name.
        channel: String,
        /// The heads, sorted by name.
        heads: Vec<String>,
    },
}

/// Longest cycle written out in full; a longer one shows its first and last entries.
const CYCLE_SHOWN: usize = 8;

fn cycle_text(entries: &[String]) -> String {
    let mut s = match (entries.get(..CYCLE_SHOWN / 2), entries.len()) {
        (Some(head), n) if n > CYCLE_SHOWN => {
            let tail = entries.get(n - 2..).unwrap_or_default();
            format!(
                "{} -> ... ({} more) -> {}",
                head.join(" -> "),
                n - head.len() - tail.len(),
                tail.join(" -> ")
            )
        }
        _ => entries.join(" -> "),
    };
    if let Some(first) = entries.first() {
        s.push_str(" -> ");
        s.push_str(first);
    }
    s
}

fn heads_text(heads: &[String]) -> String {
    match heads.get(..CYCLE_SHOWN) {
        Some(shown) if heads.len() > CYCLE_SHOWN => {
            format!(
                "{}, and {} more",
                shown.join(", "),
                heads.len() - CYCLE_SHOWN
            )
        }
        _ => heads.join(", "),
    }
}

/// The kind of upgrade edge from an installed bundle to a channel entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Edge {
    /// The entry's `replaces` names the installed bundle.
    Replaces,
    /// The entry's `skips` lists the installed bundle.
    Skips,
    /// The entry's `skipRange` contains the installed bundle's version.
    SkipRange,
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edge::Replaces => "replaces",
            Edge::Skips => "skips",
            Edge::SkipRange => "skipRange",
        })
    }
}

/// The upgrade graph of one channel. Entry indexes are positions in
/// [`Channel::entries`].
#[derive(Clone, Debug)]
pub struct ChannelGraph<'a> {
    channel: &'a Channel,
    by_name: FxHashMap<&'a str, usize>,
    head: usize,
    order: Vec<usize>,
    distance: Vec<Option<u32>>,
    skipped: Vec<bool>,
}

impl<'a> ChannelGraph<'a> {
    /// Builds the graph, or returns why the channel has no single head or has a cycle.
    /// Heads are entries not named by any entry's `replaces` or `skips`; exactly one is
    /// required, and `replaces` must not cycle anywhere in the channel.
    pub fn build(channel: &'a Channel) -> Result<ChannelGraph<'a>, ChannelError> {
        let entries = &channel.entries;
        let n = entries.len();
        let mut by_name: FxHashMap<&str, usize> =
            FxHashMap::with_capacity_and_hasher(n, Default::default());
        // Each entry's name as the index of the first entry with that name: names are
        // hashed once, and what names an entry marks that index.
        let first: Vec<usize> = (entries.iter().enumerate())
            .map(|(i, e)| *by_name.entry(e.name.as_str()).or_insert(i))
            .collect();
        let index = |name: &str| by_name.get(name).copied();
        // Each entry's `replaces` as an index, looked up once.
        let replaced: Vec<Option<usize>> = entries
            .iter()
            .map(|e| index(e.replaces.as_deref()?))
            .collect();
        let mut named = vec![false; n]; // by some entry's `replaces` or `skips`
        let mut skipped_first = vec![false; n]; // by some entry's `skips`
        let skip_targets = entries
            .iter()
            .flat_map(|e| &e.skips)
            .filter_map(|s| index(s));
        for j in skip_targets {
            mark(&mut skipped_first, j);
            mark(&mut named, j);
        }
        for &j in replaced.iter().flatten() {
            mark(&mut named, j);
        }
        let is = |marks: &[bool], i: usize| first.get(i).and_then(|f| marks.get(*f)) == Some(&true);
        let heads: Vec<usize> = (0..n).filter(|&i| !is(&named, i)).collect();
        let next = |i: usize| replaced.get(i).copied().flatten();
        let cycle = find_cycle(entries.len(), next);
        if let Some(e) = graph_error(channel, &heads, cycle) {
            return Err(e);
        }
        let head = heads.first().copied().unwrap_or(0);
        let skipped: Vec<bool> = (0..n).map(|i| is(&skipped_first, i)).collect();
        let mut distance = vec![None; entries.len()];
        let mut order = Vec::new();
        let mut cur = Some(head);
        let mut hops: u32 = 0;
        while let Some(i) = cur {
            match distance.get_mut(i) {
                Some(d @ None) => *d = Some(hops),
                _ => break, // defensive: cycles were rejected above
            }
            if !skipped.get(i).copied().unwrap_or(false) {
                order.push(i);
            }
            hops = hops.saturating_add(1);
            cur = next(i);
        }
        Ok(ChannelGraph {
            channel,
            by_name,
            head,
            order,
            distance,
            skipped,
        })
    }

    /// The channel this graph was built from.
    pub fn channel(&self) -> &'a Channel {
        self.channel
    }

    /// The entry at an index.
    pub fn entry(&self, index: usize) -> Option<&'a ChannelEntry> {
        self.channel.entries.get(index)
    }

    /// The index of the entry for a bundle name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The head entry's index.
    pub fn head(&self) -> usize {
        self.head
    }

    /// The channel order, head first: the `replaces` chain from the head, without entries
    /// named in any `skips`.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Number of `replaces` hops from the head to an entry on the head's chain (skipped
    /// entries on the chain count); None for entries off the chain.
    pub fn distance(&self, index: usize) -> Option<u32> {
        self.distance.get(index).copied().flatten()
    }

    /// True when some entry's `skips` names this entry: it is not part of the order and is
    /// never a candidate unless pinned by name.
    pub fn is_skipped(&self, index: usize) -> bool {
        self.skipped.get(index).copied().unwrap_or(false)
    }

    /// Direct upgrade edges out of an installed bundle: every entry E (other than the
    /// installed one) with `E.replaces == name`, `name in E.skips`, or a `skipRange`
    /// containing `version`. One result per entry with its strongest edge (replaces, then
    /// skips, then skipRange), head-most first (entries off the head's chain last, in entry
    /// order). Skipped entries are included; callers drop them unless pinned.
    pub fn successors(&self, name: &str, version: &Version) -> Vec<(usize, Edge)> {
        let mut out: Vec<(usize, Edge)> = Vec::new();
        for (i, e) in self.channel.entries.iter().enumerate() {
            if e.name == name {
                continue;
            }
            let edge = if e.replaces.as_deref() == Some(name) {
                Edge::Replaces
            } else if e.skips.iter().any(|s| s == name) {
                Edge::Skips
            } else if e.skip_range.as_ref().is_some_and(|r| r.matches(version)) {
                Edge::SkipRange
            } else {
                continue;
            };
            out.push((i, edge));
        }
        out.sort_by_key(|&(i, _)| (self.distance(i).map_or((1, 0), |d| (0, d)), i));
        out
    }
}

fn mark(marks: &mut [bool], i: usize) {
    if let Some(m) = marks.get_mut(i) {
        *m = true;
    }
}

/// OLM's channel errors, from the heads and the first `replaces` cycle: a cycle is reported
/// unless there are several heads (then the chains are the clearer problem).
fn graph_error(
    channel: &Channel,
    heads: &[usize],
    cycle: Option<Vec<usize>>,
) -> Option<ChannelError> {
    let name_of = |i: usize| {
        channel
            .entries
            .get(i)
            .map(|e| e.name.clone())
            .unwrap_or_default()
    };
    match (heads, cycle) {
        (_, Some(c)) if heads.len() <= 1 => Some(ChannelError::Cycle {
            channel: channel.name.clone(),
            entries: c.into_iter().map(name_of).collect(),
        }),
        ([], None) => Some(ChannelError::NoHead {
            channel: channel.name.clone(),
        }),
        ([_], None) => None,
        (many, _) => {
            let mut heads: Vec<String> = many.iter().map(|&i| name_of(i)).collect();
            heads.sort();
            Some(ChannelError::MultipleHeads {
                channel: channel.name.clone(),
                heads,
            })
        }
    }
}

/// The first cycle of a graph where every node has at most one successor, in node order;
/// iterative (three-colour walk), linear time.
fn find_cycle(n: usize, next: impl Fn(usize) -> Option<usize>) -> Option<Vec<usize>> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut path = Vec::new();
    for start in 0..n {
        path.clear();
        let mut cur = Some(start);
        while let Some(i) = cur {
            match state.get(i).copied() {
                Some(NEW) => {
                    if let Some(s) = state.get_mut(i) {
                        *s = ACTIVE;
                    }
                    path.push(i);
                    cur = next(i);
                }
                Some(ACTIVE) => {
                    let at = path.iter().position(|&p| p == i).unwrap_or(0);
                    return Some(path.split_off(at));
                }
                _ => break,
            }
        }
        for &p in &path {
            if let Some(s) = state.get_mut(p) {
                *s = DONE;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::Origin;
    use crate::range::VersionRange;

    /// (name, replaces, skips, skipRange)
    type Spec<'s> = (&'s str, &'s str, &'s [&'s str], &'s str);

    fn channel(spec: &[Spec<'_>]) -> Channel {
        let entries = spec
            .iter()
            .map(|&(name, replaces, skips, range)| ChannelEntry {
                name: name.to_string(),
                replaces: (!replaces.is_empty()).then(|| replaces.to_string()),
                skips: skips.iter().map(|s| s.to_string()).collect(),
                skip_range: (!range.is_empty()).then(|| VersionRange::parse(range).unwrap()),
                bundle: None,
            })
            .collect();
        Channel {
            name: "stable".into(),
            entries,
            origin: Origin {
                file: "t.yaml".into(),
                document: 1,
                line: Some(1),
            },
        }
    }

    fn names(g: &ChannelGraph<'_>, idx: &[usize]) -> Vec<String> {
        idx.iter()
            .map(|&i| g.entry(i).unwrap().name.clone())
            .collect()
    }

    #[test]
    fn order_follows_replaces_and_drops_skipped() {
        let table: &[(&[Spec<'_>], &str, &[&str])] = &[
            (&[("a", "", &[], "")], "a", &["a"]),
            (&[("b", "a", &[], ""), ("a", "", &[], "")], "b", &["b", "a"]),
            // c skips b: b is dropped from the order, a stays (reached through b's replaces).
            (
                &[
                    ("a", "", &[], ""),
                    ("b", "a", &[], ""),
                    ("c", "b", &["b"], ""),
                ],
                "c",
                &["c", "a"],
            ),
            // replaces a bundle outside the channel: the chain just ends.
            (&[("b", "a", &[], "")], "b", &["b"]),
            // c skips x (not in the channel) and replaces b.
            (
                &[("c", "b", &["x"], ""), ("b", "", &[], "")],
                "c",
                &["c", "b"],
            ),
            // entry that both replaces and skips the same bundle (pelorus-operator).
            (
                &[
                    ("c", "b", &["b"], ""),
                    ("b", "a", &[], ""),
                    ("a", "", &[], ""),
                ],
                "c",
                &["c", "a"],
            ),
        ];
        for (spec, head, order) in table {
            let ch = channel(spec);
            let g = ChannelGraph::build(&ch).unwrap();
            assert_eq!(g.entry(g.head()).unwrap().name, *head, "{spec:?}");
            assert_eq!(names(&g, g.order()), *order, "{spec:?}");
        }
    }

    #[test]
    fn distance_counts_replaces_hops() {
        let ch = channel(&[
            ("a", "", &[], ""),
            ("b", "a", &[], ""),
            ("c", "b", &["b"], ""),
            ("z", "", &[], ""),
        ]);
        let err = ChannelGraph::build(&ch).unwrap_err();
        assert!(matches!(err, ChannelError::MultipleHeads { .. }));
        let ch = channel(&[
            ("a", "", &[], ""),
            ("b", "a", &[], ""),
            ("c", "b", &["b"], ""),
        ]);
        let g = ChannelGraph::build(&ch).unwrap();
        assert_eq!(g.distance(2), Some(0));
        assert_eq!(g.distance(1), Some(1));
        assert_eq!(g.distance(0), Some(2));
        assert!(g.is_skipped(1));
        assert!(!g.is_skipped(0));
        assert_eq!(g.index_of("b"), Some(1));
    }

    #[test]
    fn errors() {
        let no_head = channel(&[("a", "", &["b"], ""), ("b", "", &["a"], "")]);
        assert_eq!(
            ChannelGraph::build(&no_head).unwrap_err(),
            ChannelError::NoHead {
                channel: "stable".into()
            }
        );
        let empty = channel(&[]);
        assert!(matches!(
            ChannelGraph::build(&empty),
            Err(ChannelError::NoHead { .. })
        ));
        let cycle = channel(&[("a", "b", &[], ""), ("b", "a", &[], "")]);
        let err = ChannelGraph::build(&cycle).unwrap_err();
        assert_eq!(
            err,
            ChannelError::Cycle {
                channel: "stable".into(),
                entries: vec!["a".into(), "b".into()]
            }
        );
        assert_eq!(
            err.to_string(),
            "channel \"stable\" has a replaces cycle: a -> b -> a"
        );
        let self_cycle = channel(&[("a", "a", &[], "")]);
        assert!(matches!(
            ChannelGraph::build(&self_cycle),
            Err(ChannelError::Cycle { .. })
        ));
        // A head plus a stranded cycle: still a cycle.
        let stranded = channel(&[
            ("h", "x", &[], ""),
            ("a", "b", &[], ""),
            ("b", "a", &[], ""),
        ]);
        let err = ChannelGraph::build(&stranded).unwrap_err();
        assert!(matches!(err, ChannelError::Cycle { ref entries, .. } if entries.len() == 2));
        let two = channel(&[("b", "a", &[], ""), ("a", "", &[], ""), ("c", "a", &[], "")]);
        assert_eq!(
            ChannelGraph::build(&two).unwrap_err(),
            ChannelError::MultipleHeads {
                channel: "stable".into(),
                heads: vec!["b".into(), "c".into()]
            }
        );
    }

    #[test]
    fn successors_by_edge_kind() {
        let ch = channel(&[
            ("e", "d", &[], ">=1.0.0 <1.4.0"),
            ("d", "c", &["b"], ""),
            ("c", "b", &[], ""),
            ("b", "a", &[], ""),
            ("a", "", &[], ""),
        ]);
        let g = ChannelGraph::build(&ch).unwrap();
        let v = |s: &str| Version::parse(s).unwrap();
        let named = |r: Vec<(usize, Edge)>| -> Vec<(String, Edge)> {
            r.into_iter()
                .map(|(i, e)| (g.entry(i).unwrap().name.clone(), e))
                .collect()
        };
        assert_eq!(
            named(g.successors("b", &v("1.1.0"))),
            vec![
                ("e".into(), Edge::SkipRange),
                ("d".into(), Edge::Skips),
                ("c".into(), Edge::Replaces)
            ]
        );
        assert_eq!(
            named(g.successors("d", &v("1.3.0"))),
            vec![("e".into(), Edge::Replaces)]
        );
        // The installed entry itself is never its own successor.
        assert_eq!(named(g.successors("e", &v("1.2.0"))), vec![]);
        // Not in the channel at all, but inside the skipRange.
        assert_eq!(
            named(g.successors("zz", &v("1.0.5"))),
            vec![("e".into(), Edge::SkipRange)]
        );
        assert!(g.successors("zz", &v("2.0.0")).is_empty());
    }

    #[test]
    fn long_chain_is_iterative() {
        let n = 100_000;
        let entries = (0..n)
            .map(|i| ChannelEntry {
                name: format!("op.v{i}"),
                replaces: (i > 0).then(|| format!("op.v{}", i - 1)),
                skips: Vec::new(),
                skip_range: None,
                bundle: None,
            })
            .collect();
        let ch = Channel {
            entries,
            ..channel(&[])
        };
        let g = ChannelGraph::build(&ch).unwrap();
        assert_eq!(g.order().len(), n);
        assert_eq!(g.head(), n - 1);
        assert_eq!(g.distance(0), Some(u32::try_from(n - 1).unwrap()));
        let mut cyc = ch.clone();
        cyc.entries[0].replaces = Some(format!("op.v{}", n - 1));
        match ChannelGraph::build(&cyc) {
            Err(e @ ChannelError::Cycle { .. }) => {
                let ChannelError::Cycle { entries, .. } = &e else {
                    unreachable!()
                };
                assert_eq!(entries.len(), n);
                // The message stays short: the first and last entries only.
                assert_eq!(
                    e.to_string(),
                    "channel \"stable\" has a replaces cycle: op.v0 -> op.v99999 -> op.v99998 -> op.v99997 -> ... (99994 more) -> op.v2 -> op.v1 -> op.v0"
                );
            }
            other => panic!("{other:?}"),
        }
        let heads = Channel {
            entries: (0..20)
                .map(|i| ChannelEntry {
                    name: format!("h{i:02}"),
                    ..ch.entries[0].clone()
                })
                .collect(),
            ..channel(&[])
        };
        let e = ChannelGraph::build(&heads).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("h00, h01, h02, h03, h04, h05, h06, h07, and 12 more"),
            "{e}"
        );
    }
}
