//! The cluster-state scenarios of `tests/cluster/` (a `cluster.yaml`, state files and
//! `expected.txt` each), run through the library as `deppy test` runs them; and each again
//! with every state file's documents (and a JSON List's items) in reverse order, which must
//! give byte-identical answers.

use std::fs;
use std::path::{Path, PathBuf};

use deppy::advanced::scenario::{self, EXPECTED};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn folders() -> Vec<PathBuf> {
    let all = scenario::find(&[Path::new(MANIFEST).join("tests/cluster")]);
    assert!(
        all.len() >= 25,
        "only {} cluster scenarios found",
        all.len()
    );
    all
}

#[test]
fn cluster_scenarios_match_expectations() {
    let failures: Vec<String> = folders()
        .iter()
        .filter_map(|dir| {
            let expected = fs::read_to_string(dir.join(EXPECTED)).unwrap_or_default();
            let actual = scenario::run_dir(dir).render();
            (expected != actual).then(|| {
                format!(
                    "{}: differs from {EXPECTED} (update with `cargo run -- test --update {}`):\n{}",
                    dir.display(),
                    dir.display(),
                    scenario::diff(&expected, &actual)
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Copies `from` to `to`, reversing the documents of every YAML file and the items of every
/// JSON List under `state/`.
fn copy_reversed(from: &Path, to: &Path, in_state: bool) {
    fs::create_dir_all(to).expect("temp dir");
    for e in fs::read_dir(from).expect("readable folder") {
        let e = e.expect("entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let state = in_state || e.file_name() == "state";
        if src.is_dir() {
            copy_reversed(&src, &dst, state);
            continue;
        }
        let text = fs::read_to_string(&src).unwrap_or_default();
        let out = match src.extension().and_then(|x| x.to_str()) {
            Some("yaml") if state => {
                let mut docs: Vec<&str> = text
                    .split("---\n")
                    .filter(|d| !d.trim().is_empty())
                    .collect();
                docs.reverse();
                docs.iter().map(|d| format!("---\n{d}")).collect()
            }
            Some("json") if state => {
                let mut v: serde_json::Value = serde_json::from_str(&text).expect("JSON state");
                if let Some(items) = v.get_mut("items").and_then(|i| i.as_array_mut()) {
                    items.reverse();
                }
                serde_json::to_string(&v).expect("JSON")
            }
            _ => text,
        };
        fs::write(&dst, out).expect("written");
    }
}

#[test]
fn document_order_does_not_change_answers() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let catalogs = Path::new(MANIFEST).join("tests/cluster/_catalogs");
    let shared = tmp.path().join("_catalogs");
    copy_reversed(&catalogs, &shared, false);
    let mut checked = 0;
    for dir in folders() {
        let name = dir.file_name().expect("name");
        let copy = tmp.path().join(name);
        copy_reversed(&dir, &copy, false);
        let (a, b) = (scenario::run_dir(&dir), scenario::run_dir(&copy));
        if a.exit == 2 {
            // Errors name the first bad document, which reversing moves; both must fail.
            assert_eq!(b.exit, 2, "{}: reversed input did not fail", dir.display());
            continue;
        }
        assert_eq!(
            a.render(),
            b.render(),
            "{}: reversed input answers differently",
            dir.display()
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} scenarios compared");
}
