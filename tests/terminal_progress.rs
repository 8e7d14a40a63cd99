//! Progress reports: the library's hooks report monotonically up to the total; the CLI draws
//! its bar on a terminal and nothing when stderr is not one. Both CLI tests set
//! `DEPPY_PROGRESS_DELAY_MS=0`, so the bar is due at once: the work finishing under the usual
//! 300 ms cannot hide a broken terminal check.

use std::process::Command;
use std::sync::Mutex;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::installability::{Scope, check_bundles as check, check_with_progress};
use deppy::advanced::progress::Task;
use deppy::advanced::resolve::Resolver;

fn odf() -> Vec<CatalogSource> {
    vec![CatalogSource {
        name: "odf-dev".into(),
        path: concat!(env!("CARGO_MANIFEST_DIR"), "/catalogs/odf-dev").into(),
        priority: 0,
    }]
}

/// Every report of one task: starts at 0, never goes down, ends at the total.
fn assert_monotonic_to_total(seen: &[(Task, u64, u64)], task: Task) -> u64 {
    assert!(seen.iter().all(|(t, _, _)| *t == task), "{seen:?}");
    let total = seen.first().map(|s| s.2).expect("a first report");
    assert_eq!(seen.first().map(|s| s.1), Some(0));
    assert!(seen.iter().all(|s| s.2 == total && s.1 <= total));
    assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1), "{seen:?}");
    assert_eq!(seen.last().map(|s| s.1), Some(total));
    total
}

/// Bytes of every file under `dir`.
fn bytes_under(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            if p.is_dir() {
                bytes_under(&p)
            } else {
                std::fs::metadata(&p).expect("meta").len()
            }
        })
        .sum()
}

#[test]
fn loading_reports_bytes_up_to_the_total() {
    let seen = Mutex::new(Vec::new());
    let record = |t: Task, done: u64, total: u64| seen.lock().expect("lock").push((t, done, total));
    let set =
        CatalogSet::load_with_progress(&odf(), &LoadOptions::default(), &record).expect("loads");
    let seen = seen.into_inner().expect("lock");
    let total = assert_monotonic_to_total(&seen, Task::LoadCatalogs);
    assert_eq!(total, bytes_under(&odf()[0].path));
    // One report per file after the first.
    assert!(seen.len() > 2, "{seen:?}");
    let plain = CatalogSet::load(&odf(), &LoadOptions::default()).expect("loads");
    assert_eq!(set.bundles.len(), plain.bundles.len());
}

#[test]
fn check_reports_each_bundle_up_to_the_total() {
    let set = CatalogSet::load(&odf(), &LoadOptions::default()).expect("loads");
    let resolver = Resolver::new(set);
    let seen = Mutex::new(Vec::new());
    let record = |t: Task, done: u64, total: u64| seen.lock().expect("lock").push((t, done, total));
    let rows = check_with_progress(&resolver, Scope::All, &record);
    let seen = seen.into_inner().expect("lock");
    let total = assert_monotonic_to_total(&seen, Task::CheckBundles);
    assert_eq!(total as usize, rows.len());
    assert_eq!(seen.len(), rows.len() + 1);
    assert_eq!(rows, check(&resolver, Scope::All));
}

#[test]
fn no_progress_output_when_stderr_is_not_a_terminal() {
    let out = Command::new(env!("CARGO_BIN_EXE_deppy"))
        .args([
            "catalog",
            "check",
            "catalogs/odf-dev",
            "--all",
            "-o",
            "json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .env("DEPPY_PROGRESS_DELAY_MS", "0")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert!(json.as_array().is_some_and(|rows| !rows.is_empty()));
}

/// On a terminal (a pseudo-terminal made by util-linux `script`), the bar appears. The check
/// (a few hundred bundles, most of a second) outlasts the thread that shows the bar.
#[test]
fn progress_bar_on_a_terminal() {
    let deppy = env!("CARGO_BIN_EXE_deppy");
    let command = format!(
        "{deppy} catalog check catalogs/certified-converted-v4.22 --all -o json >/dev/null"
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .env("DEPPY_PROGRESS_DELAY_MS", "0")
        .output()
        .expect("util-linux `script` runs (it makes the pseudo-terminal)");
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{seen}");
    assert!(
        seen.contains("checking installability"),
        "no progress bar on a terminal: {seen:?}"
    );
}
