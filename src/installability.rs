//! Installability of a catalog set, like Debian's dose-distcheck: for every channel head (or
//! every bundle), can it be installed on an empty cluster, and if not, why (one line).

use crate::catalog::{BundleId, CatalogSet, ChannelGraph};
use crate::explain::{Detail, explain_failure};
use crate::progress::{Progress, Task, Tracker};
use crate::request::{Request, Requirement};
use crate::resolve::{Outcome, Resolver};

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
    /// Why not, in one line (empty when installable).
    pub reason: String,
    /// Not checked: a budget ran out first (`reason` says which). Such a bundle is neither
    /// installable nor known not to be.
    #[serde(rename = "gaveUp", skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
}

/// What to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The head of every channel.
    Heads,
    /// Every bundle.
    All,
}

/// The bundles to check, with the channel each heads, in id order.
fn targets(set: &CatalogSet, scope: Scope) -> Vec<(BundleId, String)> {
    let mut heads: Vec<(BundleId, String)> = Vec::new();
    for p in &set.packages {
        for ch in &p.channels {
            let Ok(g) = ChannelGraph::build(ch) else {
                continue;
            };
            if let Some(b) = ch.entries.get(g.head()).and_then(|e| e.bundle) {
                heads.push((b, ch.name.clone()));
            }
        }
    }
    heads.sort();
    heads.dedup_by_key(|(b, _)| *b);
    match scope {
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
    }
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
    let request = Request {
        require: vec![Requirement {
            package: package.clone(),
            bundle: Some(bundle.name.clone()),
            catalog: Some(catalog.clone()),
            ..Requirement::default()
        }],
        ..Request::default()
    };
    let mut gave_up = false;
    let (installable, reason) = match resolver.resolve(&request) {
        Ok((_, Outcome::Resolved(_))) => (true, String::new()),
        Ok((u, Outcome::Unsatisfiable(f))) => (
            false,
            one_line(&explain_failure(&f, &u, &request, Detail::Summary)),
        ),
        Err(crate::resolve::ResolveError::GaveUp {
            conflicts,
            exhausted,
            proven,
            ..
        }) => {
            gave_up = true;
            (
                false,
                crate::solver::gave_up_line(conflicts, exhausted, proven),
            )
        }
        Err(e) => (false, e.to_string()),
    };
    Some(Row {
        package,
        bundle: bundle.name.clone(),
        catalog,
        channel,
        installable,
        reason,
        gave_up,
    })
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
    let jobs = targets(resolver.catalogs(), scope);
    let tracker = Tracker::start(progress, Task::CheckBundles, jobs.len() as u64);
    crate::parallel::parallel_map(&jobs, |(b, ch)| {
        let row = check_one(resolver, *b, ch.clone());
        tracker.add(1);
        row
    })
    .into_iter()
    .flatten()
    .collect()
}

/// The rows as a text table: `installable  package  bundle  catalog/channel  reason`.
pub fn to_text(rows: &[Row]) -> String {
    let bad = rows.iter().filter(|r| !r.installable && !r.gave_up).count();
    let unchecked = rows.iter().filter(|r| r.gave_up).count();
    let mut out = String::new();
    let w_pkg = rows.iter().map(|r| r.package.len()).max().unwrap_or(0);
    let w_b = rows.iter().map(|r| r.bundle.len()).max().unwrap_or(0);
    for r in rows {
        let place = if r.channel.is_empty() {
            r.catalog.clone()
        } else {
            format!("{}/{}", r.catalog, r.channel)
        };
        let mark = if r.installable {
            "installable    "
        } else if r.gave_up {
            "not checked    "
        } else {
            "NOT installable"
        };
        let line = format!(
            "{mark}  {:<w_pkg$}  {:<w_b$}  {place}  {}",
            r.package, r.bundle, r.reason
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "{} checked, {} installable, {bad} not installable",
        rows.len() - unchecked,
        rows.len() - bad - unchecked
    ));
    if unchecked > 0 {
        out.push_str(&format!(", {unchecked} not checked (a budget ran out)"));
    }
    out.push('\n');
    out
}
