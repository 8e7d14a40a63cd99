//! `cargo bench --bench catalog_diff`: `deppy catalog diff` on real catalogs, OLD against a
//! heads-only mirror of it. OLD is `community-v4.22`, then `certified-v4.22`, from
//! `DEPPY_BENCH_CATALOGS`, else `../shared/catalogs` when present, else the shipped
//! `catalogs/`; NEW is OLD cut to each channel's head (`support/heads_only.rs`, written to a
//! temporary folder), what a heads-only mirror ships. For each it prints:
//!
//! - load: both catalogs loaded (`CatalogSet::load`), in this process;
//! - diff: load plus the diff (every channel judged, rescues verified, every head's
//!   installability checked) plus its JSON, in this process; the diff's share is the difference;
//! - cli: the `deppy catalog diff OLD NEW -o json` binary, a new process each run;
//! - peak memory (VmHWM) of a child process that only loads both catalogs, and of one that
//!   loads them and diffs (with the JSON), each a fresh process of this benchmark.
//!
//! Targets: cli ≤ 2 s, and the diff's peak ≤ 2 × the peak of loading both catalogs. Medians of
//! `DEPPY_BENCH_ITERS` runs (default 7).

#[path = "support/heads_only.rs"]
mod heads_only;
#[allow(dead_code)]
#[path = "support/real.rs"]
mod real;
#[path = "support/timing.rs"]
mod timing;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::diff::{DiffOptions, diff};

/// The allocator the `deppy` binary uses (`src/main.rs`), so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The child mode: `DEPPY_BENCH_DIFF_CHILD=load|diff`, with OLD and NEW as arguments.
const CHILD: &str = "DEPPY_BENCH_DIFF_CHILD";

fn source(name: &str, path: &Path) -> CatalogSource {
    CatalogSource {
        name: name.into(),
        path: path.to_path_buf(),
        priority: 0,
    }
}

fn load_both(old: &Path, new: &Path) -> (CatalogSet, CatalogSet) {
    let load = |name: &str, p: &Path| {
        CatalogSet::load(&[source(name, p)], &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    (load("old", old), load("new", new))
}

/// Load, diff and the JSON; the status and the number of stranded bundles.
fn diff_json(old: &Path, new: &Path) -> (String, usize, usize) {
    let (o, n) = load_both(old, new);
    let d = diff(o, n, &DiffOptions::default());
    let json = serde_json::to_string_pretty(&d).expect("JSON");
    let stranded = (d.packages.iter().flat_map(|p| &p.channels))
        .map(|c| c.stranded.len())
        .sum();
    let regressions = d.packages.iter().map(|p| p.installability.len()).sum();
    (json, stranded, regressions)
}

/// This process's peak resident set (VmHWM), in kB.
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (status.lines())
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs this benchmark again as a child doing one `mode`; its peak memory in kB.
fn child_peak(mode: &str, old: &Path, new: &Path) -> u64 {
    let me = std::env::current_exe().expect("this benchmark");
    let out = Command::new(me)
        .env(CHILD, mode)
        .arg(old)
        .arg(new)
        .output()
        .expect("a child");
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("child said {text:?}"))
}

fn child() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let (old, new) = (&args[0], &args[1]);
    match std::env::var(CHILD).as_deref() {
        Ok("load") => drop(load_both(old, new)),
        _ => drop(diff_json(old, new)),
    }
    println!("{}", peak_kb());
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    // `cargo bench` passes `--bench`; anything else is a filter this benchmark ignores.
    let runs: usize = std::env::var("DEPPY_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let root = std::env::var_os("DEPPY_BENCH_CATALOGS").map_or_else(real::root, PathBuf::from);
    let tmp = tempfile::tempdir().expect("a temporary folder");
    println!("catalogs from {}; medians of {runs} runs", root.display());
    for name in ["community-v4.22", "certified-v4.22"] {
        let old = root.join(name);
        if !old.is_dir() {
            println!("{name}: not found, skipped");
            continue;
        }
        let new = tmp.path().join(format!("{name}-heads"));
        heads_only::write_cut(&old, &new);
        let (_, stranded, regressions) = diff_json(&old, &new);
        let load = timing::time(runs, || load_both(&old, &new));
        let whole = timing::time(runs, || diff_json(&old, &new));
        let cli = timing::time(runs, || {
            let out = Command::new(env!("CARGO_BIN_EXE_deppy"))
                .args(["catalog", "diff", "-o", "json"])
                .arg(&old)
                .arg(&new)
                .output()
                .expect("deppy");
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "deppy: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        });
        let (load_peak, diff_peak) = (
            child_peak("load", &old, &new),
            child_peak("diff", &old, &new),
        );
        println!(
            "{name} against its heads-only cut: {stranded} bundles stranded, {regressions} heads no longer installable"
        );
        println!(
            "  load both {}, load + diff + JSON {} (diff {}), cli {} (target ≤ 2000 ms: {})",
            ms(load),
            ms(whole),
            ms(whole.saturating_sub(load)),
            ms(cli),
            if cli <= Duration::from_secs(2) {
                "met"
            } else {
                "NOT met"
            }
        );
        let ratio = diff_peak as f64 / load_peak.max(1) as f64;
        println!(
            "  peak memory: load both {:.1} MB, load + diff {:.1} MB: {ratio:.2}× (target ≤ 2×: {})",
            load_peak as f64 / 1024.0,
            diff_peak as f64 / 1024.0,
            if ratio <= 2.0 { "met" } else { "NOT met" }
        );
    }
}
