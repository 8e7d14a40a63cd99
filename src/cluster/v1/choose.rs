//! The bundle OLM v1 picks for one ClusterExtension, as operator-controller's catalog
//! resolver does (docs/semantics.md §10): candidates from the selected, available catalogs
//! (package, channels, Masterminds version, successors of the installed bundle unless
//! `SelfCertified`); per catalog the best by deprecation then version; across catalogs
//! non-deprecated first, then the highest priority, a tie at the top being an error. Every
//! step is kept as data so the answer can say why a bundle was or was not chosen.

use std::cmp::Ordering;
use std::collections::HashSet;

use kube_core::labels::{Selector, SelectorExt};

use super::catalogs::ClusterCatalog;
use super::masterminds::Constraint;
use super::object::CatalogFilter;
use crate::catalog::{Bundle, BundleId, CatalogId, CatalogSet, DeprecationRef, Package, PackageId};
use crate::version::Version;

/// `upgradeConstraintPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum UpgradePolicy {
    /// Only successors of the installed bundle (default).
    CatalogProvided,
    /// Any bundle that matches.
    SelfCertified,
}

/// A bundle that passed every filter of one catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Bundle name.
    pub bundle: String,
    /// Its version.
    pub version: Version,
    /// Its catalog names it in a bundle-level `olm.deprecations` entry.
    pub deprecated: bool,
}

/// How one catalog took part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatalogOutcome {
    /// The extension's selector does not match its labels.
    NotSelected,
    /// `availabilityMode: Unavailable`: OLM v1 leaves it out.
    Unavailable,
    /// Its contents were not given (taken as empty).
    Unbound {
        /// `spec.source.image.ref`, to fetch it.
        image: Option<String>,
    },
    /// It has no such package.
    NoPackage,
    /// The package's bundles through each filter, and the best one left.
    Filtered {
        /// Bundles of the package.
        total: usize,
        /// Left after the channel filter (None: no channel filter).
        in_channels: Option<usize>,
        /// Left after the version filter (None: no version constraint).
        in_version: Option<usize>,
        /// Left after the successor filter (None: nothing installed, or SelfCertified).
        successors: Option<usize>,
        /// The best candidate: non-deprecated first, then the highest version.
        best: Option<Candidate>,
        /// How many candidates were left.
        candidates: usize,
    },
}

/// One catalog's part in the choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogStat {
    /// ClusterCatalog name.
    pub catalog: String,
    /// Its priority.
    pub priority: i32,
    /// What happened.
    pub outcome: CatalogOutcome,
}

/// Why no bundle was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// `spec.source.catalog.packageName` is empty.
    NoPackageName,
    /// The version constraint does not parse.
    InvalidVersion(String),
    /// The selector is invalid.
    InvalidSelector(String),
    /// `status.install.bundle.version` is not a version.
    InvalidInstalledVersion(String),
    /// `upgradeConstraintPolicy` is none of the names operator-controller knows.
    InvalidPolicy(String),
    /// `status.installedBundleResource` (v0.9.x) names an image no bundle of the package
    /// in the catalogs has, as OLM v1 then said too.
    InstalledImageNotFound(String),
    /// No catalog offers a candidate.
    NoCandidates,
    /// Catalogs of the same top priority both offer candidates.
    PriorityTie {
        /// The priority they share.
        priority: i32,
        /// Those catalogs, by name.
        catalogs: Vec<String>,
    },
}

/// The bundle chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// The bundle.
    pub candidate: Candidate,
    /// Its ClusterCatalog.
    pub catalog: String,
    /// Its id in the loaded catalogs.
    pub id: BundleId,
    /// Other catalogs' best candidates it beat, with why.
    pub beaten: Vec<(String, Beaten)>,
}

/// Why another catalog's best candidate lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beaten {
    /// It is deprecated and the chosen one is not.
    Deprecated,
    /// Its catalog's priority is lower.
    Priority(i32),
}

/// The whole decision for one extension.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The filter as read.
    pub filter: CatalogFilter,
    /// The package.
    pub package: String,
    /// The upgrade policy.
    pub policy: UpgradePolicy,
    /// The policy as written when it is an earlier name (`Enforce`, `Ignore`).
    pub policy_written: Option<String>,
    /// The installed bundle (name, version).
    pub installed: Option<(String, String)>,
    /// Each catalog's part, by catalog name.
    pub catalogs: Vec<CatalogStat>,
    /// The bundle, or why none.
    pub result: Result<Chosen, Failure>,
}

/// What the extension asks for, parsed.
struct Wanted<'a> {
    package: &'a str,
    channels: &'a [String],
    version: Option<Constraint>,
    installed: Option<(&'a str, Version)>,
    policy: UpgradePolicy,
}

