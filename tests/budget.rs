//! The solver's budget: `--max-conflicts` and `--timeout` end a hard search with "gave up
//! after N conflicts", what it had proven by then, and exit code 3, never a hang.

use std::process::Command;
use std::time::{Duration, Instant};

/// Pigeonhole: `pigeons` mandatory roots, each needing one of `holes` slots, at most one
/// pigeon per hole. Unsatisfiable when pigeons > holes, and hard for resolution.
fn pigeonhole(pigeons: usize, holes: usize) -> String {
    let mut out = String::from("variables:\n");
    for p in 0..pigeons {
        let slots: Vec<String> = (0..holes).map(|h| format!("p{p}h{h}")).collect();
        out.push_str(&format!(
            "  - id: pigeon{p}\n    constraints: [{{mandatory: {{}}}}, {{dependency: [{}]}}]\n",
            slots.join(", ")
        ));
    }
    for h in 0..holes {
        let ids: Vec<String> = (0..pigeons).map(|p| format!("p{p}h{h}")).collect();
        out.push_str(&format!(
            "  - id: hole{h}\n    constraints: [{{atMost: {{n: 1, ids: [{}]}}}}]\n",
            ids.join(", ")
        ));
    }
    for p in 0..pigeons {
        for h in 0..holes {
            out.push_str(&format!("  - id: p{p}h{h}\n"));
        }
    }
    out
}

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
    assert!(text.starts_with("gave up after 21 conflicts\n"), "{text}");
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
    assert!(took < Duration::from_secs(30), "took {took:?}");
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
    let out = run(&["--max-conflicts", "0"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("gave up after 1 conflicts"));
    let out = run(&["--max-conflicts", "10"]);
    assert_eq!(out.status.code(), Some(0));
}
