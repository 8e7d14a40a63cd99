//! The scenario suite: every folder of `tests/scenarios/` is one scenario, run through the
//! library exactly as `deppy resolve` / `deppy solve` would, and snapshotted with insta in
//! `snapshots/scenarios__<name>.snap` (exit status, JSON report, text view).
//!
//! A scenario folder holds a `README.md` (what it tests, the expected answer per SEMANTICS.md)
//! and either `request.yaml` (with catalog folders it names by relative path) or
//! `problem.yaml` (the generic solver model). Folders whose name starts with `_` hold shared
//! data (real catalogs) and are not scenarios.
//!
//! Each catalog scenario is also checked for determinism: resolved twice from the same
//! catalogs, and once from a temporary copy of its catalogs with the documents of every file
//! in reverse order; the JSON reports must be byte-identical (warnings aside in the reversed
//! copy, whose file positions differ: there only their number must match).
//!
//! Every catalog scenario runs through the default pipeline (as `deppy resolve`), is
//! compared with the library's stages called directly, and the reversed-copy run is traced
//! and replayed after the copy is deleted: the replay must print the same answer.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test --test scenarios`, then read
//! the changed `.snap` files (`git diff snapshots/`).

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::explain::Detail;
use deppy::generic::GenericFile;
use deppy::pipeline::trace::{Trace, TraceWriter};
use deppy::pipeline::{Pipeline, PipelineConfig, Sources};
use deppy::report::Report;
use deppy::request::Request;
use deppy::resolve::hints::hints;
use deppy::resolve::{Outcome, Resolver};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// What one run of a scenario produced.
struct Run {
    /// 0 resolved, 1 unsatisfiable, 2 bad input (as the CLI).
    exit: u8,
    /// The JSON report, or the error text for bad input.
    json: String,
    /// The text view (the CLI's, without warnings, which go to the log there).
    text: String,
    /// `--explain full` text, for unsatisfiable requests only.
    full: Option<String>,
    /// Number of warnings (for the reversed-copy comparison).
    warnings: usize,
}

impl Run {
    fn bad_input(message: String) -> Run {
        Run {
            exit: 2,
            json: message,
            text: String::new(),
            full: None,
            warnings: 0,
        }
    }

    fn snapshot(&self) -> String {
        let mut out = format!("exit: {}\n", self.exit);
        if self.exit == 2 {
            out.push_str(&format!("--- error ---\n{}\n", self.json));
            return out;
        }
        out.push_str(&format!(
            "--- json ---\n{}\n--- text ---\n{}",
            self.json, self.text
        ));
        if let Some(full) = &self.full {
            out.push_str(&format!("--- text, --explain full ---\n{full}"));
        }
        out
    }
}

/// Paths in messages are made relative to the crate, so snapshots do not depend on the
/// checkout's location.
fn relative(s: &str) -> String {
    s.replace(&format!("{MANIFEST}/"), "")
}

/// The request's catalogs as the CLI names them (the last path component).
fn catalog_sources(request: &Request) -> Result<Vec<CatalogSource>, String> {
    let mut sources: Vec<CatalogSource> = Vec::new();
    for c in &request.catalogs {
        // As the CLI: the last path component, without a .json/.yaml/.yml extension.
        let name = c.name.clone().unwrap_or_else(|| {
            let file = matches!(
                c.path.extension().and_then(|e| e.to_str()),
                Some("json" | "yaml" | "yml")
            );
            let n = if file {
                c.path.file_stem()
            } else {
                c.path.file_name()
            };
            n.map_or_else(String::new, |s| s.to_string_lossy().into_owned())
        });
        if sources.iter().any(|s| s.name == name) {
            return Err(format!(
                "two catalogs are named {name:?}; give one a name in the request file"
            ));
        }
        sources.push(CatalogSource {
            name,
            path: c.path.clone(),
            priority: c.priority,
        });
    }
    Ok(sources)
}

