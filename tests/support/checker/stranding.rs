//! An independent oracle of stranding (docs/semantics.md §4, §13): for every channel of an
//! OLD catalog, which of its bundles a NEW catalog strands. A brute-force walk of OLM's
//! upgrade rules: from an installed bundle (name, version), every entry of NEW's channel that
//! is on the channel's order, has a bundle, and replaces it, skips it or holds its version
//! in its `skipRange` is a next state; the bundle is stranded when no walk reaches NEW's head
//! and a walk of OLD's channel reached OLD's head. Nothing here is shared with deppy's diff
//! (reachability there is computed backwards from the head, over deppy's channel graphs).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::catalog::{Catalog, Channel, Entry};
use super::range::Range;
use super::version::Version;

/// What NEW does to one channel of OLD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// NEW has no such package.
    PackageRemoved,
    /// NEW's package has no such channel.
    ChannelRemoved,
    /// NEW's channel has no head with a bundle (no single head, a cycle, a bundle-less
    /// head); `old_usable`: OLD's had one.
    NoHead { old_usable: bool },
    /// The walk's verdicts.
    Judged(Judged),
}

/// The bundles of OLD's channel, judged against NEW's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// NEW's head.
    pub head: String,
    /// Reached OLD's head, reach nothing in NEW.
    pub stranded: BTreeSet<String>,
    /// Reached OLD's head neither.
    pub already: BTreeSet<String>,
    /// Walking OLD's members down from the highest version, the last one reaching NEW's head.
    pub last_reaching: Option<String>,
}

/// Each bundle's version, by package and name.
fn versions(c: &Catalog) -> HashMap<(String, String), Version> {
    let mut out = HashMap::new();
    for b in &c.bundles {
        let v = b.properties.iter().find_map(|(t, v)| {
            (t == "olm.package").then(|| v.get("version")?.as_str().and_then(Version::parse))?
        });
        if let Some(v) = v {
            out.entry((b.package.clone(), b.name.clone())).or_insert(v);
        }
    }
    out
}

/// A channel with what the walk needs: its head, and its members (on the order, with a
/// bundle) with their versions.
struct Graph<'a> {
    channel: &'a Channel,
    head: String,
    members: HashMap<String, Version>,
    /// Each entry's `skipRange`, parsed once (by position).
    ranges: Vec<Option<Range>>,
}

fn graph<'a>(
    channel: &'a Channel,
    versions: &HashMap<(String, String), Version>,
) -> Option<Graph<'a>> {
    let order = channel.order()?;
    let version = |n: &str| versions.get(&(channel.package.clone(), n.to_string()));
    let (head, _) = order.first()?;
    version(head)?;
    let members = order
        .iter()
        .filter_map(|(n, _)| Some((n.clone(), version(n)?.clone())))
        .collect();
    let ranges = (channel.entries.iter())
        .map(|e| e.skip_range.as_deref().and_then(Range::parse))
        .collect();
    Some(Graph {
        channel,
        head: head.clone(),
        members,
        ranges,
    })
}

fn is_successor(e: &Entry, range: Option<&Range>, name: &str, version: &Version) -> bool {
    e.name != name
        && (e.replaces.as_deref() == Some(name)
            || e.skips.iter().any(|s| s == name)
            || range.is_some_and(|r| r.matches(version)))
}

/// Whether some walk from the installed bundle reaches the head.
fn walk(g: &Graph<'_>, name: &str, version: &Version) -> bool {
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack = vec![(name.to_string(), version.clone())];
    while let Some((n, v)) = stack.pop() {
        if n == g.head {
            return true;
        }
        if !seen.insert(n.clone()) {
            continue;
        }
        for (e, range) in g.channel.entries.iter().zip(&g.ranges) {
            if let Some(ev) = g.members.get(&e.name)
                && is_successor(e, range.as_ref(), &n, &v)
            {
                stack.push((e.name.clone(), ev.clone()));
            }
        }
    }
    false
}

/// Every channel of OLD, by (package, channel), judged against NEW.
pub fn judge(old: &Catalog, new: &Catalog) -> BTreeMap<(String, String), Verdict> {
    let (old_v, new_v) = (versions(old), versions(new));
    let mut out = BTreeMap::new();
    for ch in &old.channels {
        let key = (ch.package.clone(), ch.name.clone());
        if out.contains_key(&key) {
            continue;
        }
        let verdict = if !new.packages.iter().any(|(p, _)| p == &ch.package) {
            Verdict::PackageRemoved
        } else {
            match new
                .channels
                .iter()
                .find(|c| c.package == ch.package && c.name == ch.name)
            {
                None => Verdict::ChannelRemoved,
                Some(nc) => judge_channel(ch, &old_v, nc, &new_v),
            }
        };
        out.insert(key, verdict);
    }
    out
}

/// One channel of OLD against the same channel of NEW.
pub fn judge_channel(
    old: &Channel,
    old_v: &HashMap<(String, String), Version>,
    new: &Channel,
    new_v: &HashMap<(String, String), Version>,
) -> Verdict {
    let before = graph(old, old_v);
    let Some(after) = graph(new, new_v) else {
        return Verdict::NoHead {
            old_usable: before.is_some(),
        };
    };
    let mut members: Vec<(Version, String)> = old
        .entries
        .iter()
        .filter_map(|e| {
            Some((
                old_v.get(&(old.package.clone(), e.name.clone()))?.clone(),
                e.name.clone(),
            ))
        })
        .collect();
    // Highest version first, then by name.
    members.sort_by(|a, b| b.0.precedence(&a.0).then_with(|| build_order(a, b)));
    let mut judged = Judged {
        head: after.head.clone(),
        ..Judged::default()
    };
    let mut reaching_run = true;
    for (v, n) in &members {
        let now = walk(&after, n, v);
        if reaching_run && now {
            judged.last_reaching = Some(n.clone());
        }
        reaching_run &= now;
        if now {
            continue;
        }
        let then = before.as_ref().is_none_or(|b| walk(b, n, v));
        if then {
            judged.stranded.insert(n.clone());
        } else {
            judged.already.insert(n.clone());
        }
    }
    Verdict::Judged(judged)
}

/// Equal precedence: build metadata, descending, then name ascending (as the diff sorts).
fn build_order(a: &(Version, String), b: &(Version, String)) -> std::cmp::Ordering {
    b.0.build.cmp(&a.0.build).then_with(|| a.1.cmp(&b.1))
}

/// Whether the installed bundle reaches the head of NEW's channel.
pub fn reaches(
    new: &Catalog,
    package: &str,
    channel: &str,
    name: &str,
    version: &Version,
) -> Option<bool> {
    let v = versions(new);
    let ch = new
        .channels
        .iter()
        .find(|c| c.package == package && c.name == channel)?;
    let g = graph(ch, &v)?;
    Some(walk(&g, name, version))
}

/// The head of NEW's channel, when it has one with a bundle.
pub fn head(new: &Catalog, package: &str, channel: &str) -> Option<String> {
    let v = versions(new);
    let ch = new
        .channels
        .iter()
        .find(|c| c.package == package && c.name == channel)?;
    graph(ch, &v).map(|g| g.head)
}
