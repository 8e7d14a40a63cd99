//! The scenario suite: every folder of `tests/scenarios/` is one scenario, in the format
//! `deppy test` runs (a `request.yaml` with its catalogs, or a generic `problem.yaml`, and
//! the expected answer in `expected.txt`), run through the same library code as
//! `deppy test` and compared with `expected.txt`. Folders starting with `_` hold shared data.
//!
//! Each catalog scenario is also checked for determinism and for the pipeline's promises:
//! - resolved twice: identical answers;
//! - resolved from a temporary copy of its catalogs (laid out like the originals) with every
//!   file's documents in reverse order: the same answer, byte for byte, except the line and
//!   document numbers inside messages, which the reversal moves;
//! - that reversed run is traced, the copy deleted, and the trace replayed: the same answer;
//! - the library's stages called directly (no pipeline, hints included): the same JSON byte
//!   for byte, or the same error; either path failing alone fails the scenario;
//! - the library again, deriving dependency lists on its search's demand (its failures
//!   worded from the proof over the relaxation the search refuted): the same JSON, or error;
//! - the library again, its catalogs loaded twice through a fresh catalog cache, so that the
//!   second load reads the stored set back and decodes each package entry only when the
//!   resolution first looks it up: the same JSON byte for byte, or the same error;
//! - a resolved answer passes the independent checker of `tests/support/checker/` (which
//!   reads the catalog files and request.yaml itself and shares no code with deppy).
//!
//! A request file that does not parse has no catalogs to reorder: its expected.txt is the
//! whole check.
//!
//! Update expectations with `cargo run -- test --update tests/scenarios`, then review
//! `git diff tests/scenarios`.

use std::fs;
use std::path::{Path, PathBuf};

use deppy::advanced::catalog::{CatalogSet, LoadOptions};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::Request;
use deppy::advanced::resolve::Resolver;
use deppy::advanced::resolve::hints::hints;
use deppy::advanced::scenario::{self, Answer, EXPECTED};
use deppy::pipeline::Pipeline;
use deppy::pipeline::trace::Trace;

#[path = "support/checker/mod.rs"]
mod checker;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// Replays a trace (its catalogs may be gone).
fn replay(trace: &Path, strip: &str) -> Answer {
    let t = Trace::read(trace).expect("trace reads back");
    let mut pipeline = Pipeline::new(t.config.clone()).expect("recorded configuration");
    t.check(&pipeline).expect("same pipeline and version");
    scenario::answer_of(pipeline.replay(&t.sources), &t.request(), &[], strip)
}

/// The same request through the library's stages directly (no pipeline): the JSON report
/// `deppy resolve -o json` prints, hints included, or the error. With `on_demand`, the
/// resolver derives dependency lists on its search's demand at any reach (the scenarios
/// reach fewer bundles than the default threshold, so they are otherwise derived whole).
fn resolve_direct(request: &Request, strip: &str, on_demand: bool) -> Result<String, String> {
    let rel = |s: String| s.replace(strip, "");
    let sources = scenario::catalog_sources(request)?;
    let set =
        CatalogSet::load(&sources, &LoadOptions::default()).map_err(|e| rel(e.to_string()))?;
    resolve_set(request, strip, on_demand, set)
}

/// [`resolve_direct`] with the catalogs loaded through a fresh catalog cache twice: the
/// second load reads the stored set back and decodes its package entries only as the
/// resolution looks them up. A set with constraints is not stored (both loads assemble it).
fn resolve_from_cache(request: &Request, strip: &str) -> Result<String, String> {
    let rel = |s: String| s.replace(strip, "");
    let sources = scenario::catalog_sources(request)?;
    let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
    let opts = LoadOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..LoadOptions::default()
    };
    let cold = CatalogSet::load(&sources, &opts).map_err(|e| rel(e.to_string()))?;
    let set = CatalogSet::load(&sources, &opts).map_err(|e| rel(e.to_string()))?;
    match set.decoded_entries() {
        Some((0, _)) => {}
        Some(d) => return Err(format!("a fresh stored set has decoded {d:?}")),
        None if cold.has_constraints() => {}
        None => return Err("the second load did not read the stored set".into()),
    }
    let out = resolve_set(request, strip, false, set.clone());
    if let Some(why) = set.cache_damage() {
        return Err(format!("the stored set is damaged: {why}"));
    }
    out
}