/// The run of a pipeline resolution, as `deppy resolve -o json` prints it (with the hints
/// it verifies after a failure).
fn report_run(run: deppy::pipeline::Run, request: &Request, catalogs: &[CatalogSource]) -> Run {
    let r = match run.result {
        Ok(r) => r,
        Err(f) => return Run::bad_input(relative(&f.error.to_string())),
    };
    let (u, request_seen, outcome) = (r.universe(), r.request(), &r.outcome);
    let warnings: Vec<String> = r.warnings().iter().map(|w| relative(w)).collect();
    let count = warnings.len();
    let mut report = Report::new(u, request_seen, outcome, Detail::Summary, warnings);
    if !report.is_resolved() {
        let found = hints(&u.set, catalogs, request, &[]);
        report = report.with_hints(u, request, found);
    }
    let json = serde_json::to_string_pretty(&report).expect("a report serializes");
    let text = Report {
        warnings: Vec::new(),
        ..report.clone()
    }
    .to_text();
    let full = matches!(outcome, Outcome::Unsatisfiable(_))
        .then(|| Report::new(u, request_seen, outcome, Detail::Full, Vec::new()).to_text());
    Run {
        exit: if report.is_resolved() { 0 } else { 1 },
        json,
        text,
        full,
        warnings: count,
    }
}

/// Resolves a request through the default pipeline, as `deppy resolve` does; with `trace`,
/// records the execution there.
fn resolve_traced(request: &Request, trace: Option<&Path>) -> Run {
    let catalogs = match catalog_sources(request) {
        Ok(c) => c,
        Err(e) => return Run::bad_input(relative(&e)),
    };
    let mut pipeline = Pipeline::new(PipelineConfig::default_config()).expect("default pipeline");
    let writer = trace.map(|t| TraceWriter::attach(&mut pipeline, t).expect("trace file"));
    let sources = Sources {
        catalogs,
        request: request.clone(),
    };
    let run = pipeline.run(&sources);
    if let Some(w) = writer {
        w.finish(&run).expect("trace written");
    }
    report_run(run, request, &sources.catalogs)
}

fn resolve(request: &Request) -> Run {
    resolve_traced(request, None)
}

/// The same request through the library's stages directly (no pipeline): must equal the
/// pipeline's JSON.
fn resolve_direct(request: &Request) -> Option<String> {
    let sources = catalog_sources(request).ok()?;
    let set = CatalogSet::load(&sources, &LoadOptions::default()).ok()?;
    let resolver = Resolver::new(set.clone());
    let (u, outcome) = resolver.resolve(request).ok()?;
    let mut warnings: Vec<String> = set
        .warnings
        .iter()
        .map(|w| relative(&w.to_string()))
        .collect();
    warnings.extend(resolver.channel_warnings());
    let report = Report::new(&u, request, &outcome, Detail::Summary, warnings);
    Some(serde_json::to_string_pretty(&report).expect("a report serializes"))
}

/// Replays a trace (its catalogs may be gone).
fn replay(trace: &Path) -> Run {
    let t = Trace::read(trace).expect("trace reads back");
    let mut pipeline = Pipeline::new(t.config.clone()).expect("recorded configuration");
    t.check(&pipeline).expect("same pipeline and version");
    report_run(pipeline.replay(&t.sources), &t.request(), &[])
}

/// Runs a generic-model scenario as `deppy solve -o json` does.
fn solve(problem: &Path) -> Run {
    let text = fs::read_to_string(problem).expect("problem.yaml is readable");
    let answer = match GenericFile::parse(&text).and_then(|f| f.solve(&Default::default())) {
        Ok(a) => a,
        Err(e) => return Run::bad_input(e.to_string()),
    };
    let view = match answer.status {
        "resolved" => format!("Selected: {}\n", answer.selected.join(", ")),
        _ => answer.explanation.clone(),
    };
    Run {
        exit: if answer.status == "resolved" { 0 } else { 1 },
        json: serde_json::to_string_pretty(&answer).expect("an answer serializes"),
        text: view,
        full: None,
        warnings: 0,
    }
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
fn resolve_reversed(request: &Request, name: &str) -> (Run, Run) {
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
    let run = resolve_traced(&copy, Some(&trace));
    let _ = fs::remove_dir_all(&tmp);
    let replayed = replay(&trace);
    let _ = fs::remove_file(&trace);
    (run, replayed)
}

/// The report without its warnings (whose file positions differ in a reversed copy).
fn without_warnings(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(mut m)) => {
            m.remove("warnings");
            serde_json::Value::Object(m).to_string()
        }
        _ => json.to_string(),
    }
}

