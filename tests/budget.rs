//! The budgets: `--max-conflicts`, `--timeout` and `--max-memory` end a hard search with
//! "gave up after N conflicts", what it had proven by then, and exit code 3, never a hang.
//! A time and a memory budget apply by default (`DEPPY_TIMEOUT`, `DEPPY_MAX_MEMORY`); the
//! time budget covers the whole command (loading, rule evaluation, search, explanation).

#[path = "support/cli.rs"]
mod support;

use std::process::Command;
use std::time::{Duration, Instant};

// Pigeonhole: `pigeons` mandatory roots, each needing one of `holes` slots, at most one
// pigeon per hole. Unsatisfiable when pigeons > holes, and hard for resolution.
use support::model_pigeonhole_yaml as pigeonhole;

fn solve(problem: &str, args: &[&str]) -> (i32, String, Duration) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("problem.yaml");
    std::fs::write(&path, problem).expect("write");
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_deppy"))
        .arg("solve")
        .arg(&path)
        .args(args)
        .output()
        .expect("run deppy");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text, start.elapsed())
}

#[test]
fn conflict_budget_gives_up_with_a_partial_explanation() {
    let (code, text, _) = solve(&pigeonhole(9, 8), &["--max-conflicts", "20"]);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.starts_with("gave up after 20 conflicts (the conflict budget)\n"),
        "{text}"
    );
    assert!(
        text.contains("What deppy had proven when it stopped:"),
        "{text}"
    );
    assert!(text.contains("\nSo "), "{text}");
}

#[test]
fn timeout_gives_up_instead_of_hanging() {
    // Pigeonhole 11 into 10 takes far longer than any test run to refute.
    let (code, text, took) = solve(&pigeonhole(11, 10), &["--timeout", "0.3"]);
    assert_eq!(code, 3, "{text}");
    assert!(text.starts_with("gave up after "), "{text}");
    assert!(text.contains("the time budget ran out"), "{text}");
    // 0.3 s of budget, plus starting the process and reading the file on a busy machine.
    assert!(took < Duration::from_secs(3), "took {took:?}");
}

#[test]
fn a_budget_large_enough_changes_nothing() {
    let (code, text, _) = solve(&pigeonhole(4, 3), &["--max-conflicts", "100000"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.starts_with("No selection exists."), "{text}");
    let (code, text, _) = solve(&pigeonhole(3, 3), &["--timeout", "60", "-o", "json"]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn bad_budgets_are_usage_errors() {
    for args in [
        ["--timeout", "-1"],
        ["--timeout", "soon"],
        ["--max-conflicts", "x"],
        ["--max-conflicts", "0"],
        ["--max-memory", "0"],
    ] {
        let (code, _, _) = solve(&pigeonhole(2, 2), &args);
        assert_eq!(code, 2, "{args:?}");
    }
}

#[test]
fn resolve_gives_up_with_exit_3() {
    let request = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scenarios/dep-older-bundle-without-dependency/request.yaml"
    );
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_deppy"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("resolve")
            .arg(request)
            .args(args)
            .output()
            .expect("run deppy")
    };
    let out = run(&["--max-conflicts", "1"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("gave up after 1 conflict (the conflict budget)\n"),
        "{err}"
    );
    assert!(
        err.contains("What deppy had proven when it stopped:"),
        "{err}"
    );
    let out = run(&["--max-conflicts", "10"]);
    assert_eq!(out.status.code(), Some(0));
}

/// `N` conflicts of budget: exactly `N` analysed, and what the last one proved is printed.
#[test]
fn the_conflict_budget_is_exact() {
    for n in [1u64, 2, 7] {
        let (code, text, _) = solve(&pigeonhole(6, 5), &["--max-conflicts", &n.to_string()]);
        assert_eq!(code, 3, "{text}");
        let plural = if n == 1 { "" } else { "s" };
        assert!(
            text.starts_with(&format!("gave up after {n} conflict{plural} (")),
            "{n}: {text}"
        );
        assert!(
            text.contains("What deppy had proven when it stopped:\n  - "),
            "{text}"
        );
    }
}

/// `resolve -o json` that gives up prints JSON, as `solve` does.
#[test]
fn a_resolution_that_gives_up_prints_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let catalog = dir.path().join("pigeons.json");
    std::fs::write(&catalog, support::pigeonhole_catalog(9, 8)).expect("write");
    let mut args = vec![
        "resolve".to_string(),
        "--catalog".to_string(),
        catalog.display().to_string(),
        "--max-conflicts".to_string(),
        "5".to_string(),
        "-o".to_string(),
        "json".to_string(),
    ];
    args.extend(support::require_all(9));
    let ran = support::deppy(&args).run();
    ran.expect(3);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).expect("JSON on stdout");
    assert_eq!(v["status"], "gaveUp", "{}", ran.stdout);
    assert!(
        v["explanation"]
            .as_str()
            .is_some_and(|e| e.starts_with("gave up after 5 conflicts")),
        "{}",
        ran.stdout
    );
}

/// Without flags a time budget applies (`DEPPY_TIMEOUT`, 60 s unless set): a pigeonhole of
/// catalogs ends with exit 3 and the partial proof.
#[test]
fn a_time_budget_applies_by_default() {
    let help = support::deppy(&["resolve", "--help"]).run();
    help.expect(0);
    assert!(help.stdout.contains("[default: 60]"), "{}", help.stdout);
    assert!(help.stdout.contains("DEPPY_TIMEOUT"), "{}", help.stdout);
    let dir = tempfile::tempdir().expect("tempdir");
    let catalog = dir.path().join("pigeons.json");
    std::fs::write(&catalog, support::pigeonhole_catalog(14, 13)).expect("write");
    let mut args = vec!["resolve".to_string(), "--catalog".to_string()];
    args.push(catalog.display().to_string());
    args.extend(support::require_all(14));
    let ran = support::deppy(&args)
        .env("DEPPY_TIMEOUT", "1")
        .within(Duration::from_secs(20))
        .run();
    ran.expect(3);
    assert!(
        ran.stderr.contains("the time budget ran out"),
        "{}",
        ran.stderr
    );
    assert!(ran.took < Duration::from_secs(8), "{:?}", ran.took);
}

/// The memory budget: a search whose learned clauses and proof outgrow it gives up.
#[test]
fn a_memory_budget_ends_the_search() {
    let (code, text, took) = solve(&pigeonhole(11, 10), &["--max-memory", "1"]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("the memory budget ran out"), "{text}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// `catalog check` has the time budget too: the bundles it did not get to are reported
/// (not claimed installable), with exit 3.
#[test]
fn catalog_check_has_a_time_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let catalog = dir.path().join("chain.json");
    std::fs::write(&catalog, support::chain_catalog(600)).expect("write");
    let c = catalog.display().to_string();
    let ran = support::deppy(&["catalog", "check", &c, "--timeout", "1"])
        .within(Duration::from_secs(20))
        .run();
    ran.expect(3);
    assert!(ran.stdout.contains("not checked"), "{}", ran.stdout);
    assert!(ran.took < Duration::from_secs(8), "{:?}", ran.took);
}
