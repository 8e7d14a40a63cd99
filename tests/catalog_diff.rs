//! The catalog-diff scenarios of `tests/catalog-diff/`: each folder holds `old/` and `new/`
//! (catalogs), optionally `state/` (a cluster's objects, given with `--state`), and what
//! `deppy catalog diff old new` prints from inside the folder: `expected.txt` (text) and
//! `expected.json` (`-o json`). The exit code must be the one the JSON's status names.
//! Each scenario runs again with every catalog file's documents in reverse order, and again
//! with one file per document (read in reverse order) through a cold and a warm catalog
//! cache; each must print the same bytes.
//!
//! Re-bless after a deliberate change with `DEPPY_BLESS=1 cargo test --test catalog_diff`,
//! then review the differences with `git diff tests/catalog-diff`.

#[path = "../benches/support/heads_only.rs"]
mod heads_only;
#[path = "support/cluster_inputs.rs"]
mod inputs;
#[path = "support/cli.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};

use support::deppy;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn folders() -> Vec<PathBuf> {
    let root = Path::new(MANIFEST).join("tests/catalog-diff");
    let mut out: Vec<PathBuf> = fs::read_dir(&root)
        .expect("tests/catalog-diff")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("old").is_dir() && p.join("new").is_dir())
        .collect();
    out.sort();
    assert!(out.len() >= 9, "only {} scenarios found", out.len());
    out
}

/// What `deppy catalog diff old new [--state state] -o FORMAT` prints in `dir`, and its code.
fn run(dir: &Path, format: &str) -> (String, i32) {
    let mut args = vec!["catalog", "diff", "old", "new", "-o", format];
    if dir.join("state").is_dir() {
        args.extend(["--state", "state"]);
    }
    let ran = deppy(&args).dir(dir).run();
    assert!(
        ran.stderr.is_empty(),
        "{}: stderr: {}",
        dir.display(),
        ran.stderr
    );
    (ran.stdout, ran.code.expect("an exit code"))
}

fn code_of(json: &str) -> i32 {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON output");
    match v["status"].as_str() {
        Some("ok") => 0,
        Some("broken") => 1,
        Some("gaveUp") => 3,
        other => panic!("status {other:?}"),
    }
}

