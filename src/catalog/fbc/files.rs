//! Catalogs as in-memory files: what the pipeline's catalog producers emit, what traces
//! record and replays load, with a per-file parse cache for `deppy watch`.

use std::hash::{BuildHasher, RandomState};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;

use super::convert::Records;
use super::heavy::{Heavy, Keep};
use super::parse::format_of;
use super::set_cache::Contents;
use super::{FileJob, LoadOptions, collect_files, parse_maybe_cached};
use crate::catalog::error::LoadError;
use crate::catalog::set::{CatalogInfo, CatalogSet, CatalogSource};
use crate::parallel::parallel_map;

/// One catalog file, as read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SourceFile {
    /// Path, as found while walking the catalog (names the file in errors).
    pub path: String,
    /// Contents.
    pub text: String,
}

/// Reads every file of a catalog (the same files, in the same order, as
/// [`CatalogSet::load`]). A catalog of bundle directories is one file: its rendering.
pub fn read_catalog(source: &CatalogSource) -> Result<Vec<SourceFile>, LoadError> {
    let mut jobs: Vec<FileJob> = Vec::new();
    collect_files(0, source, &mut jobs)?;
    // Files are read in parallel (the first error in file order is returned).
    let jobs: Vec<Mutex<FileJob>> = jobs.into_iter().map(Mutex::new).collect();
    parallel_map(&jobs, |j| {
        let mut j = j.lock().unwrap_or_else(PoisonError::into_inner);
        match j.text.take() {
            Some(text) => Ok(SourceFile {
                path: j.path.display().to_string(),
                text,
            }),
            None => read_file(&j.path),
        }
    })
    .into_iter()
    .collect()
}

fn read_file(path: &std::path::Path) -> Result<SourceFile, LoadError> {
    let bytes = super::limits::read_limited(path, super::limits::max_file_size())?;
    let path = path.display().to_string();
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile { path, text }),
        // The parser's own error, so every way of loading a catalog refuses the file alike.
        Err(e) => Err(
            match super::records::parse_bytes(
                &path,
                e.as_bytes(),
                format_of(Path::new(&path)),
                Heavy::Drop,
            ) {
                Err(err) => err,
                Ok(_) => LoadError::not_utf8(&path, "JSON", e.as_bytes()),
            },
        ),
    }
}

/// Parse results of files seen before, keyed by path and a hash of the contents: an
/// unchanged file is not parsed again, a changed one always is. The hash is BLAKE3 keyed
/// with a key drawn at random for each cache, so a file cannot be crafted to collide with
/// the text it replaces (and be served stale records).
pub struct FileCache {
    entries: FxHashMap<String, (blake3::Hash, Keep, Records)>,
    key: [u8; 32],
}

impl Default for FileCache {
    fn default() -> FileCache {
        // 256 key bits from std's randomly keyed hasher (the OS's randomness).
        let seed = RandomState::new();
        let mut key = [0u8; 32];
        for (i, chunk) in key.chunks_exact_mut(8).enumerate() {
            chunk.copy_from_slice(&seed.hash_one(i).to_le_bytes());
        }
        FileCache {
            entries: FxHashMap::default(),
            key,
        }
    }
}

impl FileCache {
    /// An empty cache.
    pub fn new() -> FileCache {
        FileCache::default()
    }

    fn content_hash(&self, text: &str) -> blake3::Hash {
        blake3::keyed_hash(&self.key, text.as_bytes())
    }
}

fn parse_source_file(f: &SourceFile, opts: &LoadOptions) -> Result<Records, LoadError> {
    let format = format_of(std::path::Path::new(&f.path));
    parse_maybe_cached(opts, &f.path, f.text.as_bytes(), format)
}

impl CatalogSet {
    /// Loads catalogs from files already read: the same result as [`CatalogSet::load`] on
    /// the files they were read from. Catalog `i` gets `CatalogId(i)`.
    pub fn load_files(
        catalogs: &[(CatalogSource, Vec<SourceFile>)],
        opts: &LoadOptions,
    ) -> Result<CatalogSet, LoadError> {
        Self::load_files_cached(catalogs, opts, &mut FileCache::new())
    }

    /// As [`CatalogSet::load_files`], parsing only files `cache` has not seen with the same
    /// contents.
    pub(crate) fn load_files_cached(
        catalogs: &[(CatalogSource, Vec<SourceFile>)],
        opts: &LoadOptions,
        cache: &mut FileCache,
    ) -> Result<CatalogSet, LoadError> {
        let borrowed: Vec<(&CatalogSource, &[SourceFile])> =
            catalogs.iter().map(|(s, f)| (s, f.as_slice())).collect();
        Self::load_file_slices_cached(&borrowed, opts, cache)
    }

