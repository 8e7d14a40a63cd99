//! The scenario suite: every folder of `tests/scenarios/` is one scenario, in the format
//! `deppy test` runs (a `request.yaml` with its catalogs, or a generic `problem.yaml`, and
//! the expected answer in `expected.txt`), run through the same library code as
//! `deppy test` and compared with `expected.txt`. Folders starting with `_` hold shared data.
//!
//! Each catalog scenario is also checked for determinism and for the pipeline's promises:
//! - resolved twice: identical answers;
//! - resolved from a temporary copy of its catalogs with every file's documents in reverse
//!   order: the same JSON (warnings aside, whose file positions differ: only their number);
//! - that reversed run is traced, the copy deleted, and the trace replayed: the same answer;
//! - the library's stages called directly (no pipeline): the same JSON, hints aside.
//!
//! Update expectations with `cargo run -- test --update tests/scenarios`, then review
//! `git diff tests/scenarios`.

use std::fs;
use std::path::{Path, PathBuf};

use deppy::catalog::{CatalogSet, LoadOptions};
use deppy::explain::Detail;
use deppy::pipeline::Pipeline;
use deppy::pipeline::trace::Trace;
use deppy::report::Report;
use deppy::request::Request;
use deppy::resolve::Resolver;
use deppy::scenario::{self, Answer, EXPECTED};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// Replays a trace (its catalogs may be gone).
fn replay(trace: &Path) -> Answer {
    let t = Trace::read(trace).expect("trace reads back");
    let mut pipeline = Pipeline::new(t.config.clone()).expect("recorded configuration");
    t.check(&pipeline).expect("same pipeline and version");
    scenario::answer_of(pipeline.replay(&t.sources), &t.request(), &[], "")
}

/// The same request through the library's stages directly (no pipeline).
fn resolve_direct(request: &Request, strip: &str) -> Option<String> {
    let sources = scenario::catalog_sources(request).ok()?;
    let set = CatalogSet::load(&sources, &LoadOptions::default()).ok()?;
    let resolver = Resolver::new(set.clone());
    let (u, outcome) = resolver.resolve(request).ok()?;
    let mut warnings: Vec<String> = set.warnings.iter().map(|w| w.to_string()).collect();
    warnings.extend(resolver.channel_warnings());
    let mut report = Report::new(&u, request, &outcome, Detail::Summary, warnings);
    report.warnings = report
        .warnings
        .iter()
        .map(|w| w.replace(strip, ""))
        .collect();
    Some(serde_json::to_string_pretty(&report).expect("a report serializes"))
}

/// The documents of a YAML stream, without their `---` separators.
fn yaml_docs(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.lines() {
        if line.trim_end() == "---" || line.starts_with("--- ") {
            docs.push(String::new());
        } else if let Some(d) = docs.last_mut() {
            d.push_str(line);
            d.push('\n');
        }
    }
    docs.retain(|d| !d.trim().is_empty());
    docs
}

/// Writes `text` with its documents in reverse order.
fn reversed(path: &Path, text: &str) -> String {
    match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => yaml_docs(text)
            .iter()
            .rev()
            .map(|d| format!("---\n{d}"))
            .collect(),
        Some("json") => {
            let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(text)
                .into_iter()
                .collect::<Result<_, _>>()
                .expect("catalog JSON is a stream of objects");
            docs.iter().rev().map(|d| format!("{d}\n")).collect()
        }
        _ => text.to_string(),
    }
}

/// Copies a catalog file or tree to `to`, every file's documents reversed.
fn copy_reversed(from: &Path, to: &Path) {
    if from.is_dir() {
        fs::create_dir_all(to).expect("temp dir");
        let mut entries: Vec<PathBuf> = fs::read_dir(from)
            .expect("catalog dir")
            .map(|e| e.expect("dir entry").path())
            .collect();
        entries.sort();
        for e in entries {
            copy_reversed(&e, &to.join(e.file_name().expect("a file name")));
        }
    } else {
        let text = fs::read_to_string(from).expect("catalog file is readable");
        let back = reversed(from, &text);
        if matches!(
            from.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            // The copy holds the same documents, only in another order.
            let mut a = yaml_docs(&text);
            let mut b = yaml_docs(&back);
            a.sort();
            b.sort();
            assert_eq!(a, b, "{}: reversing lost documents", from.display());
        }
        fs::write(to, back).expect("temp file");
    }
}

