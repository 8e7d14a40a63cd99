//! The smallest change to NEW's channel that gives a stranded bundle an upgrade path to the
//! head, each candidate checked by applying it and recomputing the channel: the bundle
//! reaches the head, the head stays the head, and every bundle that reached it still does.
//!
//! Candidates, smallest first: keep one entry of OLD's channel; give the head a `skipRange`
//! that covers the stranded versions (or widen the one it has); add the bundle to the head's
//! `skips`; keep the several entries of OLD's channel on the shortest path of OLD from the
//! bundle to an entry that reaches NEW's head. A change to the head is offered only when the
//! head's version is above the bundle's: never a downgrade.

use std::collections::VecDeque;

use super::Rescue;
use super::channel::Side;
use super::reach::{Installed, Reach};
use crate::catalog::{Channel, ChannelGraph};
use crate::range::VersionRange;
use crate::version::Version;

/// At most this many paths of OLD are tried as sets of entries to keep.
const PATHS_TRIED: usize = 8;

/// NEW's channel with a change applied.
struct Changed<'a> {
    channel: Channel,
    versions: Vec<Option<&'a Version>>,
}

impl<'a> Changed<'a> {
    fn from(new: &Side<'a>) -> Changed<'a> {
        Changed {
            channel: new.channel.clone(),
            versions: new.versions.clone(),
        }
    }

    /// True when, after the change, `x` reaches the head, the head is `head`, and every
    /// bundle of `keep` still reaches it.
    fn rescues(&self, head: &str, x: &Installed, keep: &[Installed]) -> bool {
        let Ok(reach) = Reach::build(&self.channel, self.versions.clone()) else {
            return false;
        };
        reach.head_name() == head
            && reach.reaches_installed(x)
            && keep.iter().all(|k| reach.reaches_installed(k))
    }
}

/// The first verified rescue of `x` (stranded on NEW's channel `new`, whose head `reach`
/// describes); `keep` must keep their paths; `gap` holds the lowest and highest stranded
/// versions of the channel (a `skipRange` covers the whole gap at once).
pub(crate) fn find(
    old: Option<&Side<'_>>,
    new: &Side<'_>,
    reach: &Reach<'_>,
    x: &Installed,
    keep: &[Installed],
    gap: (&Version, &Version),
) -> Option<Rescue> {
    let head = reach.head_name();
    let kept = old
        .map(|o| keep_paths(o, new, reach, x, keep))
        .unwrap_or_default();
    if let Some(one) = kept.iter().find(|k| k.len() == 1) {
        return Some(Rescue::KeepEntries {
            entries: one.clone(),
        });
    }
    skip_range(new, reach, x, keep, gap)
        .or_else(|| {
            // Never a downgrade: the head must be above the bundle.
            if reach.head_version().is_none_or(|top| &x.version >= top) {
                return None;
            }
            let mut changed = Changed::from(new);
            let h = reach.graph().head();
            changed
                .channel
                .entries
                .get_mut(h)?
                .skips
                .push(x.name.clone());
            changed.rescues(head, x, keep).then(|| Rescue::AddSkips {
                head: head.to_string(),
                bundle: x.name.clone(),
            })
        })
        .or_else(|| {
            let several = kept.into_iter().next()?;
            Some(Rescue::KeepEntries { entries: several })
        })
}

/// The head's `skipRange` made to cover the stranded versions `gap` (lowest, highest): a
/// simple `>=A <B` range widened to `>=min(A, lowest) <B` (or `<max(B, head)` when B does not
/// cover the highest), any other range joined to `>=lowest <head` with `||`, no range set to
/// that.
fn skip_range(
    new: &Side<'_>,
    reach: &Reach<'_>,
    x: &Installed,
    keep: &[Installed],
    gap: (&Version, &Version),
) -> Option<Rescue> {
    let top = reach.head_version()?;
    let (low, high) = gap;
    if !(low <= &x.version && &x.version < top) {
        return None;
    }
    let h = reach.graph().head();
    let mut changed = Changed::from(new);
    let entry = changed.channel.entries.get_mut(h)?;
    let before = entry.skip_range.as_ref().map(|r| r.raw().to_string());
    let after = match before.as_deref().map(|r| (r, simple(r))) {
        None => format!(">={low} <{top}"),
        Some((_, Some((a, b)))) => {
            // Never narrower than it was.
            let upper = if high < &b { b } else { b.max(top.clone()) };
            format!(">={} <{upper}", a.min(low.clone()))
        }
        Some((r, None)) => format!("{r} || >={low} <{top}"),
    };
    entry.skip_range = Some(VersionRange::parse(&after).ok()?);
    changed
        .rescues(reach.head_name(), x, keep)
        .then(|| Rescue::SetSkipRange {
            head: reach.head_name().to_string(),
            before,
            after,
        })
}

/// The bounds of a range written `>=A <B`.
fn simple(range: &str) -> Option<(Version, Version)> {
    let mut words = range.split_whitespace();
    let a = words.next()?.strip_prefix(">=")?;
    let b = words.next()?.strip_prefix('<')?;
    if words.next().is_some() || a.is_empty() || b.is_empty() || b.starts_with('=') {
        return None;
    }
    Some((Version::parse(a).ok()?, Version::parse(b).ok()?))
}

/// Sets of OLD's entries to keep, each verified, fewest first: walking OLD's channel from
/// `x` along its upgrade edges, the OLD-only entries of each path to an entry from which
/// NEW's head is reachable.
fn keep_paths(
    old: &Side<'_>,
    new: &Side<'_>,
    reach: &Reach<'_>,
    x: &Installed,
    keep: &[Installed],
) -> Vec<Vec<String>> {
    let Ok(graph) = ChannelGraph::build(old.channel) else {
        return Vec::new();
    };
    let n = old.channel.entries.len();
    let mut on_order = vec![false; n];
    for &i in graph.order() {
        if let Some(o) = on_order.get_mut(i) {
            *o = true;
        }
    }
    let version = |i: usize| old.versions.get(i).copied().flatten();
    let mut seen = vec![false; n];
    // (entry, the entries walked to reach it), breadth first.
    let mut queue: VecDeque<(Option<usize>, Vec<usize>)> = VecDeque::from([(None, Vec::new())]);
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut tried = 0;
    while let Some((at, path)) = queue.pop_front() {
        let (name, v) = match at {
            None => (x.name.as_str(), &x.version),
            Some(i) => match (old.channel.entries.get(i), version(i)) {
                (Some(e), Some(v)) => (e.name.as_str(), v),
                _ => continue,
            },
        };
        for (i, _) in graph.successors(name, v) {
            let Some(vi) = version(i) else { continue };
            if !on_order.get(i).copied().unwrap_or(false) || seen.get(i) != Some(&false) {
                continue;
            }
            if let Some(s) = seen.get_mut(i) {
                *s = true;
            }
            let mut walked = path.clone();
            walked.push(i);
            let Some(e) = old.channel.entries.get(i) else {
                continue;
            };
            if !reach.reaches(&e.name, vi) {
                queue.push_back((Some(i), walked));
                continue;
            }
            tried += 1;
            if let Some(set) = verified(old, new, reach, x, keep, &walked) {
                found.push(set);
            }
            if tried >= PATHS_TRIED {
                break;
            }
        }
        if tried >= PATHS_TRIED {
            break;
        }
    }
    found.sort_by_key(Vec::len);
    found
}

/// The OLD-only entries of `walked`, kept in NEW, when that rescues `x`: names, highest
/// version first.
fn verified(
    old: &Side<'_>,
    new: &Side<'_>,
    reach: &Reach<'_>,
    x: &Installed,
    keep: &[Installed],
    walked: &[usize],
) -> Option<Vec<String>> {
    let mut changed = Changed::from(new);
    let mut kept: Vec<(&Version, String)> = Vec::new();
    for &i in walked {
        let e = old.channel.entries.get(i)?;
        if reach.has_entry(&e.name) {
            continue;
        }
        let v = old.versions.get(i).copied().flatten()?;
        changed.channel.entries.push(e.clone());
        changed.versions.push(Some(v));
        kept.push((v, e.name.clone()));
    }
    if kept.is_empty() || !changed.rescues(reach.head_name(), x, keep) {
        return None;
    }
    kept.sort_by(|a, b| b.cmp(a));
    Some(kept.into_iter().map(|(_, n)| n).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ChannelEntry, Origin};

    /// (name, version, replaces, skipRange)
    type Spec<'s> = (&'s str, &'s str, &'s str, &'s str);

    fn channel(spec: &[Spec<'_>]) -> Channel {
        Channel {
            name: "stable".into(),
            entries: spec
                .iter()
                .map(|&(name, _, replaces, range)| ChannelEntry {
                    name: name.into(),
                    replaces: (!replaces.is_empty()).then(|| replaces.into()),
                    skips: Vec::new(),
                    skip_range: (!range.is_empty()).then(|| VersionRange::parse(range).unwrap()),
                    bundle: None,
                })
                .collect(),
            origin: Origin {
                file: "t".into(),
                document: 1,
                line: None,
            },
        }
    }

    fn versions(spec: &[Spec<'_>]) -> Vec<Version> {
        spec.iter().map(|s| Version::parse(s.1).unwrap()).collect()
    }

    fn installed(name: &str, v: &str) -> Installed {
        Installed {
            name: name.into(),
            version: Version::parse(v).unwrap(),
        }
    }

    const OLD: &[Spec<'_>] = &[
        ("a.1.0", "1.0.0", "", ""),
        ("a.1.1", "1.1.0", "a.1.0", ""),
        ("a.2.0", "2.0.0", "a.1.1", ""),
    ];

    #[test]
    fn keeping_an_entry_that_would_be_a_second_head_is_rejected() {
        let new_spec: &[Spec<'_>] = &[("a.2.0", "2.0.0", "", "")];
        let (old_ch, new_ch) = (channel(OLD), channel(new_spec));
        let (ov, nv) = (versions(OLD), versions(new_spec));
        let old = Side {
            channel: &old_ch,
            versions: ov.iter().map(Some).collect(),
        };
        let new = Side {
            channel: &new_ch,
            versions: nv.iter().map(Some).collect(),
        };
        let reach = new.reach().unwrap();
        let x = installed("a.1.0", "1.0.0");
        assert!(!reach.reaches_installed(&x));
        // a.1.1 is the one path of OLD; kept alone, nothing in NEW names it: two heads.
        assert!(keep_paths(&old, &new, &reach, &x, &[]).is_empty());
        let gap = (&x.version, &ov[1]);
        assert_eq!(
            find(Some(&old), &new, &reach, &x, &[], gap),
            Some(Rescue::SetSkipRange {
                head: "a.2.0".into(),
                before: None,
                after: ">=1.0.0 <2.0.0".into()
            })
        );
    }

    #[test]
    fn keeping_the_missing_link_is_preferred_and_checked() {
        // NEW keeps the head's replaces of a.1.1, which it dropped: keeping it rescues a.1.0.
        let new_spec: &[Spec<'_>] = &[("a.2.0", "2.0.0", "a.1.1", "")];
        let (old_ch, new_ch) = (channel(OLD), channel(new_spec));
        let (ov, nv) = (versions(OLD), versions(new_spec));
        let old = Side {
            channel: &old_ch,
            versions: ov.iter().map(Some).collect(),
        };
        let new = Side {
            channel: &new_ch,
            versions: nv.iter().map(Some).collect(),
        };
        let reach = new.reach().unwrap();
        let x = installed("a.1.0", "1.0.0");
        let keep = [installed("a.1.1", "1.1.0")];
        assert_eq!(
            find(
                Some(&old),
                &new,
                &reach,
                &x,
                &keep,
                (&x.version, &x.version)
            ),
            Some(Rescue::KeepEntries {
                entries: vec!["a.1.1".into()]
            })
        );
        // Without OLD's channel there is nothing to keep: the head's skipRange, then skips.
        assert_eq!(
            find(None, &new, &reach, &x, &keep, (&x.version, &x.version)),
            Some(Rescue::SetSkipRange {
                head: "a.2.0".into(),
                before: None,
                after: ">=1.0.0 <2.0.0".into()
            })
        );
    }

    #[test]
    fn a_simple_range_is_widened_and_any_other_joined() {
        assert_eq!(
            simple(">=1.2.0 <1.4.0"),
            Some((Version::new(1, 2, 0), Version::new(1, 4, 0)))
        );
        assert_eq!(simple("<1.4.0"), None);
        assert_eq!(simple(">=1.0.0 <=1.4.0"), None);
        assert_eq!(simple(">=1.0.0 <1.4.0 || >=2.0.0"), None);
        for (before, after) in [
            (">=1.2.0 <1.4.0", ">=1.0.0 <1.4.0"),
            ("<1.3.0", "<1.3.0 || >=1.0.0 <2.0.0"),
        ] {
            let spec: &[Spec<'_>] = &[("a.2.0", "2.0.0", "", before)];
            let ch = channel(spec);
            let vs = versions(spec);
            let new = Side {
                channel: &ch,
                versions: vs.iter().map(Some).collect(),
            };
            let reach = new.reach().unwrap();
            let x = installed("gone", "1.0.0");
            let v13 = Version::new(1, 3, 0);
            let got = skip_range(&new, &reach, &x, &[], (&x.version, &v13));
            let want = Rescue::SetSkipRange {
                head: "a.2.0".into(),
                before: Some(before.into()),
                after: after.into(),
            };
            assert_eq!(got, Some(want), "{before}");
        }
    }
}
