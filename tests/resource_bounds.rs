//! Resource bounds (issue 8, part 3) and atomic outputs (part 5): each hostile input is built
//! in a temp dir, and deppy must answer with a clear error (exit 2, naming the file and the
//! limit) or a correct answer, within a bounded time and without overflowing the stack.
//!
//! Limits unit-tested elsewhere (here only end to end, in
//! `constraint_limits_name_the_file_and_field`, and through the CLI):
//! - `olm.constraint` value over 64 KiB, nesting over 32 (a 100,000-level value too):
//!   `src/constraint/tests_parse.rs` (`size_limit`, `depth_limit`,
//!   `hostile_nesting_gives_clean_errors`), admin/cluster ones in `tests_admin.rs`;
//! - CEL cost, length and depth: `src/constraint/tests_cel.rs` (`too_costly_rules_are_rejected`,
//!   `rules_at_the_depth_limit_evaluate_on_a_small_stack`);
//! - a 100,000-entry replaces chain, and a cycle through all of it, in the channel graph:
//!   `src/catalog/channel.rs` (`long_chain_is_iterative`);
//! - the solver's budget (`--timeout`, `--max-conflicts`): `tests/budget.rs`.

#[path = "support/inputs.rs"]
mod inputs;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadError, LoadOptions};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::Outcome;
use deppy::pipeline::{Pipeline, PipelineConfig, Sources};

const BIN: &str = env!("CARGO_BIN_EXE_deppy");

/// Runs the deppy binary with `args`, failing the test if it runs longer than `limit`.
fn deppy(args: &[&str], limit: Duration) -> Output {
    let start = Instant::now();
    let out = Command::new(BIN).args(args).output().expect("run deppy");
    let took = start.elapsed();
    assert!(
        took < limit,
        "deppy {args:?} took {took:?} (limit {limit:?})"
    );
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts exit 2 and a message holding every one of `parts`.
fn assert_bad_input(out: &Output, parts: &[&str]) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    for p in parts {
        assert!(err.contains(p), "{p:?} not in: {err}");
    }
    err
}

/// Asserts exit 4 (the result could not be written) and a message holding every one of
/// `parts`.
fn assert_output_error(out: &Output, parts: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(4), "stderr: {err}");
    for p in parts {
        assert!(err.contains(p), "{p:?} not in: {err}");
    }
}

fn source(path: &Path) -> CatalogSource {
    CatalogSource {
        name: "c".into(),
        path: path.to_path_buf(),
        priority: 0,
    }
}

/// Runs `f` on a thread with a `stack`-byte stack and returns its result: anything that
/// recursed once per level of the input would overflow it.
fn on_small_stack<R: Send + 'static>(stack: usize, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic and no stack overflow")
}

/// A chain of `n` packages, `p0` requires `p1`, ... `p{n-1}` requires `p{n}`, which exists
/// only when `complete`. One JSON file.
fn chain_catalog(dir: &Path, n: usize, complete: bool) -> PathBuf {
    let path = dir.join(if complete {
        "chain.json"
    } else {
        "broken.json"
    });
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    for i in 0..n {
        writeln!(
            w,
            r#"{{"schema":"olm.package","name":"p{i}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"p{i}","name":"stable","entries":[{{"name":"p{i}.v1.0.0"}}]}}"#
        )
        .expect("write");
        let dep = if i + 1 < n || !complete {
            format!(
                r#",{{"type":"olm.package.required","value":{{"packageName":"p{}","versionRange":">=1.0.0"}}}}"#,
                i + 1
            )
        } else {
            String::new()
        };
        writeln!(
            w,
            r#"{{"schema":"olm.bundle","name":"p{i}.v1.0.0","package":"p{i}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"p{i}","version":"1.0.0"}}}}{dep}]}}"#
        )
        .expect("write");
    }
    w.flush().expect("flush");
    path
}