/// The JSON report of `request` against `set` (see [`resolve_direct`]).
fn resolve_set(
    request: &Request,
    strip: &str,
    on_demand: bool,
    set: CatalogSet,
) -> Result<String, String> {
    let rel = |s: String| s.replace(strip, "");
    let sources = scenario::catalog_sources(request)?;
    let resolver = Resolver::new(set.clone());
    let resolver = if on_demand {
        resolver.with_on_demand_from(0)
    } else {
        resolver
    };
    if on_demand {
        // Every list derived on demand, and the roots, against the whole program's rules.
        resolver
            .check_on_demand(request)
            .map_err(|e| format!("derivation on demand differs from the rules: {e}"))?;
    }
    let (u, outcome) = resolver.resolve(request).map_err(|e| rel(e.to_string()))?;
    let mut warnings: Vec<String> = set.warnings.iter().map(|w| rel(w.to_string())).collect();
    warnings.extend(resolver.channel_warnings().into_iter().map(rel));
    let mut report = Report::new(&u, request, &outcome, Detail::Summary, warnings);
    if !report.is_resolved() {
        let found = hints(&u.set, &sources, request, &[]);
        report = report.with_hints(&u, request, found);
    }
    Ok(serde_json::to_string_pretty(&report).expect("a report serializes"))
}

