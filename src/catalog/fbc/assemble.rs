//! Merging per-catalog records into a [`CatalogSet`] with canonical ids: package names and
//! GVKs interned in sorted order, bundles sorted by (catalog, package name, bundle name),
//! channels sorted by name, so the same documents in any file or document order give the
//! same ids.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::convert::{BundleRec, ChannelRec, PackageRec, Records};
use crate::catalog::error::{LoadError, Warning, WarningKind};
use crate::catalog::intern::Interner;
use crate::catalog::model::{
    Bundle, BundleId, CatalogId, Channel, Deprecation, DeprecationRef, Gvk, GvkId, Origin, Package,
    PackageId,
};
use crate::catalog::set::{CatalogInfo, CatalogSet};
use crate::parallel::{join, parallel_map_owned, split_runs};

/// Drops duplicates inside one catalog: identical ones with a warning, conflicting ones are
/// an error. The first in walk order (sorted paths, document order) is kept.
fn dedup(recs: &mut Records) -> Result<(), LoadError> {
    if !has_duplicates(recs) {
        return Ok(());
    }
    let mut first: FxHashMap<String, usize> = FxHashMap::default();
    let mut keep: Vec<PackageRec> = Vec::with_capacity(recs.packages.len());
    for p in std::mem::take(&mut recs.packages) {
        if let Some(kept) = first.get(&p.name).and_then(|&i| keep.get(i)) {
            if kept.default_channel != p.default_channel {
                return Err(conflict(
                    &p.origin,
                    &kept.origin,
                    format!(
                        "package {:?} is declared twice with different default channels",
                        p.name
                    ),
                ));
            }
            let msg = format!(
                "package {:?} is declared twice; the first is kept (at {})",
                p.name, kept.origin
            );
            recs.warnings.push(Warning::general(
                WarningKind::DuplicatePackage,
                Some(&p.origin),
                msg,
            ));
            continue;
        }
        first.insert(p.name.clone(), keep.len());
        keep.push(p);
    }
    recs.packages = keep;

    let mut channels: FxHashMap<(String, String), Origin> = FxHashMap::default();
    for c in &recs.channels {
        let key = (c.package.clone(), c.name.clone());
        if let Some(o) = channels.get(&key) {
            return Err(conflict(
                &c.origin,
                o,
                format!(
                    "channel {:?} of package {:?} is declared twice",
                    c.name, c.package
                ),
            ));
        }
        channels.insert(key, c.origin.clone());
    }
    dedup_bundles(recs)
}

/// True when two packages, two channels of a package or two bundles share a name: only
/// then does [`dedup`] need to move records around (the common case borrows and returns).
fn has_duplicates(recs: &Records) -> bool {
    let mut packages: FxHashSet<&str> = FxHashSet::default();
    let mut channels: FxHashSet<(&str, &str)> = FxHashSet::default();
    let mut bundles: FxHashSet<&str> = FxHashSet::default();
    packages.reserve(recs.packages.len());
    channels.reserve(recs.channels.len());
    bundles.reserve(recs.bundles.len());
    !(recs.packages.iter().all(|p| packages.insert(&p.name))
        && recs
            .channels
            .iter()
            .all(|c| channels.insert((&c.package, &c.name)))
        && recs.bundles.iter().all(|b| bundles.insert(&b.name)))
}

fn dedup_bundles(recs: &mut Records) -> Result<(), LoadError> {
    let mut first: FxHashMap<String, usize> = FxHashMap::default();
    let mut keep: Vec<Box<BundleRec>> = Vec::with_capacity(recs.bundles.len());
    for b in std::mem::take(&mut recs.bundles) {
        if let Some(kept) = first.get(&b.name).and_then(|&i| keep.get(i)) {
            if kept.package != b.package || kept.version != b.version {
                return Err(conflict(
                    &b.origin,
                    &kept.origin,
                    format!(
                        "bundle {:?} is declared twice: package {:?} version {} and package {:?} version {}",
                        b.name, kept.package, kept.version, b.package, b.version
                    ),
                ));
            }
            let msg = format!(
                "bundle {:?} (version {}) is declared twice; the first is kept (at {})",
                b.name, b.version, kept.origin
            );
            recs.warnings.push(Warning::general(
                WarningKind::DuplicateBundle,
                Some(&b.origin),
                msg,
            ));
            continue;
        }
        first.insert(b.name.clone(), keep.len());
        keep.push(b);
    }
    recs.bundles = keep;
    Ok(())
}