fn chain_sources(path: &Path) -> Sources {
    Sources {
        catalogs: vec![source(path)],
        request: Request {
            require: vec![Requirement::from_spec("p0").expect("spec")],
            ..Request::default()
        },
    }
}

/// Levels of the deep dependency chains run on a small stack (see `deep_dependency_chain_*`).
const CHAIN: usize = 10_000;
/// Their stack: 256 KiB. Recursion once per level would need at least 26 bytes a frame.
const SMALL_STACK: usize = 256 << 10;

/// A 10,000-level dependency chain resolves on a 256 KiB stack: loading, reachability,
/// Datalog, the solver, the checker, the report (text and JSON), why, why-not, the plan and
/// the picture. (The 100,000-level chain through the release binary: see "Resource bounds"
/// in docs/reliability.md.)
#[test]
fn deep_dependency_chain_resolves_without_recursion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = chain_catalog(dir.path(), CHAIN, true);
    let start = Instant::now();
    let sizes = on_small_stack(SMALL_STACK, move || {
        let mut pipeline = Pipeline::new(PipelineConfig::default_config()).expect("pipeline");
        let run = pipeline.run(&chain_sources(&path));
        let r = run.result.map_err(|f| f.to_string()).expect("resolved");
        let Outcome::Resolved(answer) = &r.outcome else {
            panic!("expected an answer");
        };
        assert_eq!(answer.selected.len(), CHAIN);
        let report = Report::of(&r, Detail::Full);
        let json = serde_json::to_string(&report).expect("json");
        let text = report.to_text();
        let model = &r.variables.model;
        let last = r
            .universe()
            .set
            .bundles
            .iter()
            .find(|b| b.name == format!("p{}.v1.0.0", CHAIN - 1))
            .map(|b| b.id)
            .expect("last bundle");
        let chain = model.why(&answer.bundles, last).expect("why");
        assert_eq!(chain.len(), CHAIN);
        let why = deppy::advanced::explain::why::why(model, r.request(), last, &chain);
        assert!(matches!(
            model.why_not(&answer.bundles, last),
            deppy::advanced::resolve::why::WhyNot::Selected
        ));
        // Against an empty selection: every constraint is looked at.
        assert!(!matches!(
            model.why_not(&[], last),
            deppy::advanced::resolve::why::WhyNot::Selected
        ));
        let plan = model.plan(answer);
        assert_eq!(
            plan.first().map(|s| s.bundle.as_str()),
            Some(format!("p{}.v1.0.0", CHAIN - 1).as_str())
        );
        let graph = deppy::advanced::graph::resolution(
            model,
            &r.outcome,
            deppy::advanced::graph::Syntax::Dot,
        );
        (json.len(), text.len(), why.len(), graph.len())
    });
    let took = start.elapsed();
    eprintln!("{CHAIN}-level chain, resolved: {took:?}, outputs {sizes:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// A chain of `n` packages of two versions each, every version of `p{i}` requiring `p{i+1}`
/// at `>=1.0.0`: each link's list has two candidates.
fn two_version_chain(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("chain2.json");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    for i in 0..n {
        writeln!(
            w,
            r#"{{"schema":"olm.package","name":"p{i}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"p{i}","name":"stable","entries":[{{"name":"p{i}.v1.0.0"}},{{"name":"p{i}.v1.1.0","replaces":"p{i}.v1.0.0"}}]}}"#
        )
        .expect("write");
        let dep = inputs::chain_dependency(i, n);
        for v in ["1.0.0", "1.1.0"] {
            writeln!(
                w,
                r#"{{"schema":"olm.bundle","name":"p{i}.v{v}","package":"p{i}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"p{i}","version":"{v}"}}}}{dep}]}}"#
            )
            .expect("write");
        }
    }
    w.flush().expect("flush");
    path
}

/// Derivation on demand derives a link's lists when the one search first selects the link:
/// a 3,000-link chain whose links have two candidates each costs a run of the rules per
/// link, within that search, and stays linear.
#[test]
fn deep_chain_of_several_candidates_is_derived_link_by_link_in_one_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = two_version_chain(dir.path(), 3_000);
    let start = Instant::now();
    let mut pipeline = Pipeline::new(PipelineConfig::default_config()).expect("pipeline");
    let run = pipeline.run(&chain_sources(&path));
    let r = run.result.map_err(|f| f.to_string()).expect("resolved");
    let Outcome::Resolved(answer) = &r.outcome else {
        panic!("expected an answer");
    };
    assert_eq!(answer.selected.len(), 3_000);
    assert!(
        answer
            .selected
            .iter()
            .all(|s| s.bundle.ends_with(".v1.1.0"))
    );
    let took = start.elapsed();
    eprintln!("3,000-link chain of two versions each: {took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// The same chain with its last link missing: the proof is 10,000 steps deep, and the
/// explanation (summary and full) is rendered on a 256 KiB stack.
#[test]
fn deep_dependency_chain_failure_is_explained_without_recursion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = chain_catalog(dir.path(), CHAIN, false);
    let start = Instant::now();
    let text = on_small_stack(SMALL_STACK, move || {
        let mut pipeline = Pipeline::new(PipelineConfig::default_config()).expect("pipeline");
        let run = pipeline.run(&chain_sources(&path));
        let r = run.result.map_err(|f| f.to_string()).expect("ran");
        let Outcome::Unsatisfiable(f) = &r.outcome else {
            panic!("expected a failure");
        };
        assert!(f.tree.nodes.len() >= CHAIN, "{}", f.tree.nodes.len());
        let report = Report::of(&r, Detail::Full);
        let json = serde_json::to_string(&report).expect("json");
        assert!(json.len() > CHAIN * 50);
        let graph = deppy::advanced::graph::resolution(
            &r.variables.model,
            &r.outcome,
            deppy::advanced::graph::Syntax::Mermaid,
        );
        assert!(graph.len() > CHAIN);
        report.to_text()
    });
    let took = start.elapsed();
    eprintln!(
        "{CHAIN}-level chain, unsatisfiable: {took:?}, {} bytes of explanation",
        text.len()
    );
    let last = format!("p{}.v1.0.0 requires package p{CHAIN}", CHAIN - 1);
    assert!(text.contains(&last), "{}", &text[..text.len().min(2000)]);
    assert!(
        text.contains(&format!("({})", CHAIN)),
        "every step is numbered"
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
}

// ---------------------------------------------------------------------------------------
// Loader limits
// ---------------------------------------------------------------------------------------

fn load_err(path: &Path) -> LoadError {
    match CatalogSet::load(&[source(path)], &LoadOptions::default()) {
        Ok(_) => panic!("{} loaded", path.display()),
        Err(e) => e,
    }
}

/// A 1 GiB file (sparse: nothing is written) is refused from its metadata, before a byte is
/// read, by the loader and by both CLI paths (`catalog inspect` loads directly, `resolve`
/// reads through the pipeline).
#[test]
fn a_1_gib_file_is_refused_before_reading() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("huge.json");
    std::fs::File::create(&path)
        .and_then(|f| f.set_len(1 << 30))
        .expect("sparse file");
    let start = Instant::now();
    match load_err(&path) {
        LoadError::TooLarge {
            what,
            actual,
            limit,
            ..
        } => assert_eq!((what, actual, limit), ("file size", 1 << 30, 512 << 20)),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(1));
    let p = path.to_str().expect("utf8");
    let parts = [
        "huge.json",
        "file size is 1.0 GiB (1073741824 bytes), over the limit of 512.0 MiB (536870912 bytes)",
        "DEPPY_MAX_FILE_SIZE",
    ];
    let out = deppy(&["catalog", "inspect", p], Duration::from_secs(5));
    assert_bad_input(&out, &parts);
    let out = deppy(
        &["resolve", "--catalog", p, "--require", "x"],
        Duration::from_secs(5),
    );
    assert_bad_input(&out, &parts);
}

/// `DEPPY_MAX_FILE_SIZE` moves the limit, and a file that grows past it while it is read
/// (here: a device that reports no size) is cut off at the limit.
#[test]
fn the_file_size_limit_is_configurable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = chain_catalog(dir.path(), 3, true);
    let p = path.to_str().expect("utf8");
    let out = Command::new(BIN)
        .args(["catalog", "inspect", p])
        .env("DEPPY_MAX_FILE_SIZE", "100")
        .output()
        .expect("run");
    assert_bad_input(&out, &["chain.json", "over the limit of 100 bytes"]);
    let out = Command::new(BIN)
        .args(["catalog", "inspect", p])
        .env("DEPPY_MAX_FILE_SIZE", "1000000")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if Path::new("/dev/zero").exists() {
        let out = Command::new(BIN)
            .args(["catalog", "inspect", "/dev/zero"])
            .env("DEPPY_MAX_FILE_SIZE", "1000000")
            .output()
            .expect("run");
        assert_bad_input(
            &out,
            &["/dev/zero", "file size is 976.6 KiB (1000001 bytes)"],
        );
    }
}

