//! The assembled catalog set in the catalog cache: when every catalog file of a load is
//! unchanged, a warm load reads the set as the last load assembled it (ids, packages,
//! channels with their bundles, deprecations, warnings) instead of reading each file's
//! records and assembling them again; only the lookup tables are rebuilt.
//!
//! The entry's key is a BLAKE3 hash of deppy's version, the cache format, the load options,
//! and every catalog (name, priority, path) with every file (path and contents) in load
//! order: any change gives another key. The entry has the header of a file's entry
//! ([`super::cache`]), and is checked, reported and rebuilt the same way. A set is stored
//! only when no bundle states a constraint (`olm.constraint` or an alias form): those are
//! compiled into CEL programs, which have no stored form, so such a set is assembled from
//! the files' entries on every load.

use std::path::Path;

use serde_json::value::RawValue;

use super::SourceFile;
use super::cache::{self, raw_properties, raw_values};
use crate::catalog::error::{LoadError, Warning};
use crate::catalog::intern::Interner;
use crate::catalog::model::{
    Bundle, BundleId, CatalogId, Deprecation, Gvk, GvkId, OpaqueProperty, Origin, Package,
    PackageId, PackageRequirement,
};
use crate::catalog::set::{CatalogInfo, CatalogSet, CatalogSource};
use crate::version::Version;

/// Tells a set's key from a file's: the two never share a key.
const KIND: &[u8] = b"assembled catalog set";

/// The key of the set loaded from `catalogs`.
fn key(catalogs: &[(&CatalogSource, &[SourceFile])], keep_heavy: bool) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    h.update(KIND);
    h.update(&cache::FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&[u8::from(keep_heavy)]);
    let mut text = |t: &[u8]| {
        h.update(&(t.len() as u64).to_le_bytes());
        h.update(t);
    };
    for (source, files) in catalogs {
        text(source.name.as_bytes());
        text(&source.priority.to_le_bytes());
        text(source.path.display().to_string().as_bytes());
        text(&(files.len() as u64).to_le_bytes());
        for f in *files {
            text(f.path.as_bytes());
            text(f.text.as_bytes());
        }
    }
    h.finalize()
}

/// The set of `catalogs`: from the cache in `dir` when a sound entry exists, else from
/// `assemble`, then stored when it can be. A cache that cannot be read or written costs an
/// assembly and a warning in the log, never the load.
pub(super) fn load_cached(
    dir: &Path,
    catalogs: &[(&CatalogSource, &[SourceFile])],
    keep_heavy: bool,
    assemble: impl FnOnce() -> Result<CatalogSet, LoadError>,
) -> Result<CatalogSet, LoadError> {
    let key = key(catalogs, keep_heavy);
    cache::through(dir, &key, "for the catalog set", decode, assemble, |set| {
        storable(set).then(|| {
            let payload = encode(set)?;
            Ok(cache::entry(&key, &payload))
        })
    })
}

/// True when every part of `set` has a stored form (no bundle states a constraint).
fn storable(set: &CatalogSet) -> bool {
    set.bundles
        .iter()
        .all(|b| b.requires_constraints.is_empty())
}

/// A bundle as stored: every field but the compiled constraints (none, see [`storable`]),
/// one list for both directions (serde's remote derive over [`Bundle`]).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(remote = "Bundle")]
struct StoredBundle {
    id: BundleId,
    catalog: CatalogId,
    package: PackageId,
    name: String,
    version: Version,
    image: Option<String>,
    provides: Vec<GvkId>,
    labels: Vec<String>,
    requires_packages: Vec<PackageRequirement>,
    requires_gvks: Vec<GvkId>,
    requires_labels: Vec<String>,
    #[serde(with = "raw_values")]
    constraints: Vec<Box<RawValue>>,
    #[serde(skip)]
    requires_constraints: Vec<crate::constraint::Constraint>,
    deprecated: bool,
    #[serde(with = "raw_properties")]
    properties: Vec<OpaqueProperty>,
    origin: Origin,
}

/// A bundle to store.
#[derive(serde::Serialize)]
struct BundleOut<'a>(#[serde(serialize_with = "stored")] &'a Bundle);