fn conflict(origin: &Origin, first: &Origin, message: String) -> LoadError {
    LoadError::Conflict {
        origin: origin.clone(),
        first: first.clone(),
        message,
    }
}

/// From this many bundles on, `assemble` works on several threads (below, starting them
/// costs more than they save).
const PARALLEL_FROM: usize = 2_000;

fn catalog_id(i: usize) -> CatalogId {
    CatalogId(u32::try_from(i).unwrap_or(u32::MAX))
}

/// Builds the set from each catalog's records, in catalog order. Independent steps run side
/// by side: interning names and GVKs, building bundles (in runs of consecutive ids), and
/// each catalog's packages and channels; every step's output is in the same canonical order
/// as one thread would give, and the first error in that order is the one returned.
pub(crate) fn assemble(input: Vec<(CatalogInfo, Records)>) -> Result<CatalogSet, LoadError> {
    let wide = input.iter().map(|(_, r)| r.bundles.len()).sum::<usize>() >= PARALLEL_FROM;
    assemble_with(input, wide)
}

/// [`assemble`], on several threads when `wide` (the result is the same either way).
pub(crate) fn assemble_with(
    mut input: Vec<(CatalogInfo, Records)>,
    wide: bool,
) -> Result<CatalogSet, LoadError> {
    for (_, recs) in &mut input {
        dedup(recs)?;
    }
    let (package_names, gvks) = if wide {
        join(|| intern_package_names(&input), || intern_gvks(&input))
    } else {
        (intern_package_names(&input), intern_gvks(&input))
    };
    let mut set = CatalogSet {
        package_names,
        gvks,
        ..CatalogSet::default()
    };
    // Per catalog: its records' GVK table as set-wide ids.
    let remaps: Vec<Vec<Option<GvkId>>> = input
        .iter()
        .map(|(_, r)| {
            r.gvks
                .list
                .iter()
                .map(|g| set.gvks.get(g).map(GvkId))
                .collect()
        })
        .collect();
    let mut all: Vec<(CatalogId, PackageId, Box<BundleRec>)> = Vec::new();
    let mut warnings = Vec::new();
    let mut per_catalog = Vec::new();
    for (i, (info, recs)) in input.into_iter().enumerate() {
        set.catalogs.push(info);
        let c = catalog_id(i);
        for b in recs.bundles {
            let pid = PackageId(set.package_names.get(&b.package).unwrap_or(u32::MAX));
            all.push((c, pid, b));
        }
        warnings.extend(recs.warnings);
        per_catalog.push((c, recs.packages, recs.channels, recs.deprecations));
    }
    all.sort_unstable_by(|(c, _, a), (d, _, b)| {
        (c, &a.package, &a.name).cmp(&(d, &b.package, &b.name))
    });
    set.bundles = make_bundles(all, &remaps, wide)?.into();
    let part = |(c, packages, channels, deprecations)| {
        catalog_packages(&set, c, packages, channels, deprecations)
    };
    let built: Vec<CatalogPart> = if wide {
        parallel_map_owned(per_catalog, part)
    } else {
        per_catalog.into_iter().map(part).collect()
    };
    let mut by_name = Vec::with_capacity(built.len());
    let mut packages = Vec::new();
    for b in built {
        by_name.push(b.by_name);
        packages.extend(b.packages);
        set.deprecations.extend(b.deprecations);
        warnings.extend(b.warnings);
    }
    packages.sort_by_key(|p| (p.id, p.catalog));
    set.packages = packages.into();
    set.deprecations
        .sort_by(|a, b| deprecation_key(a).cmp(&deprecation_key(b)));
    set.deprecations.dedup();
    warnings
        .sort_by(|a, b| (&a.origin, &a.field, &a.message).cmp(&(&b.origin, &b.field, &b.message)));
    set.warnings = warnings;
    set.reindex_with(by_name);
    Ok(set)
}

/// The bundles of `all` (sorted), with ids in that order; built in runs of consecutive ids,
/// one per thread when `wide`.
fn make_bundles(
    all: Vec<(CatalogId, PackageId, Box<BundleRec>)>,
    remaps: &[Vec<Option<GvkId>>],
    wide: bool,
) -> Result<Vec<Bundle>, LoadError> {
    let total = all.len();
    let runs = if wide {
        split_runs(all)
    } else {
        vec![(0, all)]
    };
    let runs = parallel_map_owned(runs, |(start, run)| {
        let mut cel = crate::constraint::CelCache::new();
        let mut out = Vec::with_capacity(run.len());
        for (k, (c, pid, b)) in run.into_iter().enumerate() {
            let id = BundleId(u32::try_from(start + k).unwrap_or(u32::MAX));
            let remap = remaps.get(c.0 as usize).map_or(&[][..], Vec::as_slice);
            out.push(make_bundle(id, (c, pid), *b, remap, &mut cel)?);
        }
        Ok(out)
    });
    let mut bundles = Vec::with_capacity(total);
    for run in runs {
        bundles.extend(run?);
    }
    Ok(bundles)
}

