//! Loading File-Based Catalogs: walking a catalog's files, parsing JSON and YAML documents
//! (in parallel across files), and merging several catalogs into one [`CatalogSet`].

mod assemble;
mod bundle_props;
mod cache;
mod cached;
mod convert;
mod docs;
mod files;
mod fingerprint;
mod gvk_table;
mod heavy;
pub(in crate::catalog) mod heavy_store;
pub mod limits;
mod locate;
mod parse;
mod records;
mod set_cache;
mod shared;
mod yaml;

use crate::parallel::parallel_map;
use crate::progress::{Progress, Task, Tracker};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashSet;

use super::error::LoadError;
use super::set::{CatalogInfo, CatalogSet, CatalogSource};
use super::walk::{self, Kind, Root};
use convert::Records;
use parse::{Format, format_of};

pub(crate) use crate::yaml::{yaml_message, yaml_options};
pub use files::{FileCache, SourceFile, read_catalog};
pub use locate::locate;
#[cfg(feature = "testing")]
pub use set_cache::hooks::{decode_entry, encode_entry};
pub(crate) use yaml::split_yaml_bounded;

/// How to load catalogs.
///
/// The example on [`crate::CatalogSet`] uses the defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Keep heavy opaque properties (`olm.csv.metadata`, `olm.bundle.object`) as raw JSON in
    /// [`super::Bundle::properties`]. Off by default: they are skipped without being parsed
    /// into trees. Light opaque properties are always kept.
    pub keep_heavy_properties: bool,
    /// Keep `olm.bundle.object` values (a bundle's manifests) in
    /// [`super::Bundle::properties`], without the other heavy kind: what the cluster's CRD
    /// check reads, when no cache directory holds them ([`CatalogSet::bundle_properties`]).
    /// Implied by `keep_heavy_properties`.
    pub keep_bundle_objects: bool,
    /// Keep each file's parsed records in this directory and reuse them while the file is
    /// unchanged (the catalog cache: a corrupt or stale entry is rebuilt, never trusted);
    /// `None` parses every time. A file is taken to be unchanged when its metadata (size,
    /// modification and status-change times, inode, device) are as recorded, without
    /// reading it; see `docs/caching.md`.
    pub cache_dir: Option<PathBuf>,
    /// With a cache directory: read and hash every catalog file's contents to tell whether
    /// it changed, instead of trusting unchanged metadata (`--verify-cache`).
    pub verify_cache: bool,
    /// With a cache directory: a key standing for a catalog's contents, by the catalog's path
    /// as its [`CatalogSource`] gives it (an image's manifest digest, for a catalog pulled
    /// from a registry into a directory named by it). Such a catalog's files are neither
    /// fingerprinted nor hashed to find its stored set: the caller vouches that the key
    /// changes whenever they do.
    pub content_keys: std::collections::BTreeMap<PathBuf, String>,
}

impl LoadOptions {
    /// Which heavy values these options keep in memory.
    pub(crate) fn keep(&self) -> heavy::Keep {
        match (self.keep_heavy_properties, self.keep_bundle_objects) {
            (true, _) => heavy::Keep::All,
            (false, true) => heavy::Keep::Objects,
            (false, false) => heavy::Keep::None,
        }
    }
}

/// One file to read, with its catalog.
struct FileJob {
    catalog: usize,
    path: PathBuf,
    format: Option<Format>,
    /// The text, when it is not read from `path` (a catalog rendered from bundle
    /// directories).
    text: Option<String>,
}

