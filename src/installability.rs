//! Installability of a catalog set, like Debian's dose-distcheck: for every channel head (or
//! every bundle), can it be installed on an empty cluster, and if not, why (one line). A head
//! that cannot be checked (the channel has no usable order, or its head names no bundle of the
//! catalog) is counted too, with the reason, and is not installable.

use crate::catalog::{BundleId, CatalogSet, ChannelGraph};
use crate::explain::{Detail, explain_failure};
use crate::progress::{Progress, Task, Tracker};
use crate::request::{Request, Requirement};
use crate::resolve::{Outcome, Resolver};
use crate::solver::GaveUpLine;

/// One checked bundle.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    /// Package.
    pub package: String,
    /// Bundle.
    pub bundle: String,
    /// Catalog.
    pub catalog: String,
    /// Channel it heads (empty when checking every bundle and it heads none).
    pub channel: String,
    /// Whether it can be installed alone on an empty cluster.
    pub installable: bool,
    /// Why not (worded in one line in JSON and text; empty when installable).
    #[serde(serialize_with = "worded")]
    pub reason: Verdict,
    /// Not checked: a budget ran out first (`reason` says which). Such a bundle is neither
    /// installable nor known not to be.
    #[serde(rename = "gaveUp", skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
    /// False for a channel head that could not be checked (`reason` says why).
    pub checked: bool,
}

/// What the check of one bundle found, as data; `impl Display` words it in one line (nothing
/// for an installable bundle).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It installs alone on an empty cluster.
    Installable,
    /// No answer installs it: the most specific line of the explanation of the proof.
    Unsatisfiable(String),
    /// A budget ran out before the search finished.
    GaveUp(GaveUpLine),
    /// The resolution stopped with an error (its message).
    Failed(String),
    /// The head of a channel could not be checked.
    Unchecked(Unchecked),
}

/// Why a channel's head could not be checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unchecked {
    /// The channel's head names no bundle of the catalog.
    HeadNamesNoBundle {
        /// The channel.
        channel: String,
        /// The entry at its head.
        head: String,
    },
    /// The channel has no entries.
    NoEntries {
        /// The channel.
        channel: String,
    },
    /// The channel has no usable order (the loader's message).
    NoOrder(String),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Installable => Ok(()),
            Verdict::Unsatisfiable(line) | Verdict::Failed(line) => f.write_str(line),
            Verdict::GaveUp(line) => write!(f, "{line}"),
            Verdict::Unchecked(why) => {
                f.write_str("cannot be checked: ")?;
                match why {
                    Unchecked::HeadNamesNoBundle { channel, head } => write!(
                        f,
                        "channel {channel:?}: its head {head:?} names no bundle of the catalog"
                    ),
                    Unchecked::NoEntries { channel } => {
                        write!(f, "channel {channel:?} has no entries")
                    }
                    Unchecked::NoOrder(message) => f.write_str(message),
                }
            }
        }
    }
}

/// A verdict in JSON: its words (the `reason` key is a string).
fn worded<S: serde::Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// What to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The head of every channel.
    Heads,
    /// Every bundle.
    All,
}

/// The bundles to check, with the channel each heads, in id order; and a row for each
/// channel whose head cannot be checked, by catalog, package and channel.
fn targets(set: &CatalogSet, scope: Scope) -> (Vec<(BundleId, String)>, Vec<Row>) {
    let mut heads: Vec<(BundleId, String)> = Vec::new();
    let mut unchecked: Vec<Row> = Vec::new();
    for p in &set.packages {
        for ch in &p.channels {
            let head = ChannelGraph::build(ch).map(|g| ch.entries.get(g.head()));
            let (bundle, reason) = match head {
                Ok(Some(e)) => match e.bundle {
                    Some(b) => {
                        heads.push((b, ch.name.clone()));
                        continue;
                    }
                    None => (
                        e.name.clone(),
                        Unchecked::HeadNamesNoBundle {
                            channel: ch.name.clone(),
                            head: e.name.clone(),
                        },
                    ),
                },
                Ok(None) => (
                    String::new(),
                    Unchecked::NoEntries {
                        channel: ch.name.clone(),
                    },
                ),
                Err(e) => (String::new(), Unchecked::NoOrder(e.to_string())),
            };
            unchecked.push(Row {
                package: set.package_name(p.id).to_string(),
                bundle,
                catalog: set
                    .catalog(p.catalog)
                    .map(|c| c.name.clone())
                    .unwrap_or_default(),
                channel: ch.name.clone(),
                installable: false,
                reason: Verdict::Unchecked(reason),
                gave_up: false,
                checked: false,
            });
        }
    }
    heads.sort();
    heads.dedup_by_key(|(b, _)| *b);
    unchecked.sort_by(|a, b| {
        (&a.catalog, &a.package, &a.channel).cmp(&(&b.catalog, &b.package, &b.channel))
    });
    let bundles = match scope {
        Scope::Heads => heads,
        Scope::All => set
            .bundles
            .iter()
            .map(|b| {
                let ch = heads
                    .iter()
                    .find(|(h, _)| *h == b.id)
                    .map(|(_, c)| c.clone());
                (b.id, ch.unwrap_or_default())
            })
            .collect(),
    };
    (bundles, unchecked)
}

