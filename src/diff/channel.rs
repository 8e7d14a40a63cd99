//! One channel of OLD against the same channel of NEW: which of the bundles a cluster may run
//! are stranded (docs/semantics.md §13), the last version that still reaches the head, and
//! what became of the channel (removed, renamed, head gone backwards, no head any more).

use super::reach::{Installed, Reach, Unusable};
use super::side::{Old, Side};
use super::{BundleRef, ChannelDiff, Stranded, rescue};
use crate::catalog::{CatalogSet, Package};

/// How the judged bundles of OLD's channel fare against NEW's.
#[derive(Debug, Default)]
pub(crate) struct Verdicts {
    /// Reached OLD's head in OLD, reach nothing in NEW; highest version first.
    pub stranded: Vec<Stranded>,
    /// Reached OLD's head in OLD neither.
    pub already: Vec<BundleRef>,
    /// The lowest version of OLD's members with every higher one reaching NEW's head.
    pub last_reaching: Option<BundleRef>,
}

fn bundle_ref(x: &Installed) -> BundleRef {
    BundleRef {
        bundle: x.name.clone(),
        version: x.version.to_string(),
    }
}

/// Highest version first, then by name.
fn by_version_down(list: &mut [Installed]) {
    list.sort_by(|a, b| b.version.cmp(&a.version).then_with(|| a.name.cmp(&b.name)));
}

/// Judges `judged` (bundles a cluster may have installed from OLD's channel `old`) against
/// NEW's channel `new`, whose head `reach` describes; each stranded bundle gets the smallest
/// verified rescue.
pub(crate) fn judge_members(
    old: Option<Old<'_, '_>>,
    new: &Side<'_>,
    reach: &Reach<'_>,
    judged: &[Installed],
) -> Verdicts {
    let old_reach = old.and_then(|o| o.reach);
    let mut members = old.map_or_else(|| judged.to_vec(), |o| o.side.members());
    by_version_down(&mut members);
    let last_reaching = members
        .iter()
        .take_while(|x| reach.reaches_installed(x))
        .last()
        .map(bundle_ref);
    let mut judged = judged.to_vec();
    by_version_down(&mut judged);
    judged.dedup();
    let (mut stranded, mut already) = (Vec::new(), Vec::new());
    for x in &judged {
        if reach.reaches_installed(x) {
            continue;
        }
        match old_reach.is_none_or(|r| r.reaches_installed(x)) {
            true => stranded.push(x.clone()),
            false => already.push(bundle_ref(x)),
        }
    }
    // What must keep its path when a change rescues one bundle.
    let mut keep: Vec<Installed> = (members.iter().chain(&judged))
        .filter(|x| reach.reaches_installed(x))
        .cloned()
        .collect();
    keep.sort();
    keep.dedup();
    let rescues = rescue::rescues(old, new, reach, &stranded, &keep);
    let stranded = (stranded.iter().zip(rescues))
        .map(|(x, rescue)| Stranded {
            bundle: x.name.clone(),
            version: x.version.to_string(),
            rescue,
        })
        .collect();
    Verdicts {
        stranded,
        already,
        last_reaching,
    }
}

/// Words for a channel that has no head to upgrade to.
pub(crate) fn unusable_text(u: &Unusable) -> String {
    match u {
        Unusable::Order(e) => e.to_string(),
        Unusable::HeadWithoutBundle(head) => {
            format!("its head {head:?} names no bundle of the catalog")
        }
    }
}

/// Judges OLD's channel `name` of a package against NEW's package (None: NEW has no such
/// package); `judged` are the bundles to judge (None: every member of OLD's channel).
pub(crate) fn judge(
    old_set: &CatalogSet,
    old_pkg: &Package,
    new_set: &CatalogSet,
    new_pkg: Option<&Package>,
    name: &str,
    judged: Option<&[Installed]>,
) -> ChannelDiff {
    let old = Side::find(old_set, old_pkg, name);
    let old_reach = old.as_ref().and_then(|s| s.reach().ok());
    let old_channel = old.as_ref().map(|side| Old {
        side,
        reach: old_reach.as_ref(),
    });
    let mut out = ChannelDiff {
        channel: name.to_string(),
        stranded: Vec::new(),
        last_reaching: None,
        head_before: old_reach.as_ref().map(|r| r.head_name().to_string()),
        head_after: None,
        removed: false,
        renamed_to: None,
        head_went_back: false,
        broken_after: None,
        already_stranded: Vec::new(),
    };
    let Some(new_pkg) = new_pkg else {
        return out;
    };
    let Some(new) = Side::find(new_set, new_pkg, name) else {
        out.removed = true;
        let head = old_reach.as_ref().map(Reach::head_name);
        out.renamed_to = old
            .as_ref()
            .and_then(|o| renamed_to(o, head, old_pkg, new_pkg));
        return out;
    };
    let reach = match new.reach() {
        Ok(r) => r,
        Err(u) => {
            // Only a change when OLD's channel had a head to upgrade to.
            if old_reach.is_some() {
                out.broken_after = Some(unusable_text(&u));
            }
            return out;
        }
    };
    out.head_after = Some(reach.head_name().to_string());
    out.head_went_back = matches!(
        (old_reach.as_ref().and_then(Reach::head_version), reach.head_version()),
        (Some(before), Some(after)) if after < before
    );
    let all = old.as_ref().map(Side::members).unwrap_or_default();
    let verdicts = judge_members(old_channel, &new, &reach, judged.unwrap_or(&all));
    out.stranded = verdicts.stranded;
    out.already_stranded = verdicts.already;
    out.last_reaching = verdicts.last_reaching;
    out
}

/// The channel of NEW (one OLD has not) that holds OLD's head, else the one that holds most
/// of OLD's entries; None when no new channel shares an entry.
fn renamed_to(
    old: &Side<'_>,
    head: Option<&str>,
    old_pkg: &Package,
    new_pkg: &Package,
) -> Option<String> {
    let fresh = new_pkg
        .channels
        .iter()
        .filter(|c| !old_pkg.channels.iter().any(|o| o.name == c.name));
    let mut best: Option<(bool, usize, &str)> = None;
    for c in fresh {
        let has = |name: &str| c.entries.iter().any(|e| e.name == name);
        let holds_head = head.is_some_and(has);
        let shared = old.channel.entries.iter().filter(|e| has(&e.name)).count();
        if shared == 0 {
            continue;
        }
        let better = match best {
            None => true,
            Some((h, s, _)) => (holds_head, shared) > (h, s),
        };
        if better {
            best = Some((holds_head, shared, &c.name));
        }
    }
    best.map(|(_, _, name)| name.to_string())
}
