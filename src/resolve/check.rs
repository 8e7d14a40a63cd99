//! A consistency check of an answer: one bundle per package and per API, every requirement
//! met (one upgrade edge from a fitting installed bundle), every dependency of a selected
//! bundle met by a selected bundle or the cluster, no deprecated or off-channel bundle,
//! `keep` and `keepInstalled` honoured (docs/semantics.md §4, §6, §7). Debug builds run it
//! on every answer. It works on the resolver's own catalog model and constraint matcher
//! (no Datalog, no solver) and does not recompute admin, cluster or pipeline removals, so it
//! is not independent: the independent checker, which shares no code with the resolver, is
//! `tests/support/checker/`.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::catalog::bundle_properties;
use crate::catalog::{BundleId, ChannelGraph, Gvk, GvkId, PackageId};
use crate::constraint::{CandidateView, Cluster};
use crate::request::{Request, Requirement};

use super::universe::Universe;

/// A rule a selection breaks, as data; `impl Display` (in [`crate::advanced::explain`]) words it.
/// Bundles are named by bundle name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// Two selected bundles of one package.
    SharePackage(String, String),
    /// Two selected bundles provide one API.
    ShareApi(String, String),
    /// No selected bundle meets requirement number `index` (of `package`).
    RequirementNotMet {
        /// Index in the request's `require`.
        index: usize,
        /// Its package.
        package: String,
    },
    /// A selected bundle is never a candidate (deprecated, or on no channel).
    Excluded(String),
    /// A selected bundle provides an API the cluster serves.
    ClusterServes(String),
    /// A kept bundle is not selected.
    Kept(String),
    /// `keepInstalled` holds and an installed bundle is not selected.
    KeepInstalled(String),
    /// A selected bundle needs a package in a range that no selected bundle has.
    NeedsPackage {
        /// The bundle.
        bundle: String,
        /// The package it needs.
        package: String,
        /// The version range, as written.
        range: String,
    },
    /// A selected bundle needs an API no selected bundle provides.
    NeedsApi(String),
    /// A selected bundle needs a label no selected bundle has.
    NeedsLabel {
        /// The bundle.
        bundle: String,
        /// The label.
        label: String,
    },
    /// A selected bundle has an `olm.constraint` no selected bundle meets.
    NeedsConstraint {
        /// The bundle.
        bundle: String,
        /// The constraint, as [`crate::constraint::Constraint::describe`] says it.
        constraint: String,
    },
}

impl std::error::Error for Violation {}

/// Channel facts recomputed from the catalog: which channels order each bundle.
struct Channels {
    /// (bundle, channel name) for every bundle on a channel's upgrade order.
    members: FxHashSet<(BundleId, String)>,
    /// Bundles on at least one channel's upgrade order.
    any: FxHashSet<BundleId>,
}

impl Channels {
    fn new(u: &Universe) -> Channels {
        let mut members = FxHashSet::default();
        for p in &u.set.packages {
            for ch in &p.channels {
                let Ok(g) = ChannelGraph::build(ch) else {
                    continue;
                };
                for &i in g.order() {
                    if let Some(b) = ch.entries.get(i).and_then(|e| e.bundle) {
                        members.insert((b, ch.name.clone()));
                    }
                }
            }
        }
        let any = members.iter().map(|(b, _)| *b).collect();
        Channels { members, any }
    }

    fn on_any(&self, b: BundleId) -> bool {
        self.any.contains(&b)
    }

    fn on(&self, b: BundleId, ch: &str) -> bool {
        self.members.contains(&(b, ch.to_string()))
    }
}