/// Decides the bundle for an extension with `filter` and the installed bundle
/// `installed` (name, version), over `catalogs` whose bound contents are loaded in `set`.
pub fn decide(
    filter: &CatalogFilter,
    installed: Option<(&str, &str)>,
    catalogs: &[ClusterCatalog],
    set: Option<&CatalogSet>,
) -> Decision {
    let written = filter.upgrade_constraint_policy.as_deref();
    let (policy, known) = upgrade_policy(written);
    let mut d = Decision {
        filter: filter.clone(),
        package: filter.package_name.clone().unwrap_or_default(),
        policy,
        policy_written: written
            .filter(|w| matches!(*w, "Enforce" | "Ignore"))
            .map(str::to_string),
        installed: installed.map(|(n, v)| (n.to_string(), v.to_string())),
        catalogs: Vec::new(),
        result: Err(Failure::NoCandidates),
    };
    if !known {
        d.result = Err(Failure::InvalidPolicy(
            written.unwrap_or_default().to_string(),
        ));
        return d;
    }
    match wanted(filter, installed, policy) {
        Ok(w) => match selector(filter) {
            Ok(sel) => d.result = choose(&w, &sel, catalogs, set, &mut d.catalogs),
            Err(f) => d.result = Err(f),
        },
        Err(f) => d.result = Err(f),
    }
    d
}

/// The decision for an extension that fails before any catalog is looked at.
pub(super) fn failed(
    filter: &CatalogFilter,
    installed: Option<(String, String)>,
    failure: Failure,
) -> Decision {
    let written = filter.upgrade_constraint_policy.as_deref();
    Decision {
        filter: filter.clone(),
        package: filter.package_name.clone().unwrap_or_default(),
        policy: upgrade_policy(written).0,
        policy_written: written
            .filter(|w| matches!(*w, "Enforce" | "Ignore"))
            .map(str::to_string),
        installed,
        catalogs: Vec::new(),
        result: Err(failure),
    }
}

/// The policy `upgradeConstraintPolicy` names, and whether it names one: `CatalogProvided`
/// (the default) and `SelfCertified`, and their names before operator-controller v0.16.0,
/// `Enforce` and `Ignore`.
fn upgrade_policy(written: Option<&str>) -> (UpgradePolicy, bool) {
    match written {
        None | Some("" | "CatalogProvided" | "Enforce") => (UpgradePolicy::CatalogProvided, true),
        Some("SelfCertified" | "Ignore") => (UpgradePolicy::SelfCertified, true),
        Some(_) => (UpgradePolicy::CatalogProvided, false),
    }
}

fn wanted<'a>(
    filter: &'a CatalogFilter,
    installed: Option<(&'a str, &str)>,
    policy: UpgradePolicy,
) -> Result<Wanted<'a>, Failure> {
    let package = filter.package_name.as_deref().unwrap_or_default();
    if package.is_empty() {
        return Err(Failure::NoPackageName);
    }
    let version = match filter.version.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => Some(Constraint::parse(v).map_err(|e| Failure::InvalidVersion(e.to_string()))?),
        None => None,
    };
    let installed = match installed {
        Some((name, v)) => Some((
            name,
            Version::parse(v).map_err(|e| Failure::InvalidInstalledVersion(e.to_string()))?,
        )),
        None => None,
    };
    Ok(Wanted {
        package,
        channels: &filter.channels,
        version,
        installed,
        policy,
    })
}

/// The selector; absent or empty selects every catalog. One that Kubernetes'
/// `LabelSelectorAsSelector` refuses is invalid, as operator-controller finds it.
fn selector(filter: &CatalogFilter) -> Result<Selector, Failure> {
    match &filter.selector {
        None => Ok(Selector::default()),
        Some(s) => {
            super::selector::validate(s).map_err(Failure::InvalidSelector)?;
            Selector::try_from(s.clone()).map_err(|e| Failure::InvalidSelector(e.to_string()))
        }
    }
}

fn choose(
    w: &Wanted<'_>,
    sel: &Selector,
    catalogs: &[ClusterCatalog],
    set: Option<&CatalogSet>,
    stats: &mut Vec<CatalogStat>,
) -> Result<Chosen, Failure> {
    let mut found: Vec<(&ClusterCatalog, Candidate, BundleId)> = Vec::new();
    for c in catalogs {
        let (outcome, best) = in_catalog(w, sel, c, set);
        if let Some(b) = best {
            found.push((c, b.0, b.1));
        }
        stats.push(CatalogStat {
            catalog: c.name.clone(),
            priority: c.priority,
            outcome,
        });
    }
    let any_current = found.iter().any(|(_, b, _)| !b.deprecated);
    let mut beaten = Vec::new();
    found.retain(|(c, b, _)| {
        let keep = !(any_current && b.deprecated);
        if !keep {
            beaten.push((c.name.clone(), Beaten::Deprecated));
        }
        keep
    });
    let Some(top) = found.iter().map(|(c, _, _)| c.priority).max() else {
        return Err(Failure::NoCandidates);
    };
    let tied: Vec<String> = found
        .iter()
        .filter(|(c, _, _)| c.priority == top)
        .map(|(c, _, _)| c.name.clone())
        .collect();
    if tied.len() > 1 {
        return Err(Failure::PriorityTie {
            priority: top,
            catalogs: tied,
        });
    }
    let mut chosen = None;
    for (c, b, id) in found {
        if c.priority == top {
            chosen = Some((c.name.clone(), b, id));
        } else {
            beaten.push((c.name.clone(), Beaten::Priority(c.priority)));
        }
    }
    let (catalog, candidate, id) = chosen.ok_or(Failure::NoCandidates)?;
    beaten.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Chosen {
        candidate,
        catalog,
        id,
        beaten,
    })
}

