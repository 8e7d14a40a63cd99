//! The smallest change to NEW's channel that gives a stranded bundle an upgrade path to the
//! head, each candidate checked by applying it and recomputing the channel: the bundle
//! reaches the head, the head stays the head, and every bundle that reached it still does.
//!
//! Candidates, smallest first: keep one entry of OLD's channel; give the head a `skipRange`
//! that covers the stranded versions (or widen the one it has); add the bundle to the head's
//! `skips`; keep the several entries of OLD's channel on the shortest path of OLD from the
//! bundle to an entry that reaches NEW's head. A change to the head is offered only when the
//! head's version is above the bundle's: never a downgrade.
//!
//! The `skipRange` change is the same for every stranded bundle of a channel: it is checked
//! once. The others are looked for and checked per bundle, within a budget of work per
//! channel (`WORK`: entries looked at, rebuilds costed at entries × ranged entries), so a
//! channel of many thousands of stranded entries stays fast; a bundle the budget no longer
//! reaches gets the `skipRange` change only.

use std::collections::VecDeque;

use super::Rescue;
use super::reach::{Installed, Reach};
use super::side::{Old, Side};
use crate::catalog::Channel;
use crate::range::VersionRange;
use crate::version::Version;

/// The work the rescues of one channel may take: entries looked at while walking OLD's
/// channel, and each rebuild of NEW's at entries × ranged entries.
const WORK: usize = 20_000_000;
/// A walk of OLD's channel for entries to keep looks at this many entries at most, and keeps
/// at most this many.
const WALK_SEEN: usize = 64;
const MAX_KEPT: usize = 4;

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
}

/// Whether `reach` (a changed channel) still has `head`, and every bundle of `keep` reaches it.
fn keeps(reach: &Reach<'_>, head: &str, keep: &[Installed]) -> bool {
    reach.head_name() == head && keep.iter().all(|k| reach.reaches_installed(k))
}

/// The rescues of one channel's stranded bundles.
struct Rescuer<'s, 'a> {
    /// OLD's channel, when it has an order to walk.
    old: Option<(&'s Side<'a>, &'s Reach<'a>)>,
    new: &'s Side<'a>,
    reach: &'s Reach<'a>,
    keep: &'s [Installed],
    work_left: usize,
}

/// The verified rescue of each of `stranded` (in order; None where no change tried passed),
/// on NEW's channel `new` whose head `reach` describes; `keep` must keep their paths.
pub(crate) fn rescues<'s, 'a>(
    old: Option<Old<'s, 'a>>,
    new: &'s Side<'a>,
    reach: &'s Reach<'a>,
    stranded: &[Installed],
    keep: &'s [Installed],
) -> Vec<Option<Rescue>> {
    let (Some(low), Some(high)) = (
        stranded.iter().map(|x| &x.version).min(),
        stranded.iter().map(|x| &x.version).max(),
    ) else {
        return Vec::new();
    };
    let group = skip_range(new, reach, (low, high));
    let group = group.as_ref().and_then(|(rescue, changed)| {
        let built = Reach::build(&changed.channel, changed.versions.clone()).ok()?;
        keeps(&built, reach.head_name(), keep).then_some((rescue, built))
    });
    let old = old.and_then(|o| Some((o.side, o.reach?)));
    let mut r = Rescuer {
        old,
        new,
        reach,
        keep,
        work_left: WORK,
    };
    stranded
        .iter()
        .map(|x| {
            let by_range = (group.as_ref())
                .filter(|(_, built)| built.reaches_installed(x))
                .map(|(rescue, _)| (*rescue).clone());
            r.find(x, by_range)
        })
        .collect()
}

impl<'s, 'a> Rescuer<'s, 'a> {
    /// Takes `work` from the budget; false when it does not hold that much.
    fn spend(&mut self, work: usize) -> bool {
        match self.work_left.checked_sub(work) {
            Some(left) => {
                self.work_left = left;
                true
            }
            None => {
                self.work_left = 0;
                false
            }
        }
    }

