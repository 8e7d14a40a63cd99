//! The catalog cache through the `deppy` binary: a warm run answers as a cold one, and a
//! catalog file that was edited, touched, rewritten with the same size (under
//! `--verify-cache`), replaced or deleted gives the answer its new contents give. The rules
//! themselves (metadata, the racy window, the stored set decoded on first use) are unit
//! tests of `src/catalog/fbc/` (docs/caching.md).

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;
use std::time::{Duration, SystemTime};

use cli::deppy;

fn package(name: &str, version: &str, requires: Option<&str>) -> String {
    let req = requires.map_or(String::new(), |r| {
        format!(r#",{{"type":"olm.package.required","value":{{"packageName":"{r}","versionRange":">=1.0.0"}}}}"#)
    });
    format!(
        r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"s"}}
{{"schema":"olm.channel","package":"{name}","name":"s","entries":[{{"name":"{name}.v{version}"}}]}}
{{"schema":"olm.bundle","name":"{name}.v{version}","package":"{name}","properties":[{{"type":"olm.package","value":{{"packageName":"{name}","version":"{version}"}}}}{req}]}}
"#
    )
}

struct Fixture {
    _tmp: tempfile::TempDir,
    catalog: std::path::PathBuf,
    cache: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().expect("tempdir");
    let catalog = tmp.path().join("cat");
    for (name, text) in [
        ("a", package("a", "1.0.0", Some("b"))),
        ("b", package("b", "1.0.0", None)),
    ] {
        std::fs::create_dir_all(catalog.join(name)).expect("mkdir");
        std::fs::write(catalog.join(name).join("catalog.json"), text).expect("write");
    }
    let cache = tmp.path().join("cache");
    Fixture {
        _tmp: tmp,
        catalog,
        cache,
    }
}

/// `deppy resolve --require a -o json` (through the cache unless `cache` is false): the
/// exit code and the selected bundles.
fn resolve(f: &Fixture, cache: bool, verify: bool) -> (Option<i32>, Vec<String>) {
    let mut args: Vec<String> = Vec::new();
    if cache {
        args.extend(["--cache-dir".into(), f.cache.display().to_string()]);
    }
    if verify {
        args.push("--verify-cache".into());
    }
    args.extend(
        [
            "resolve",
            "--catalog",
            &format!("cat={}", f.catalog.display()),
            "--require",
            "a",
            "-o",
            "json",
        ]
        .map(String::from),
    );
    let ran = deppy(&args).run();
    let selected = serde_json::from_str::<serde_json::Value>(&ran.stdout)
        .ok()
        .and_then(|v| {
            Some(
                v.get("selected")?
                    .as_array()?
                    .iter()
                    .filter_map(|s| Some(s.get("bundle")?.as_str()?.to_string()))
                    .collect(),
            )
        })
        .unwrap_or_default();
    (ran.code, selected)
}

fn set_modified(path: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open")
        .set_modified(t)
        .expect("set mtime");
}

#[test]
fn a_warm_run_answers_as_a_cold_one() {
    let f = fixture();
    let plain = resolve(&f, false, false);
    assert_eq!(plain, (Some(0), vec!["a.v1.0.0".into(), "b.v1.0.0".into()]));
    assert_eq!(resolve(&f, true, false), plain, "filling the cache");
    assert!(
        std::fs::read_dir(&f.cache).expect("cache").count() >= 3,
        "a file entry per file, the set and the fingerprints"
    );
    assert_eq!(resolve(&f, true, false), plain, "warm");
    assert_eq!(resolve(&f, true, true), plain, "warm, verified");
}

#[test]
fn an_edited_file_gives_its_new_answer() {
    let f = fixture();
    resolve(&f, true, false);
    let b = f.catalog.join("b/catalog.json");
    std::fs::write(&b, package("b", "1.2.0", None)).expect("write");
    assert_eq!(
        resolve(&f, true, false),
        (Some(0), vec!["a.v1.0.0".into(), "b.v1.2.0".into()])
    );
}

#[test]
fn a_touched_file_gives_the_same_answer() {
    let f = fixture();
    let before = resolve(&f, true, false);
    set_modified(
        &f.catalog.join("b/catalog.json"),
        SystemTime::now() - Duration::from_secs(30),
    );
    assert_eq!(resolve(&f, true, false), before);
}

#[test]
fn a_same_size_rewrite_gives_its_new_answer_with_verify_cache() {
    let f = fixture();
    resolve(&f, true, false);
    let b = f.catalog.join("b/catalog.json");
    let mtime = std::fs::metadata(&b)
        .expect("meta")
        .modified()
        .expect("mtime");
    let text = package("b", "1.0.1", None);
    assert_eq!(text.len(), package("b", "1.0.0", None).len());
    std::fs::write(&b, text).expect("write");
    set_modified(&b, mtime);
    assert_eq!(
        resolve(&f, true, true),
        (Some(0), vec!["a.v1.0.0".into(), "b.v1.0.1".into()])
    );
}