fn io_error(path: &Path, source: std::io::Error) -> LoadError {
    LoadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Files of one catalog: the path itself when it is a file (any extension); one JSON text
/// rendered from bundle directories when it is a bundle directory or a directory of them
/// (`super::bundle_dir`); else every `.json` / `.yaml` / `.yml` file below it, depth first
/// in sorted name order, as the catalog walk lists them (`super::walk`: hidden entries,
/// special files and links out of the catalog are not read); `-` is standard input.
fn collect_files(
    catalog: usize,
    source: &CatalogSource,
    out: &mut Vec<FileJob>,
) -> Result<(), LoadError> {
    collect_files_walked(catalog, source, out, &mut Walked::default())
}

/// What a catalog walk read: every directory it listed, in walk order, and whether every
/// entry it met was a plain directory or regular file (no link, nothing skipped).
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// The directories listed (none when the catalog is a file or bundle directories).
    pub dirs: Vec<PathBuf>,
    /// False when the walk met a link, an entry of a type its listing did not give, or an
    /// entry it skipped.
    pub plain: bool,
}

/// [`collect_files`], saying in `walked` what the walk read.
fn collect_files_walked(
    catalog: usize,
    source: &CatalogSource,
    out: &mut Vec<FileJob>,
    walked: &mut Walked,
) -> Result<(), LoadError> {
    walked.dirs.clear();
    walked.plain = false;
    let path = &source.path;
    if crate::input::is_stdin(path) {
        out.push(FileJob {
            catalog,
            path: path.clone(),
            format: None,
            text: None,
        });
        return Ok(());
    }
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
            text: None,
        });
        return Ok(());
    }
    // Looking for bundle directories reads the top of the tree; the walk below takes those
    // listings instead of reading the same directories again.
    let mut listings = super::bundle_dir::Listings::default();
    if let Some(file) = super::bundle_dir::render_catalog_dir(path, &mut listings)? {
        out.push(FileJob {
            catalog,
            path: PathBuf::from(file.path),
            format: Some(Format::Json),
            text: Some(file.text),
        });
        return Ok(());
    }
    // The catalog walk (see `walk`): links are followed inside the catalog only, special
    // files are never opened, and every directory is entered once (by canonical path), so a
    // link to an ancestor cannot loop and a link to a sibling does not read it twice.
    let root = Root::new(path);
    let mut visited = FxHashSet::default();
    visited.extend(dir_identity(path));
    let mut plain = true;
    let mut dirs = Vec::new();
    let mut read = |dir: &Path| {
        dirs.push(dir.to_path_buf());
        match listings.remove(dir) {
            Some(listing) => Ok(listing),
            None => walk::list(dir, &root),
        }
    };
    let mut stack = vec![read(path)?.into_iter()];
    while let Some(top) = stack.last_mut() {
        let Some(entry) = top.next() else {
            stack.pop();
            continue;
        };
        plain &= !entry.looked_up;
        match entry.kind {
            Kind::Dir => {
                // Each directory once, however it is reached (itself, or a link to it).
                if let Some(id) = dir_identity(&entry.path)
                    && !visited.insert(id)
                {
                    continue;
                }
                stack.push(read(&entry.path)?.into_iter());
            }
            Kind::File => {
                if let Some(format) = format_of(&entry.path) {
                    out.push(FileJob {
                        catalog,
                        path: entry.path,
                        format: Some(format),
                        text: None,
                    });
                }
            }
            // Skipped where a regular file (or a directory) would be read; ignored where it
            // would be ignored.
            Kind::Skipped(_) => {
                plain = false;
                if (format_of(&entry.path).is_some() || entry.path.is_dir())
                    && let Some(w) = entry.skipped_warning()
                {
                    log::warn!("{w}");
                }
            }
        }
    }
    walked.dirs = dirs;
    walked.plain = plain;
    Ok(())
}

/// Checks that a catalog's path exists (the error loading it would give when it does not).
pub(crate) fn check_source(source: &CatalogSource) -> Result<(), LoadError> {
    if crate::input::is_stdin(&source.path) {
        return Ok(());
    }
    match std::fs::metadata(&source.path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::MissingPath {
            catalog: source.name.clone(),
            path: source.path.clone(),
        }),
        Err(e) => Err(io_error(&source.path, e)),
    }
}

/// What tells a directory from every other, however it is reached: its device and inode
/// (one `stat`; resolving the canonical path instead reads every link of every component).
#[cfg(unix)]
fn dir_identity(path: &Path) -> Option<(u64, u64, PathBuf)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino(), PathBuf::new()))
}