    /// Whether the channel with `changed` applied rescues `x` (a rebuild, from the budget).
    fn rescues(&mut self, changed: &Changed<'_>, x: &Installed) -> bool {
        if !self.spend(self.reach.cost()) {
            return false;
        }
        let Ok(reach) = Reach::build(&changed.channel, changed.versions.clone()) else {
            return false;
        };
        keeps(&reach, self.reach.head_name(), self.keep) && reach.reaches_installed(x)
    }

    /// The first verified rescue of `x`; `by_range` is the channel's `skipRange` change when
    /// it rescues `x`.
    fn find(&mut self, x: &Installed, by_range: Option<Rescue>) -> Option<Rescue> {
        let kept = self.keep_paths(x);
        if let Some(one) = kept.iter().find(|k| k.len() == 1) {
            return Some(Rescue::KeepEntries {
                entries: one.clone(),
            });
        }
        by_range.or_else(|| self.add_skips(x)).or_else(|| {
            let several = kept.into_iter().next()?;
            Some(Rescue::KeepEntries { entries: several })
        })
    }

    /// `x` added to the head's `skips`, when the head is above it.
    fn add_skips(&mut self, x: &Installed) -> Option<Rescue> {
        if self
            .reach
            .head_version()
            .is_none_or(|top| &x.version >= top)
        {
            return None;
        }
        let mut changed = Changed::from(self.new);
        let h = self.reach.graph().head();
        changed
            .channel
            .entries
            .get_mut(h)?
            .skips
            .push(x.name.clone());
        self.rescues(&changed, x).then(|| Rescue::AddSkips {
            head: self.reach.head_name().to_string(),
            bundle: x.name.clone(),
        })
    }

    /// Sets of OLD's entries to keep, each verified, fewest first: walking OLD's channel from
    /// `x` along its upgrade edges (at most `WALK_SEEN` entries), the OLD-only entries of each
    /// path to an entry from which NEW's head is reachable.
    fn keep_paths(&mut self, x: &Installed) -> Vec<Vec<String>> {
        let Some((side, old_reach)) = self.old else {
            return Vec::new();
        };
        let version = |i: usize| side.versions.get(i).copied().flatten();
        let mut seen: Vec<usize> = Vec::new();
        let mut work = 0;
        // (entry, the entries walked to reach it), breadth first.
        let mut queue: VecDeque<(Option<usize>, Vec<usize>)> = VecDeque::from([(None, Vec::new())]);
        let mut paths: Vec<Vec<usize>> = Vec::new();
        while let Some((at, path)) = queue.pop_front() {
            if seen.len() >= WALK_SEEN || path.len() >= MAX_KEPT || work > self.work_left {
                break;
            }
            let (name, v) = match at {
                None => (x.name.as_str(), &x.version),
                Some(i) => match (side.channel.entries.get(i), version(i)) {
                    (Some(e), Some(v)) => (e.name.as_str(), v),
                    _ => continue,
                },
            };
            let (next, cost) = old_reach.successors_of(name, v);
            work += cost;
            for i in next {
                let Some(vi) = version(i) else { continue };
                if seen.contains(&i) {
                    continue;
                }
                seen.push(i);
                let mut walked = path.clone();
                walked.push(i);
                let Some(e) = side.channel.entries.get(i) else {
                    continue;
                };
                if self.reach.reaches(&e.name, vi) {
                    paths.push(walked);
                } else {
                    queue.push_back((Some(i), walked));
                }
            }
        }
        self.spend(work);
        let mut found: Vec<Vec<String>> = Vec::new();
        for walked in paths {
            if let Some(set) = self.verified(x, &walked) {
                found.push(set);
            }
        }
        found.sort_by_key(Vec::len);
        found
    }

    /// The OLD-only entries of `walked`, kept in NEW, when that rescues `x`: names, highest
    /// version first.
    fn verified(&mut self, x: &Installed, walked: &[usize]) -> Option<Vec<String>> {
        let (side, _) = self.old?;
        let mut changed = Changed::from(self.new);
        let mut kept: Vec<(&Version, String)> = Vec::new();
        for &i in walked {
            let e = side.channel.entries.get(i)?;
            if self.reach.has_entry(&e.name) {
                continue;
            }
            let v = side.versions.get(i).copied().flatten()?;
            changed.channel.entries.push(e.clone());
            changed.versions.push(Some(v));
            kept.push((v, e.name.clone()));
        }
        if kept.is_empty() || !self.rescues(&changed, x) {
            return None;
        }
        kept.sort_by(|a, b| b.cmp(a));
        Some(kept.into_iter().map(|(_, n)| n).collect())
    }
}