#[test]
fn a_replaced_file_gives_its_new_answer() {
    let f = fixture();
    resolve(&f, true, false);
    let b = f.catalog.join("b/catalog.json");
    let new = f.catalog.join("b/next.tmp");
    std::fs::write(&new, package("b", "2.0.0", None)).expect("write");
    std::fs::rename(&new, &b).expect("rename");
    assert_eq!(
        resolve(&f, true, false),
        (Some(0), vec!["a.v1.0.0".into(), "b.v2.0.0".into()])
    );
}

#[test]
fn a_deleted_file_is_gone_from_the_answer() {
    let f = fixture();
    resolve(&f, true, false);
    std::fs::remove_file(f.catalog.join("b/catalog.json")).expect("rm");
    let (code, selected) = resolve(&f, true, false);
    assert_eq!(code, Some(1), "a's dependency is gone: no answer");
    assert!(selected.is_empty());
    assert_eq!(resolve(&f, false, false).0, Some(1), "as without the cache");
}

/// The lines of a `-v` run's log that say a catalog set was loaded.
fn set_loads(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("catalog set of"))
        .collect()
}

/// `deppy cluster resolve` loads the catalogs the namespaces see once for all of them
/// (three namespaces, one global catalog): with and without the catalog cache.
#[test]
fn a_cluster_loads_its_catalogs_once_for_every_namespace() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("cache");
    let run = |with_cache: bool| {
        let mut args: Vec<String> = vec!["-v".into()];
        if with_cache {
            args.extend(["--cache-dir".into(), cache.display().to_string()]);
        }
        args.extend(
            [
                "cluster",
                "resolve",
                "catalogs/cluster-example/cluster.yaml",
                "--catalog",
                "openshift-marketplace/community-operators=catalogs/community-v4.22",
            ]
            .map(String::from),
        );
        deppy(&args).run()
    };
    for (with_cache, how) in [
        (false, "assembled"),
        (true, "assembled"),
        (true, "read back from the catalog cache"),
    ] {
        let ran = run(with_cache);
        assert!(ran.code.is_some_and(|c| c <= 1), "{}", ran.stderr);
        let namespaces = ran.stdout.matches("namespace ").count();
        assert!(namespaces >= 3, "{}", ran.stdout);
        let loads = set_loads(&ran.stderr);
        assert_eq!(loads.len(), 1, "{loads:?}");
        assert!(loads[0].contains(how), "{loads:?}");
    }
}

/// Flips 200 bytes in the middle of the largest entry of the cache directory `dir` (the
/// catalog set's, whose middle lies among its package entries; heavy values' entries
/// aside); returns its path.
fn damage_largest_entry(dir: &Path) -> std::path::PathBuf {
    let mut files: Vec<(u64, std::path::PathBuf)> = walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .map(|p| (std::fs::metadata(&p).expect("stat").len(), p))
        .collect();
    files.sort();
    let (_, path) = files.pop().expect("a cache entry");
    let mut bytes = std::fs::read(&path).expect("read entry");
    let middle = bytes.len() / 2;
    for b in bytes.iter_mut().skip(middle).take(200) {
        *b ^= 0x55;
    }
    std::fs::write(&path, &bytes).expect("write entry");
    path
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read cache dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A cache entry whose package entries are found damaged once read is a cache miss: the
/// run warns, loads the catalogs from their files and answers byte for byte as a cold run,
/// and the next run reads the rebuilt entry back. `args` run with `--cache-dir DIR` first.
fn damaged_entry_answers_as_cold(args: &[&str]) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("cache");
    let run = |with_cache: bool| {
        let mut all: Vec<String> = vec!["-v".into()];
        if with_cache {
            all.extend(["--cache-dir".into(), cache.display().to_string()]);
        }
        all.extend(args.iter().map(|a| a.to_string()));
        deppy(&all).run()
    };
    let cold = run(false);
    assert!(cold.code.is_some_and(|c| c <= 1), "{}", cold.stderr);
    let filled = run(true);
    assert_eq!(filled.stdout, cold.stdout);
    let entry = damage_largest_entry(&cache);
    let damaged = run(true);
    assert_eq!(damaged.code, cold.code, "{}", damaged.stderr);
    assert!(
        damaged
            .stderr
            .contains("removing damaged catalog cache entry")
            && damaged
                .stderr
                .contains("loading the catalogs from their files"),
        "the damage went unseen: {}",
        damaged.stderr
    );
    assert_eq!(damaged.stdout, cold.stdout, "not the cold answer");
    assert!(entry.exists(), "the entry was not stored again");
    let again = run(true);
    assert_eq!(again.stdout, cold.stdout);
    assert!(
        set_loads(&again.stderr)
            .iter()
            .all(|l| l.contains("read back from the catalog cache")),
        "{}",
        again.stderr
    );
}

