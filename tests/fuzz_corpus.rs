//! The fuzz corpus as plain regression tests: every file of every target goes through the
//! same harness the libFuzzer targets run (`fuzz/harness.rs`), on the stable toolchain. A panic
//! (a failed invariant included) fails the test and names the file. Crashes found by fuzzing
//! are added to the corpus, so each one stays a regression case.
//!
//! The corpus is the committed hand-written and regression seeds (`fuzz/corpus/<target>/`) and
//! the seeds derived from the repository's catalogs and scenarios, which
//! `python3 fuzz/seed_corpus.py --derived` writes into a temporary directory once per run.
//! Without python3 and PyYAML the derived seeds are skipped, and each test says so (CI sets
//! `DEPPY_REQUIRE_DERIVED_SEEDS`, which turns the skip into a failure).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

#[path = "../fuzz/harness.rs"]
mod harness;

/// The derived seeds' root, written once per test process; `Err` says why there is none.
fn derived_root() -> &'static Result<tempfile::TempDir, String> {
    static ROOT: std::sync::OnceLock<Result<tempfile::TempDir, String>> =
        std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = tempfile::tempdir().map_err(|e| format!("no temporary directory: {e}"))?;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seed_corpus.py");
        let output = std::process::Command::new("python3")
            .arg(&script)
            .arg("--derived")
            .arg("--out")
            .arg(dir.path())
            .output()
            .map_err(|e| format!("python3 cannot run ({e})"))?;
        if !output.status.success() {
            return Err(format!(
                "python3 {} failed: {}",
                script.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(dir)
    })
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.expect("corpus entry").path())
            .filter(|p| p.is_file())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("{}: {e}", dir.display()),
    }
}

/// The committed seeds of `target` and, when they could be written, the derived ones.
fn corpus_files(target: &str) -> (Vec<PathBuf>, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files = files_in(&dir);
    let mut derived = 0;
    match derived_root() {
        Ok(root) => {
            let more = files_in(&root.path().join(target));
            derived = more.len();
            files.extend(more);
        }
        Err(why) if std::env::var_os("DEPPY_REQUIRE_DERIVED_SEEDS").is_some() => {
            panic!("fuzz corpus {target}: DEPPY_REQUIRE_DERIVED_SEEDS is set and {why}")
        }
        Err(why) => println!(
            "fuzz corpus {target}: derived seeds SKIPPED: {why}; only the committed seeds run \
             (python3 -m pip install pyyaml runs them)"
        ),
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    (files, derived)
}

fn run_target(target: &str) {
    let f = harness::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, f)| *f)
        .expect("a target of the harness");
    let (files, derived) = corpus_files(target);
    assert!(!files.is_empty(), "fuzz/corpus/{target} is empty");
    let start = std::time::Instant::now();
    let _ = harness::take_tally();
    let mut failures = Vec::new();
    let verbose = std::env::var_os("DEPPY_FUZZ_VERBOSE").is_some();
    for file in &files {
        if verbose {
            eprintln!("{target}: {}", file.display());
        }
        let data = std::fs::read(file).expect("read a corpus file");
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| f(&data))) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {msg}", file.display()));
        }
    }
    let (tally, unread) = harness::take_tally();
    let held = match target {
        "fbc_json" | "fbc_yaml" | "resolve" => format!(
            "; {} outcomes held against the independent checker ({} by trying every subset), {} it could not read{}",
            tally.judged,
            tally.brute_forced,
            tally.unread,
            unread.map(|u| format!(" (first: {u})")).unwrap_or_default()
        ),
        "cel" => format!(
            "; {} evaluations held within their cost estimate",
            tally.costs
        ),
        "constraint" => format!(
            "; {} constraints printed and parsed again",
            tally.round_trips
        ),
        "generic" => format!(
            "; {} problems decided again by trying every selection",
            tally.brute_forced
        ),
        _ => String::new(),
    };
    println!(
        "fuzz corpus {target}: {} inputs ({derived} derived) in {:.2} s{held}",
        files.len(),
        start.elapsed().as_secs_f64(),
    );
    let enough = match target {
        "fbc_json" | "fbc_yaml" | "resolve" => {
            tally.judged > tally.unread && tally.brute_forced > 0
        }
        "cel" => tally.costs > 0,
        "constraint" => tally.round_trips > 0,
        "generic" => tally.brute_forced > 0,
        _ => true,
    };
    assert!(
        enough,
        "too few inputs of {target} were held to its property: {tally:?}"
    );
    assert!(
        failures.is_empty(),
        "{} of {} corpus inputs of {target} fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn harness_lists_every_corpus_folder() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut targets: Vec<String> = harness::TARGETS
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    targets.sort();
    assert_eq!(folders, targets);
    for t in &targets {
        let target = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/fuzz_targets")
            .join(format!("{t}.rs"));
        assert!(target.is_file(), "{} is missing", target.display());
    }
}

macro_rules! corpus_test {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_target(stringify!($name));
            }
        )*
    };
}

corpus_test!(
    fbc_json, fbc_yaml, request, range, constraint, cel, resolve, generic
);

/// The `cel` target's work count is real: it counts every element an iteration over an input
/// list yields, nested lists included.
#[test]
fn cel_iterations_are_counted() {
    let props: Vec<(String, serde_json::Value)> = (0..10)
        .map(|i| {
            (
                "t".to_string(),
                serde_json::json!({"list": [i, i + 1, i + 2]}),
            )
        })
        .collect();
    let count = |rule: &str| harness::cel_cost::iterations(rule, &props).expect("compiles");
    assert_eq!(count("properties.exists(p, false)"), 10);
    assert_eq!(count("properties.all(p, properties.all(q, true))"), 110);
    assert_eq!(
        count("properties.exists(p, p.value.list.exists(x, false))"),
        40
    );
    assert_eq!(count("size(properties) > 0"), 0);
}
