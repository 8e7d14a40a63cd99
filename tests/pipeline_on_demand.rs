//! The pipeline's `datalog` node deriving on demand against the whole program: the default
//! pipeline with `onDemandFrom: 0` (always on demand) and with `onDemandFrom` above any
//! reach (the whole program, as `deppy resolve` derived before) must print the same
//! `deppy resolve -o json` report, byte for byte, for every package of the shipped catalogs
//! and for requests over the synthetic catalogs of `tests/derive_on_demand.rs`, satisfiable
//! and not. The on-demand runs must emit fewer variables than the whole program for some
//! request, or they did not derive on demand at all.

use std::path::{Path, PathBuf};

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::{Request, Requirement};
use deppy::pipeline::{Pipeline, PipelineConfig, Sources};

#[path = "../benches/support/synth.rs"]
#[allow(dead_code)]
mod synth;

/// The default pipeline with the `datalog` node's `onDemandFrom` set.
fn pipeline(on_demand_from: u64) -> Pipeline {
    let mut config = PipelineConfig::default_config();
    let node = config
        .nodes
        .iter_mut()
        .find(|n| n.node_type == "datalog")
        .expect("the default pipeline has a datalog node");
    node.params
        .insert("onDemandFrom".into(), serde_json::json!(on_demand_from));
    let mut p = Pipeline::new(config).expect("a valid pipeline");
    p.keep_parsed_files(true);
    p
}

/// What one run printed, as `deppy resolve -o json` prints it (or the failed node), its
/// status, and how many variables the `datalog` node emitted.
fn run(p: &mut Pipeline, sources: &Sources) -> (String, &'static str, usize) {
    match p.run(sources).result {
        Ok(r) => {
            let report = Report::of(&r, Detail::Summary);
            let mut text = serde_json::to_string_pretty(&report).expect("a report serializes");
            text.push('\n');
            let vars = r.variables.model.problem().var_count();
            (text, report.status, vars)
        }
        Err(f) => (format!("node {} failed: {}", f.node, f.error), "error", 0),
    }
}

#[derive(Default)]
struct Tally {
    resolved: usize,
    unsatisfiable: usize,
    /// Requests whose on-demand run emitted fewer variables than the whole program.
    fewer: usize,
}

fn same_reports(catalogs: &[CatalogSource], requests: &[Request], tally: &mut Tally) {
    let mut lazy = pipeline(0);
    let mut whole = pipeline(u64::MAX);
    for request in requests {
        let sources = Sources {
            catalogs: catalogs.to_vec(),
            request: request.clone(),
        };
        let (on_demand, status, lazy_vars) = run(&mut lazy, &sources);
        let (oracle, _, whole_vars) = run(&mut whole, &sources);
        assert_eq!(
            on_demand, oracle,
            "on demand and whole program differ for {:?}",
            request.require
        );
        assert!(
            lazy_vars <= whole_vars,
            "on demand emitted more variables ({lazy_vars}) than the whole program ({whole_vars}) for {:?}",
            request.require
        );
        match status {
            "resolved" => tally.resolved += 1,
            "unsatisfiable" => tally.unsatisfiable += 1,
            _ => {}
        }
        tally.fewer += usize::from(lazy_vars < whole_vars);
    }
}

fn require(specs: &[String]) -> Request {
    Request {
        require: specs
            .iter()
            .map(|s| Requirement::from_spec(s).expect("requirement"))
            .collect(),
        ..Request::default()
    }
}

/// One request per package, and one that no version of the first package satisfies.
fn requests(sources: &[CatalogSource]) -> Vec<Request> {
    let set = CatalogSet::load(sources, &LoadOptions::default()).expect("catalogs load");
    let names = set.package_names();
    let mut out: Vec<Request> = names
        .iter()
        .map(|n| require(std::slice::from_ref(n)))
        .collect();
    if let Some(first) = names.first() {
        out.push(require(&[format!("{first}@>=9999.0.0")]));
    }
    out
}

fn source(name: &str, path: PathBuf) -> Vec<CatalogSource> {
    vec![CatalogSource {
        name: name.into(),
        path,
        priority: 0,
    }]
}

#[test]
fn shipped_catalogs_print_the_same_report_on_demand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs");
    let mut tally = Tally::default();
    for name in ["odf-dev", "certified-converted-v4.22"] {
        let sources = source(name, root.join(name));
        same_reports(&sources, &requests(&sources), &mut tally);
    }
    assert!(tally.resolved > 0, "no request resolved");
    assert!(tally.unsatisfiable > 0, "no request was unsatisfiable");
    assert!(tally.fewer > 0, "no run derived fewer variables on demand");
}

#[test]
fn synthetic_catalogs_print_the_same_report_on_demand() {
    let dir = std::env::temp_dir().join(format!("deppy-pipeline-demand-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut tally = Tally::default();
    for seed in 0..8u64 {
        let packages = 30 + 10 * seed as usize;
        let (fbc, roots) = synth::generate(packages, 2 + seed as usize % 5, 1.0, seed);
        let path = dir.join(format!("synth-{seed}.json"));
        std::fs::write(&path, fbc).expect("write synthetic catalog");
        let sources = source("synth", path);
        let mut all = vec![require(&roots)];
        all.extend(requests(&sources).into_iter().rev().step_by(9));
        same_reports(&sources, &all, &mut tally);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(tally.resolved > 0, "no request resolved");
    assert!(tally.unsatisfiable > 0, "no request was unsatisfiable");
    assert!(tally.fewer > 0, "no run derived fewer variables on demand");
}
