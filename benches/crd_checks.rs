//! `cargo bench --bench crd_checks`: the CRD checks of `deppy cluster resolve` over 10,000
//! custom resources (docs/semantics.md §11).
//!
//! The state: the Database CRD of `tests/cluster/crd-safe-upgrade` (v1alpha1 and v1 served,
//! v1 stored) in the cluster, db.v1.0.0 installed in namespace apps, and 10,000 Databases
//! across 100 namespaces (a quarter read at v1alpha1), written as one `kubectl get -o json`
//! List. Each is timed, medians of RUNS runs:
//!
//! - floor: the state file parsed into one untyped value (`serde_json::Value`);
//! - read: deppy reading the state (every custom resource kept whole);
//! - check: `deppy::advanced::crd::compare` of the cluster's CRD with the new one, every object
//!   against each version both serve: once with a schema every object passes
//!   (crd-safe-upgrade's), once with one every object fails (crd-schema-rejects');
//! - resolve: `resolve_cluster` of the read state with the bundle directories bound (the
//!   catalog read, resolution and the checks).

#[path = "support/timing.rs"]
mod timing;

use std::path::Path;
use std::time::Duration;

use timing::time;

use deppy::advanced::cluster::{
    Binding, ClusterOptions, ClusterState, read_paths, resolve_cluster,
};
use deppy::advanced::crd::{CustomResource, compare, parse};
use serde_json::{Value, json};

const OBJECTS: usize = 10_000;
const NAMESPACES: usize = 100;
const RUNS: usize = 5;

fn yaml_file(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("scenario file");
    text.split("---\n")
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_saphyr::from_str::<Value>(d).expect("YAML"))
        .collect()
}

fn database(i: usize) -> Value {
    let version = if i.is_multiple_of(4) {
        "v1alpha1"
    } else {
        "v1"
    };
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Database",
        "metadata": {"name": format!("db-{i:05}"), "namespace": format!("team-{:03}", i % NAMESPACES),
            "uid": format!("uid-{i}"), "resourceVersion": format!("{}", 50_000 + i)},
        "spec": {"size": 1 + i % 5, "engine": if i.is_multiple_of(2) { "postgres" } else { "mysql" },
            "port": if i.is_multiple_of(3) { json!("db") } else { json!(5432) }, "backup": null,
            "extra": {"tuning": {"work_mem": "4MB", "shared_buffers": "128MB"}}},
        "status": {"phase": "Ready", "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cluster");
    let safe = root.join("crd-safe-upgrade");
    let mut items = yaml_file(&safe.join("state/olm.yaml"));
    items.extend(yaml_file(&safe.join("state/crds.yaml")));
    items.extend((0..OBJECTS).map(database));
    let tmp = tempfile::tempdir().expect("temp dir");
    let file = tmp.path().join("state.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    let text = serde_json::to_string_pretty(&list).expect("JSON");
    std::fs::write(&file, &text).expect("write");
    let paths = [file.clone()];

    let floor = time(RUNS, || serde_json::from_str::<Value>(&text).expect("JSON"));
    let read = time(RUNS, || {
        ClusterState::from_dump(read_paths(&paths).expect("read")).expect("state")
    });
    let state = ClusterState::from_dump(read_paths(&paths).expect("read")).expect("state");
    let crs: Vec<_> = state.custom().filter(|c| c.kind == "Database").collect();
    assert_eq!(crs.len(), OBJECTS);
    let ids: Vec<String> = crs.iter().map(|c| c.id()).collect();
    let objects: Vec<CustomResource<'_>> = crs
        .iter()
        .zip(&ids)
        .map(|(c, id)| CustomResource {
            id,
            version: c.version(),
            object: &c.object,
        })
        .collect();
    let old = parse(&yaml_file(&safe.join("state/crds.yaml"))[0]).expect("CRD");
    let new_crd = |scenario: &str| {
        let f = root
            .join(scenario)
            .join("bundles/1.1.0/manifests/example.com_databases.yaml");
        parse(&yaml_file(&f)[0]).expect("CRD")
    };
    let (passing, failing) = (new_crd("crd-safe-upgrade"), new_crd("crd-schema-rejects"));
    let pass = compare(&old, &passing, &objects);
    let fail = compare(&old, &failing, &objects);
    assert!(pass.safe() && pass.problems.is_empty());
    assert!(!fail.safe());
    let check_pass = time(RUNS, || compare(&old, &passing, &objects));
    let check_fail = time(RUNS, || compare(&old, &failing, &objects));
    let binding = format!("olm/dbs={}", safe.join("bundles").display());
    let bindings = [Binding::parse(&binding).expect("binding")];
    let answer = resolve_cluster(&state, &bindings, &ClusterOptions::default()).expect("answer");
    assert!(answer.namespaces.iter().any(|n| !n.crd_checks.is_empty()));
    let resolve = time(RUNS, || {
        resolve_cluster(&state, &bindings, &ClusterOptions::default())
    });

    println!(
        "CRD checks: {OBJECTS} custom resources in {NAMESPACES} namespaces, state JSON {:.1} MB; medians of {RUNS} runs",
        text.len() as f64 / 1e6
    );
    println!("floor (parse to Value)   {:>9.1} ms", ms(floor));
    println!("read (state)             {:>9.1} ms", ms(read));
    println!("check, all pass          {:>9.1} ms", ms(check_pass));
    println!(
        "check, all fail          {:>9.1} ms ({} problems)",
        ms(check_fail),
        fail.problems.len()
    );
    println!("resolve (with checks)    {:>9.1} ms", ms(resolve));
}
