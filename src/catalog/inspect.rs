//! What `deppy catalog inspect` and `deppy catalog validate` report: serializable structs
//! with a deterministic, sorted text rendering.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

pub use super::channel::Edge;
use super::channel::{ChannelError, ChannelGraph};
use super::error::Warning;
pub use super::error::WarningKind;
use super::model::{Channel, Origin, Package};
use super::set::CatalogSet;

/// Everything `inspect` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InspectReport {
    /// Loaded catalogs, in load order.
    pub catalogs: Vec<CatalogSummary>,
    /// Packages sorted by name.
    pub packages: Vec<PackageReport>,
    /// Providers of each GVK, sorted by GVK.
    pub gvk_providers: Vec<GvkProviders>,
    /// Counts over every catalog.
    pub totals: Totals,
}

/// One catalog's identity and size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CatalogSummary {
    /// Catalog name.
    pub name: String,
    /// Priority (higher preferred).
    pub priority: i32,
    /// Packages in this catalog.
    pub packages: usize,
    /// Channels in this catalog.
    pub channels: usize,
    /// Bundles in this catalog.
    pub bundles: usize,
}

/// A package, across the catalogs that ship it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PackageReport {
    /// Package name.
    pub name: String,
    /// One entry per catalog shipping the package, in catalog order.
    pub catalogs: Vec<PackageInCatalog>,
}

/// A package in one catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PackageInCatalog {
    /// Catalog name.
    pub catalog: String,
    /// `defaultChannel`, if any.
    pub default_channel: Option<String>,
    /// Number of bundles of the package in this catalog.
    pub bundles: usize,
    /// Channels sorted by name.
    pub channels: Vec<ChannelReport>,
}

/// A channel's head and order, or why it has none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChannelReport {
    /// Channel name.
    pub name: String,
    /// Number of entries.
    pub entries: usize,
    /// The head entry, when the graph is valid.
    pub head: Option<String>,
    /// Entry names in channel order (head first, skipped entries dropped).
    pub order: Vec<String>,
    /// The graph error, when invalid.
    pub error: Option<ChannelError>,
}

/// The packages providing one GVK.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GvkProviders {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Providing package names, sorted.
    pub packages: Vec<String>,
}

/// Counts over every catalog.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Catalogs loaded.
    pub catalogs: usize,
    /// Distinct package names.
    pub packages: usize,
    /// Channels (per catalog and package).
    pub channels: usize,
    /// Bundles.
    pub bundles: usize,
    /// Distinct GVKs provided by some bundle.
    pub provided_gvks: usize,
    /// Load warnings.
    pub warnings: usize,
}

fn channel_report(channel: &Channel) -> ChannelReport {
    let (head, order, error) = match ChannelGraph::build(channel) {
        Ok(g) => {
            let name = |i: usize| g.entry(i).map(|e| e.name.clone()).unwrap_or_default();
            (
                Some(name(g.head())),
                g.order().iter().map(|&i| name(i)).collect(),
                None,
            )
        }
        Err(e) => (None, Vec::new(), Some(e)),
    };
    ChannelReport {
        name: channel.name.clone(),
        entries: channel.entries.len(),
        head,
        order,
        error,
    }
}

fn catalog_name(set: &CatalogSet, p: &Package) -> String {
    set.catalog(p.catalog)
        .map(|c| c.name.clone())
        .unwrap_or_default()
}

/// Builds the inspect report.
pub fn inspect(set: &CatalogSet) -> InspectReport {
    let mut bundle_counts: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for b in &set.bundles {
        *bundle_counts.entry((b.package.0, b.catalog.0)).or_default() += 1;
    }
    let mut packages: Vec<PackageReport> = Vec::new();
    for p in &set.packages {
        let entry = PackageInCatalog {
            catalog: catalog_name(set, p),
            default_channel: p.default_channel.clone(),
            bundles: bundle_counts
                .get(&(p.id.0, p.catalog.0))
                .copied()
                .unwrap_or(0),
            channels: p.channels.iter().map(channel_report).collect(),
        };
        let name = set.package_name(p.id);
        match packages.last_mut() {
            Some(last) if last.name == name => last.catalogs.push(entry),
            _ => packages.push(PackageReport {
                name: name.to_string(),
                catalogs: vec![entry],
            }),
        }
    }
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    let catalogs = set
        .catalogs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mine = |p: &&Package| p.catalog.0 as usize == i;
            CatalogSummary {
                name: c.name.clone(),
                priority: c.priority,
                packages: set.packages.iter().filter(mine).count(),
                channels: set
                    .packages
                    .iter()
                    .filter(mine)
                    .map(|p| p.channels.len())
                    .sum(),
                bundles: set
                    .bundles
                    .iter()
                    .filter(|b| b.catalog.0 as usize == i)
                    .count(),
            }
        })
        .collect();
    let gvk_providers = gvk_providers(set);
    let totals = Totals {
        catalogs: set.catalogs.len(),
        packages: set.package_count(),
        channels: set.packages.iter().map(|p| p.channels.len()).sum(),
        bundles: set.bundles.len(),
        provided_gvks: gvk_providers.len(),
        warnings: set.warnings.len(),
    };
    InspectReport {
        catalogs,
        packages,
        gvk_providers,
        totals,
    }
}

