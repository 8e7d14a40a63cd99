//! Which catalog paths are bundle directories: a directory with `manifests/` and
//! `metadata/`, or a directory whose children or grandchildren (`<pkg>/<version>/`) are.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::doc::read_first_doc;
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;
use crate::catalog::walk::{self, Entry, Kind, Root};

/// True when `dir` has both a `manifests/` and a `metadata/` directory (opm's test), inside
/// `dir` itself (a link out of the bundle directory does not count).
pub(super) fn is_bundle_dir(dir: &Path) -> bool {
    // Most directories asked about are package directories of an FBC tree: one `lstat` says
    // so, before the root is resolved (a `readlink` per path component).
    let absent = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_err();
    if absent("manifests") || absent("metadata") {
        return false;
    }
    let root = Root::new(dir);
    let sub = |name: &str| matches!(walk::kind_of(&dir.join(name), &root), Ok(Kind::Dir));
    dir.is_dir() && sub("manifests") && sub("metadata")
}

/// The entries of a directory as the catalog walk lists them ([`walk::list`]).
pub(crate) type Listing = Vec<Entry>;

/// Listings read while looking for bundle directories, by directory path, for the FBC file
/// walk that follows to take instead of reading the same directories again.
pub(crate) type Listings = FxHashMap<PathBuf, Listing>;

/// Lists `dir` under `root`, keeping the listing in `listings` for the FBC walk.
fn entries(dir: &Path, root: &Root, listings: &mut Listings) -> Result<Listing, LoadError> {
    let out = walk::list(dir, root)?;
    listings.insert(dir.to_path_buf(), out.clone());
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
    find_bundle_dirs_listing(path, &mut Listings::default())
}

/// As [`find_bundle_dirs`], keeping the directory listings it read in `listings`. Links
/// are followed only inside `path` (see [`walk`]).
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
    let root = Root::new(path);
    let mut bundles = Vec::new();
    let mut candidates = Vec::new();
    let children = entries(path, &root, listings)?;
    // The children's listings are read in parallel (a catalog has hundreds of package
    // directories), then looked at in order.
    let reads = crate::parallel::parallel_map(&children, |child| {
        (child.kind == Kind::Dir).then(|| walk::list(&child.path, &root))
    });
    for (child, read) in children.into_iter().zip(reads) {
        let Some(read) = read else {
            if fbc_candidate(&child.path) {
                candidates.push(child.path);
            }
            continue;
        };
        // A child's listing tells whether it is a bundle directory (`manifests/` and
        // `metadata/` among its directories) without looking them up one by one.
        let listing = match read {
            Ok(listing) => {
                listings.insert(child.path.clone(), listing.clone());
                listing
            }
            Err(_) if is_bundle_dir(&child.path) => {
                bundles.push(child.path);
                continue;
            }
            Err(e) => return Err(e),
        };
        let has_dir = |name: &str| {
            listing
                .iter()
                .any(|e| e.kind == Kind::Dir && e.name() == name)
        };
        if has_dir("manifests") && has_dir("metadata") && is_bundle_dir(&child.path) {
            bundles.push(child.path);
            continue;
        }
        for grandchild in listing {
            match grandchild.kind {
                Kind::Dir if is_bundle_dir(&grandchild.path) => bundles.push(grandchild.path),
                Kind::File if fbc_candidate(&grandchild.path) => candidates.push(grandchild.path),
                _ => {}
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