/// One catalog's outcome and its best candidate.
fn in_catalog(
    w: &Wanted<'_>,
    sel: &Selector,
    c: &ClusterCatalog,
    set: Option<&CatalogSet>,
) -> (CatalogOutcome, Option<(Candidate, BundleId)>) {
    if !sel.matches(&c.labels) {
        return (CatalogOutcome::NotSelected, None);
    }
    if c.unavailable {
        return (CatalogOutcome::Unavailable, None);
    }
    let unbound = || CatalogOutcome::Unbound {
        image: c.image.clone(),
    };
    let Some(set) = set.filter(|_| c.path.is_some()) else {
        return (unbound(), None);
    };
    let Some(cid) = set.catalog_id(&c.name) else {
        return (unbound(), None);
    };
    let pkg = set.package_id(w.package);
    let Some(entry) = pkg.and_then(|p| set.package_in(p, cid)) else {
        return (CatalogOutcome::NoPackage, None);
    };
    filtered(w, set, cid, entry)
}

fn filtered(
    w: &Wanted<'_>,
    set: &CatalogSet,
    cid: CatalogId,
    entry: &Package,
) -> (CatalogOutcome, Option<(Candidate, BundleId)>) {
    let mut bundles: Vec<&Bundle> = set
        .bundles_of(entry.id)
        .iter()
        .filter_map(|id| set.bundle(*id))
        .filter(|b| b.catalog == cid)
        .collect();
    let total = bundles.len();
    // The channels OLM v1 looks in: the selected ones, or all (successors too).
    let channels: Vec<&crate::catalog::Channel> = entry
        .channels
        .iter()
        .filter(|ch| w.channels.is_empty() || w.channels.contains(&ch.name))
        .collect();
    let in_channels = (!w.channels.is_empty()).then(|| {
        let names: HashSet<&str> = channels
            .iter()
            .flat_map(|ch| &ch.entries)
            .map(|e| e.name.as_str())
            .collect();
        bundles.retain(|b| names.contains(b.name.as_str()));
        bundles.len()
    });
    let in_version = w.version.as_ref().map(|v| {
        bundles.retain(|b| v.matches(b.version.semver()));
        bundles.len()
    });
    let successors = match (&w.installed, w.policy) {
        (Some((name, version)), UpgradePolicy::CatalogProvided) => {
            let next = successors_of(name, version, &channels);
            bundles.retain(|b| {
                b.version.semver() == version.semver() || next.contains(b.name.as_str())
            });
            Some(bundles.len())
        }
        _ => None,
    };
    let deprecated_names = deprecated_in(set, entry.id, cid);
    let deprecated = |b: &Bundle| deprecated_names.contains(b.name.as_str());
    bundles.sort_by(|a, b| {
        deprecated(a)
            .cmp(&deprecated(b))
            .then_with(|| b.version.cmp_precedence(&a.version))
            .then_with(|| by_release(&b.version, &a.version))
    });
    let best = bundles.first().map(|b| {
        (
            Candidate {
                bundle: b.name.clone(),
                version: b.version.clone(),
                deprecated: deprecated(b),
            },
            b.id,
        )
    });
    let outcome = CatalogOutcome::Filtered {
        total,
        in_channels,
        in_version,
        successors,
        best: best.as_ref().map(|b| b.0.clone()),
        candidates: bundles.len(),
    };
    (outcome, best)
}

/// Equal versions ordered by their build metadata (the registry+v1 "release").
fn by_release(a: &Version, b: &Version) -> Ordering {
    a.semver().build.cmp(&b.semver().build)
}

/// The successors of the installed bundle, by name: the channel entries that replace or
/// skip it, or whose skipRange (blang syntax, as in OLM v0) covers its version (a bundle of
/// the installed version itself is one too). One pass over the entries.
fn successors_of<'c>(
    installed: &str,
    version: &Version,
    channels: &[&'c crate::catalog::Channel],
) -> HashSet<&'c str> {
    channels
        .iter()
        .flat_map(|ch| &ch.entries)
        .filter(|e| {
            e.replaces.as_deref() == Some(installed)
                || e.skips.iter().any(|s| s == installed)
                || e.skip_range.as_ref().is_some_and(|r| r.matches(version))
        })
        .map(|e| e.name.as_str())
        .collect()
}

/// The bundles the catalog names in a bundle-level `olm.deprecations` entry of the package.
fn deprecated_in(set: &CatalogSet, package: PackageId, catalog: CatalogId) -> HashSet<&str> {
    set.deprecations
        .iter()
        .filter(|d| d.package == package && d.catalog == catalog)
        .filter_map(|d| match &d.reference {
            DeprecationRef::Bundle(n) => Some(n.as_str()),
            _ => None,
        })
        .collect()
}
