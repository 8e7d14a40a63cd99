//! Which catalog paths are bundle directories: a directory with `manifests/` and
//! `metadata/`, or a directory whose children or grandchildren (`<pkg>/<version>/`) are.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::doc::read_first_doc;
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;

/// True when `dir` has both a `manifests/` and a `metadata/` directory (opm's test).
pub fn is_bundle_dir(dir: &Path) -> bool {
    dir.join("manifests").is_dir() && dir.join("metadata").is_dir()
}

/// Every entry of a directory (hidden ones included) sorted by name, with its unfollowed
/// file type: what the FBC file walk reads of a directory.
pub(crate) type Listing = Vec<(PathBuf, std::fs::FileType)>;

/// Listings read while looking for bundle directories, by directory path, for the FBC file
/// walk that follows to take instead of reading the same directories again.
pub(crate) type Listings = FxHashMap<PathBuf, Listing>;

/// Non-hidden entries of a directory, sorted by name, each with whether it is a directory
/// (following symlinks). The full listing goes to `listings` when every entry's type could
/// be read (else the walk reads the directory itself, and reports what it finds).
fn entries(dir: &Path, listings: &mut Listings) -> Result<Vec<(PathBuf, bool)>, LoadError> {
    let (out, listing) = read_entries(dir)?;
    if let Some(l) = listing {
        listings.insert(dir.to_path_buf(), l);
    }
    Ok(out)
}

/// What [`entries`] reads of a directory: its non-hidden entries, and its full listing when
/// every entry's type could be read.
type Read = (Vec<(PathBuf, bool)>, Option<Listing>);

fn read_entries(dir: &Path) -> Result<Read, LoadError> {
    let io = |source| LoadError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    let mut listing: Option<Listing> = Some(Vec::new());
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let file_type = entry.file_type();
        match (&mut listing, &file_type) {
            (Some(l), Ok(t)) => l.push((path.clone(), *t)),
            _ => listing = None,
        }
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if !hidden {
            // The entry's own type needs no system call; only a symlink (or a file system
            // that does not report types) is followed to see what it points at.
            let is_dir = match file_type {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_file() => false,
                _ => path.is_dir(),
            };
            out.push((path, is_dir));
        }
    }
    // Siblings share their parent's text, so comparing whole paths as bytes orders them by
    // name, as `Path`'s component-wise order does, for much less.
    out.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    if let Some(l) = &mut listing {
        l.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    }
    Ok((out, listing))
}

/// A `.json` / `.yaml` / `.yml` file: it may be an FBC file.
fn fbc_candidate(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "json" | "yaml" | "yml"))
}

/// An FBC file: its first document has a `schema` field (a `ci.yaml` beside bundle
/// directories has none). A file that does not parse is not counted.
fn is_fbc_file(path: &Path) -> bool {
    matches!(read_first_doc(path), Ok(Some(doc)) if doc.value.get("schema").is_some())
}

/// The bundle directories a catalog path stands for: the path itself when it is a bundle
/// directory; else its children and grandchildren that are (`operators/<pkg>/<version>/`),
/// sorted. None when there are none (an FBC catalog, or not a directory). A directory that
/// holds bundle directories and FBC files (outside them, within the same depth) is an
/// error: it is neither kind of catalog.
pub fn find_bundle_dirs(path: &Path) -> Result<Option<Vec<PathBuf>>, LoadError> {
    find_bundle_dirs_listing(path, &mut Listings::default())
}

/// As [`find_bundle_dirs`], keeping the directory listings it read in `listings`.
pub(crate) fn find_bundle_dirs_listing(
    path: &Path,
    listings: &mut Listings,
) -> Result<Option<Vec<PathBuf>>, LoadError> {
    if !path.is_dir() {
        return Ok(None);
    }
    if is_bundle_dir(path) {
        return Ok(Some(vec![path.to_path_buf()]));
    }
    let mut bundles = Vec::new();
    let mut candidates = Vec::new();
    let children = entries(path, listings)?;
    // The children's listings are read in parallel (a catalog has hundreds of package
    // directories), then looked at in order.
    let reads = crate::parallel::parallel_map(&children, |(child, is_dir)| {
        is_dir.then(|| read_entries(child))
    });
    for ((child, is_dir), read) in children.into_iter().zip(reads) {
        if !is_dir {
            if fbc_candidate(&child) {
                candidates.push(child);
            }
        } else {
            // A child's listing tells whether it is a bundle directory (`manifests/` and
            // `metadata/` among its directories) without looking them up one by one.
            let read = read.unwrap_or_else(|| read_entries(&child));
            let listing = match read {
                Ok((listing, full)) => {
                    if let Some(l) = full {
                        listings.insert(child.clone(), l);
                    }
                    listing
                }
                Err(_) if is_bundle_dir(&child) => {
                    bundles.push(child);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let has_dir = |name: &str| {
                listing
                    .iter()
                    .any(|(p, d)| *d && p.file_name().is_some_and(|n| n == name))
            };
            if has_dir("manifests") && has_dir("metadata") {
                bundles.push(child);
                continue;
            }
            for (grandchild, is_dir) in listing {
                if is_dir && is_bundle_dir(&grandchild) {
                    bundles.push(grandchild);
                } else if !is_dir && fbc_candidate(&grandchild) {
                    candidates.push(grandchild);
                }
            }
        }
    }
    if bundles.is_empty() {
        return Ok(None);
    }
    if let Some(fbc) = candidates.iter().find(|f| is_fbc_file(f)) {
        return Err(LoadError::Invalid {
            origin: Origin {
                file: fbc.display().to_string(),
                document: 1,
                line: None,
            },
            field: "schema".into(),
            message: format!(
                "{} holds both FBC files and bundle directories (such as {}); give them as separate catalogs",
                path.display(),
                bundles
                    .first()
                    .map_or(String::new(), |b| b.display().to_string())
            ),
        });
    }
    bundles.sort();
    Ok(Some(bundles))
}
