//! `deppy solve`: YAML models as large as JSON ones (a YAML model used to stop at ~27,800
//! variables with a debug-formatted budget error), `mandatory: false` is not mandatory, and
//! an unsatisfiable model prints a summary unless `--explain full` asks for every step.

#[path = "support/cli.rs"]
mod cli;

use std::time::Duration;

use cli::{deppy, model_chain_yaml, model_pigeonhole_yaml};

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_str().expect("utf8").to_string()
}

#[test]
fn a_yaml_model_of_50000_variables_solves() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let n = 50_000;
    let yaml = model_chain_yaml(n);
    let f = write(tmp.path(), "big.yaml", &yaml);
    let ran = deppy(&["solve", &f, "-o", "json"])
        .within(Duration::from_secs(60))
        .run();
    ran.expect(0);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).expect("json");
    assert_eq!(v["selected"].as_array().map(Vec::len), Some(n));
}

#[test]
fn mandatory_false_is_not_mandatory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = write(
        tmp.path(),
        "m.yaml",
        "variables:\n  - {id: a, constraints: [{mandatory: false}, {prohibited: {}}]}\n  - {id: b, constraints: [{mandatory: true}]}\n",
    );
    let ran = deppy(&["solve", &f]).run();
    ran.expect(0);
    assert_eq!(ran.stdout, "Selected: b\n");
    let f = write(
        tmp.path(),
        "bad.yaml",
        "variables:\n  - {id: a, constraints: [{mandatory: 3}]}\n",
    );
    let ran = deppy(&["solve", &f]).run();
    ran.expect(2);
    assert!(ran.stderr.contains("mandatory"), "{}", ran.stderr);
}

#[test]
fn an_unsatisfiable_model_prints_a_summary_unless_asked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = write(tmp.path(), "p.yaml", &model_pigeonhole_yaml(7, 6));
    let summary = deppy(&["solve", &f]).run();
    summary.expect(1);
    assert!(
        summary.stdout.starts_with("No selection exists."),
        "{}",
        summary.stdout
    );
    assert!(
        !summary.stdout.contains("Derivation:"),
        "{}",
        summary.stdout
    );
    let full = deppy(&["solve", &f, "--explain", "full"]).run();
    full.expect(1);
    assert!(full.stdout.contains("Derivation:"), "{}", full.stdout);
    assert!(full.stdout.starts_with(&summary.stdout), "{}", full.stdout);
    assert!(full.stdout.len() > 10 * summary.stdout.len());
}