#[test]
fn a_damaged_entry_is_a_miss_for_resolve() {
    damaged_entry_answers_as_cold(&[
        "resolve",
        "--catalog",
        "catalogs/community-v4.22",
        "--require",
        "kepler-operator",
        "-o",
        "json",
    ]);
}

#[test]
fn a_damaged_entry_is_a_miss_for_cluster_resolve() {
    damaged_entry_answers_as_cold(&[
        "cluster",
        "resolve",
        "catalogs/cluster-example/cluster.yaml",
        "--catalog",
        "openshift-marketplace/community-operators=catalogs/community-v4.22",
        "-o",
        "json",
    ]);
}

/// A state whose two namespaces see two sets of catalogs sharing two: `team-a` sees
/// `olm/apps`, `olm/etcd-a` and its own `team-a/etcd-b`; `team-b` the two of `olm`.
const TWO_SETS: &str = r#"apiVersion: v1
kind: List
items:
- {apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: apps, namespace: olm}, spec: {sourceType: grpc, image: "quay.io/example/apps-index:latest"}}
- {apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: etcd-a, namespace: olm}, spec: {sourceType: grpc, image: "quay.io/example/etcd-a-index:latest"}}
- {apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: etcd-b, namespace: team-a}, spec: {sourceType: grpc, image: "quay.io/example/etcd-b-index:latest"}}
- {apiVersion: operators.coreos.com/v1, kind: OperatorGroup, metadata: {name: og, namespace: team-a}, spec: {}}
- {apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: backup, namespace: team-a}, spec: {name: backup, channel: stable, source: apps, sourceNamespace: olm}}
- {apiVersion: operators.coreos.com/v1, kind: OperatorGroup, metadata: {name: og, namespace: team-b}, spec: {}}
- {apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: backup, namespace: team-b}, spec: {name: backup, channel: stable, source: apps, sourceNamespace: olm}}
"#;

/// The bundles a cluster answer (`-o json`) selects in `namespace`, by name.
fn cluster_selected(stdout: &str, namespace: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(stdout).expect("JSON answer");
    let ns = v["namespaces"]
        .as_array()
        .expect("namespaces")
        .iter()
        .find(|n| n["namespace"] == namespace)
        .expect("the namespace");
    let mut out: Vec<String> = ns["selected"]
        .as_array()
        .expect("selected")
        .iter()
        .filter_map(|s| Some(s["bundle"].as_str()?.to_string()))
        .collect();
    out.sort();
    out
}

/// `deppy cluster resolve` of namespaces seeing different sets of catalogs answers byte for
/// byte alike without the catalog cache (each catalog read once from its files for both
/// sets), filling it and reading it back; `team-b` selects what `deppy resolve` selects from
/// the catalogs it sees, and `team-a` the etcd of its own namespace.
#[test]
fn a_cluster_answers_alike_cold_and_warm() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let state = tmp.path().join("state.yaml");
    std::fs::write(&state, TWO_SETS).expect("state");
    let cache = tmp.path().join("cache");
    let catalogs = [
        ("olm/apps", "tests/cluster/_catalogs/apps"),
        ("olm/etcd-a", "tests/cluster/_catalogs/etcd-a"),
        ("team-a/etcd-b", "tests/cluster/_catalogs/etcd-b"),
    ];
    let cluster = |with_cache: bool| {
        let mut args: Vec<String> = vec!["-v".into()];
        if with_cache {
            args.extend(["--cache-dir".into(), cache.display().to_string()]);
        }
        args.extend([
            "cluster".into(),
            "resolve".into(),
            state.display().to_string(),
        ]);
        for (name, path) in catalogs {
            args.extend(["--catalog".into(), format!("{name}={path}")]);
        }
        args.extend(["-o".into(), "json".into()]);
        deppy(&args).run()
    };
    let cold = cluster(false);
    assert_eq!(cold.code, Some(0), "{}", cold.stderr);
    let loads = set_loads(&cold.stderr);
    assert_eq!(loads.len(), 2, "{loads:?}");
    assert!(
        loads.iter().all(|l| l.contains("each read once")),
        "{loads:?}"
    );
    let filled = cluster(true);
    assert_eq!(filled.stdout, cold.stdout, "filling the cache");
    let warm = cluster(true);
    assert_eq!(warm.stdout, cold.stdout, "warm");
    let loads = set_loads(&warm.stderr);
    assert!(
        loads.len() == 2 && loads.iter().all(|l| l.contains("read back")),
        "{loads:?}"
    );
    // team-a prefers the etcd of its own namespace (tests/cluster/dependency-own-namespace).
    assert!(
        cluster_selected(&cold.stdout, "team-a").contains(&"etcdoperator.v0.9.4".to_string()),
        "{}",
        cold.stdout
    );
    for (namespace, seen) in [("team-b", &catalogs[..2])] {
        let mut args: Vec<String> = vec!["resolve".into()];
        for (name, path) in seen {
            let name = name.replace('/', "-");
            args.extend(["--catalog".into(), format!("{name}={path}")]);
        }
        args.extend(["--require", "backup", "-o", "json"].map(String::from));
        let alone = deppy(&args).run();
        let v: serde_json::Value = serde_json::from_str(&alone.stdout).expect("JSON");
        let mut selected: Vec<String> = v["selected"]
            .as_array()
            .expect("selected")
            .iter()
            .filter_map(|s| Some(s["bundle"].as_str()?.to_string()))
            .collect();
        selected.sort();
        assert_eq!(
            cluster_selected(&cold.stdout, namespace),
            selected,
            "{namespace}"
        );
    }
}