/// Checks `selected` (bundle ids) against the request. `Ok` when every rule holds.
pub fn check(u: &Universe, request: &Request, selected: &[BundleId]) -> Result<(), Violation> {
    let ch = Channels::new(u);
    let name = |b: BundleId| u.bundle(b).name.clone();
    let cluster = request.cluster_node().ok().flatten();
    let excluded = |b: BundleId| !u.is_installed(b) && (u.bundle(b).deprecated || !ch.on_any(b));
    // One bundle per package and per API: indexes, so a long answer stays linear.
    let mut by_package: FxHashMap<PackageId, BundleId> = FxHashMap::default();
    let mut by_gvk: FxHashMap<GvkId, BundleId> = FxHashMap::default();
    for &b in selected {
        if let Some(&a) = by_package.get(&u.package_of(b))
            && a != b
        {
            return Err(Violation::SharePackage(name(a), name(b)));
        }
        by_package.insert(u.package_of(b), b);
        for g in &u.bundle(b).provides {
            match by_gvk.get(g) {
                Some(&a) if a != b => {
                    return Err(Violation::ShareApi(name(a), name(b)));
                }
                _ => {
                    by_gvk.insert(*g, b);
                }
            }
        }
    }
    for (r, q) in request.require.iter().enumerate() {
        let ok = selected.iter().any(|&b| satisfies(u, &ch, q, b));
        if !ok {
            return Err(Violation::RequirementNotMet {
                index: r,
                package: q.package.clone(),
            });
        }
    }
    let index = Selection::new(u, selected, &excluded, cluster.as_ref());
    for &b in selected {
        let pinned = request
            .require
            .iter()
            .any(|q| q.bundle.as_deref() == Some(u.bundle(b).name.as_str()));
        if excluded(b) && (!pinned || u.bundle(b).deprecated) {
            return Err(Violation::Excluded(name(b)));
        }
        check_dependencies(u, &index, b, cluster.as_ref())?;
    }
    if let Some(c) = &cluster {
        let served = c.provides();
        for &b in selected {
            let provides_served = u
                .bundle(b)
                .provides
                .iter()
                .filter_map(|g| u.gvk(*g))
                .any(|g| served.contains(g));
            if provides_served && !u.is_installed(b) {
                return Err(Violation::ClusterServes(name(b)));
            }
        }
    }
    let chosen: FxHashSet<BundleId> = selected.iter().copied().collect();
    if let Some(&i) = u.kept.iter().find(|i| !chosen.contains(i)) {
        return Err(Violation::Kept(name(i)));
    }
    if request.keep_installed {
        // Installed bundles of required packages may move (requirements checked above); the
        // others stay exactly (docs/semantics.md §7).
        for &i in &u.installed {
            let required = request
                .require
                .iter()
                .any(|q| q.package == u.package_name(u.package_of(i)));
            if !required && !chosen.contains(&i) {
                return Err(Violation::KeepInstalled(name(i)));
            }
        }
    }
    Ok(())
}

/// Does bundle `b` meet requirement `q`, including the one-edge upgrade rule? An installed
/// bundle that still fits stays (whatever catalog the requirement names, when it is in no
/// catalog); otherwise `b` must match the requirement itself.
fn satisfies(u: &Universe, ch: &Channels, q: &Requirement, b: BundleId) -> bool {
    let bundle = u.bundle(b);
    if u.package_name(bundle.package) != q.package {
        return false;
    }
    // An installed bundle in no catalog is in no other catalog either.
    let in_catalog = u.installed_only_properties(b).is_some()
        || q.catalog
            .as_deref()
            .is_none_or(|c| u.catalog_name(bundle.catalog) == c);
    let in_range = q
        .version_range
        .as_ref()
        .is_none_or(|r| r.matches(&bundle.version));
    let pinned = q.bundle.as_deref().is_none_or(|p| p == bundle.name);
    let on_channel = q.bundle.is_some() || q.channel.as_deref().is_none_or(|c| ch.on(b, c));
    let matches = in_catalog && in_range && pinned;
    let installed = u
        .installed
        .iter()
        .copied()
        .find(|i| u.package_of(*i) == bundle.package && !u.is_kept(*i));
    match installed {
        Some(i) if fits(u, q, i) => i == b || (matches && on_channel && is_successor(u, i, b)),
        _ => matches && on_channel,
    }
}

/// Does the installed bundle still fit the requirement (channel aside)?
fn fits(u: &Universe, q: &Requirement, i: BundleId) -> bool {
    let b = u.bundle(i);
    // An installed bundle in no catalog is in no other catalog either.
    (u.installed_only_properties(i).is_some()
        || q.catalog
            .as_deref()
            .is_none_or(|c| u.catalog_name(b.catalog) == c))
        && q.version_range
            .as_ref()
            .is_none_or(|r| r.matches(&b.version))
        && q.bundle.as_deref().is_none_or(|p| p == b.name)
}