/// What tells a directory from every other: its canonical path.
#[cfg(not(unix))]
fn dir_identity(path: &Path) -> Option<(u64, u64, PathBuf)> {
    Some((0, 0, std::fs::canonicalize(path).ok()?))
}

/// Bytes of a file to read (0 when it cannot be looked up: reading it will say why).
fn job_size(job: &FileJob) -> u64 {
    match &job.text {
        Some(text) => text.len() as u64,
        None => std::fs::metadata(&job.path).map_or(0, |m| m.len()),
    }
}

fn parse_file(job: &FileJob, opts: &LoadOptions) -> Result<Records, LoadError> {
    let file = job.path.display().to_string();
    match &job.text {
        Some(text) => parse_maybe_cached(opts, &file, text.as_bytes(), job.format),
        None => {
            let bytes = limits::read_limited(&job.path, limits::max_file_size())?;
            parse_maybe_cached(opts, &file, &bytes, job.format)
        }
    }
}

/// Parses a file's bytes, through the catalog cache when `opts` names one.
fn parse_maybe_cached(
    opts: &LoadOptions,
    file: &str,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<Records, LoadError> {
    let keep = opts.keep();
    match &opts.cache_dir {
        Some(dir) => cache::parse_cached(dir, file, bytes, keep, |h| {
            records::parse_bytes(file, bytes, format, h)
        }),
        None => records::parse_bytes(file, bytes, format, keep.heavy()),
    }
}

impl CatalogSet {
    /// Loads catalogs (each a file or a directory tree of FBC documents), in the given order:
    /// the first source gets `CatalogId(0)`. Ids are canonical: the same documents in any file
    /// or document order give the same ids. Tolerated problems end up in
    /// [`CatalogSet::warnings`]; the first fatal one (in catalog, file and document order) is
    /// returned as an error.
    pub fn load(sources: &[CatalogSource], opts: &LoadOptions) -> Result<CatalogSet, LoadError> {
        Self::load_reporting(sources, opts, None)
    }

    /// As [`CatalogSet::load`], reporting the bytes of catalog files read and parsed to
    /// `progress` ([`Task::LoadCatalogs`]).
    pub fn load_with_progress(
        sources: &[CatalogSource],
        opts: &LoadOptions,
        progress: &dyn Progress,
    ) -> Result<CatalogSet, LoadError> {
        Self::load_reporting(sources, opts, Some(progress))
    }

    fn load_reporting(
        sources: &[CatalogSource],
        opts: &LoadOptions,
        progress: Option<&dyn Progress>,
    ) -> Result<CatalogSet, LoadError> {
        if let Some(dir) = &opts.cache_dir {
            let (jobs, prints) = cached::list(sources, opts, dir)?;
            let tracker = start_tracker(&jobs, progress);
            return cached::load(sources, &jobs, prints, opts, dir, &tracker);
        }
        let mut jobs = Vec::new();
        for (i, source) in sources.iter().enumerate() {
            collect_files(i, source, &mut jobs)?;
        }
        let tracker = start_tracker(&jobs, progress);
        let results = parallel_map(&jobs, |j| {
            let r = parse_file(j, opts);
            if tracker.is_active() {
                tracker.add(job_size(j));
            }
            r
        });
        let results: Vec<Records> = results.into_iter().collect::<Result<_, _>>()?;
        let infos: Vec<CatalogInfo> = sources.iter().map(CatalogInfo::of).collect();
        note_loaded(&infos, &format!("assembled from {} files", jobs.len()));
        let files = jobs.iter().map(|j| j.catalog).zip(results).collect();
        assemble_files(infos, files)
    }
}

/// Starts reporting the bytes of `jobs` read to `progress` (their sizes are looked up only
/// when someone listens).
fn start_tracker<'a>(jobs: &[FileJob], progress: Option<&'a dyn Progress>) -> Tracker<'a> {
    let total = match progress {
        Some(_) => jobs.iter().map(job_size).sum(),
        None => 0,
    };
    Tracker::start(progress, Task::LoadCatalogs, total)
}

