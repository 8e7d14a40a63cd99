//! Loading real catalogs: every shipped one, inspect snapshots, stripped copies equal to their
//! originals, the heavy-property path on real unstripped YAML, and independence from file and
//! document order.
//!
//! The originals (`../shared/catalogs`, 40 MB) are not shipped. What the tests need from them
//! is: `tests/catalog-originals.txt`, the digests of the model each original loads to
//! (recorded from the originals, compared on every run with the stripped copies'), and
//! `tests/catalog-samples/heavy-yaml/`, real catalog files kept unstripped. Three `#[ignore]`d
//! tests read `../shared/catalogs` itself (they fail when it is absent): `.ci/run` runs them
//! when it is present and says so when it is not.

use std::path::{Path, PathBuf};

use deppy::advanced::catalog::inspect::{inspect, validate};
use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};

const SHIPPED: &[&str] = &[
    "odf-dev",
    "community-v4.22",
    "certified-v4.22",
    "community-converted-v4.22",
    "certified-converted-v4.22",
    "heavy",
];

fn source(name: &str, path: impl Into<PathBuf>) -> CatalogSource {
    CatalogSource {
        name: name.to_string(),
        path: path.into(),
        priority: 0,
    }
}

fn load(sources: &[CatalogSource]) -> CatalogSet {
    CatalogSet::load(sources, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn shipped(name: &str) -> CatalogSet {
    load(&[source(name, format!("catalogs/{name}"))])
}

/// Everything typed about each bundle, as text (heavy opaque properties left out).
fn fingerprint(set: &CatalogSet) -> Vec<String> {
    let heavy = ["olm.csv.metadata", "olm.bundle.object"];
    set.bundles
        .iter()
        .map(|b| {
            let gvks = |ids: &[deppy::advanced::catalog::GvkId]| -> Vec<String> {
                ids.iter()
                    .filter_map(|g| set.gvk(*g))
                    .map(|g| g.to_string())
                    .collect()
            };
            let props: Vec<_> = b
                .properties
                .iter()
                .filter(|p| !heavy.contains(&p.kind.as_str()))
                .map(|p| (p.kind.as_str(), p.value.get()))
                .collect();
            let reqs: Vec<_> = b
                .requires_packages
                .iter()
                .map(|r| (&r.package, r.range.to_string()))
                .collect();
            let constraints: Vec<_> = b.constraints.iter().map(|c| c.get()).collect();
            format!(
                "{} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?}",
                set.package_name(b.package),
                b.name,
                b.version,
                b.image,
                gvks(&b.provides),
                gvks(&b.requires_gvks),
                reqs,
                b.labels,
                b.requires_labels,
                constraints,
                b.deprecated,
                props
            )
        })
        .collect()
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s
}

#[test]
fn every_shipped_catalog_loads_and_validates() {
    for name in SHIPPED {
        let set = shipped(name);
        assert!(!set.bundles.is_empty(), "{name}");
        let report = validate(&set);
        assert!(!report.has_errors(), "{name}: {}", report.to_text());
    }
    let all: Vec<_> = SHIPPED
        .iter()
        .map(|n| source(n, format!("catalogs/{n}")))
        .collect();
    let set = load(&all);
    assert_eq!(set.catalogs.len(), SHIPPED.len());
    // trident-operator ships in both community and certified.
    let trident = set.package_id("trident-operator").expect("trident");
    assert_eq!(set.package_entries(trident).count(), 2);
}

/// `../shared/catalogs`, or a failure saying it is needed.
fn shared_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/catalogs");
    assert!(
        root.is_dir(),
        "{} is not present: this test needs the real catalogs (run it where they are)",
        root.display()
    );
    root
}

#[test]
#[ignore = "needs ../shared/catalogs (40 MB, not shipped); .ci/run runs it when present"]
fn every_shared_catalog_loads() {
    let root = shared_root();
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .expect("the shared catalogs")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n != "bundle-dirs")
        .collect();
    names.sort();
    let sources: Vec<_> = names.iter().map(|n| source(n, root.join(n))).collect();
    let set = load(&sources);
    assert_eq!(set.catalogs.len(), names.len());
    assert!(set.bundles.len() > 6_000, "{}", set.bundles.len());
}