/// The same request against reversed copies of its catalogs, traced; the trace is then
/// replayed with the copies deleted. Returns both runs.
fn resolve_reversed(request: &Request, name: &str) -> (Answer, Answer) {
    let tmp = std::env::temp_dir()
        .join(format!("deppy-scenarios-{}", std::process::id()))
        .join(name);
    let _ = fs::remove_dir_all(&tmp);
    let mut copy = request.clone();
    for (i, c) in copy.catalogs.iter_mut().enumerate() {
        let to = tmp
            .join(i.to_string())
            .join(c.path.file_name().expect("a catalog path names something"));
        fs::create_dir_all(to.parent().expect("a parent")).expect("temp dir");
        copy_reversed(&c.path, &to);
        c.path = to;
    }
    let trace = tmp.with_extension("trace.jsonl");
    let run = scenario::resolve(&copy, Some(&trace), "");
    let _ = fs::remove_dir_all(&tmp);
    let replayed = replay(&trace);
    let _ = fs::remove_file(&trace);
    (run, replayed)
}

/// A JSON report without some keys, for comparisons.
fn without(json: &str, keys: &[&str]) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(mut m)) => {
            for k in keys {
                m.remove(*k);
            }
            serde_json::Value::Object(m).to_string()
        }
        _ => json.to_string(),
    }
}

/// The determinism and pipeline checks of one catalog scenario; None when all hold.
fn invariants(dir: &Path, name: &str, first: &Answer) -> Option<String> {
    let request = Request::from_file(&dir.join("request.yaml")).ok()?;
    let strip = scenario::folder_prefix(dir);
    let again = scenario::resolve(&request, None, &strip);
    let (back, replayed) = resolve_reversed(&request, name);
    if *first != again {
        return Some(format!("{name}: two resolutions differ"));
    }
    if back.render() != replayed.render() {
        return Some(format!(
            "{name}: the replay differs from the traced run:\n{}\n---- replay ----\n{}",
            back.render(),
            replayed.render()
        ));
    }
    let direct = resolve_direct(&request, &strip);
    if first.exit != 2
        && direct.is_some_and(|d| without(&d, &["hints"]) != without(&first.json, &["hints"]))
    {
        return Some(format!(
            "{name}: the pipeline differs from the library's stages"
        ));
    }
    let same_kind = first.exit == back.exit && first.warnings == back.warnings;
    let same = if first.exit == 2 {
        first.json.lines().count() == back.json.lines().count()
    } else {
        without(&first.json, &["warnings"]) == without(&back.json, &["warnings"])
    };
    (!(same_kind && same)).then(|| {
        format!(
            "{name}: reversed document order changes the answer:\n{}\n---- reversed ----\n{}",
            first.render(),
            back.render()
        )
    })
}

/// Runs one scenario: its failure, if any.
fn check(dir: &Path) -> Option<String> {
    let name = dir.file_name()?.to_str()?.to_string();
    if !dir.join("README.md").exists() {
        return Some(format!("{name}: no README.md"));
    }
    let first = scenario::run_dir(dir);
    let expected = fs::read_to_string(dir.join(EXPECTED)).unwrap_or_default();
    let actual = first.render();
    if expected != actual {
        return Some(format!(
            "{name}: differs from {EXPECTED}:\n{}",
            scenario::diff(&expected, &actual)
        ));
    }
    if dir.join("problem.yaml").exists() {
        let again = scenario::run_dir(dir);
        return (again != first).then(|| format!("{name}: two solves differ"));
    }
    invariants(dir, &name, &first)
}

#[test]
fn scenarios_match_expectations_and_are_deterministic() {
    let root = Path::new(MANIFEST).join("tests/scenarios");
    let all: Vec<PathBuf> = scenario::find(&[root]);
    assert!(all.len() >= 100, "only {} scenarios found", all.len());
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(all.len().div_ceil(8))
            .map(|chunk| s.spawn(move || chunk.iter().filter_map(|d| check(d)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a scenario thread panicked"))
            .collect()
    });
    let _ = fs::remove_dir(
        std::env::temp_dir().join(format!("deppy-scenarios-{}", std::process::id())),
    );
    assert!(
        failures.is_empty(),
        "{} scenario failures (update with `cargo run -- test --update tests/scenarios`):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
