//! The real catalogs benchmarks run on: `../shared/catalogs` when present, else the copies
//! shipped in `catalogs/`; every folder but bundle directories is one catalog.

use std::path::{Path, PathBuf};

use deppy::advanced::catalog::CatalogSource;

/// `../shared/catalogs` when present, else `catalogs/`.
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = here.join("../shared/catalogs");
    if shared.is_dir() {
        shared
    } else {
        here.join("catalogs")
    }
}

/// Each folder of `root` (bundle directories aside) as a catalog of priority 0, by name.
pub fn catalogs_in(root: &Path) -> Vec<CatalogSource> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir() && !p.ends_with("bundle-dirs"))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs.into_iter()
        .map(|p| CatalogSource {
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: p,
            priority: 0,
        })
        .collect()
}
