//! CEL rules cannot buy unbounded work: the cost estimate counts the real sizes of literal
//! lists (the old one assumed 100 elements, so a rule iterating a 3,900-element literal twice
//! passed), a bundle with more properties than the estimate assumed makes the rule fail for
//! that bundle instead of running for minutes, and `--timeout` covers evaluation.

#[path = "support/cli.rs"]
mod cli;

use std::time::Duration;

use cli::{cel_catalog as catalog, deppy, literal};

fn write(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("c.json");
    std::fs::write(&path, text).expect("write");
    path.to_str().expect("utf8").to_string()
}

/// A rule that iterates a 3,900-element literal list twice costs about 15 million steps:
/// refused when the catalog is read, naming the cost, instead of running for seconds on every
/// bundle. The same for `L.map(a, L)` (15 million values in memory).
#[test]
fn literal_lists_count_at_their_real_size() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let l = literal(3_900);
    for rule in [
        format!("{l}.exists(a, {l}.exists(b, a == 2 && b == 2))"),
        format!("{l}.map(a, {l}).size() == 0"),
    ] {
        assert!(rule.len() < 64 * 1024);
        let c = write(tmp.path(), &catalog(&rule, 3, 0));
        let ran = deppy(&["resolve", "--catalog", &c, "--require", "a"])
            .within(Duration::from_secs(20))
            .run();
        ran.expect(2);
        assert!(ran.stderr.contains("is too costly"), "{}", ran.stderr);
    }
    // A small literal stays cheap and allowed.
    let small = literal(10);
    let rule = format!("{small}.exists(a, properties.exists(p, p.type == 'olm.package'))");
    let c = write(tmp.path(), &catalog(&rule, 3, 0));
    deppy(&["resolve", "--catalog", &c, "--require", "a"])
        .within(Duration::from_secs(20))
        .run()
        .expect(0);
}

/// A bundle with 10,000 properties against a two-level `exists` rule (100 million steps):
/// the rule fails for that bundle, and the explanation says why, instead of running for
/// minutes.
#[test]
fn a_bundle_with_many_properties_cannot_make_a_rule_run_for_minutes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rule =
        "properties.exists(p, properties.exists(q, p.type == 'x.tag' && q.type == 'x.none'))";
    let c = write(tmp.path(), &catalog(rule, 3, 10_000));
    let ran = deppy(&["resolve", "--catalog", &c, "--require", "a"])
        .within(Duration::from_secs(30))
        .run();
    ran.expect(1);
    assert!(
        ran.stdout.contains("could not be evaluated for b0.v1.0.0"),
        "{}",
        ran.stdout
    );
    let full = deppy(&["resolve", "--catalog", &c, "--require", "a", "-o", "json"])
        .within(Duration::from_secs(30))
        .run();
    full.expect(1);
    assert!(full.stdout.contains("too costly"), "{}", full.stdout);
}

/// Rules that are each allowed but together take long stop at `--timeout`: the time budget
/// covers evaluation, with exit 3.
#[test]
fn the_timeout_covers_rule_evaluation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let l = literal(270);
    let rule = format!("{l}.exists(a, {l}.exists(b, a == 2 && b == 2))");
    let c = write(tmp.path(), &catalog(&rule, 400, 0));
    let ran = deppy(&[
        "resolve",
        "--catalog",
        &c,
        "--require",
        "a",
        "--timeout",
        "1",
    ])
    .within(Duration::from_secs(15))
    .run();
    ran.expect(3);
    assert!(ran.stderr.contains("time budget"), "{}", ran.stderr);
    assert!(ran.took < Duration::from_secs(8), "{:?}", ran.took);
}