/// Is `e` a direct successor of installed `i` in some channel (replaces, skips, skipRange)?
fn is_successor(u: &Universe, i: BundleId, e: BundleId) -> bool {
    let inst = u.bundle(i);
    u.set
        .package_entries(inst.package)
        .flat_map(|p| &p.channels)
        .any(|c| {
            c.entries.iter().any(|en| {
                en.bundle == Some(e)
                    && u.bundle(e).package == inst.package
                    && (en.replaces.as_deref() == Some(inst.name.as_str())
                        || en.skips.contains(&inst.name)
                        || en
                            .skip_range
                            .as_ref()
                            .is_some_and(|r| r.matches(&inst.version)))
            })
        })
}

/// The usable (not excluded) selected bundles, indexed by what dependencies ask for.
struct Selection<'u> {
    usable: Vec<BundleId>,
    by_package: FxHashMap<&'u str, Vec<BundleId>>,
    gvks: FxHashSet<GvkId>,
    labels: FxHashSet<&'u str>,
    /// APIs the cluster serves.
    served: Vec<Gvk>,
}

impl<'u> Selection<'u> {
    fn new(
        u: &'u Universe,
        selected: &[BundleId],
        excluded: &dyn Fn(BundleId) -> bool,
        cluster: Option<&Cluster>,
    ) -> Selection<'u> {
        let usable: Vec<BundleId> = selected.iter().copied().filter(|b| !excluded(*b)).collect();
        let mut by_package: FxHashMap<&str, Vec<BundleId>> = FxHashMap::default();
        let mut gvks = FxHashSet::default();
        let mut labels = FxHashSet::default();
        for &b in &usable {
            let bundle = u.bundle(b);
            by_package
                .entry(u.package_name(bundle.package))
                .or_default()
                .push(b);
            gvks.extend(bundle.provides.iter().copied());
            labels.extend(bundle.labels.iter().map(String::as_str));
        }
        Selection {
            usable,
            by_package,
            gvks,
            labels,
            served: cluster.map(Cluster::provides).unwrap_or_default(),
        }
    }
}

fn check_dependencies(
    u: &Universe,
    selection: &Selection<'_>,
    b: BundleId,
    cluster: Option<&Cluster>,
) -> Result<(), Violation> {
    let bundle = u.bundle(b);
    let served = &selection.served;
    for req in &bundle.requires_packages {
        let ok = selection
            .by_package
            .get(req.package.as_str())
            .is_some_and(|xs| xs.iter().any(|&x| req.range.matches(&u.bundle(x).version)));
        if !ok {
            return Err(Violation::NeedsPackage {
                bundle: bundle.name.clone(),
                package: req.package.clone(),
                range: req.range.to_string(),
            });
        }
    }
    for g in &bundle.requires_gvks {
        if u.gvk(*g).is_some_and(|g| served.contains(g)) {
            continue;
        }
        if !selection.gvks.contains(g) {
            return Err(Violation::NeedsApi(bundle.name.clone()));
        }
    }
    for l in &bundle.requires_labels {
        if !selection.labels.contains(l.as_str()) {
            return Err(Violation::NeedsLabel {
                bundle: bundle.name.clone(),
                label: l.clone(),
            });
        }
    }
    for c in &bundle.requires_constraints {
        if cluster.is_some_and(|k| k.satisfies(c).is_match()) {
            continue;
        }
        let ok = selection.usable.iter().any(|&x| {
            let xb = u.bundle(x);
            let props = bundle_properties(xb, &u.set);
            let view = match u.installed_only_properties(x) {
                Some(declared) => CandidateView {
                    package: u.package_name(xb.package),
                    version: &xb.version,
                    provides: xb.provides.iter().filter_map(|g| u.gvk(*g)).collect(),
                    properties: declared,
                },
                None => CandidateView::of_bundle(xb, &u.set, &props),
            };
            c.test(&view).is_match()
        });
        if !ok {
            return Err(Violation::NeedsConstraint {
                bundle: bundle.name.clone(),
                constraint: c.describe(),
            });
        }
    }
    Ok(())
}