/// The explanation's most specific line: its last bullet.
fn one_line(explanation: &str) -> String {
    explanation
        .lines()
        .rev()
        .find_map(|l| l.trim_start().strip_prefix("- "))
        .unwrap_or("no resolution exists")
        .to_string()
}

fn check_one(resolver: &Resolver, b: BundleId, channel: String) -> Option<Row> {
    let set = resolver.catalogs();
    let bundle = set.bundle(b)?;
    let catalog = set.catalog(bundle.catalog)?.name.clone();
    let package = set.package_name(bundle.package).to_string();
    let reason = check_bundle(resolver, b, Detail::Summary)?;
    let reason = match reason {
        Verdict::Unsatisfiable(explanation) => Verdict::Unsatisfiable(one_line(&explanation)),
        other => other,
    };
    Some(Row {
        package,
        bundle: bundle.name.clone(),
        catalog,
        channel,
        installable: reason == Verdict::Installable,
        gave_up: matches!(reason, Verdict::GaveUp(_)),
        reason,
        checked: true,
    })
}

/// Whether one bundle installs alone on an empty cluster (the request: its package, pinned
/// to it, from its catalog). A bundle that does not is [`Verdict::Unsatisfiable`] with the
/// whole explanation of the proof, worded in `detail`. None for an id the resolver's
/// catalogs do not have.
pub fn check_bundle(resolver: &Resolver, b: BundleId, detail: Detail) -> Option<Verdict> {
    let set = resolver.catalogs();
    let bundle = set.bundle(b)?;
    let catalog = set.catalog(bundle.catalog)?.name.clone();
    let request = Request {
        require: vec![Requirement {
            package: set.package_name(bundle.package).to_string(),
            bundle: Some(bundle.name.clone()),
            catalog: Some(catalog),
            ..Requirement::default()
        }],
        ..Request::default()
    };
    let verdict = match resolver.resolve(&request) {
        Ok((_, Outcome::Resolved(_))) => Verdict::Installable,
        Ok((u, Outcome::Unsatisfiable(f))) => {
            Verdict::Unsatisfiable(explain_failure(&f, &u, &request, detail))
        }
        Err(crate::resolve::ResolveError::GaveUp {
            conflicts,
            exhausted,
            proven,
            ..
        }) => Verdict::GaveUp(GaveUpLine {
            conflicts,
            exhausted,
            proven,
        }),
        Err(e) => Verdict::Failed(e.to_string()),
    };
    Some(verdict)
}

/// Checks every target on up to `available_parallelism` threads; rows in id order.
pub fn check(resolver: &Resolver, scope: Scope) -> Vec<Row> {
    check_reporting(resolver, scope, None)
}

/// As [`check`], reporting each checked bundle to `progress` ([`Task::CheckBundles`]).
pub fn check_with_progress(resolver: &Resolver, scope: Scope, progress: &dyn Progress) -> Vec<Row> {
    check_reporting(resolver, scope, Some(progress))
}