#[test]
fn scenarios_match_expectations() {
    let bless = std::env::var_os("DEPPY_BLESS").is_some();
    let mut failures = Vec::new();
    for dir in folders() {
        let (text, code) = run(&dir, "text");
        let (json, json_code) = run(&dir, "json");
        assert_eq!(code, json_code, "{}", dir.display());
        assert_eq!(code, code_of(&json), "{}: exit code", dir.display());
        for (file, actual) in [("expected.txt", &text), ("expected.json", &json)] {
            let path = dir.join(file);
            let expected = fs::read_to_string(&path).unwrap_or_default();
            if &expected == actual {
                continue;
            }
            if bless {
                fs::write(&path, actual).expect("write expectation");
                continue;
            }
            failures.push(format!(
                "{}: differs (re-bless with DEPPY_BLESS=1 cargo test --test catalog_diff):\n{}",
                path.display(),
                deppy::advanced::scenario::diff(&expected, actual)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Copies a scenario, reversing the documents of every catalog file.
fn copy_reversed(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("dir");
    for e in fs::read_dir(from).expect("readable") {
        let e = e.expect("entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_reversed(&src, &dst);
            continue;
        }
        let text = fs::read_to_string(&src).expect("text");
        let out = match src.extension().and_then(|x| x.to_str()) {
            Some("yaml") => {
                let mut docs: Vec<&str> = text
                    .split("---\n")
                    .filter(|d| !d.trim().is_empty())
                    .collect();
                docs.reverse();
                docs.iter().map(|d| format!("---\n{d}")).collect()
            }
            _ => text,
        };
        fs::write(&dst, out).expect("write");
    }
}

#[test]
fn document_order_does_not_change_answers() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for dir in folders() {
        let copy = tmp.path().join(dir.file_name().expect("name"));
        copy_reversed(&dir, &copy);
        for (format, file) in [("text", "expected.txt"), ("json", "expected.json")] {
            let expected = fs::read_to_string(dir.join(file)).unwrap_or_default();
            let (actual, _) = run(&copy, format);
            assert!(
                actual == expected,
                "{} with documents reversed, -o {format}:\n{}",
                dir.display(),
                deppy::advanced::scenario::diff(&expected, &actual)
            );
        }
    }
}

/// Copies a scenario with every YAML file split into one file per document, named so that
/// the files are read in the reverse of the documents' order.
fn copy_split(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("dir");
    for e in fs::read_dir(from).expect("readable") {
        let e = e.expect("entry");
        let (src, name) = (e.path(), e.file_name());
        if src.is_dir() {
            copy_split(&src, &to.join(name));
            continue;
        }
        let text = fs::read_to_string(&src).expect("text");
        if src.extension().and_then(|x| x.to_str()) != Some("yaml") {
            fs::write(to.join(name), text).expect("write");
            continue;
        }
        let docs: Vec<&str> = (text.split("---\n"))
            .filter(|d| !d.trim().is_empty())
            .collect();
        let stem = src.file_stem().and_then(|s| s.to_str()).expect("a name");
        for (i, d) in docs.iter().enumerate() {
            let file = to.join(format!("{stem}-{:03}.yaml", docs.len() - i));
            fs::write(file, format!("---\n{d}")).expect("write");
        }
    }
}

/// One file per document, read in reverse order, through a catalog cache filled by the
/// first run and read by the second: the same bytes as the scenario's expectations.
#[test]
fn file_split_and_cache_do_not_change_answers() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cache = tmp.path().join("cache");
    for dir in folders() {
        let copy = tmp.path().join(dir.file_name().expect("name"));
        copy_split(&dir, &copy);
        let expected = fs::read_to_string(dir.join("expected.json")).expect("expected.json");
        for run in ["cold", "warm"] {
            let mut args = vec!["catalog", "diff", "old", "new", "-o", "json"];
            if copy.join("state").is_dir() {
                args.extend(["--state", "state"]);
            }
            let cache = cache.to_str().expect("utf-8 path");
            args.extend(["--cache-dir", cache]);
            let ran = deppy(&args).dir(&copy).run();
            assert!(
                ran.stdout == expected,
                "{} split into files, {run} cache:\n{}{}",
                dir.display(),
                ran.stderr,
                deppy::advanced::scenario::diff(&expected, &ran.stdout)
            );
        }
    }
    assert!(
        fs::read_dir(&cache).expect("the cache was filled").count() > 0,
        "nothing cached"
    );
}

/// `catalogs/community-v4.22-heads/` (the README's mirror) is the heads-only cut of
/// `catalogs/community-v4.22/` (`benches/support/heads_only.rs`); re-bless writes it.
#[test]
fn shipped_heads_only_mirror_is_the_cut_of_community() {
    let root = Path::new(MANIFEST).join("catalogs");
    let (from, to) = (
        root.join("community-v4.22"),
        root.join("community-v4.22-heads"),
    );
    let cut = heads_only::cut_dir(&from);
    assert_eq!(cut.len(), 29, "one file per package");
    if std::env::var_os("DEPPY_BLESS").is_some() {
        let _ = fs::remove_dir_all(&to);
        heads_only::write_cut(&from, &to);
    }
    let shipped = heads_only::files(&to);
    let made: Vec<PathBuf> = cut.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(shipped, made, "the files of {}", to.display());
    for (rel, text) in &cut {
        let on_disk = fs::read_to_string(to.join(rel)).expect("a shipped file");
        assert!(
            &on_disk == text,
            "{} differs from the cut (re-bless with DEPPY_BLESS=1 cargo test --test catalog_diff)",
            rel.display()
        );
    }
}

/// Bad input is exit 2 with an error naming what is wrong; YAML is the JSON's data.
#[test]
fn bad_input_and_formats() {
    let dir = Path::new(MANIFEST).join("tests/catalog-diff/middle-of-chain-removed");
    let cases: &[(&[&str], &str)] = &[
        (&["catalog", "diff", "old", "no-such-dir"], "no-such-dir"),
        (
            &["catalog", "diff", "old", "new", "--channel", "nope"],
            "--channel: OLD has no package \"nope\"",
        ),
        (
            &["catalog", "diff", "old", "new", "--channel", "app/nope"],
            "has no channel \"nope\"",
        ),
        (
            &["catalog", "diff", "old", "new", "--channel", "app/"],
            "PACKAGE/CHANNEL",
        ),
        (
            &["catalog", "diff", "old", "new", "--source", "olm/x"],
            "--state",
        ),
        (
            &["catalog", "diff", "old", "new", "--state", "no-state"],
            "no-state",
        ),
    ];
    for (args, says) in cases {
        let ran = deppy(args).dir(&dir).run();
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
    let json = deppy(&["catalog", "diff", "old", "new", "-o", "json"])
        .dir(&dir)
        .run();
    let yaml = deppy(&["catalog", "diff", "old", "new", "-o", "yaml"])
        .dir(&dir)
        .run()
        .expect(1)
        .stdout
        .clone();
    let from_yaml: serde_json::Value = serde_saphyr::from_str(&yaml).expect("YAML");
    let from_json: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(from_yaml, from_json);
    bad_documents_are_named();
    // Filtered to the one channel: the same stranded bundle.
    let ran = deppy(&["catalog", "diff", "old", "new", "--channel", "app/stable"])
        .dir(&dir)
        .run();
    assert_eq!(ran.code, Some(1));
    assert!(ran.stdout.contains("app.v1.1.0 (1.1.0)"), "{}", ran.stdout);
}

/// The time budget holds for the whole command: past it, the packages not judged yet are
/// named and the exit code is 3.
#[test]
fn the_time_budget_covers_the_diff() {
    let dir = Path::new(MANIFEST).join("tests/catalog-diff/middle-of-chain-removed");
    let ran = deppy(&[
        "catalog",
        "diff",
        "old",
        "new",
        "--timeout",
        "0",
        "-o",
        "json",
    ])
    .dir(&dir)
    .run();
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).expect("JSON");
    assert_eq!(v["status"], "gaveUp");
    assert_eq!(v["notJudged"], serde_json::json!(["app"]));
}

/// A bad document in OLD, NEW or the cluster's state: exit 2, and the error names the file,
/// the document and the field.
fn bad_documents_are_named() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let scenario = Path::new(MANIFEST).join("tests/catalog-diff/middle-of-chain-removed");
    let good = fs::read_to_string(scenario.join("old/catalog.yaml")).expect("OLD");
    let bad = good.replacen("version: 1.1.0", "version: one-one", 1);
    assert_ne!(good, bad, "the fixture has version 1.1.0");
    for (dir, text) in [("good", &good), ("bad", &bad)] {
        fs::create_dir_all(tmp.path().join(dir)).expect("dir");
        fs::write(tmp.path().join(dir).join("catalog.yaml"), text).expect("write");
    }
    let state = tmp.path().join("state.yaml");
    fs::write(
        &state,
        "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\n\
         metadata:\n  name: app\n  namespace: ns\nspec:\n  name: [app]\n",
    )
    .expect("write");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["catalog", "diff", "bad", "good"],
            &[
                "bad/catalog.yaml",
                "(document 4)",
                "properties[0].value.version",
            ],
        ),
        (
            &["catalog", "diff", "good", "bad"],
            &[
                "bad/catalog.yaml",
                "(document 4)",
                "properties[0].value.version",
            ],
        ),
        (
            &["catalog", "diff", "good", "good", "--state", "state.yaml"],
            &[
                "state.yaml (document 1)",
                "Subscription ns/app",
                "spec.name",
            ],
        ),
    ];
    for (args, says) in cases {
        let ran = deppy(args).dir(tmp.path()).run();
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
        for s in *says {
            assert!(ran.stderr.contains(s), "{args:?}: {s:?} in {}", ran.stderr);
        }
    }
}