/// The report without its hints (which only the CLI path computes), pretty as printed.
fn without_hints(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(mut m)) => {
            m.remove("hints");
            serde_json::to_string_pretty(&serde_json::Value::Object(m)).unwrap_or_default()
        }
        _ => json.to_string(),
    }
}

/// Runs one scenario; returns its snapshot and any determinism failure.
fn run_scenario(dir: &Path, name: &str) -> (String, Option<String>) {
    let problem = dir.join("problem.yaml");
    if problem.exists() {
        let first = solve(&problem);
        let again = solve(&problem);
        let bad = (first.json != again.json).then(|| format!("{name}: two solves differ"));
        return (first.snapshot(), bad);
    }
    let request = match Request::from_file(&dir.join("request.yaml")) {
        Ok(r) => r,
        Err(e) => return (Run::bad_input(relative(&e.to_string())).snapshot(), None),
    };
    let first = resolve(&request);
    let again = resolve(&request);
    let (back, replayed) = resolve_reversed(&request, name);
    let direct = resolve_direct(&request);
    let bad = if first.json != again.json || first.text != again.text {
        Some(format!("{name}: two resolutions differ"))
    } else if back.snapshot() != replayed.snapshot() {
        Some(format!(
            "{name}: the replay differs from the traced run:\n{}\n---- replay ----\n{}",
            back.snapshot(),
            replayed.snapshot()
        ))
    } else if first.exit != 2
        && direct
            .as_ref()
            .is_some_and(|d| without_hints(d) != without_hints(&first.json))
    {
        Some(format!(
            "{name}: the pipeline differs from the library's stages"
        ))
    } else if first.exit != back.exit
        || first.warnings != back.warnings
        || (first.exit == 2 && first.json.lines().count() != back.json.lines().count())
        || (first.exit != 2 && without_warnings(&first.json) != without_warnings(&back.json))
    {
        Some(format!(
            "{name}: reversed document order changes the answer:\n{}\n---- reversed ----\n{}",
            first.snapshot(),
            back.snapshot()
        ))
    } else {
        None
    };
    (first.snapshot(), bad)
}

/// Every scenario folder, sorted.
fn scenarios() -> Vec<(String, PathBuf)> {
    let root = Path::new(MANIFEST).join("tests/scenarios");
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(&root)
        .expect("tests/scenarios exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .filter_map(|p| Some((p.file_name()?.to_str()?.to_string(), p)))
        .filter(|(name, _)| !name.starts_with('_'))
        .collect();
    out.sort();
    out
}

#[test]
fn scenarios_match_snapshots_and_are_deterministic() {
    let all = scenarios();
    assert!(all.len() >= 45, "only {} scenarios found", all.len());
    let results: Vec<(String, String, Option<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(all.len().div_ceil(8))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(name, dir)| {
                            assert!(dir.join("README.md").exists(), "{name}: no README.md");
                            let (snap, bad) = run_scenario(dir, name);
                            (name.clone(), snap, bad)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a scenario thread panicked"))
            .collect()
    });

    // Each reversed copy removes itself; drop their (now empty) common folder.
    let _ = fs::remove_dir(
        std::env::temp_dir().join(format!("deppy-scenarios-{}", std::process::id())),
    );

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let mut failures: Vec<String> = Vec::new();
    for (name, snap, bad) in results {
        failures.extend(bad);
        let readme = Path::new(MANIFEST)
            .join("tests/scenarios")
            .join(&name)
            .join("README.md");
        let mut settings = settings.clone();
        settings.set_description(fs::read_to_string(readme).unwrap_or_default().trim_end());
        let checked = settings.bind(|| {
            catch_unwind(AssertUnwindSafe(|| {
                insta::assert_snapshot!(format!("scenarios__{name}"), snap)
            }))
        });
        if checked.is_err() {
            failures.push(format!("{name}: snapshot differs (see the .snap.new file)"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} scenario failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