/// The billion-laughs bomb: nine levels of ten aliases each (10^9 nodes). serde-saphyr's
/// budgets, sized per document, stop it at once with a message that says what it is.
#[test]
fn yaml_alias_bombs_are_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text =
        String::from("schema: olm.package\nname: foo\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let bomb = dir.path().join("bomb.yaml");
    std::fs::write(&bomb, &text).expect("write");
    let out = deppy(
        &["catalog", "inspect", bomb.to_str().expect("utf8")],
        Duration::from_secs(3),
    );
    assert_bad_input(
        &out,
        &[
            "bomb.yaml:",
            "(document 1)",
            "YAML safety limit exceeded",
            "(an alias bomb?)",
        ],
    );
    // Many small aliases of one anchor: the alias count budget.
    let many = dir.path().join("many.yaml");
    let refs = vec!["*a"; 60_000].join(", ");
    std::fs::write(
        &many,
        format!("schema: olm.package\nname: foo\na: &a [x]\nb: [{refs}]\n"),
    )
    .expect("write");
    let out = deppy(
        &["catalog", "inspect", many.to_str().expect("utf8")],
        Duration::from_secs(5),
    );
    assert_bad_input(
        &out,
        &["many.yaml:4", "more than 50,000 aliases in this document"],
    );
    // A document storm of bombs each under the budget: the budget grows with each
    // document's size, so the whole file's alias work is linear in its bytes.
    let storm = dir.path().join("storm.yaml");
    let doc = "---\nschema: x\na: &a [x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*a, *a, *a, *a, *a, *a, *a, *a]\n";
    std::fs::write(&storm, doc.repeat(2_000)).expect("write");
    let start = Instant::now();
    CatalogSet::load(&[source(&storm)], &LoadOptions::default()).expect("anchors are allowed");
    eprintln!("2,000 documents with anchors: {:?}", start.elapsed());
}