/// Reading a cluster's state is within both budgets: past one, exit 3 and the error says
/// which ran out, with nothing on standard output.
#[test]
fn budgets_cover_reading_the_state() {
    let dir = Path::new(MANIFEST).join("tests/catalog-diff/cluster-subscriptions");
    let ran = deppy(&[
        "catalog",
        "diff",
        "old",
        "new",
        "--state",
        "state",
        "--timeout",
        "0",
    ])
    .dir(&dir)
    .run();
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("the time budget ran out while reading the state"),
        "{}",
        ran.stderr
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let many = tmp.path().join("crs.json");
    fs::write(&many, inputs::databases(20_000, "apps", "n")).expect("write");
    let many = many.to_str().expect("utf-8 path");
    let args = ["catalog", "diff", "old", "new", "--state", "state", many];
    let ran = deppy(&[&args[..], &["--max-memory", "1"]].concat())
        .dir(&dir)
        .run();
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    assert!(
        (ran.stderr).contains("the memory budget (1 MiB) ran out while reading the state"),
        "{}",
        ran.stderr
    );
    // The same state within the default budgets is read, and judged as the scenario's.
    let ran = deppy(&args).dir(&dir).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let expected = fs::read_to_string(dir.join("expected.txt")).expect("expected.txt");
    assert_eq!(ran.stdout, expected);
}

