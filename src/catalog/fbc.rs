//! Loading File-Based Catalogs: walking a catalog's files, parsing JSON and YAML documents
//! (in parallel across files), and merging several catalogs into one [`CatalogSet`].

mod assemble;
mod convert;
mod docs;
mod parse;
mod yaml;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rustc_hash::FxHashSet;

use super::error::LoadError;
use super::set::{CatalogInfo, CatalogSet, CatalogSource};
use convert::Records;
use parse::FileCtx;

/// How to load catalogs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Keep heavy opaque properties (`olm.csv.metadata`, `olm.bundle.object`) as raw JSON in
    /// [`super::Bundle::properties`]. Off by default: they are skipped without being parsed
    /// into trees. Light opaque properties are always kept.
    pub keep_heavy_properties: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Yaml,
}

/// One file to read, with its catalog.
struct FileJob {
    catalog: usize,
    path: PathBuf,
    format: Option<Format>,
}

fn format_of(path: &Path) -> Option<Format> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => Some(Format::Json),
        Some("yaml" | "yml") => Some(Format::Yaml),
        _ => None,
    }
}

fn io_error(path: &Path, source: std::io::Error) -> LoadError {
    LoadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Files of one catalog: the path itself when it is a file (any extension), else every
/// `.json` / `.yaml` / `.yml` file below it, depth first in sorted name order. Hidden
/// entries (`.name`) are skipped; a symlinked directory is read once.
fn collect_files(
    catalog: usize,
    source: &CatalogSource,
    out: &mut Vec<FileJob>,
) -> Result<(), LoadError> {
    let path = &source.path;
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => LoadError::MissingPath {
            catalog: source.name.clone(),
            path: path.clone(),
        },
        _ => io_error(path, e),
    })?;
    if !meta.is_dir() {
        out.push(FileJob {
            catalog,
            path: path.clone(),
            format: format_of(path),
        });
        return Ok(());
    }
    // Directories reached through a symlink are read once (by canonical path), so a link
    // to an ancestor cannot loop.
    let mut visited = FxHashSet::default();
    visited.extend(std::fs::canonicalize(path).ok());
    let mut stack = vec![sorted_dir(path)?.into_iter()];
    while let Some(top) = stack.last_mut() {
        let Some((entry, file_type)) = top.next() else {
            stack.pop();
            continue;
        };
        let hidden = entry
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        let is_dir = if file_type.is_symlink() {
            let is_dir = std::fs::metadata(&entry).is_ok_and(|m| m.is_dir());
            let canonical = std::fs::canonicalize(&entry).map_err(|e| io_error(&entry, e))?;
            if is_dir && !visited.insert(canonical) {
                continue;
            }
            is_dir
        } else {
            file_type.is_dir()
        };
        if is_dir {
            stack.push(sorted_dir(&entry)?.into_iter());
        } else if let Some(format) = format_of(&entry) {
            out.push(FileJob {
                catalog,
                path: entry,
                format: Some(format),
            });
        }
    }
    Ok(())
}

/// A directory's entries sorted by name, with their (unfollowed) file types.
fn sorted_dir(dir: &Path) -> Result<Vec<(PathBuf, std::fs::FileType)>, LoadError> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let entry = entry.map_err(|e| io_error(dir, e))?;
        let file_type = entry.file_type().map_err(|e| io_error(&entry.path(), e))?;
        entries.push((entry.path(), file_type));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

fn parse_file(job: &FileJob, keep_heavy: bool) -> Result<Records, LoadError> {
    let bytes = std::fs::read(&job.path).map_err(|e| io_error(&job.path, e))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let file = job.path.display().to_string();
    let ctx = FileCtx { file: &file };
    let format =
        job.format
            .unwrap_or_else(|| match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{') => Format::Json,
                _ => Format::Yaml,
            });
    let mut recs = Records::default();
    match (format, keep_heavy) {
        (Format::Json, _) => parse::parse_json(&ctx, bytes, &mut |o, d| recs.add(o, d, keep_heavy)),
        (Format::Yaml, true) => {
            yaml::parse_yaml::<true>(&ctx, bytes, &mut |o, d| recs.add(o, d, true))
        }
        (Format::Yaml, false) => {
            yaml::parse_yaml::<false>(&ctx, bytes, &mut |o, d| recs.add(o, d, false))
        }
    }?;
    Ok(recs)
}

/// Parses every file, on up to `available_parallelism` threads; results keep file order.
fn parse_files(jobs: &[FileJob], keep_heavy: bool) -> Vec<Result<Records, LoadError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(jobs.len());
    if threads <= 1 {
        return jobs.iter().map(|j| parse_file(j, keep_heavy)).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<Records, LoadError>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    local.push((i, parse_file(job, keep_heavy)));
                }
                if let Ok(mut r) = results.lock() {
                    r.extend(local);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

impl CatalogSet {
    /// Loads catalogs (each a file or a directory tree of FBC documents), in the given order:
    /// the first source gets `CatalogId(0)`. Ids are canonical: the same documents in any file
    /// or document order give the same ids. Tolerated problems end up in
    /// [`CatalogSet::warnings`]; the first fatal one (in catalog, file and document order) is
    /// returned as an error.
    pub fn load(sources: &[CatalogSource], opts: &LoadOptions) -> Result<CatalogSet, LoadError> {
        let mut jobs = Vec::new();
        for (i, source) in sources.iter().enumerate() {
            collect_files(i, source, &mut jobs)?;
        }
        let results = parse_files(&jobs, opts.keep_heavy_properties);
        let mut per_catalog: Vec<(CatalogInfo, Records)> = sources
            .iter()
            .map(|s| {
                let info = CatalogInfo {
                    name: s.name.clone(),
                    priority: s.priority,
                    path: s.path.display().to_string(),
                };
                (info, Records::default())
            })
            .collect();
        for (job, result) in jobs.iter().zip(results) {
            let recs = result?;
            if let Some((_, acc)) = per_catalog.get_mut(job.catalog) {
                acc.extend(recs);
            }
        }
        assemble::assemble(per_catalog)
    }
}