/// `text` with the numbers of message positions (`file:LINE (document N)`, `line L column C`)
/// replaced by `#`: reversing a file's documents moves them.
fn without_positions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after_marker = [":", "(document ", "line ", "column "]
            .iter()
            .any(|m| out.ends_with(m));
        if after_marker && c.is_ascii_digit() {
            let digits = rest.len() - rest.trim_start_matches(|d: char| d.is_ascii_digit()).len();
            out.push('#');
            rest = &rest[digits..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
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
            // The documents' own bytes, reversed (re-serializing would change sizes).
            let mut stream =
                serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
            let mut docs = Vec::new();
            let mut start = 0;
            while let Some(doc) = stream.next() {
                doc.expect("catalog JSON is a stream of objects");
                let end = stream.byte_offset();
                docs.push(text[start..end].trim());
                start = end;
            }
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

/// The same request against reversed copies of its catalogs, laid out as the originals are
/// around the scenario folder (so messages name the same relative paths), traced; the trace
/// is then replayed with the copies deleted. Returns both runs.
fn resolve_reversed(request: &Request, dir: &Path, name: &str) -> (Answer, Answer) {
    let tmp = std::env::temp_dir()
        .join(format!("deppy-scenarios-{}", std::process::id()))
        .join(name);
    let _ = fs::remove_dir_all(&tmp);
    let folder = tmp.join("s");
    fs::create_dir_all(&folder).expect("temp dir");
    let mut copy = request.clone();
    for c in copy.catalogs.iter_mut() {
        let rel = c
            .path
            .strip_prefix(dir)
            .expect("request.yaml names its catalogs relative to its folder");
        let to = folder.join(rel);
        fs::create_dir_all(to.parent().expect("a parent")).expect("temp dir");
        copy_reversed(&c.path, &to);
        c.path = to;
    }
    let strip = scenario::folder_prefix(&folder);
    let trace = tmp.with_extension("trace.jsonl");
    let run = scenario::resolve(&copy, Some(&trace), &strip);
    let _ = fs::remove_dir_all(&tmp);
    let replayed = replay(&trace, &strip);
    let _ = fs::remove_file(&trace);
    (run, replayed)
}

/// Holds a resolved answer against the independent checker.
fn checked_independently(dir: &Path, request: &Request, answer: &Answer) -> Result<(), String> {
    let text = fs::read_to_string(dir.join("request.yaml")).map_err(|e| e.to_string())?;
    let raw: serde_json::Value = checker::documents(&text)?
        .into_iter()
        .next()
        .ok_or("an empty request.yaml")?;
    let sources = scenario::catalog_sources(request)?;
    let inputs = sources
        .iter()
        .map(|s| {
            Ok(checker::CatalogInput {
                name: s.name.clone(),
                priority: s.priority,
                docs: checker::read_tree(&s.path)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let world = checker::World::new(&inputs, &raw, None)?;
    let report: serde_json::Value =
        serde_json::from_str(&answer.json).map_err(|e| e.to_string())?;
    let sel = world.selection_of_report(&report)?;
    world.check(&sel)?;
    world.justified(&sel)
}

/// The determinism and pipeline checks of one catalog scenario; None when all hold.
fn invariants(dir: &Path, name: &str, first: &Answer) -> Option<String> {
    let request = Request::from_file(&dir.join("request.yaml")).ok()?;
    let strip = scenario::folder_prefix(dir);
    let again = scenario::resolve(&request, None, &strip);
    if *first != again {
        return Some(format!("{name}: two resolutions differ"));
    }
    let (back, replayed) = resolve_reversed(&request, dir, name);
    if back.render() != replayed.render() {
        return Some(format!(
            "{name}: the replay differs from the traced run:\n{}",
            scenario::diff(&back.render(), &replayed.render())
        ));
    }
    let direct = resolve_direct(&request, &strip, false);
    if direct != resolve_direct(&request, &strip, true) {
        return Some(format!(
            "{name}: the library on demand differs from the whole program:\n{}",
            scenario::diff(
                &format!("{direct:?}"),
                &format!("{:?}", resolve_direct(&request, &strip, true))
            )
        ));
    }
    let cached = resolve_from_cache(&request, &strip);
    if cached != direct {
        return Some(format!(
            "{name}: the stored set decoded on first use differs from a cold load:\n{}",
            scenario::diff(&format!("{direct:?}"), &format!("{cached:?}"))
        ));
    }
    match (first.exit, direct) {
        (2, Err(e)) if e == first.json => {}
        (_, Err(e)) => {
            return Some(format!(
                "{name}: the library's stages fail: {e}\n(the pipeline: exit {}, {})",
                first.exit, first.json
            ));
        }
        (2, Ok(_)) => {
            return Some(format!(
                "{name}: the pipeline fails ({}), the library's stages resolve",
                first.json
            ));
        }
        (_, Ok(d)) if d != first.json => {
            return Some(format!(
                "{name}: the pipeline differs from the library's stages:\n{}",
                scenario::diff(&first.json, &d)
            ));
        }
        _ => {}
    }
    let (a, b) = (
        without_positions(&first.render()),
        without_positions(&back.render()),
    );
    if a != b {
        return Some(format!(
            "{name}: reversed document order changes the answer:\n{}",
            scenario::diff(&a, &b)
        ));
    }
    if first.exit == 0
        && let Err(e) = checked_independently(dir, &request, first)
    {
        return Some(format!(
            "{name}: the independent checker rejects the answer: {e}"
        ));
    }
    None
}

/// Every scenario here runs and passes, so a README may not call a scenario pending or
/// failing, and a folder it names (`_name/...`) must exist.
fn readme_error(dir: &Path, readme: &str) -> Option<String> {
    let lower = readme.to_lowercase();
    for word in ["pending", "currently fails", "does not pass yet"] {
        if lower.contains(word) {
            return Some(format!(
                "says {word:?}, but every scenario of the suite passes"
            ));
        }
    }
    let root = dir.parent()?;
    readme
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| t.starts_with('_') && t.contains('/'))
        .find(|t| !root.join(t).exists())
        .map(|t| format!("names `{t}`, which does not exist"))
}

/// Runs one scenario: its failure, if any.
fn check(dir: &Path) -> Option<String> {
    let name = dir.file_name()?.to_str()?.to_string();
    let Ok(readme) = fs::read_to_string(dir.join("README.md")) else {
        return Some(format!("{name}: no README.md"));
    };
    if let Some(e) = readme_error(dir, &readme) {
        return Some(format!("{name}: README.md {e}"));
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
