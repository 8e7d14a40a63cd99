//! Loading catalogs through the catalog cache (`LoadOptions::cache_dir`), from their paths:
//!
//! 1. every catalog's files are listed, and each file's content hash is taken from its
//!    fingerprint when its metadata are as recorded ([`super::fingerprint`]), else from its
//!    bytes (read, hashed, dropped); a catalog with a given content key
//!    (`LoadOptions::content_keys`, e.g. an image's manifest digest) is not listed by hash;
//! 2. the set stored under the key those hashes give is read back ([`super::set_cache`]):
//!    only its index, its package entries decoded on first use;
//! 3. else every file's records come from its own entry (keyed by path and content hash; the
//!    file is read only when that entry is missing), are assembled, and the set is stored.
//!
//! A first load (nothing recorded for a catalog) reads each file once: hashed and parsed in
//! the same pass.

use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::fingerprint::{self, Fingerprints, Stamp};
use super::heavy::Keep;
use super::heavy_store::{Basis, HeavyFile, HeavyStore};
use super::parse::format_of;
use super::records::parse_bytes;
use super::set_cache::{self, Contents};
use super::{FileJob, LoadOptions, Walked, cache, collect_files, collect_files_walked, limits};
use crate::catalog::error::LoadError;
use crate::catalog::set::{CatalogInfo, CatalogSet, CatalogSource, HeavyValues};
use crate::parallel::parallel_map;
use crate::progress::Tracker;

/// What a load knows of one file's contents before parsing it.
#[derive(Clone, Copy)]
enum Known {
    /// Its content hash.
    Hash(blake3::Hash),
    /// Nothing yet: it is read, hashed and parsed in one pass.
    Unread,
}

/// Every catalog's files, in load order, and each catalog's recorded fingerprints (none for
/// a catalog with a given content key). A catalog whose recorded directory listings hold
/// ([`Fingerprints::listed_files`]) is not walked, unless `opts.verify_cache`; a catalog
/// walked has what the walk read recorded.
pub(super) fn list(
    sources: &[CatalogSource],
    opts: &LoadOptions,
    dir: &Path,
) -> Result<(Vec<FileJob>, Vec<Option<Fingerprints>>), LoadError> {
    let mut prints: Vec<Option<Fingerprints>> = sources
        .iter()
        .map(|s| {
            let given = opts.content_keys.contains_key(&s.path);
            (!given).then(|| Fingerprints::read(dir, &s.path))
        })
        .collect();
    let mut jobs = Vec::new();
    for (i, (source, print)) in sources.iter().zip(prints.iter_mut()).enumerate() {
        let Some(print) = print else {
            collect_files(i, source, &mut jobs)?;
            continue;
        };
        if !opts.verify_cache
            && let Some(files) = print.listed_files()
        {
            log::debug!(
                "catalog {}: directory listings as recorded, not walked",
                source.name
            );
            jobs.extend(files.into_iter().map(|path| FileJob {
                catalog: i,
                format: format_of(&path),
                path,
                text: None,
            }));
            continue;
        }
        let listed_at = fingerprint::now();
        let before = jobs.len();
        let mut walked = Walked::default();
        collect_files_walked(i, source, &mut jobs, &mut walked)?;
        let found = jobs.get(before..).unwrap_or_default();
        if found.iter().any(|j| j.text.is_some()) {
            walked.plain = false;
        }
        print.walked(listed_at, &walked, found.len());
    }
    Ok((jobs, prints))
}