/// Catalogs shipped stripped, whose originals' digests `tests/catalog-originals.txt` records.
const STRIPPED: &[&str] = &["community-v4.22", "certified-v4.22", "odf-dev"];
const DIGESTS: &str = "tests/catalog-originals.txt";

/// `name bundles inspect-digest fingerprint-digest`: what a stripped copy must load to.
fn digest_line(name: &str, set: &CatalogSet) -> String {
    let inspect = serde_json::to_string(&inspect(set)).expect("json");
    let fingerprint = fingerprint(set).join("\n");
    format!(
        "{name} {} {} {}",
        set.bundles.len(),
        blake3::hash(inspect.as_bytes()).to_hex(),
        blake3::hash(fingerprint.as_bytes()).to_hex()
    )
}

fn recorded_digests() -> Vec<String> {
    std::fs::read_to_string(DIGESTS)
        .expect("tests/catalog-originals.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn stripped_copies_load_like_their_originals() {
    let got: Vec<String> = STRIPPED
        .iter()
        .map(|n| digest_line(n, &shipped(n)))
        .collect();
    assert_eq!(
        got,
        recorded_digests(),
        "a stripped copy no longer loads to its original's model (or the model changed: \
         re-record {DIGESTS} from the originals with \
         `cargo test --test catalog_load -- --ignored originals_match_recorded_digests`)"
    );
}

#[test]
#[ignore = "needs ../shared/catalogs (40 MB, not shipped); .ci/run runs it when present"]
fn originals_match_recorded_digests() {
    let root = shared_root();
    let got: Vec<String> = STRIPPED
        .iter()
        .map(|n| digest_line(n, &load(&[source(n, root.join(n))])))
        .collect();
    assert_eq!(
        got,
        recorded_digests(),
        "{DIGESTS} is not what the originals load to; its data lines should read:\n{}",
        got.join("\n")
    );
}

#[test]
fn odf_dev_snapshots() {
    let set = shipped("odf-dev");
    let report = inspect(&set);
    settings().bind(|| {
        insta::assert_snapshot!("odf_dev_inspect_text", report.to_text());
        insta::assert_json_snapshot!("odf_dev_inspect_json", report);
        insta::assert_snapshot!("odf_dev_validate_text", validate(&set).to_text());
    });
}

#[test]
fn heavy_snapshot_and_property_path() {
    let light = shipped("heavy");
    settings().bind(|| insta::assert_snapshot!("heavy_inspect_text", inspect(&light).to_text()));
    let heavy_kinds = ["olm.csv.metadata", "olm.bundle.object"];
    assert!(light.bundles.iter().all(|b| {
        b.properties
            .iter()
            .all(|p| !heavy_kinds.contains(&p.kind.as_str()))
    }));
    let opts = LoadOptions {
        keep_heavy_properties: true,
        ..LoadOptions::default()
    };
    let heavy = CatalogSet::load(&[source("heavy", "catalogs/heavy")], &opts).expect("load");
    for format in [".json", ".yaml"] {
        let bundles: Vec<_> = heavy
            .bundles
            .iter()
            .filter(|b| b.origin.file.ends_with(format))
            .collect();
        assert!(!bundles.is_empty(), "{format}");
        for b in bundles {
            let meta = b.properties.iter().find(|p| p.kind == "olm.csv.metadata");
            let meta = meta.unwrap_or_else(|| panic!("{} has no olm.csv.metadata", b.name));
            let v: serde_json::Value = serde_json::from_str(meta.value.get()).expect("valid JSON");
            assert!(
                v.get("annotations").is_some() || v.get("displayName").is_some(),
                "{v}"
            );
        }
    }
    // Everything else is the same with or without heavy properties.
    let a = serde_json::to_string(&inspect(&light)).expect("json");
    let b = serde_json::to_string(&inspect(&heavy)).expect("json");
    assert_eq!(a, b);
    assert_eq!(fingerprint(&light), fingerprint(&heavy));
}

/// Without heavy properties, YAML values are cut from the text before parsing; with them,
/// everything is parsed. Both must give the same model.
fn same_with_and_without_heavy_properties(name: &str, path: &Path) {
    let light = load(&[source(name, path)]);
    let opts = LoadOptions {
        keep_heavy_properties: true,
        ..LoadOptions::default()
    };
    let heavy = CatalogSet::load(&[source(name, path)], &opts).expect("load");
    assert!(!light.bundles.is_empty(), "{name}");
    assert_eq!(fingerprint(&light), fingerprint(&heavy), "{name}");
    assert_eq!(light.warnings, heavy.warnings, "{name}");
    let kept = heavy
        .bundles
        .iter()
        .filter(|b| b.properties.iter().any(|p| p.kind == "olm.csv.metadata"));
    assert_eq!(kept.count(), heavy.bundles.len(), "{name}");
}

#[test]
fn real_yaml_same_with_and_without_heavy_properties() {
    let samples = Path::new("tests/catalog-samples/heavy-yaml");
    let mut files: Vec<PathBuf> = std::fs::read_dir(samples)
        .expect("tests/catalog-samples/heavy-yaml")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let name = f.file_stem().and_then(|n| n.to_str()).expect("a name");
        same_with_and_without_heavy_properties(name, &f);
    }
}