/// What one catalog adds to the set besides its bundles.
struct CatalogPart {
    by_name: FxHashMap<String, BundleId>,
    packages: Vec<Package>,
    deprecations: Vec<Deprecation>,
    warnings: Vec<Warning>,
}

/// One catalog's bundles by name, packages, channels and deprecations (`set.bundles` built).
fn catalog_packages(
    set: &CatalogSet,
    c: CatalogId,
    packages: Vec<PackageRec>,
    channels: Vec<ChannelRec>,
    deprecations: Vec<super::convert::DeprecationRec>,
) -> CatalogPart {
    // Bundles are sorted by catalog first: this catalog's are one run.
    let from = set.bundles.partition_point(|b| b.catalog < c);
    let to = set.bundles.partition_point(|b| b.catalog <= c);
    let bundles = set.bundles.as_slice().get(from..to).unwrap_or_default();
    let mut by_name = FxHashMap::default();
    by_name.reserve(bundles.len());
    for b in bundles {
        by_name.insert(b.name.clone(), b.id);
    }
    let mut warnings = Vec::new();
    let mut ctx = PackageCtx {
        set,
        catalog: c,
        bundles,
        by_name: &by_name,
        warnings: &mut warnings,
    };
    let packages = ctx.packages(packages, channels);
    let deprecations = deprecations
        .into_iter()
        .map(|d| Deprecation {
            package: PackageId(set.package_names.get(&d.package).unwrap_or(u32::MAX)),
            catalog: c,
            reference: d.reference,
            message: d.message,
        })
        .collect();
    CatalogPart {
        by_name,
        packages,
        deprecations,
        warnings,
    }
}

fn deprecation_key(d: &Deprecation) -> (CatalogId, PackageId, u8, &str, &str) {
    let (rank, name) = match &d.reference {
        DeprecationRef::Package => (0, ""),
        DeprecationRef::Channel(n) => (1, n.as_str()),
        DeprecationRef::Bundle(n) => (2, n.as_str()),
    };
    (d.catalog, d.package, rank, name, d.message.as_str())
}

fn intern_package_names(input: &[(CatalogInfo, Records)]) -> Interner<String> {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for (_, r) in input {
        seen.extend(r.packages.iter().map(|p| p.name.as_str()));
        seen.extend(r.channels.iter().map(|c| c.package.as_str()));
        seen.extend(r.bundles.iter().map(|b| b.package.as_str()));
        seen.extend(r.deprecations.iter().map(|d| d.package.as_str()));
    }
    let mut names: Vec<&str> = seen.into_iter().collect();
    names.sort_unstable();
    let mut interner = Interner::with_capacity(names.len());
    for n in names {
        interner.intern(&n.to_string());
    }
    interner
}

fn intern_gvks(input: &[(CatalogInfo, Records)]) -> Interner<Gvk> {
    let mut seen: FxHashSet<&Gvk> = FxHashSet::default();
    for (_, r) in input {
        seen.extend(&r.gvks.list);
    }
    let mut gvks: Vec<&Gvk> = seen.into_iter().collect();
    gvks.sort_unstable();
    let mut interner = Interner::with_capacity(gvks.len());
    for g in gvks {
        interner.intern(g);
    }
    interner
}

