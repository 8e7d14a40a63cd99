//! Heavy property values kept out of memory, through the `deppy` binary: `deppy cluster
//! resolve` of a state with CRDs checks them against the bundles' `olm.bundle.object`
//! manifests, which a run through the catalog cache reads, for the bundles it checks, from
//! the cache's entry of their file, made the first time by streaming the file's heavy
//! values into it. Cold without the cache, filling it, warm, with the entry removed or
//! damaged, and from a YAML catalog, the answer is the same, byte for byte
//! (docs/caching.md).

#[path = "support/cli.rs"]
mod cli;

use std::path::{Path, PathBuf};

use cli::deppy;

/// The scenario whose CRD check needs the catalog's `olm.bundle.object` values.
const SCENARIO: &str = "tests/cluster/crd-fbc-bundle-object";

/// `deppy cluster resolve` of the scenario's state against `catalog`, through `cache` when
/// given: exit code, stdout, stderr.
fn cluster_resolve(catalog: &Path, cache: Option<&Path>) -> (Option<i32>, String, String) {
    let mut args: Vec<String> = vec!["-v".into()];
    if let Some(dir) = cache {
        args.extend(["--cache-dir".into(), dir.display().to_string()]);
    }
    args.extend([
        "cluster".into(),
        "resolve".into(),
        format!("{SCENARIO}/state"),
        "--catalog".into(),
        format!("olm/dbs={}", catalog.display()),
        "-o".into(),
        "json".into(),
    ]);
    let ran = deppy(&args).run();
    (ran.code, ran.stdout, ran.stderr)
}

/// The heavy values' entries in `dir`.
fn heavy_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read cache dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "heavy"))
        .collect();
    out.sort();
    out
}

/// The cold answer, checked to be the one whose CRD check read the manifests: without
/// them the bundle would be listed as unchecked, not refused.
fn cold(catalog: &Path) -> (Option<i32>, String) {
    let (code, stdout, stderr) = cluster_resolve(catalog, None);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stdout.contains("installWouldFail") && stdout.contains("stored version v1alpha1"),
        "the CRD check did not read the manifests: {stdout}"
    );
    (code, stdout)
}

/// The cold answer for `catalog`, then a run filling a fresh cache (in the returned
/// directory), which must answer alike and leave the one heavy values entry it returns.
fn filled(catalog: &Path) -> ((Option<i32>, String), tempfile::TempDir, PathBuf, PathBuf) {
    let want = cold(catalog);
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("cache");
    let (code, stdout, stderr) = cluster_resolve(catalog, Some(&cache));
    assert_eq!((code, stdout), want, "filling the cache: {stderr}");
    let [entry] = heavy_entries(&cache).try_into().expect("one heavy entry");
    (want, tmp, cache, entry)
}

#[test]
fn crd_checks_answer_alike_cold_filling_the_cache_and_warm() {
    let catalog = Path::new(SCENARIO).join("catalog");
    let (want, _tmp, cache, entry) = filled(&catalog);
    let entry = std::fs::read(&entry).expect("read entry");
    let (code, stdout, stderr) = cluster_resolve(&catalog, Some(&cache));
    assert_eq!((code, stdout), want, "warm: {stderr}");
    assert!(
        stderr.contains("read back from the catalog cache"),
        "not warm: {stderr}"
    );
    assert_eq!(
        std::fs::read(&heavy_entries(&cache)[0]).expect("read"),
        entry
    );
}

#[test]
fn a_missing_or_damaged_heavy_entry_is_made_again_from_the_file() {
    let catalog = Path::new(SCENARIO).join("catalog");
    let (want, _tmp, cache, entry) = filled(&catalog);
    let good = std::fs::read(&entry).expect("read entry");

    std::fs::remove_file(&entry).expect("remove entry");
    let (code, stdout, stderr) = cluster_resolve(&catalog, Some(&cache));
    assert_eq!((code, stdout), want, "entry removed: {stderr}");
    assert_eq!(std::fs::read(&entry).expect("entry made again"), good);

    let mut bad = good.clone();
    let last = bad.len() - 3;
    bad[last] ^= 0x55;
    std::fs::write(&entry, &bad).expect("damage entry");
    let (code, stdout, stderr) = cluster_resolve(&catalog, Some(&cache));
    assert_eq!((code, stdout), want, "entry damaged: {stderr}");
    assert!(stderr.contains("is unusable"), "damage unseen: {stderr}");
    assert_eq!(std::fs::read(&entry).expect("entry"), good, "not rebuilt");
}

#[test]
fn a_yaml_catalogs_heavy_values_are_read_from_the_file_when_needed() {
    let json = std::fs::read_to_string(Path::new(SCENARIO).join("catalog/db.json")).expect("read");
    let docs: Vec<String> = serde_json::Deserializer::from_str(&json)
        .into_iter::<serde_json::Value>()
        .map(|d| serde_json::to_string(&d.expect("document")).expect("text"))
        .collect();
    let tmp = tempfile::tempdir().expect("tempdir");
    let catalog = tmp.path().join("catalog");
    std::fs::create_dir(&catalog).expect("mkdir");
    std::fs::write(catalog.join("db.yaml"), docs.join("\n---\n")).expect("write");
    let (want, _cache_tmp, cache, _) = filled(&catalog);
    let (code, stdout, stderr) = cluster_resolve(&catalog, Some(&cache));
    assert_eq!((code, stdout), want, "warm: {stderr}");
}