#[test]
#[ignore = "needs ../shared/catalogs (40 MB, not shipped); .ci/run runs it when present"]
fn shared_yaml_same_with_and_without_heavy_properties() {
    let root = shared_root();
    for name in ["community-v4.22", "certified-v4.22"] {
        same_with_and_without_heavy_properties(name, &root.join(name));
    }
}

#[test]
fn dependencies_of_real_bundles() {
    let set = shipped("community-converted-v4.22");
    let find = |name: &str| {
        let c = set
            .catalog_id("community-converted-v4.22")
            .expect("catalog");
        let id = set.find_bundle(c, name).unwrap_or_else(|| panic!("{name}"));
        set.bundle(id).expect("bundle")
    };
    let dbaas = find("dbaas-operator.v0.5.0");
    assert_eq!(dbaas.constraints.len(), 1);
    assert!(dbaas.constraints[0].get().contains("\"any\""));
    let mercury = find("mercury-operator.v1.0.2");
    let pkgs: Vec<_> = mercury
        .requires_packages
        .iter()
        .map(|r| r.package.as_str())
        .collect();
    assert!(
        pkgs.contains(&"camel-k") && pkgs.contains(&"strimzi-kafka-operator"),
        "{pkgs:?}"
    );
    assert!(!mercury.requires_gvks.is_empty());
    for g in &mercury.requires_gvks {
        let gvk = set.gvk(*g).expect("gvk");
        if gvk.group == "kafka.strimzi.io" {
            assert!(!set.providers(*g).is_empty(), "{gvk}");
        }
    }
}

/// Splits a catalog's documents into many files in a scrambled order.
fn scramble(src: &Path, dest: &Path) {
    let mut docs: Vec<serde_json::Value> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .expect("dir")
                    .map(|e| e.expect("entry").path()),
            );
        } else {
            files.push(p);
        }
    }
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        let stream = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
        docs.extend(stream.map(|d| d.expect("doc")));
    }
    docs.reverse();
    for (i, chunk) in docs.chunks(7).enumerate() {
        let name = format!("{:03}.json", (i * 389 + 17) % 1000);
        let text: String = chunk.iter().map(|d| format!("{d}\n")).collect();
        std::fs::write(dest.join(name), text).expect("write");
    }
}

#[test]
fn ids_do_not_depend_on_file_or_document_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = "community-converted-v4.22";
    scramble(Path::new("catalogs").join(name).as_path(), dir.path());
    let a = shipped(name);
    let b = load(&[source(name, dir.path())]);
    let ja = serde_json::to_string(&inspect(&a)).expect("json");
    let jb = serde_json::to_string(&inspect(&b)).expect("json");
    assert_eq!(ja, jb);
    assert_eq!(a.bundles.len(), b.bundles.len());
    for (x, y) in a.bundles.iter().zip(&b.bundles) {
        assert_eq!(
            (x.id, &x.name, x.package, &x.provides, &x.requires_gvks),
            (y.id, &y.name, y.package, &y.provides, &y.requires_gvks)
        );
    }
    for (x, y) in a.packages.iter().zip(&b.packages) {
        let ex: Vec<_> = x
            .channels
            .iter()
            .flat_map(|c| c.entries.iter().map(|e| (&e.name, e.bundle)))
            .collect();
        let ey: Vec<_> = y
            .channels
            .iter()
            .flat_map(|c| c.entries.iter().map(|e| (&e.name, e.bundle)))
            .collect();
        assert_eq!(ex, ey);
    }
}