/// The head's `skipRange` made to cover the stranded versions `gap` (lowest, highest): a
/// simple `>=A <B` range widened to `>=min(A, lowest) <B` (or `<max(B, head)` when B does not
/// cover the highest), any other range joined to `>=lowest <head` with `||`, no range set to
/// that; with the channel it makes. None when the head is not above the lowest.
fn skip_range<'a>(
    new: &Side<'a>,
    reach: &Reach<'_>,
    gap: (&Version, &Version),
) -> Option<(Rescue, Changed<'a>)> {
    let top = reach.head_version()?;
    let (low, high) = gap;
    if low >= top {
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
    let rescue = Rescue::SetSkipRange {
        head: reach.head_name().to_string(),
        before,
        after,
    };
    Some((rescue, changed))
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

    /// The rescues of `stranded` on NEW (`new_spec`) against OLD.
    fn rescue_all(
        new_spec: &[Spec<'_>],
        with_old: bool,
        stranded: &[Installed],
        keep: &[Installed],
    ) -> Vec<Option<Rescue>> {
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
        for x in stranded {
            assert!(!reach.reaches_installed(x), "{x:?} is stranded");
        }
        let old_reach = old.reach().unwrap();
        let old = with_old.then_some(Old {
            side: &old,
            reach: Some(&old_reach),
        });
        rescues(old, &new, &reach, stranded, keep)
    }

    #[test]
    fn keeping_an_entry_that_would_be_a_second_head_is_rejected() {
        // a.1.1 is the one path of OLD from a.1.0; kept alone, nothing in NEW names it: two
        // heads. The head's skipRange passes.
        let new_spec: &[Spec<'_>] = &[("a.2.0", "2.0.0", "", "")];
        let stranded = [installed("a.1.1", "1.1.0"), installed("a.1.0", "1.0.0")];
        let range = Rescue::SetSkipRange {
            head: "a.2.0".into(),
            before: None,
            after: ">=1.0.0 <2.0.0".into(),
        };
        assert_eq!(
            rescue_all(new_spec, true, &stranded, &[]),
            vec![Some(range.clone()), Some(range)]
        );
    }

    #[test]
    fn keeping_the_missing_link_is_preferred_and_checked() {
        // NEW keeps the head's replaces of a.1.1, which it dropped: keeping it rescues a.1.0.
        let new_spec: &[Spec<'_>] = &[("a.2.0", "2.0.0", "a.1.1", "")];
        let x = [installed("a.1.0", "1.0.0")];
        let keep = [installed("a.1.1", "1.1.0")];
        assert_eq!(
            rescue_all(new_spec, true, &x, &keep),
            vec![Some(Rescue::KeepEntries {
                entries: vec!["a.1.1".into()]
            })]
        );
        // Without OLD's channel there is nothing to keep: the head's skipRange.
        assert_eq!(
            rescue_all(new_spec, false, &x, &keep),
            vec![Some(Rescue::SetSkipRange {
                head: "a.2.0".into(),
                before: None,
                after: ">=1.0.0 <2.0.0".into()
            })]
        );
    }

    #[test]
    fn never_a_downgrade() {
        // The head went back below the stranded bundle: no change to the head is offered.
        let new_spec: &[Spec<'_>] = &[("a.1.0", "1.0.0", "", "")];
        let x = [installed("a.2.0", "2.0.0")];
        assert_eq!(rescue_all(new_spec, false, &x, &[]), vec![None]);
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
            (">=1.2.0 <1.2.5", ">=1.0.0 <2.0.0"),
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
            let (low, high) = (Version::new(1, 0, 0), Version::new(1, 3, 0));
            let (got, _) = skip_range(&new, &reach, (&low, &high)).unwrap();
            let want = Rescue::SetSkipRange {
                head: "a.2.0".into(),
                before: Some(before.into()),
                after: after.into(),
            };
            assert_eq!(got, want, "{before}");
        }
    }
}