fn stored<S: serde::Serializer>(b: &&Bundle, s: S) -> Result<S::Ok, S::Error> {
    StoredBundle::serialize(b, s)
}

/// A stored bundle, read back.
#[derive(serde::Deserialize)]
struct BundleIn(#[serde(with = "StoredBundle")] Bundle);

/// A set as stored: everything but the lookup tables, which a load rebuilds.
#[derive(serde::Serialize)]
struct SetRef<'a> {
    catalogs: &'a [CatalogInfo],
    package_names: &'a [String],
    gvks: &'a [Gvk],
    packages: &'a [Package],
    bundles: Vec<BundleOut<'a>>,
    deprecations: &'a [Deprecation],
    warnings: &'a [Warning],
}

/// [`SetRef`], read back.
#[derive(serde::Deserialize)]
struct SetOwned {
    catalogs: Vec<CatalogInfo>,
    package_names: Vec<String>,
    gvks: Vec<Gvk>,
    packages: Vec<Package>,
    bundles: Vec<BundleIn>,
    deprecations: Vec<Deprecation>,
    warnings: Vec<Warning>,
}

fn encode(set: &CatalogSet) -> Result<Vec<u8>, postcard::Error> {
    let bundles = set.bundles.iter().map(BundleOut).collect();
    postcard::to_allocvec(&SetRef {
        catalogs: &set.catalogs,
        package_names: set.package_names.values(),
        gvks: set.gvks.values(),
        packages: &set.packages,
        bundles,
        deprecations: &set.deprecations,
        warnings: &set.warnings,
    })
}

