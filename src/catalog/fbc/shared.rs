//! Several sets of catalogs that share catalogs (the namespaces of a cluster), loaded from
//! their paths with each catalog read and parsed once for all the sets that name it.
//!
//! A catalog's files are read one at a time and dropped once parsed, as
//! [`CatalogSet::load`] reads them: what is kept between sets is a catalog's records (without
//! the heavy properties unless the load keeps them), never its files' texts. Each set but
//! the last that names a catalog gets a copy of its records; the last takes them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::convert::Records;
use super::{FileJob, LoadOptions, collect_files, parse_file};
use crate::catalog::error::LoadError;
use crate::catalog::set::{CatalogInfo, CatalogSet, CatalogSource};
use crate::parallel::parallel_map;

/// Why one of the sets of [`CatalogSet::load_sets`] could not be loaded.
#[derive(Debug)]
pub(crate) struct SetLoadError {
    /// The set's index in the sets given.
    pub(crate) set: usize,
    /// The index, in that set, of the catalog whose files failed to read or parse; `None`
    /// when the set as a whole failed (assembling it, or through the catalog cache).
    pub(crate) catalog: Option<usize>,
    /// The first error loading it, in catalog, file and document order.
    pub(crate) error: Box<LoadError>,
}

impl CatalogSet {
    /// Loads each of `sets` as [`CatalogSet::load`] loads it (the same set, the same first
    /// error), reading and parsing each catalog, by path, once for all the sets that name it.
    /// With a cache directory in `opts`, each set is loaded through the catalog cache, whose
    /// files' entries are shared by the sets.
    pub(crate) fn load_sets(
        sets: &[Vec<CatalogSource>],
        opts: &LoadOptions,
    ) -> Result<Vec<CatalogSet>, SetLoadError> {
        if opts.cache_dir.is_some() {
            return sets
                .iter()
                .enumerate()
                .map(|(set, s)| {
                    CatalogSet::load(s, opts).map_err(|error| SetLoadError {
                        set,
                        catalog: None,
                        error: Box::new(error),
                    })
                })
                .collect();
        }
        // How many sets still need each catalog's records.
        let mut uses: BTreeMap<&PathBuf, usize> = BTreeMap::new();
        for s in sets {
            for c in s {
                *uses.entry(&c.path).or_default() += 1;
            }
        }
        let mut parsed: BTreeMap<PathBuf, Records> = BTreeMap::new();
        let mut out = Vec::with_capacity(sets.len());
        for (set, sources) in sets.iter().enumerate() {
            parse_new(sources, opts, &mut parsed).map_err(|(catalog, error)| SetLoadError {
                set,
                catalog: Some(catalog),
                error,
            })?;
            let mut input = Vec::with_capacity(sources.len());
            for s in sources {
                let left = uses.get_mut(&s.path).map_or(0, |n| {
                    *n -= 1;
                    *n
                });
                let recs = match left {
                    0 => parsed.remove(&s.path),
                    _ => parsed.get(&s.path).map(copy),
                };
                input.push((CatalogInfo::of(s), recs.unwrap_or_default()));
            }
            super::note_loaded(
                &input.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>(),
                "assembled from the catalogs' files, each read once for every set",
            );
            let assembled = super::assemble::assemble(input).map_err(|error| SetLoadError {
                set,
                catalog: None,
                error: Box::new(error),
            })?;
            out.push(assembled);
        }
        Ok(out)
    }
}

/// A copy of a catalog's records.
fn copy(r: &Records) -> Records {
    let mut out = Records::default();
    out.reserve_for(std::iter::once(r));
    out.extend_from(r);
    out
}

/// Reads and parses the catalogs of `sources` not in `parsed` yet: every new catalog's files
/// listed first, then parsed side by side (the first error in catalog and file order is
/// returned, as [`CatalogSet::load`] returns it, with the index in `sources` of the catalog
/// it came from), each catalog's records merged in file order.
fn parse_new(
    sources: &[CatalogSource],
    opts: &LoadOptions,
    parsed: &mut BTreeMap<PathBuf, Records>,
) -> Result<(), (usize, Box<LoadError>)> {
    // The new catalogs, each with its index in `sources`.
    let mut fresh: Vec<(usize, &CatalogSource)> = Vec::new();
    for (at, s) in sources.iter().enumerate() {
        if !parsed.contains_key(&s.path) && !fresh.iter().any(|(_, f)| f.path == s.path) {
            fresh.push((at, s));
        }
    }
    let mut jobs: Vec<FileJob> = Vec::new();
    for (i, (at, s)) in fresh.iter().enumerate() {
        collect_files(i, s, &mut jobs).map_err(|e| (*at, Box::new(e)))?;
    }
    let results = parallel_map(&jobs, |j| parse_file(j, opts));
    let mut files: Vec<(usize, Records)> = Vec::with_capacity(results.len());
    for (j, r) in jobs.iter().zip(results) {
        let at = fresh.get(j.catalog).map_or(0, |(at, _)| *at);
        files.push((j.catalog, r.map_err(|e| (at, Box::new(e)))?));
    }
    for (i, (_, s)) in fresh.iter().enumerate() {
        let mut acc = Records::default();
        acc.reserve_for(files.iter().filter(|(c, _)| *c == i).map(|(_, r)| r));
        for (_, r) in files.iter_mut().filter(|(c, _)| *c == i) {
            acc.extend(std::mem::take(r));
        }
        parsed.insert(s.path.clone(), acc);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str, path: &str, priority: i32) -> CatalogSource {
        CatalogSource {
            name: name.into(),
            path: path.into(),
            priority,
        }
    }

    fn show(c: &CatalogSet) -> String {
        format!(
            "{:?}{:?}{:?}{:?}",
            c.bundles, c.packages, c.warnings, c.catalogs
        )
    }

    /// Every set equals the set [`CatalogSet::load`] gives, whether its catalogs are shared
    /// with another set or not, copied or taken.
    #[test]
    fn each_set_loads_as_alone() {
        let odf = source("odf", "catalogs/odf-dev", 0);
        let community = source("community", "catalogs/community-v4.22", -5);
        let sets = vec![
            vec![odf.clone(), community.clone()],
            vec![community.clone()],
            vec![source("odf-again", "catalogs/odf-dev", 3)],
        ];
        let opts = LoadOptions::default();
        let loaded = CatalogSet::load_sets(&sets, &opts).expect("load");
        assert_eq!(loaded.len(), 3);
        for (set, got) in sets.iter().zip(&loaded) {
            let alone = CatalogSet::load(set, &opts).expect("alone");
            assert_eq!(show(got), show(&alone));
        }
    }

    /// The error of a set is the one loading it alone gives, named by the set's index and the
    /// failing catalog's.
    #[test]
    fn a_missing_catalog_fails_its_set() {
        let odf = source("odf", "catalogs/odf-dev", 0);
        let missing = source("gone", "catalogs/no-such-catalog", 0);
        let sets = vec![vec![odf.clone()], vec![odf, missing.clone()]];
        let err = CatalogSet::load_sets(&sets, &LoadOptions::default()).expect_err("missing");
        assert_eq!(err.set, 1);
        assert_eq!(
            err.catalog,
            Some(1),
            "the missing catalog is the set's second"
        );
        let alone = CatalogSet::load(&[missing], &LoadOptions::default()).expect_err("alone");
        assert_eq!(err.error.to_string(), alone.to_string());
    }
}