    /// As [`CatalogSet::load_files`], with the files borrowed (the pipeline's catalogs are
    /// shared, and their texts need not be copied to be loaded). With a cache directory in
    /// `opts`, the set assembled from the same files before is read back whole when the cache
    /// holds it (`set_cache`); else each file's records move straight into the set.
    pub(crate) fn load_file_slices(
        catalogs: &[(&CatalogSource, &[SourceFile])],
        opts: &LoadOptions,
    ) -> Result<CatalogSet, LoadError> {
        let Some(dir) = &opts.cache_dir else {
            return Self::assemble_file_slices(catalogs, opts);
        };
        let files = numbered(catalogs);
        let hashes = parallel_map(&files, |(_, f)| blake3::hash(f.text.as_bytes()));
        let infos: Vec<CatalogInfo> = catalogs.iter().map(|(s, _)| CatalogInfo::of(s)).collect();
        let contents =
            catalogs
                .iter()
                .enumerate()
                .map(|(i, (s, _))| match opts.content_keys.get(&s.path) {
                    Some(k) => Contents::Given(k),
                    None => Contents::Files(
                        files
                            .iter()
                            .zip(&hashes)
                            .filter(|((c, _), _)| *c == i)
                            .map(|((_, f), h)| (f.path.as_str(), *h))
                            .collect(),
                    ),
                });
        let keyed: Vec<(&CatalogInfo, Contents<'_>)> = infos.iter().zip(contents).collect();
        let key = super::set_cache::key(&keyed, opts.keep());
        // The files are borrowed: a package entry found damaged once read is reported as
        // the set's damage ([`CatalogSet::cache_damage`]), not reloaded.
        if let Some(set) = super::set_cache::lookup(dir, &key, None) {
            super::note_loaded(&infos, "read back from the catalog cache");
            return Ok(set);
        }
        let set = Self::assemble_file_slices(catalogs, opts)?;
        super::set_cache::store(dir, &key, &set);
        Ok(set)
    }

    /// Each file's records (through the file cache of `opts`), assembled into the set.
    fn assemble_file_slices(
        catalogs: &[(&CatalogSource, &[SourceFile])],
        opts: &LoadOptions,
    ) -> Result<CatalogSet, LoadError> {
        let files = numbered(catalogs);
        let parsed = parallel_map(&files, |(_, f)| parse_source_file(f, opts));
        let mut records = Vec::with_capacity(parsed.len());
        for ((i, _), r) in files.iter().zip(parsed) {
            records.push((*i, r?));
        }
        let infos: Vec<CatalogInfo> = catalogs.iter().map(|(s, _)| CatalogInfo::of(s)).collect();
        super::note_loaded(&infos, &format!("assembled from {} files", records.len()));
        super::assemble_files(infos, records)
    }

    /// As [`CatalogSet::load_files_cached`], with the files borrowed (the pipeline's
    /// catalogs are shared, and their texts need not be copied to be loaded).
    pub(crate) fn load_file_slices_cached(
        catalogs: &[(&CatalogSource, &[SourceFile])],
        opts: &LoadOptions,
        cache: &mut FileCache,
    ) -> Result<CatalogSet, LoadError> {
        let keep = opts.keep();
        let files = numbered(catalogs);
        let hashes = parallel_map(&files, |(_, f)| cache.content_hash(&f.text));
        let all: Vec<(usize, &SourceFile, blake3::Hash)> = files
            .into_iter()
            .zip(hashes)
            .map(|((i, f), h)| (i, f, h))
            .collect();
        let stale: Vec<&(usize, &SourceFile, blake3::Hash)> = all
            .iter()
            .filter(|(_, f, h)| {
                cache
                    .entries
                    .get(&f.path)
                    .is_none_or(|(ch, ck, _)| *ch != *h || *ck != keep)
            })
            .collect();
        let parsed = parallel_map(&stale, |(_, f, _)| parse_source_file(f, opts));
        for ((_, f, h), r) in stale.iter().zip(parsed) {
            cache.entries.insert(f.path.clone(), (*h, keep, r?));
        }
        // Each catalog's records, copied once out of the cache into vectors of their final
        // size (no intermediate per-file copies, no regrowing).
        let infos: Vec<CatalogInfo> = catalogs.iter().map(|(s, _)| CatalogInfo::of(s)).collect();
        super::note_loaded(
            &infos,
            &format!(
                "assembled from {} files ({} parsed)",
                all.len(),
                stale.len()
            ),
        );
        let recs_of = |f: &SourceFile| cache.entries.get(&f.path).map(|(_, _, r)| r);
        let mut per_catalog: Vec<(CatalogInfo, Records)> = catalogs
            .iter()
            .map(|(s, _)| (CatalogInfo::of(s), Records::default()))
            .collect();
        for (i, (_, acc)) in per_catalog.iter_mut().enumerate() {
            let mine = all
                .iter()
                .filter(move |(c, _, _)| *c == i)
                .filter_map(|(_, f, _)| recs_of(f));
            acc.reserve_for(mine.clone());
            for r in mine {
                acc.extend_from(r);
            }
        }
        super::assemble::assemble(per_catalog)
    }
}

/// Every file of every catalog, with its catalog's index, in catalog then file order.
fn numbered<'a>(catalogs: &[(&CatalogSource, &'a [SourceFile])]) -> Vec<(usize, &'a SourceFile)> {
    catalogs
        .iter()
        .enumerate()
        .flat_map(|(i, (_, files))| files.iter().map(move |f| (i, f)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> CatalogSource {
        CatalogSource {
            name: "odf".into(),
            path: "catalogs/odf-dev".into(),
            priority: 0,
        }
    }

    #[test]
    fn files_load_like_the_directory() {
        let s = source();
        let direct =
            CatalogSet::load(std::slice::from_ref(&s), &LoadOptions::default()).expect("load");
        let files = read_catalog(&s).expect("read");
        let mem = CatalogSet::load_files(&[(s, files)], &LoadOptions::default()).expect("mem");
        assert_eq!(direct.bundles.len(), mem.bundles.len());
        let names = |c: &CatalogSet| c.bundles.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&direct), names(&mem));
        assert_eq!(direct.warnings.len(), mem.warnings.len());
    }

    #[test]
    fn uncached_slices_load_like_the_cache() {
        let s = source();
        let files = read_catalog(&s).expect("read");
        let opts = LoadOptions::default();
        let slices: [(&CatalogSource, &[SourceFile]); 1] = [(&s, &files)];
        let plain = CatalogSet::load_file_slices(&slices, &opts).expect("plain");
        let cached =
            CatalogSet::load_file_slices_cached(&slices, &opts, &mut FileCache::new()).expect("c");
        let show = |c: &CatalogSet| format!("{:?}{:?}{:?}", c.bundles, c.packages, c.warnings);
        assert_eq!(show(&plain), show(&cached));
    }

    #[test]
    fn cache_reparses_only_changed_files() {
        let s = source();
        let mut files = read_catalog(&s).expect("read");
        let mut cache = FileCache::new();
        let opts = LoadOptions::default();
        let a = CatalogSet::load_files_cached(&[(s.clone(), files.clone())], &opts, &mut cache)
            .expect("first");
        let broken = files.len();
        files.push(SourceFile {
            path: "extra.yaml".into(),
            text: "schema: olm.package\nname: extra\ndefaultChannel: x\n".into(),
        });
        let b = CatalogSet::load_files_cached(&[(s, files)], &opts, &mut cache).expect("second");
        assert_eq!(cache.entries.len(), broken + 1);
        assert_eq!(a.bundles.len(), b.bundles.len());
        assert_eq!(b.packages.len(), a.packages.len() + 1);
    }

    #[test]
    fn a_changed_file_is_never_served_from_the_cache() {
        let s = source();
        let opts = LoadOptions::default();
        let mut cache = FileCache::new();
        let file = |name: &str| SourceFile {
            path: "x.yaml".into(),
            text: format!("schema: olm.package\nname: {name}\ndefaultChannel: x\n"),
        };
        let load = |cache: &mut FileCache, f: SourceFile| {
            let set =
                CatalogSet::load_files_cached(&[(s.clone(), vec![f])], &opts, cache).expect("load");
            set.packages
                .iter()
                .map(|p| set.package_name(p.id).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(load(&mut cache, file("aaa")), ["aaa"]);
        // Same path, same length, other contents: parsed again.
        assert_eq!(load(&mut cache, file("bbb")), ["bbb"]);
        // A file that no longer parses is an error, not the last good records.
        let broken = SourceFile {
            path: "x.yaml".into(),
            text: "schema: olm.package\nname: [\n".into(),
        };
        assert!(
            CatalogSet::load_files_cached(&[(s.clone(), vec![broken])], &opts, &mut cache).is_err()
        );
        assert_eq!(load(&mut cache, file("bbb")), ["bbb"]);
    }
}
