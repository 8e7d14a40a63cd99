//! Claims the reference docs make about behaviour, held against the behaviour: the name of a
//! trace's temporary file (docs/pipeline.md) and which bundle `why-not PKG` explains
//! (docs/cli.md and `deppy why-not --help`).

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use deppy::advanced::catalog::CatalogSource;
use deppy::advanced::request::{Request, Requirement};
use deppy::pipeline::trace::TraceWriter;
use deppy::pipeline::{Pipeline, PipelineConfig, Sources};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn doc(name: &str) -> String {
    std::fs::read_to_string(Path::new(MANIFEST).join("docs").join(name)).expect("a docs file")
}

/// The paragraph of `text` that contains `marker`.
fn paragraph<'t>(text: &'t str, marker: &str) -> &'t str {
    text.split("\n\n")
        .find(|p| p.contains(marker))
        .unwrap_or_else(|| panic!("no paragraph mentions {marker:?}"))
}

/// While a traced run is going, the trace is `.FILE.PID.N.tmp` beside FILE, as
/// docs/pipeline.md says; afterwards only FILE is left.
#[test]
fn the_trace_goes_through_the_temporary_file_the_docs_name() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let trace = dir.path().join("run.jsonl");
    let mut pipeline = Pipeline::new(PipelineConfig::default_config()).expect("the default");
    let writer = TraceWriter::attach(&mut pipeline, &trace).expect("the trace starts");
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (log, folder) = (seen.clone(), dir.path().to_path_buf());
    pipeline.subscribe(move |_| {
        let names = std::fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.file_name().into_string().ok());
        if let Ok(mut l) = log.lock() {
            l.extend(names);
        }
    });
    let sources = Sources {
        catalogs: vec![CatalogSource {
            name: "catalog".into(),
            path: Path::new(MANIFEST).join("tests/pipeline/catalog"),
            priority: 0,
        }],
        request: Request {
            require: vec![Requirement::from_spec("vault").expect("a spec")],
            ..Request::default()
        },
    };
    let run = pipeline.run(&sources);
    writer.finish(&run).expect("the trace is written");
    let seen = seen.lock().expect("the log").clone();
    let prefix = format!(".run.jsonl.{}.", std::process::id());
    let temporary: Vec<&String> = seen.iter().filter(|n| *n != "run.jsonl").collect();
    assert!(!temporary.is_empty(), "no temporary file was seen");
    for name in temporary {
        let n = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .unwrap_or_else(|| panic!("{name} is not .FILE.PID.N.tmp"));
        assert!(n.parse::<u64>().is_ok(), "{name}");
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("the dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    assert_eq!(left, ["run.jsonl"]);
    let docs = doc("pipeline.md");
    let said = paragraph(&docs, "`--trace FILE` writes");
    assert!(
        said.contains("`.FILE.PID.N.tmp`"),
        "docs/pipeline.md does not name the trace's temporary file: {said}"
    );
}

/// `why-not PKG` explains the newest bundle of the package that is not in the answer: with
/// etcd.v0.9.2 selected, etcd.v1.0.0-beta (newest) rather than etcd.v0.9.0 (the next in the
/// default channel). docs/cli.md and the command's help say so.
#[test]
fn why_not_package_explains_its_newest_bundle_not_in_the_answer() {
    let deppy = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_deppy"))
            .args(args)
            .current_dir(MANIFEST)
            .output()
            .expect("deppy runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let answer = deppy(&[
        "why-not",
        "etcd",
        "--catalog",
        "tests/pipeline/catalog",
        "--require",
        "vault",
    ]);
    assert!(answer.starts_with("etcd.v1.0.0-beta "), "{answer}");
    let docs = doc("cli.md");
    let row = docs
        .lines()
        .find(|l| l.starts_with("| `deppy why-not"))
        .expect("docs/cli.md has a why-not row");
    assert!(row.contains("newest bundle not in the answer"), "{row}");
    let help = deppy(&["why-not", "--help"]);
    assert!(help.contains("newest bundle not in the answer"), "{help}");
}