fn check_reporting(resolver: &Resolver, scope: Scope, progress: Option<&dyn Progress>) -> Vec<Row> {
    let (jobs, unchecked) = targets(resolver.catalogs(), scope);
    let total = (jobs.len() + unchecked.len()) as u64;
    let tracker = Tracker::start(progress, Task::CheckBundles, total);
    let mut rows: Vec<Row> = crate::parallel::parallel_map(&jobs, |(b, ch)| {
        let row = check_one(resolver, *b, ch.clone());
        tracker.add(1);
        row
    })
    .into_iter()
    .flatten()
    .collect();
    for row in unchecked {
        rows.push(row);
        tracker.add(1);
    }
    rows
}

/// The rows as a text table: `installable  package  bundle  catalog/channel  reason`, then
/// the counts.
pub fn to_text(rows: &[Row]) -> String {
    let gave_up = rows.iter().filter(|r| r.gave_up).count();
    let unchecked = rows.iter().filter(|r| !r.checked).count();
    let bad = rows
        .iter()
        .filter(|r| r.checked && !r.installable && !r.gave_up)
        .count();
    let mut out = String::new();
    let w_pkg = rows.iter().map(|r| r.package.len()).max().unwrap_or(0);
    let w_b = rows.iter().map(|r| r.bundle.len()).max().unwrap_or(0);
    for r in rows {
        let place = if r.channel.is_empty() {
            r.catalog.clone()
        } else {
            format!("{}/{}", r.catalog, r.channel)
        };
        let mark = match (r.checked, r.installable, r.gave_up) {
            (false, _, _) => "NOT checkable  ",
            (true, true, _) => "installable    ",
            (true, false, true) => "not checked    ",
            (true, false, false) => "NOT installable",
        };
        let line = format!(
            "{mark}  {:<w_pkg$}  {:<w_b$}  {place}  {}",
            r.package, r.bundle, r.reason
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "{} counted, {} installable, {bad} not installable, {unchecked} not checkable",
        rows.len(),
        rows.len() - bad - unchecked - gave_up
    ));
    if gave_up > 0 {
        out.push_str(&format!(", {gave_up} not checked (a budget ran out)"));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{CatalogSource, LoadOptions, SourceFile};

    fn resolver(docs: &[&str]) -> Resolver {
        let source = CatalogSource {
            name: "c".into(),
            path: "c".into(),
            priority: 0,
        };
        let file = SourceFile {
            path: "c/catalog.json".into(),
            text: docs.join("\n"),
        };
        Resolver::new(
            CatalogSet::load_files(&[(source, vec![file])], &LoadOptions::default()).unwrap(),
        )
    }

    const BUNDLE_A: &str = r#"{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}"#;

    #[test]
    fn every_head_is_counted_even_when_it_cannot_be_checked() {
        let r = resolver(&[
            r#"{"schema":"olm.package","name":"a","defaultChannel":"stable"}"#,
            r#"{"schema":"olm.channel","package":"a","name":"stable","entries":[{"name":"a.v1"}]}"#,
            // The head names a bundle the catalog does not have.
            r#"{"schema":"olm.channel","package":"a","name":"missing","entries":[{"name":"a.v2"}]}"#,
            // Two chains: no single head.
            r#"{"schema":"olm.channel","package":"a","name":"split","entries":[{"name":"a.v1"},{"name":"a.v3"}]}"#,
            BUNDLE_A,
        ]);
        for scope in [Scope::Heads, Scope::All] {
            let rows = check(&r, scope);
            assert_eq!(rows.len(), 3, "{rows:?}");
            let unchecked: Vec<&Row> = rows.iter().filter(|r| !r.checked).collect();
            assert_eq!(unchecked.len(), 2, "{rows:?}");
            assert!(unchecked.iter().all(|r| !r.installable));
            assert_eq!(
                (unchecked[0].channel.as_str(), unchecked[0].bundle.as_str()),
                ("missing", "a.v2")
            );
            assert!(
                unchecked[0].reason.to_string().contains("names no bundle"),
                "{}",
                unchecked[0].reason
            );
            assert_eq!(unchecked[1].channel, "split");
            assert!(
                unchecked[1].reason.to_string().contains("heads"),
                "{}",
                unchecked[1].reason
            );
            assert!(
                to_text(&rows)
                    .ends_with("3 counted, 1 installable, 0 not installable, 2 not checkable\n")
            );
        }
    }
}