/// The set of a checked payload, its lookup tables rebuilt. Ids are checked to be the
/// positions the set gives them: an entry is never trusted to be consistent.
fn decode(payload: &[u8]) -> Result<CatalogSet, String> {
    let s: SetOwned = cache::whole(payload, "catalog set")?;
    let in_order = s.bundles.iter().enumerate().all(|(i, b)| {
        b.0.id.0 as usize == i
            && (b.0.catalog.0 as usize) < s.catalogs.len()
            && (b.0.package.0 as usize) < s.package_names.len()
    });
    if !in_order {
        return Err("bundle ids out of order".to_string());
    }
    let mut set = CatalogSet {
        catalogs: s.catalogs,
        packages: s.packages,
        bundles: s.bundles.into_iter().map(|b| b.0).collect(),
        deprecations: s.deprecations,
        warnings: s.warnings,
        package_names: Interner::from_values(s.package_names),
        gvks: Interner::from_values(s.gvks),
        ..CatalogSet::default()
    };
    set.reindex();
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::LoadOptions;

    const DOC: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"stable"}
{"schema":"olm.channel","package":"a","name":"stable","entries":[{"name":"a.v1.0.0"},{"name":"a.v1.1.0","replaces":"a.v1.0.0","skipRange":"<1.1.0"},{"name":"a.v0.9.0"}]}
{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","image":"i","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}},{"type":"olm.package.required","value":{"packageName":"b","versionRange":">=1.0.0 <2"}},{"type":"olm.maxOpenShiftVersion","value":"4.22"}]}
{"schema":"olm.bundle","name":"a.v1.1.0","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.1.0"}},{"type":"olm.deprecated","value":{}},{"type":"olm.gvk.required","value":{"group":"h","kind":"H","version":"v1"}}]}
{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1.0.0"},"message":"old"}]}
{"schema":"olm.bundle","name":"b.v1.0.0","package":"b","properties":[{"type":"olm.package","value":{"packageName":"b","version":"1.0.0"}},{"type":"olm.label","value":{"label":"x"}}]}
"#;

    const CONSTRAINED: &str = r#"{"schema":"olm.bundle","name":"c.v1.0.0","package":"c","properties":[{"type":"olm.package","value":{"packageName":"c","version":"1.0.0"}},{"type":"olm.constraint","value":{"failureMessage":"m","package":{"packageName":"a","versionRange":">=1.0.0"}}}]}
"#;

    fn files(text: &str) -> Vec<SourceFile> {
        vec![SourceFile {
            path: "cat/catalog.json".into(),
            text: text.into(),
        }]
    }

    fn source() -> CatalogSource {
        CatalogSource {
            name: "cat".into(),
            path: "cat".into(),
            priority: 3,
        }
    }

    /// Everything a set holds, as text.
    fn summary(set: &CatalogSet) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            set.catalogs,
            set.package_names.values(),
            set.gvks.values(),
            set.packages,
            set.bundles,
            set.deprecations,
            set.warnings,
            set.package_names()
                .iter()
                .map(|p| set.bundles_of(set.package_id(p).unwrap_or(PackageId(0))))
                .collect::<Vec<_>>(),
        )
    }

    fn load(dir: &Path, text: &str, assembled: &mut bool) -> CatalogSet {
        let (src, files) = (source(), files(text));
        let catalogs = [(&src, files.as_slice())];
        load_cached(dir, &catalogs, false, || {
            *assembled = true;
            CatalogSet::load_file_slices(&catalogs, &LoadOptions::default())
        })
        .unwrap()
    }

    #[test]
    fn a_warm_load_gives_the_assembled_set_without_assembling() {
        let dir = tempfile::tempdir().unwrap();
        let mut assembled = false;
        let cold = load(dir.path(), DOC, &mut assembled);
        assert!(assembled);
        assert!(!cold.warnings.is_empty(), "the test catalog warns");
        let mut assembled = false;
        let warm = load(dir.path(), DOC, &mut assembled);
        assert!(!assembled, "a stored set was assembled again");
        assert_eq!(summary(&warm), summary(&cold));
        let gvk = Gvk {
            group: "g".into(),
            version: "v1".into(),
            kind: "K".into(),
        };
        let g = warm.gvk_id(&gvk).unwrap();
        assert_eq!(warm.providers(g), cold.providers(g));
        assert_eq!(
            warm.find_bundle(CatalogId(0), "b.v1.0.0"),
            cold.find_bundle(CatalogId(0), "b.v1.0.0")
        );
    }

    #[test]
    fn a_changed_file_or_source_misses() {
        let dir = tempfile::tempdir().unwrap();
        load(dir.path(), DOC, &mut false);
        let mut assembled = false;
        load(dir.path(), &DOC.replace("4.22", "4.23"), &mut assembled);
        assert!(assembled, "a changed file was served from the stored set");
        let other = CatalogSource {
            priority: 4,
            ..source()
        };
        assert_ne!(
            key(&[(&other, files(DOC).as_slice())], false),
            key(&[(&source(), files(DOC).as_slice())], false)
        );
    }

    #[test]
    fn a_set_with_constraints_is_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{DOC}{CONSTRAINED}");
        let first = load(dir.path(), &text, &mut false);
        let mut assembled = false;
        let second = load(dir.path(), &text, &mut assembled);
        assert!(
            assembled,
            "a set with compiled constraints came from the cache"
        );
        assert_eq!(summary(&first), summary(&second));
        assert!(
            second
                .bundles
                .iter()
                .any(|b| !b.requires_constraints.is_empty())
        );
    }

    #[test]
    fn a_corrupt_set_entry_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let cold = load(dir.path(), DOC, &mut false);
        let (src, files) = (source(), files(DOC));
        let path = cache::entry_path(dir.path(), &key(&[(&src, files.as_slice())], false));
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 1;
        for bad in [flipped, good[..good.len() / 2].to_vec()] {
            std::fs::write(&path, &bad).unwrap();
            let mut assembled = false;
            let set = load(dir.path(), DOC, &mut assembled);
            assert!(assembled, "a bad set entry was trusted");
            assert_eq!(summary(&set), summary(&cold));
            assert_eq!(std::fs::read(&path).unwrap(), good, "entry not rebuilt");
        }
    }

    #[test]
    fn ids_out_of_order_reject_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = load(dir.path(), DOC, &mut false);
        set.bundles.swap(0, 1);
        let payload = encode(&set).unwrap();
        let why = decode(&payload).err().unwrap();
        assert!(why.contains("out of order"), "{why}");
    }
}