/// Two catalogs of `a` (requiring `b`) and `b`, their directories left unchanged for longer
/// than the racy window, for `change` to act on once their listings are trusted.
fn listing_trusted_then(change: impl Fn(&Path), expected: (Option<i32>, Vec<String>)) {
    let f = fixture();
    std::thread::sleep(Duration::from_millis(2100));
    let first = resolve_logged(&f);
    assert!(!first.contains("not walked"), "{first}");
    let second = resolve_logged(&f);
    assert!(
        second.contains("not walked"),
        "the listings were not trusted: {second}"
    );
    change(&f.catalog);
    assert_eq!(resolve(&f, true, false), expected);
    assert_eq!(resolve(&f, false, false), expected, "as without the cache");
}

/// `deppy -v --cache-dir … resolve --require a`: its log.
fn resolve_logged(f: &Fixture) -> String {
    let args: Vec<String> = [
        "-v",
        "--cache-dir",
        &f.cache.display().to_string(),
        "resolve",
        "--catalog",
        &format!("cat={}", f.catalog.display()),
        "--require",
        "a",
    ]
    .map(String::from)
    .to_vec();
    deppy(&args).run().stderr
}

/// A change made to a catalog directory, and the exit code and selection it leads to.
type ListingCase = (
    &'static str,
    Box<dyn Fn(&Path) + Send + Sync>,
    (Option<i32>, Vec<String>),
);

/// A catalog's directory listings, once trusted from their metadata, give way to a file
/// added, removed or renamed, and to a directory renamed (docs/caching.md).
#[test]
fn a_trusted_listing_sees_files_added_removed_and_renamed() {
    let both = || vec!["a.v1.0.0".to_string(), "b.v1.0.0".to_string()];
    let cases: Vec<ListingCase> = vec![
        (
            "added",
            Box::new(|c: &Path| {
                std::fs::write(c.join("b/newer.json"), package("c", "1.0.0", None)).expect("write");
                std::fs::write(c.join("a/catalog.json"), package("a", "1.0.0", Some("c")))
                    .expect("write");
            }),
            (Some(0), vec!["a.v1.0.0".into(), "c.v1.0.0".into()]),
        ),
        (
            "removed",
            Box::new(|c: &Path| std::fs::remove_file(c.join("b/catalog.json")).expect("rm")),
            (Some(1), vec![]),
        ),
        (
            "renamed out of the catalog's extensions",
            Box::new(|c: &Path| {
                std::fs::rename(c.join("b/catalog.json"), c.join("b/catalog.json.old")).expect("mv")
            }),
            (Some(1), vec![]),
        ),
        (
            "renamed within",
            Box::new(|c: &Path| {
                std::fs::rename(c.join("b/catalog.json"), c.join("b/index.json")).expect("mv")
            }),
            (Some(0), both()),
        ),
        (
            "directory renamed",
            Box::new(|c: &Path| std::fs::rename(c.join("b"), c.join("z")).expect("mv")),
            (Some(0), both()),
        ),
    ];
    std::thread::scope(|s| {
        for (what, change, expected) in &cases {
            s.spawn(move || {
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    listing_trusted_then(change, expected.clone())
                }));
                assert!(ran.is_ok(), "file {what}");
            });
        }
    });
}
