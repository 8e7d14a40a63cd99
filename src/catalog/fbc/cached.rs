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

use super::fingerprint::{Fingerprints, Stamp};
use super::set_cache::{self, Contents};
use super::{FileJob, LoadOptions, cache, limits, parse_bytes};
use crate::catalog::error::LoadError;
use crate::catalog::set::{CatalogInfo, CatalogSet, CatalogSource};
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

/// Loads `jobs` (every catalog's files, in load order) through the cache in `dir`.
pub(super) fn load(
    sources: &[CatalogSource],
    jobs: &[FileJob],
    opts: &LoadOptions,
    dir: &Path,
    tracker: &Tracker<'_>,
) -> Result<CatalogSet, LoadError> {
    let infos: Vec<CatalogInfo> = sources.iter().map(CatalogInfo::of).collect();
    let given: Vec<Option<&str>> = sources
        .iter()
        .map(|s| opts.content_keys.get(&s.path).map(String::as_str))
        .collect();
    let mut prints: Vec<Option<Fingerprints>> = sources
        .iter()
        .zip(&given)
        .map(|(s, g)| g.is_none().then(|| Fingerprints::read(dir, &s.path)))
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
        if let Some(set) = set_cache::lookup(dir, &key, Some(reload)) {
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
    let set = super::assemble_files(infos.clone(), files)?;
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
    Some(set_cache::key(&catalogs, opts.keep_heavy_properties))
}

/// Records the fingerprint of every listed file whose hash is known.
fn record(
    prints: &mut [Option<Fingerprints>],
    jobs: &[FileJob],
    stamps: &[Option<Stamp>],
    known: &[Known],
) {
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
    let keep = opts.keep_heavy_properties;
    match known {
        Known::Hash(h) => {
            let recs = cache::records_cached(dir, &file, &h, keep, || {
                let bytes = read(j)?;
                if blake3::hash(&bytes) != h {
                    return Err(LoadError::Io {
                        path: j.path.clone(),
                        source: std::io::Error::other(
                            "the file changed while it was being loaded; load again",
                        ),
                    });
                }
                parse_bytes(&file, &bytes, j.format, keep)
            })?;
            Ok((h, recs))
        }
        Known::Unread => {
            let bytes = read(j)?;
            let h = blake3::hash(&bytes);
            let recs = cache::records_cached(dir, &file, &h, keep, || {
                parse_bytes(&file, &bytes, j.format, keep)
            })?;
            Ok((h, recs))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    const A: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"s"}
{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1.0.0"}]}
{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}
"#;
    const B: &str = r#"{"schema":"olm.package","name":"b","defaultChannel":"s"}
{"schema":"olm.channel","package":"b","name":"s","entries":[{"name":"b.v1.0.0"}]}
{"schema":"olm.bundle","name":"b.v1.0.0","package":"b","properties":[{"type":"olm.package","value":{"packageName":"b","version":"1.0.0"}}]}
"#;

    struct Fixture {
        _tmp: tempfile::TempDir,
        catalog: std::path::PathBuf,
        cache: std::path::PathBuf,
    }

    /// A catalog of two files, their times set well in the past (outside the racy window).
    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let catalog = tmp.path().join("cat");
        std::fs::create_dir_all(catalog.join("a")).unwrap();
        std::fs::create_dir_all(catalog.join("b")).unwrap();
        write_old(&catalog.join("a/catalog.json"), A);
        write_old(&catalog.join("b/catalog.json"), B);
        let cache = tmp.path().join("cache");
        Fixture {
            _tmp: tmp,
            catalog,
            cache,
        }
    }

    /// Writes `text`, its modification time an hour back.
    fn write_old(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        set_old(path);
    }

    fn set_old(path: &Path) {
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    }

    fn load(f: &Fixture, verify: bool) -> CatalogSet {
        let source = CatalogSource {
            name: "cat".into(),
            path: f.catalog.clone(),
            priority: 0,
        };
        let opts = LoadOptions {
            cache_dir: Some(f.cache.clone()),
            verify_cache: verify,
            ..LoadOptions::default()
        };
        CatalogSet::load(&[source], &opts).unwrap()
    }

    fn versions(set: &CatalogSet) -> Vec<String> {
        set.bundles
            .iter()
            .map(|b| format!("{} {}", b.name, b.version))
            .collect()
    }

    /// Loads until the files' fingerprints are trusted (the status-change time of a file
    /// written by the test is recent, so the first fingerprint is within the racy window).
    fn warm(f: &Fixture) -> CatalogSet {
        let cold = load(f, false);
        assert_eq!(cold.decoded_entries(), None);
        age_prints(f);
        load(f, false)
    }

    /// Moves every fingerprint entry's recorded writing time an hour forward, as if the
    /// files had been fingerprinted long after they were written.
    fn age_prints(f: &Fixture) {
        for e in std::fs::read_dir(&f.cache).unwrap() {
            let path = e.unwrap().path();
            let entry = std::fs::read(&path).unwrap();
            let Some(key) = super::super::fingerprint::key_of_entry(&entry) else {
                continue;
            };
            let payload = cache::check(&entry, &key).unwrap();
            let mut prints: super::super::fingerprint::Prints =
                cache::whole(payload, "prints").unwrap();
            prints.written += 3600 * 1_000_000_000;
            let payload = postcard::to_allocvec(&prints).unwrap();
            std::fs::write(&path, cache::entry(&key, &payload)).unwrap();
        }
    }

    #[test]
    fn an_unchanged_catalog_is_not_read() {
        let f = fixture();
        let warm = warm(&f);
        assert!(warm.decoded_entries().is_some(), "not from the cache");
        // Unreadable files are not read: their metadata say they are unchanged.
        use std::os::unix::fs::PermissionsExt;
        let file = f.catalog.join("a/catalog.json");
        let mode = std::fs::metadata(&file).unwrap().permissions();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
        let unreadable = std::fs::read(&file).is_err();
        let again = load(&f, false);
        std::fs::set_permissions(&file, mode).unwrap();
        if unreadable {
            assert!(again.decoded_entries().is_some());
        }
        assert_eq!(versions(&again), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
    }

    #[test]
    fn an_edited_file_is_read_again() {
        let f = fixture();
        warm(&f);
        write_old(
            &f.catalog.join("a/catalog.json"),
            &A.replace("1.0.0", "1.0.10"),
        );
        let set = load(&f, false);
        assert_eq!(set.decoded_entries(), None);
        assert_eq!(versions(&set), ["a.v1.0.10 1.0.10", "b.v1.0.0 1.0.0"]);
    }

    #[test]
    fn a_touched_file_is_hashed_not_parsed() {
        let f = fixture();
        warm(&f);
        let file = f.catalog.join("a/catalog.json");
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(60))
            .unwrap();
        let set = load(&f, false);
        assert!(
            set.decoded_entries().is_some(),
            "same contents: the stored set"
        );
        assert_eq!(versions(&set), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
    }

    #[test]
    fn a_same_size_rewrite_is_caught_with_verify() {
        let f = fixture();
        warm(&f);
        // Same size, same modification time: only the contents differ.
        let file = f.catalog.join("a/catalog.json");
        let before = std::fs::metadata(&file).unwrap().modified().unwrap();
        std::fs::write(&file, A.replace("1.0.0", "2.0.0")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(before)
            .unwrap();
        let verified = load(&f, true);
        assert_eq!(verified.decoded_entries(), None);
        assert_eq!(versions(&verified), ["a.v2.0.0 2.0.0", "b.v1.0.0 1.0.0"]);
        // Without it, the status-change time (which no write can keep) gives it away too.
        assert_eq!(versions(&load(&f, false)), versions(&verified));
    }

    #[test]
    fn a_replaced_file_is_read_again() {
        let f = fixture();
        warm(&f);
        let file = f.catalog.join("b/catalog.json");
        let other = f.catalog.join("b/new.tmp");
        write_old(&other, &B.replace("1.0.0", "3.0.0"));
        std::fs::rename(&other, &file).unwrap();
        let set = load(&f, false);
        assert_eq!(versions(&set), ["a.v1.0.0 1.0.0", "b.v3.0.0 3.0.0"]);
    }

    #[test]
    fn a_deleted_file_is_gone() {
        let f = fixture();
        warm(&f);
        std::fs::remove_file(f.catalog.join("b/catalog.json")).unwrap();
        let set = load(&f, false);
        assert_eq!(versions(&set), ["a.v1.0.0 1.0.0"]);
        // And back: the stored set of both files is found again.
        write_old(&f.catalog.join("b/catalog.json"), B);
        let back = load(&f, false);
        assert_eq!(versions(&back), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
    }

    #[test]
    fn a_given_content_key_stands_for_the_files() {
        let f = fixture();
        let opts = |k: &str| LoadOptions {
            cache_dir: Some(f.cache.clone()),
            content_keys: [(f.catalog.clone(), k.to_string())].into(),
            ..LoadOptions::default()
        };
        let source = CatalogSource {
            name: "cat".into(),
            path: f.catalog.clone(),
            priority: 0,
        };
        let load = |k: &str| CatalogSet::load(std::slice::from_ref(&source), &opts(k)).unwrap();
        assert_eq!(load("sha256:1").decoded_entries(), None);
        // The files are not looked at: the key says they are the same.
        std::fs::remove_file(f.catalog.join("b/catalog.json")).unwrap();
        let same = load("sha256:1");
        assert!(same.decoded_entries().is_some());
        assert_eq!(versions(&same), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
        assert_eq!(versions(&load("sha256:2")), ["a.v1.0.0 1.0.0"]);
    }

    /// Flips a byte of the first package entry of the stored set's entry; returns its path.
    fn damage_set_entry(f: &Fixture) -> std::path::PathBuf {
        for e in std::fs::read_dir(&f.cache).unwrap() {
            let path = e.unwrap().path();
            let mut bytes = std::fs::read(&path).unwrap();
            if !bytes.starts_with(b"deppy-catalog-set ") {
                continue;
            }
            let newline = bytes.iter().position(|b| *b == b'\n').unwrap();
            let header = String::from_utf8_lossy(&bytes[..newline]).into_owned();
            let head_len: usize = header.split(' ').nth(4).unwrap().parse().unwrap();
            bytes[newline + 1 + head_len + 2] ^= 0x55;
            std::fs::write(&path, &bytes).unwrap();
            return path;
        }
        panic!("no stored set");
    }

    #[test]
    fn a_damaged_package_entry_is_loaded_again_from_the_files() {
        let f = fixture();
        let sound = versions(&warm(&f));
        let entry = damage_set_entry(&f);
        let damaged = load(&f, false);
        assert!(
            damaged.decoded_entries().is_some(),
            "not read from the entry"
        );
        assert_eq!(versions(&damaged), sound);
        assert_eq!(damaged.cache_damage(), None);
        assert!(entry.exists(), "the entry was not stored again");
        age_prints(&f);
        assert!(load(&f, false).decoded_entries().is_some());
        // Files that no longer give the stored set (changed since it was read) are not
        // taken for it: the damage is reported.
        damage_set_entry(&f);
        let damaged = load(&f, false);
        assert!(
            damaged.decoded_entries().is_some(),
            "not read from the entry"
        );
        std::fs::remove_file(f.catalog.join("b/catalog.json")).unwrap();
        let _ = versions(&damaged);
        let damage = damaged.cache_damage().unwrap_or_default();
        assert!(damage.contains("no longer give the stored set"), "{damage}");
    }
}
