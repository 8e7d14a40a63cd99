//! Which catalog paths are bundle directories: a directory with `manifests/` and
//! `metadata/`, or a directory whose children or grandchildren (`<pkg>/<version>/`) are.

use std::path::{Path, PathBuf};

use super::doc::read_first_doc;
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;

/// True when `dir` has both a `manifests/` and a `metadata/` directory (opm's test).
pub fn is_bundle_dir(dir: &Path) -> bool {
    dir.join("manifests").is_dir() && dir.join("metadata").is_dir()
}

/// Non-hidden entries of a directory, sorted by name, each with whether it is a directory
/// (following symlinks).
fn entries(dir: &Path) -> Result<Vec<(PathBuf, bool)>, LoadError> {
    let io = |source| LoadError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if !hidden {
            // The entry's own type needs no system call; only a symlink (or a file system
            // that does not report types) is followed to see what it points at.
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_file() => false,
                _ => path.is_dir(),
            };
            out.push((path, is_dir));
        }
    }
    out.sort();
    Ok(out)
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
    if !path.is_dir() {
        return Ok(None);
    }
    if is_bundle_dir(path) {
        return Ok(Some(vec![path.to_path_buf()]));
    }
    let mut bundles = Vec::new();
    let mut candidates = Vec::new();
    for (child, is_dir) in entries(path)? {
        if !is_dir {
            if fbc_candidate(&child) {
                candidates.push(child);
            }
        } else {
            // A child's listing tells whether it is a bundle directory (`manifests/` and
            // `metadata/` among its directories) without looking them up one by one.
            let listing = match entries(&child) {
                Ok(listing) => listing,
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