/// Loads `jobs` (every catalog's files, in load order, as [`list`] gives them with `prints`)
/// through the cache in `dir`.
pub(super) fn load(
    sources: &[CatalogSource],
    jobs: &[FileJob],
    mut prints: Vec<Option<Fingerprints>>,
    opts: &LoadOptions,
    dir: &Path,
    tracker: &Tracker<'_>,
) -> Result<CatalogSet, LoadError> {
    let infos: Vec<CatalogInfo> = sources.iter().map(CatalogInfo::of).collect();
    let given: Vec<Option<&str>> = sources
        .iter()
        .map(|s| opts.content_keys.get(&s.path).map(String::as_str))
        .collect();
    let stamps: Vec<Option<Stamp>> = parallel_map(jobs, |j| match &j.text {
        Some(_) => None,
        None => std::fs::metadata(&j.path).ok().map(|m| Stamp::of(&m)),
    });
    let mut known: Vec<Known> = jobs
        .iter()
        .zip(&stamps)
        .map(|(j, stamp)| known_hash(j, stamp.as_ref(), &prints, opts.verify_cache))
        .collect();
    // Files whose hash is not known are hashed now (and dropped) when the cache may hold the
    // set: a touched but unchanged file must not cost a parse. A catalog seen for the first
    // time is read once, in the parse pass below.
    let need: Vec<usize> = (0..jobs.len())
        .filter(|&i| matches!(known.get(i), Some(Known::Unread)))
        .filter(|&i| {
            jobs.get(i).is_some_and(|j| {
                given.get(j.catalog).is_some_and(Option::is_none)
                    && prints
                        .get(j.catalog)
                        .and_then(Option::as_ref)
                        .is_some_and(|p| !p.is_empty())
            })
        })
        .collect();
    let hashed = parallel_map(&need, |&i| match jobs.get(i) {
        Some(j) => read(j).map(|bytes| blake3::hash(&bytes)),
        None => Err(LoadError::Io {
            path: Default::default(),
            source: std::io::Error::other("no such file"),
        }),
    });
    for (i, h) in need.into_iter().zip(hashed) {
        if let Some(k) = known.get_mut(i) {
            *k = Known::Hash(h?);
        }
    }
    if let Some(key) = set_key(&infos, &given, jobs, &known, opts) {
        record(&mut prints, jobs, &stamps, &known);
        // A package entry found damaged once read is had from the files again.
        let (again, again_opts) = (sources.to_vec(), opts.clone());
        let reload: set_cache::Reload =
            Box::new(move || CatalogSet::load(&again, &again_opts).map_err(|e| e.to_string()));
        if let Some(mut set) = set_cache::lookup(dir, &key, Some(reload)) {
            set.heavy = heavy_store(jobs, &known, &given, dir, opts);
            write_prints(prints, dir);
            super::note_loaded(&infos, "read back from the catalog cache");
            return Ok(set);
        }
    }
    // The files' records, each from its own entry or parsed.
    let parsed = parallel_map(&(0..jobs.len()).collect::<Vec<_>>(), |&i| {
        let (Some(j), Some(k)) = (jobs.get(i), known.get(i)) else {
            return Err(LoadError::Io {
                path: Default::default(),
                source: std::io::Error::other("no such file"),
            });
        };
        let r = records(j, *k, dir, opts);
        if tracker.is_active() {
            tracker.add(super::job_size(j));
        }
        r
    });
    let mut files = Vec::with_capacity(parsed.len());
    for ((j, k), r) in jobs.iter().zip(known.iter_mut()).zip(parsed) {
        let (hash, recs) = r?;
        *k = Known::Hash(hash);
        files.push((j.catalog, recs));
    }
    let mut set = super::assemble_files(infos.clone(), files)?;
    set.heavy = heavy_store(jobs, &known, &given, dir, opts);
    super::note_loaded(&infos, &format!("assembled from {} files", jobs.len()));
    if let Some(key) = set_key(&infos, &given, jobs, &known, opts) {
        set_cache::store(dir, &key, &set);
    }
    record(&mut prints, jobs, &stamps, &known);
    write_prints(prints, dir);
    Ok(set)
}

/// The hash of `j` known without reading it: its text's, or its fingerprint's when its
/// metadata are as recorded (never with `verify`).
fn known_hash(
    j: &FileJob,
    stamp: Option<&Stamp>,
    prints: &[Option<Fingerprints>],
    verify: bool,
) -> Known {
    if let Some(text) = &j.text {
        return Known::Hash(blake3::hash(text.as_bytes()));
    }
    let print = prints.get(j.catalog).and_then(Option::as_ref);
    match (print, stamp) {
        (Some(p), Some(s)) if !verify => p
            .known(&j.path.display().to_string(), s)
            .map_or(Known::Unread, Known::Hash),
        _ => Known::Unread,
    }
}