/// Bundle directories are catalogs too: NEW holding only the older bundle strands the newer
/// one (its head went backwards); NEW holding only the newer one drops the channel only the
/// older one was on, and loses no provider, though the newer bundle requires APIs only the
/// older one owns (a bundle of its own package never meets a dependency).
#[test]
fn bundle_directories_are_compared() {
    let root = Path::new(MANIFEST).join("tests/bundle-dirs");
    let json = |new: &str| -> serde_json::Value {
        let ran = deppy(&[
            "catalog",
            "diff",
            "awss3-operator-registry",
            new,
            "-o",
            "json",
            "-q",
        ])
        .dir(&root)
        .run();
        assert_eq!(ran.code, Some(1), "{}", ran.stderr);
        serde_json::from_str(&ran.stdout).expect("JSON")
    };
    let back = json("awss3-operator-registry/1.0.0");
    let alpha = &back["packages"][0]["channels"][0];
    assert_eq!(alpha["channel"], "alpha");
    assert_eq!(alpha["headWentBack"], true);
    assert_eq!(alpha["stranded"][0]["bundle"], "awss3operator.1.0.1");
    assert_eq!(alpha["stranded"][0]["rescue"], serde_json::Value::Null);
    let ahead = json("awss3-operator-registry/1.0.1");
    let package = &ahead["packages"][0];
    let removed: Vec<&str> = (package["channels"].as_array().expect("channels").iter())
        .filter(|c| c["removed"] == true)
        .filter_map(|c| c["channel"].as_str())
        .collect();
    assert_eq!(removed, ["original"]);
    assert_eq!(package["lostProviders"], serde_json::json!([]));
}

/// `--source` malformed, or naming a CatalogSource no Subscription of the state uses, is bad
/// input; naming the one they use gives the scenario's answer.
#[test]
fn source_names_a_catalog_source_in_use() {
    let with_state = Path::new(MANIFEST).join("tests/catalog-diff/cluster-subscriptions");
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "catalog", "diff", "old", "new", "--state", "state", "--source", "nope",
            ],
            "expected NAMESPACE/NAME",
        ),
        (
            &[
                "catalog", "diff", "old", "new", "--state", "state", "--source", "olm/none",
            ],
            "no Subscription of the state uses this CatalogSource (they use: ",
        ),
    ];
    for (args, says) in cases {
        let ran = deppy(args).dir(&with_state).run();
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
    let args = [
        "catalog", "diff", "old", "new", "--state", "state", "--source", "olm/apps",
    ];
    let ran = deppy(&args).dir(&with_state).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let expected = fs::read_to_string(with_state.join("expected.txt")).expect("expected.txt");
    assert_eq!(
        ran.stdout, expected,
        "every Subscription there uses olm/apps"
    );
}