/// Set-wide ids of a bundle's GVKs (indices into its records' table, mapped by `remap`).
fn gvk_ids(remap: &[Option<GvkId>], gvks: &[u32]) -> Vec<GvkId> {
    let mut ids: Vec<GvkId> = gvks
        .iter()
        .filter_map(|&g| remap.get(g as usize).copied().flatten())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn make_bundle(
    id: BundleId,
    (catalog, package): (CatalogId, PackageId),
    b: BundleRec,
    remap: &[Option<GvkId>],
    cel: &mut crate::constraint::CelCache,
) -> Result<Bundle, LoadError> {
    let limits = crate::constraint::Limits::default();
    let mut requires_constraints = Vec::with_capacity(b.constraint_sources.len());
    for (field, kind, raw) in &b.constraint_sources {
        let c = crate::constraint::Constraint::parse_typed(kind, raw.get(), &limits, cel).map_err(
            |e| LoadError::Invalid {
                origin: b.origin.clone(),
                field: field.clone(),
                message: format!("bundle {}: {kind}: {e}", b.name),
            },
        )?;
        requires_constraints.push(c);
    }
    Ok(Bundle {
        requires_constraints,
        id,
        catalog,
        package,
        provides: gvk_ids(remap, &b.provides),
        requires_gvks: gvk_ids(remap, &b.requires_gvks),
        name: b.name,
        version: b.version,
        image: b.image,
        labels: b.labels,
        requires_packages: b.requires_packages,
        requires_labels: b.requires_labels,
        constraints: b.constraints,
        deprecated: b.deprecated,
        properties: b.properties,
        origin: b.origin,
    })
}

/// Builds one catalog's packages and channels.
struct PackageCtx<'a> {
    set: &'a CatalogSet,
    catalog: CatalogId,
    /// This catalog's bundles.
    bundles: &'a [Bundle],
    /// This catalog's bundles by name.
    by_name: &'a FxHashMap<String, BundleId>,
    warnings: &'a mut Vec<Warning>,
}

#[derive(Default)]
struct PackageAcc {
    default_channel: Option<String>,
    origin: Option<Origin>,
    /// Origin of a channel or bundle naming the package, for the missing-document warning.
    seen_at: Option<Origin>,
    channels: Vec<Channel>,
}

impl PackageCtx<'_> {
    fn packages(&mut self, packages: Vec<PackageRec>, channels: Vec<ChannelRec>) -> Vec<Package> {
        let mut acc: BTreeMap<String, PackageAcc> = BTreeMap::new();
        for p in packages {
            let a = acc.entry(p.name).or_default();
            a.default_channel = p.default_channel;
            a.origin = Some(p.origin);
        }
        for c in channels {
            let package = c.package.clone();
            let channel = self.channel(c);
            let a = acc.entry(package).or_default();
            a.seen_at.get_or_insert_with(|| channel.origin.clone());
            a.channels.push(channel);
        }
        let mut seen: FxHashSet<PackageId> = FxHashSet::default();
        for b in self.bundles {
            if seen.insert(b.package) {
                let a = acc
                    .entry(self.set.package_name(b.package).to_string())
                    .or_default();
                a.seen_at.get_or_insert_with(|| b.origin.clone());
            }
        }
        acc.into_iter()
            .map(|(name, a)| self.package(name, a))
            .collect()
    }

    fn package(&mut self, name: String, mut a: PackageAcc) -> Package {
        if a.origin.is_none() {
            let msg =
                format!("package {name:?} has channels or bundles but no olm.package document");
            let w = Warning::general(WarningKind::MissingPackageDocument, a.seen_at.as_ref(), msg);
            self.warnings.push(w);
        }
        a.channels.sort_by(|x, y| x.name.cmp(&y.name));
        Package {
            id: PackageId(self.set.package_names.get(&name).unwrap_or(u32::MAX)),
            catalog: self.catalog,
            default_channel: a.default_channel,
            channels: a.channels,
            origin: a.origin,
        }
    }

    fn channel(&mut self, c: ChannelRec) -> Channel {
        let pid = self.set.package_names.get(&c.package).map(PackageId);
        let mut entries = c.entries;
        for (i, e) in entries.iter_mut().enumerate() {
            let found = self.by_name.get(e.name.as_str()).and_then(|&id| {
                let b = self.set.bundle(id)?;
                Some((id, b.package))
            });
            match found {
                Some((id, p)) if Some(p) == pid => e.bundle = Some(id),
                found => {
                    let msg = match found {
                        Some((_, p)) => format!(
                            "channel {:?} entry {:?} names a bundle of another package ({:?})",
                            c.name,
                            e.name,
                            self.set.package_name(p)
                        ),
                        None => format!(
                            "channel {:?} entry {:?} names no bundle of the catalog",
                            c.name, e.name
                        ),
                    };
                    let field = format!("entries[{i}].name");
                    self.warnings.push(Warning::new(
                        WarningKind::EntryWithoutBundle,
                        &c.origin,
                        field,
                        msg,
                    ));
                }
            }
        }
        Channel {
            name: c.name,
            entries,
            origin: c.origin,
        }
    }
}