/// The set's key, when every catalog's contents are known.
fn set_key(
    infos: &[CatalogInfo],
    given: &[Option<&str>],
    jobs: &[FileJob],
    known: &[Known],
    opts: &LoadOptions,
) -> Option<blake3::Hash> {
    let names: Vec<String> = jobs.iter().map(|j| j.path.display().to_string()).collect();
    let mut catalogs = Vec::with_capacity(infos.len());
    for (i, info) in infos.iter().enumerate() {
        let contents = match given.get(i).copied().flatten() {
            Some(k) => Contents::Given(k),
            None => {
                let mut files = Vec::new();
                for ((j, k), name) in jobs.iter().zip(known).zip(&names) {
                    if j.catalog != i {
                        continue;
                    }
                    match k {
                        Known::Hash(h) => files.push((name.as_str(), *h)),
                        Known::Unread => return None,
                    }
                }
                Contents::Files(files)
            }
        };
        catalogs.push((info, contents));
    }
    Some(set_cache::key(&catalogs, opts.keep()))
}

/// Where the heavy values of a set loaded without them are: each file read from a path,
/// by its name, with its contents' hash (or its catalog's given key). None when the load
/// keeps them.
fn heavy_store(
    jobs: &[FileJob],
    known: &[Known],
    given: &[Option<&str>],
    dir: &Path,
    opts: &LoadOptions,
) -> Option<Arc<dyn HeavyValues>> {
    if opts.keep() != Keep::None {
        return None;
    }
    let mut files = FxHashMap::default();
    for (j, k) in jobs.iter().zip(known) {
        if j.text.is_some() {
            continue;
        }
        let basis = match (given.get(j.catalog).copied().flatten(), k) {
            (Some(g), _) => Basis::Given(g.to_string()),
            (None, Known::Hash(h)) => Basis::Content(*h),
            (None, Known::Unread) => continue,
        };
        let file = HeavyFile {
            path: j.path.clone(),
            format: j.format,
            basis,
        };
        files.insert(j.path.display().to_string(), file);
    }
    Some(Arc::new(HeavyStore {
        dir: dir.to_path_buf(),
        files,
    }))
}

/// Records the fingerprint of every listed file whose hash is known.
fn record(
    prints: &mut [Option<Fingerprints>],
    jobs: &[FileJob],
    stamps: &[Option<Stamp>],
    known: &[Known],
) {
    // Each pass records every file anew (a load that misses the stored set records twice).
    for p in prints.iter_mut().flatten() {
        p.forget_found();
    }
    for ((j, stamp), k) in jobs.iter().zip(stamps).zip(known) {
        if let (Some(Some(p)), Some(s), Known::Hash(h)) = (prints.get_mut(j.catalog), stamp, k) {
            p.found(&j.path.display().to_string(), *s, *h);
        }
    }
}

fn write_prints(prints: Vec<Option<Fingerprints>>, dir: &Path) {
    for p in prints.into_iter().flatten() {
        p.write(dir);
    }
}

/// A listed file's bytes (its text when it has one).
fn read(j: &FileJob) -> Result<Vec<u8>, LoadError> {
    match &j.text {
        Some(text) => Ok(text.clone().into_bytes()),
        None => limits::read_limited(&j.path, limits::max_file_size()),
    }
}

/// A file's content hash and records: from its entry when its hash is known and the entry is
/// there (the file is not read), else parsed. A file whose bytes no longer have the hash its
/// metadata gave (it changed during the load) is an error: loading again reads it anew.
fn records(
    j: &FileJob,
    known: Known,
    dir: &Path,
    opts: &LoadOptions,
) -> Result<(blake3::Hash, super::convert::Records), LoadError> {
    let file = j.path.display().to_string();
    let keep = opts.keep();
    match known {
        Known::Hash(h) => {
            let recs = cache::records_cached(dir, &file, &h, keep, |heavy| {
                let bytes = read(j)?;
                if blake3::hash(&bytes) != h {
                    return Err(LoadError::Io {
                        path: j.path.clone(),
                        source: std::io::Error::other(
                            "the file changed while it was being loaded; load again",
                        ),
                    });
                }
                parse_bytes(&file, &bytes, j.format, heavy)
            })?;
            Ok((h, recs))
        }
        Known::Unread => {
            let bytes = read(j)?;
            let h = blake3::hash(&bytes);
            let recs = cache::records_cached(dir, &file, &h, keep, |heavy| {
                parse_bytes(&file, &bytes, j.format, heavy)
            })?;
            Ok((h, recs))
        }
    }
}

#[cfg(test)]
mod tests;