fn gvk_providers(set: &CatalogSet) -> Vec<GvkProviders> {
    let mut map: BTreeMap<(&str, &str, &str), BTreeSet<&str>> = BTreeMap::new();
    for b in &set.bundles {
        for g in b.provides.iter().filter_map(|&id| set.gvk(id)) {
            let key = (g.group.as_str(), g.version.as_str(), g.kind.as_str());
            map.entry(key)
                .or_default()
                .insert(set.package_name(b.package));
        }
    }
    map.into_iter()
        .map(|((group, version, kind), pkgs)| GvkProviders {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            packages: pkgs.into_iter().map(str::to_string).collect(),
        })
        .collect()
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl InspectReport {
    /// Plain text, deterministic and sorted.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.catalogs {
            let _ = writeln!(
                out,
                "catalog {} (priority {}): {}, {}, {}",
                c.name,
                c.priority,
                plural(c.packages, "package"),
                plural(c.channels, "channel"),
                plural(c.bundles, "bundle")
            );
        }
        for p in &self.packages {
            let _ = writeln!(out, "\npackage {}", p.name);
            for c in &p.catalogs {
                let default = c.default_channel.as_deref().unwrap_or("(none)");
                let _ = writeln!(
                    out,
                    "  catalog {}: default channel {default}, {}",
                    c.catalog,
                    plural(c.bundles, "bundle")
                );
                for ch in &c.channels {
                    write_channel(&mut out, ch);
                }
            }
        }
        if !self.gvk_providers.is_empty() {
            let _ = writeln!(out, "\nGVK providers");
            for g in &self.gvk_providers {
                let _ = writeln!(
                    out,
                    "  {} ({}/{}): {}",
                    g.kind,
                    g.group,
                    g.version,
                    g.packages.join(", ")
                );
            }
        }
        let t = &self.totals;
        let _ = writeln!(
            out,
            "\ntotals: {}, {}, {}, {}, {} provided, {}",
            plural(t.catalogs, "catalog"),
            plural(t.packages, "package"),
            plural(t.channels, "channel"),
            plural(t.bundles, "bundle"),
            plural(t.provided_gvks, "GVK"),
            plural(t.warnings, "warning")
        );
        out
    }
}

fn write_channel(out: &mut String, ch: &ChannelReport) {
    match (&ch.head, &ch.error) {
        (_, Some(e)) => {
            let _ = writeln!(out, "    channel {}: ERROR {e}", ch.name);
        }
        (Some(head), None) => {
            let _ = writeln!(
                out,
                "    channel {}: head {head}, {}",
                ch.name,
                plural(ch.entries, "entry").replace("entrys", "entries")
            );
            for name in &ch.order {
                let _ = writeln!(out, "      {name}");
            }
        }
        (None, None) => {
            let _ = writeln!(out, "    channel {}: (empty)", ch.name);
        }
    }
}

/// How serious a validation finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Makes `validate` fail (exit 1).
    Error,
    /// Reported only.
    Warning,
}

/// What a validation finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// No head, a cycle, or several heads (error).
    ChannelGraph,
    /// `defaultChannel` names no channel of the package (error).
    MissingDefaultChannel,
    /// A `replaces` names no bundle of the package in the catalog (warning: OLM allows the
    /// tail of a chain to replace a pruned bundle).
    DanglingReplaces,
    /// A `skips` names no bundle of the package in the catalog (warning: skipping pruned
    /// bundles is common).
    DanglingSkips,
    /// An `olm.deprecations` entry names no package, channel or bundle (warning).
    DanglingDeprecation,
}

/// One validation finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// What it is about.
    pub kind: FindingKind,
    /// Catalog name.
    pub catalog: String,
    /// Package name.
    pub package: String,
    /// Channel name, when about a channel.
    pub channel: Option<String>,
    /// Human-readable description.
    pub message: String,
    /// Where the document is.
    pub origin: Option<Origin>,
}

/// Everything `validate` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidationReport {
    /// Number of error findings.
    pub errors: usize,
    /// Findings sorted by (catalog, package, channel, severity, message).
    pub findings: Vec<Finding>,
    /// Warnings from loading.
    pub load_warnings: Vec<Warning>,
}

mod validate;
pub use validate::validate;