/// Says (in the log, at debug level) that the set of `infos` was loaded, and how.
pub(super) fn note_loaded(infos: &[CatalogInfo], how: &str) {
    let names: Vec<&str> = infos.iter().map(|c| c.name.as_str()).collect();
    log::debug!("catalog set of {}: {how}", names.join(", "));
}

/// Builds the set from every file's records, each with its catalog's index into `infos`
/// (files in walk order).
fn assemble_files(
    infos: Vec<CatalogInfo>,
    files: Vec<(usize, Records)>,
) -> Result<CatalogSet, LoadError> {
    let mut per_catalog: Vec<(CatalogInfo, Records)> = infos
        .into_iter()
        .map(|info| (info, Records::default()))
        .collect();
    // Each catalog's vectors at their final size first: appending file after file then
    // moves every record once, without regrowing.
    for (i, (_, acc)) in per_catalog.iter_mut().enumerate() {
        let mine = files.iter().filter(move |(c, _)| *c == i);
        acc.reserve_for(mine.map(|(_, r)| r));
    }
    for (catalog, recs) in files {
        if let Some((_, acc)) = per_catalog.get_mut(catalog) {
            acc.extend(recs);
        }
    }
    assemble::assemble(per_catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str = "---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
- name: foo.v1.10.0
  skipRange: '>=1.0.0 <1.10.0'
---
schema: olm.bundle
name: foo.v1.10.0
package: foo
image: quay.io/foo:1
properties:
- type: olm.package
  value:
    packageName: foo
    version: 1.10.0
- value: {group: g.io, kind: Foo, version: v1, plural: foos}
  type: olm.gvk
- type: olm.package.required
  value:
    packageName: bar
    versionRange: '>=2.0.0'
- type: olm.label
  value: {label: tier}
- type: olm.deprecated
  value: {}
- type: olm.constraint
  value:
    failureMessage: needs baz
    package: {packageName: baz, versionRange: '>=1.0.0'}
- type: olm.maxOpenShiftVersion
  value: 4.22
- type: olm.csv.metadata
  value:
    displayName: Foo
    description: |
      long text
";

    fn load_text(name: &str, text: &str, keep: bool) -> CatalogSet {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let source = CatalogSource {
            name: "c".into(),
            path,
            priority: 0,
        };
        let opts = LoadOptions {
            keep_heavy_properties: keep,
            ..LoadOptions::default()
        };
        CatalogSet::load(&[source], &opts).expect("load")
    }

    /// The same documents as JSON, through serde_json.
    fn as_json(yaml: &str) -> String {
        let docs: Vec<serde_json::Value> =
            serde_saphyr::from_multiple(yaml).expect("test YAML parses");
        docs.iter().map(|d| format!("{d}\n")).collect()
    }

    #[test]
    fn typed_properties_from_yaml_and_json() {
        for (name, text) in [("c.yaml", YAML.to_string()), ("c.json", as_json(YAML))] {
            let set = load_text(name, &text, false);
            let b = &set.bundles[0];
            assert_eq!(b.version.to_string(), "1.10.0", "{name}");
            assert_eq!(b.image.as_deref(), Some("quay.io/foo:1"));
            let gvk = set.gvk(b.provides[0]).expect("gvk");
            assert_eq!((gvk.group.as_str(), gvk.kind.as_str()), ("g.io", "Foo"));
            assert_eq!(b.requires_packages[0].package, "bar");
            assert_eq!(b.labels, ["tier"]);
            assert!(b.deprecated);
            assert_eq!(b.constraints.len(), 1);
            assert!(b.constraints[0].get().contains("needs baz"));
            let kinds: Vec<_> = b.properties.iter().map(|p| p.kind.as_str()).collect();
            assert_eq!(kinds, ["olm.maxOpenShiftVersion"], "{name}");
            let entry = &set.packages[0].channels[0].entries[0];
            assert_eq!(entry.bundle, Some(b.id));
            assert!(entry.skip_range.is_some());
            assert!(set.warnings.is_empty(), "{name}: {:?}", set.warnings);
        }
    }

    #[test]
    fn yaml_plain_scalars_are_taken_as_written() {
        let text = YAML
            .replace("version: 1.10.0", "version: 1.10")
            .replace("foo.v1.10.0", "foo.v1.10");
        let set = load_text("c.yaml", &text, false);
        assert_eq!(set.bundles[0].version.to_string(), "1.10.0");
    }

    #[test]
    fn heavy_properties_kept_on_request() {
        for (name, text) in [("c.yaml", YAML.to_string()), ("c.json", as_json(YAML))] {
            let set = load_text(name, &text, true);
            let meta = set.bundles[0]
                .properties
                .iter()
                .find(|p| p.kind == "olm.csv.metadata")
                .expect("kept");
            let v: serde_json::Value = serde_json::from_str(meta.value.get()).expect("json");
            assert_eq!(v["displayName"], "Foo", "{name}");
        }
    }

    #[test]
    fn single_file_of_any_extension_is_sniffed() {
        let set = load_text("catalog.txt", &as_json(YAML), false);
        assert_eq!(set.bundles.len(), 1);
        let set = load_text("catalog", YAML, false);
        assert_eq!(set.bundles.len(), 1);
    }

    /// Assembling on several threads gives the set one thread gives (the shipped catalogs
    /// stay under the size from which `assemble` goes wide by itself).
    #[test]
    fn wide_assemble_builds_the_same_set() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs");
        let names = [
            "community-converted-v4.22",
            "certified-converted-v4.22",
            "community-v4.22",
            "odf-dev",
            "bundle-dirs",
        ];
        let sources: Vec<CatalogSource> = names
            .iter()
            .map(|n| CatalogSource {
                name: (*n).into(),
                path: root.join(n),
                priority: 0,
            })
            .collect();
        let mut jobs = Vec::new();
        for (i, s) in sources.iter().enumerate() {
            collect_files(i, s, &mut jobs).expect("walk");
        }
        let opts = LoadOptions::default();
        let mut per_catalog: Vec<(CatalogInfo, Records)> = sources
            .iter()
            .map(|s| (CatalogInfo::of(s), Records::default()))
            .collect();
        for j in &jobs {
            per_catalog[j.catalog]
                .1
                .extend(parse_file(j, &opts).expect("parse"));
        }
        let show = |set: &CatalogSet| {
            format!(
                "{:?}{:?}{:?}{:?}{:?}",
                set.bundles, set.packages, set.deprecations, set.warnings, set.index.by_name
            )
        };
        let narrow = assemble::assemble_with(per_catalog.clone(), false).expect("narrow");
        let wide = assemble::assemble_with(per_catalog, true).expect("wide");
        assert!(narrow.bundles.len() > 1000, "{}", narrow.bundles.len());
        assert_eq!(show(&narrow), show(&wide));
    }

    #[test]
    fn several_catalogs_keep_their_order_and_priority() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut sources = Vec::new();
        for (name, priority) in [("zeta", 5), ("alpha", -1)] {
            let path = dir.path().join(format!("{name}.yaml"));
            std::fs::write(&path, YAML).expect("write");
            sources.push(CatalogSource {
                name: name.into(),
                path,
                priority,
            });
        }
        let set = CatalogSet::load(&sources, &LoadOptions::default()).expect("load");
        assert_eq!(set.catalog_id("zeta").map(|c| c.0), Some(0));
        assert_eq!(
            set.catalog(crate::catalog::CatalogId(1))
                .map(|c| c.priority),
            Some(-1)
        );
        assert_eq!(set.bundles.len(), 2);
        assert_eq!(set.package_count(), 1);
        let pid = set.package_id("foo").expect("foo");
        assert_eq!(set.package_entries(pid).count(), 2);
        assert_eq!(set.bundles_of(pid).len(), 2);
    }
}