/// Documents are counted before they are parsed (YAML) or as they stream (JSON): a file of
/// more than 1,000,000 documents is refused, naming the file and the limit.
#[test]
fn yaml_document_storms_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let yaml = dir.path().join("storm.yaml");
    std::fs::write(&yaml, "---\na: 1\n".repeat(1_000_001)).expect("write");
    let start = Instant::now();
    let e = load_err(&yaml);
    eprintln!("YAML storm: {:?}", start.elapsed());
    assert_eq!(
        e.to_string(),
        format!(
            "{}: more than 1,000,000 documents (the limit per file)",
            yaml.display()
        )
    );
    // Exactly at the limit: the documents are parsed (and, here, skipped).
    std::fs::write(&yaml, "---\nschema: x\n".repeat(1_000)).expect("write");
    CatalogSet::load(&[source(&yaml)], &LoadOptions::default()).expect("1,000 documents");
    // Empty documents are not documents: a storm of `---` lines costs one scan.
    std::fs::write(&yaml, "---\n".repeat(2_000_000)).expect("write");
    let set = CatalogSet::load(&[source(&yaml)], &LoadOptions::default()).expect("empty");
    assert!(set.bundles.is_empty());
}

/// The JSON side of [`yaml_document_storms_are_refused`].
#[test]
fn json_document_storms_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("storm.json");
    std::fs::write(&json, "{\"schema\":\"x\"}\n".repeat(1_000_001)).expect("write");
    let start = Instant::now();
    let e = load_err(&json);
    eprintln!("JSON storm: {:?}", start.elapsed());
    assert!(
        matches!(
            e,
            LoadError::TooLarge {
                what: "documents",
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("storm.json: more than 1,000,000 documents"),
        "{e}"
    );
}

fn big_channel(dir: &Path, entries: usize, cycle: bool) -> PathBuf {
    let path = dir.join(format!("channel{entries}.json"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    write!(
        w,
        r#"{{"schema":"olm.package","name":"big","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"big","name":"stable","entries":["#
    )
    .expect("write");
    for i in 0..entries {
        let sep = if i == 0 { "" } else { "," };
        let replaces = match (i, cycle) {
            (0, false) => String::new(),
            (0, true) => format!(r#","replaces":"big.v0.0.{}""#, entries - 1),
            _ => format!(r#","replaces":"big.v0.0.{}""#, i - 1),
        };
        write!(w, r#"{sep}{{"name":"big.v0.0.{i}"{replaces}}}"#).expect("write");
    }
    let head = entries - 1;
    writeln!(
        w,
        r#"]}}
{{"schema":"olm.bundle","name":"big.v0.0.{head}","package":"big","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"big","version":"0.0.{head}"}}}}]}}"#
    )
    .expect("write");
    w.flush().expect("flush");
    path
}

/// A channel of 1,000,000 entries is refused when its document is read, naming the file,
/// the document and the field. At the limit (100,000 entries) it loads and resolves.
#[test]
fn a_million_entry_channel_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = big_channel(dir.path(), 1_000_000, false);
    let out = deppy(
        &["catalog", "inspect", path.to_str().expect("utf8")],
        Duration::from_secs(20),
    );
    assert_bad_input(
        &out,
        &[
            "channel1000000.json:2 (document 2), field `entries`",
            "lists 1,000,000 entries, over the limit of 100,000 per channel",
        ],
    );
    let path = big_channel(dir.path(), 100_000, false);
    let start = Instant::now();
    let set = CatalogSet::load(&[source(&path)], &LoadOptions::default()).expect("at the limit");
    assert_eq!(set.packages[0].channels[0].entries.len(), 100_000);
    let resolver = deppy::advanced::resolve::Resolver::new(set);
    let request = Request {
        require: vec![Requirement::from_spec("big").expect("spec")],
        ..Request::default()
    };
    let (_, outcome) = resolver.resolve(&request).expect("resolves");
    let Outcome::Resolved(answer) = outcome else {
        panic!("expected an answer")
    };
    assert_eq!(answer.selected[0].bundle, "big.v0.0.99999");
    eprintln!(
        "100,000-entry channel, load and resolve: {:?}",
        start.elapsed()
    );
    assert!(start.elapsed() < Duration::from_secs(20));
}

/// A replaces cycle through 100,000 entries: found without recursion, and reported in one
/// short line (the first and last entries of the cycle).
#[test]
fn a_100k_entry_replaces_cycle_is_one_short_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = big_channel(dir.path(), 100_000, true);
    let out = deppy(
        &[
            "resolve",
            "--catalog",
            path.to_str().expect("utf8"),
            "--require",
            "big",
        ],
        Duration::from_secs(20),
    );
    let err = assert_bad_input(
        &out,
        &[
            "package \"big\" channel \"stable\" in catalog \"channel100000\" is malformed",
            "has a replaces cycle: big.v0.0.0 -> big.v0.0.99999 -> big.v0.0.99998 -> big.v0.0.99997 -> ... (99994 more) -> big.v0.0.2 -> big.v0.0.1 -> big.v0.0.0",
        ],
    );
    assert!(err.len() < 2_000, "{} bytes of error", err.len());
}

/// The `olm.constraint` limits (unit-tested in `src/constraint`) end to end: a bundle's
/// constraint over 64 KiB, nested deeper than 32, or with a CEL rule over the cost bound
/// is bad input naming the file, the document and the property.
#[test]
fn constraint_limits_name_the_file_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut nested = r#"{"package":{"packageName":"b","versionRange":">=0.0.0"}}"#.to_string();
    for _ in 0..32 {
        nested = format!(r#"{{"all":{{"constraints":[{nested}]}}}}"#);
    }
    let cases = [
        (
            "size",
            format!(r#"{{"cel":{{"rule":"'{}' == ''"}}}}"#, "a".repeat(65 * 1024)),
            "more than the limit of 65536 bytes",
        ),
        ("nesting", nested, "nested deeper than the limit of 32"),
        (
            "cost",
            r#"{"cel":{"rule":"properties.exists(a, properties.exists(b, properties.exists(c, a.type == c.type)))"}}"#.to_string(),
            "is too costly: estimated cost 10090904, limit 1000000",
        ),
    ];
    for (name, constraint, message) in cases {
        let path = dir.path().join(format!("{name}.json"));
        let text = format!(
            r#"{{"schema":"olm.package","name":"a","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"a","name":"stable","entries":[{{"name":"a.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"a","version":"1.0.0"}}}},{{"type":"olm.constraint","value":{constraint}}}]}}
"#
        );
        std::fs::write(&path, text).expect("write");
        let out = deppy(
            &[
                "resolve",
                "--catalog",
                path.to_str().expect("utf8"),
                "--require",
                "a",
            ],
            Duration::from_secs(5),
        );
        let file = format!("{name}.json:3 (document 3), field `properties[1].value`");
        assert_bad_input(&out, &[&file, message]);
    }
}

// ---------------------------------------------------------------------------------------
// Nothing lost: --output-file, traces
// ---------------------------------------------------------------------------------------

/// Names in `dir`, sorted (temporary files start with a dot).
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const ODF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/catalogs/odf-dev");

/// `--output-file` writes what stdout would have shown, completely, replacing an existing
/// file, and leaves no temporary file; on `resolve`, `solve`, `plan`, `graph` and
/// `catalog render`.
#[test]
fn output_files_are_complete_and_replace_atomically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.txt");
    let o = out.to_str().expect("utf8");
    let problem = dir.path().join("problem.yaml");
    std::fs::write(
        &problem,
        "variables:\n  - {id: a, constraints: [{mandatory: {}}, {dependency: [b]}]}\n  - {id: b}\n",
    )
    .expect("write");
    let bundle = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/bundle-dirs/awss3-operator-registry"
    );
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "resolve",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "-o",
            "json",
        ],
        vec!["solve", problem.to_str().expect("utf8"), "-o", "yaml"],
        vec!["plan", "--catalog", ODF, "--require", "odf-dependencies"],
        vec![
            "graph",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "--format",
            "mermaid",
        ],
        vec!["catalog", "render", bundle],
    ];
    for args in commands {
        std::fs::write(
            &out,
            "an older, longer file that must be replaced entirely\n".repeat(1000),
        )
        .expect("write");
        let printed = deppy(&args, Duration::from_secs(20));
        assert_eq!(
            printed.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&printed)
        );
        let with_file = [&args[..], &["--output-file", o]].concat();
        let written = deppy(&with_file, Duration::from_secs(20));
        assert_eq!(
            written.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&written)
        );
        assert_eq!(stdout(&written), "", "{args:?} printed with --output-file");
        let text = std::fs::read_to_string(&out).expect("read");
        assert!(!text.is_empty(), "{args:?}");
        assert_eq!(text, stdout(&printed), "{args:?}");
        assert_eq!(listing(dir.path()), ["out.txt", "problem.yaml"], "{args:?}");
    }
}

/// A run that fails (bad input, exit 2), or cannot write (exit 4: the destination is a
/// directory, or its directory is missing), leaves an existing file as it was and no
/// temporary file.
#[test]
fn a_failed_run_leaves_the_old_output_intact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("answer.json");
    std::fs::write(&out, "old answer\n").expect("write");
    let o = out.to_str().expect("utf8");
    let missing = dir.path().join("nope");
    let bad = deppy(
        &[
            "resolve",
            "--catalog",
            missing.to_str().expect("utf8"),
            "--require",
            "x",
            "--output-file",
            o,
        ],
        Duration::from_secs(10),
    );
    assert_bad_input(&bad, &["nope"]);
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "old answer\n");
    let taken = dir.path().join("taken");
    std::fs::create_dir(&taken).expect("mkdir");
    let cant = deppy(
        &[
            "resolve",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "--output-file",
            taken.to_str().expect("utf8"),
        ],
        Duration::from_secs(10),
    );
    assert_output_error(&cant, &["cannot write", "taken"]);
    assert!(taken.is_dir());
    let nowhere = dir.path().join("no-dir").join("answer.json");
    let cant = deppy(
        &[
            "resolve",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "--output-file",
            nowhere.to_str().expect("utf8"),
        ],
        Duration::from_secs(10),
    );
    assert_output_error(&cant, &["cannot write", "no-dir"]);
    assert_eq!(listing(dir.path()), ["answer.json", "taken"]);
}

/// A run killed while it works never leaves a truncated output or trace: the old file stays
/// until the new one is complete.
#[test]
fn an_interrupted_run_leaves_the_old_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = chain_catalog(dir.path(), CHAIN, true);
    let out = dir.path().join("answer.json");
    let trace = dir.path().join("trace.jsonl");
    std::fs::write(&out, "old answer\n").expect("write");
    std::fs::write(&trace, "old trace\n").expect("write");
    let mut child = Command::new(BIN)
        .args([
            "resolve",
            "--catalog",
            path.to_str().expect("utf8"),
            "--require",
            "p0",
            "-o",
            "json",
        ])
        .args([
            "--output-file",
            out.to_str().expect("utf8"),
            "--trace",
            trace.to_str().expect("utf8"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(300));
    child.kill().expect("kill");
    let _ = child.wait();
    // Killed mid-run (SIGKILL: no clean-up runs), or, on a fast machine, done: either the
    // old files or the complete new ones, never a part.
    let answer = std::fs::read_to_string(&out).expect("read");
    if answer != "old answer\n" {
        let v: serde_json::Value = serde_json::from_str(&answer).expect("a complete answer");
        assert_eq!(v["status"], "resolved");
    }
    let t = std::fs::read_to_string(&trace).expect("read");
    assert!(t == "old trace\n" || deppy::pipeline::trace::Trace::read(&trace).is_ok());
}

/// A trace cut short (no result line) is refused by `deppy replay`, not replayed as if the
/// run had ended there; `--trace` leaves no temporary file.
#[test]
fn a_truncated_trace_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("t.jsonl");
    let t = trace.to_str().expect("utf8");
    let out = deppy(
        &[
            "resolve",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "--trace",
            t,
        ],
        Duration::from_secs(10),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(listing(dir.path()), ["t.jsonl"]);
    let text = std::fs::read_to_string(&trace).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let cut = lines[..lines.len() - 1].join("\n") + "\n";
    std::fs::write(&trace, cut).expect("write");
    let out = deppy(&["replay", t], Duration::from_secs(10));
    assert_bad_input(&out, &["t.jsonl", "no result line", "incomplete"]);
    // Cut in the middle of a line: malformed JSON, also refused.
    std::fs::write(&trace, &text[..text.len() / 2]).expect("write");
    let out = deppy(&["replay", t], Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
