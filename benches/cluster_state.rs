//! `cargo bench --bench cluster_state`: a cluster dump of realistic size resolved by `deppy
//! cluster resolve`, against the time to parse the same files into untyped values.
//!
//! The state: 300 namespaces, 1,000 Subscriptions and 1,000 CSVs against the shipped
//! catalogs (four CatalogSources in openshift-marketplace). Each CSV is a real one from
//! `tests/bundle-dirs` (icons, install strategy, descriptions) renamed to an installed bundle
//! of a real package, with kubectl's managedFields and a status; most Subscriptions are one
//! upgrade behind their channel head. The dump is written as `kubectl get -o json` Lists (one
//! file per namespace) and as YAML, and each is timed:
//!
//! - floor: every file read and parsed into untyped values (`serde_json::Value`, or
//!   serde-saphyr into `serde_json::Value`), in this process;
//! - read: deppy reading the state into typed objects, in this process;
//! - resolve: planning and resolving every namespace (catalogs loaded included), in this
//!   process;
//! - whole: the `deppy cluster resolve -o json` binary, a new process each run.
//!
//! The target (issue 18) is whole ≤ 1.5 × (floor + resolve). Medians of RUNS runs.

#[path = "support/timing.rs"]
mod timing;

use std::path::{Path, PathBuf};
use std::time::Duration;

use timing::time;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, ChannelGraph, LoadOptions};
use deppy::advanced::cluster::{
    Binding, ClusterOptions, ClusterState, read_paths, resolve_cluster,
};
use serde_json::{Value, json};

const NAMESPACES: usize = 300;
const SUBSCRIPTIONS: usize = 1_000;
const RUNS: usize = 7;
const CATALOGS: [(&str, &str); 4] = [
    ("community-operators", "catalogs/community-v4.22"),
    ("community-converted", "catalogs/community-converted-v4.22"),
    ("certified-operators", "catalogs/certified-v4.22"),
    ("certified-converted", "catalogs/certified-converted-v4.22"),
];

/// A package a Subscription can use: catalog, package, channel, and the bundle installed
/// (the entry after the head when the channel has two, else the head).
struct Offer {
    catalog: &'static str,
    package: String,
    channel: String,
    installed: String,
    version: String,
}

fn offers(root: &Path) -> Vec<Offer> {
    let mut out = Vec::new();
    for (name, path) in CATALOGS {
        let source = CatalogSource {
            name: name.into(),
            path: root.join(path),
            priority: 0,
        };
        let set = CatalogSet::load(&[source], &LoadOptions::default()).expect("shipped catalog");
        for p in &set.packages {
            let Some(dc) = &p.default_channel else {
                continue;
            };
            let Some(ch) = p.channels.iter().find(|c| &c.name == dc) else {
                continue;
            };
            let Ok(g) = ChannelGraph::build(ch) else {
                continue;
            };
            let order = g.order();
            let pick = order.get(1).or(order.first()).copied();
            let entry = pick.and_then(|i| ch.entries.get(i));
            let Some(b) = entry.and_then(|e| e.bundle).and_then(|b| set.bundle(b)) else {
                continue;
            };
            out.push(Offer {
                catalog: name,
                package: set.package_name(p.id).to_string(),
                channel: dc.clone(),
                installed: b.name.clone(),
                version: b.version.to_string(),
            });
        }
    }
    out
}

fn templates(root: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![root.join("tests/bundle-dirs")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("bundle dirs").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".clusterserviceversion.yaml") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("CSV");
            serde_saphyr::from_str::<Value>(&text).expect("CSV YAML")
        })
        .collect()
}

fn meta(name: &str, ns: &str, i: usize, api: &str) -> Value {
    json!({"name": name, "namespace": ns, "uid": format!("uid-{i}"), "resourceVersion": format!("{}", 10_000 + i),
        "creationTimestamp": "2026-11-20T10:00:00Z", "generation": 1,
        "managedFields": [{"apiVersion": api, "fieldsType": "FieldsV1", "manager": "catalog", "operation": "Update",
            "time": "2026-11-20T10:00:00Z", "fieldsV1": {"f:metadata": {"f:annotations": {".": {}}}, "f:spec": {".": {}}, "f:status": {".": {}}}}]})
}

/// One List per namespace: its OperatorGroup, Subscriptions and CSVs.
fn dump(root: &Path) -> Vec<(String, Value)> {
    let offers = offers(root);
    let templates = templates(root);
    let mut lists = Vec::new();
    let mut items = vec![];
    for (i, (name, _)) in CATALOGS.iter().enumerate() {
        items.push(json!({"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
            "metadata": meta(name, "openshift-marketplace", i, "operators.coreos.com/v1alpha1"),
            "spec": {"sourceType": "grpc", "image": format!("registry.example.com/{name}:v4.22"), "priority": 0}}));
    }
    lists.push((
        "openshift-marketplace".to_string(),
        json!({"apiVersion": "v1", "kind": "List", "items": items}),
    ));
    let mut n = 0;
    for k in 0..NAMESPACES {
        let ns = format!("team-{k:03}");
        let subs = SUBSCRIPTIONS / NAMESPACES + usize::from(k < SUBSCRIPTIONS % NAMESPACES);
        let mut items = vec![
            json!({"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
            "metadata": meta("og", &ns, n, "operators.coreos.com/v1"), "spec": {"targetNamespaces": [ns]}}),
        ];
        for s in 0..subs {
            n += 1;
            let o = &offers[(k * 7 + s * 131) % offers.len()];
            items.push(json!({"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
                "metadata": meta(&o.package, &ns, n, "operators.coreos.com/v1alpha1"),
                "spec": {"name": o.package, "channel": o.channel, "source": o.catalog, "sourceNamespace": "openshift-marketplace", "installPlanApproval": "Automatic"},
                "status": {"installedCSV": o.installed, "currentCSV": o.installed, "state": "AtLatestKnown",
                    "conditions": [{"type": "CatalogSourcesUnhealthy", "status": "False", "reason": "AllCatalogSourcesHealthy"}]}}));
            let mut csv = templates[n % templates.len()].clone();
            csv["metadata"] = meta(&o.installed, &ns, n, "operators.coreos.com/v1alpha1");
            let props = json!({"properties": [{"type": "olm.package", "value": {"packageName": o.package, "version": o.version}}]});
            csv["metadata"]["annotations"] = json!({"operatorframework.io/properties": props.to_string(), "olm.operatorNamespace": ns});
            csv["spec"]["version"] = json!(o.version);
            csv["spec"].as_object_mut().map(|s| s.remove("replaces"));
            csv["spec"]["customresourcedefinitions"] = json!({});
            csv["status"] = json!({"phase": "Succeeded", "reason": "InstallSucceeded", "message": "install strategy completed with no errors",
                "conditions": [{"phase": "Succeeded", "reason": "InstallSucceeded", "lastTransitionTime": "2026-11-20T10:00:00Z"}]});
            items.push(csv);
        }
        lists.push((
            ns,
            json!({"apiVersion": "v1", "kind": "List", "items": items}),
        ));
    }
    lists
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut f: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("dump")
        .flatten()
        .map(|e| e.path())
        .collect();
    f.sort();
    f
}

fn floor(dir: &Path, yaml: bool) -> usize {
    let mut n = 0;
    for f in files(dir) {
        let text = std::fs::read_to_string(&f).expect("dump file");
        let v: Value = if yaml {
            serde_saphyr::from_str(&text).expect("YAML")
        } else {
            serde_json::from_str(&text).expect("JSON")
        };
        n += v["items"].as_array().map_or(0, Vec::len);
    }
    n
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("temp dir");
    let lists = dump(root);
    let (json_dir, yaml_dir) = (tmp.path().join("json"), tmp.path().join("yaml"));
    std::fs::create_dir_all(&json_dir).expect("dir");
    std::fs::create_dir_all(&yaml_dir).expect("dir");
    let (mut json_bytes, mut yaml_bytes) = (0, 0);
    for (ns, v) in &lists {
        let j = serde_json::to_string_pretty(v).expect("JSON");
        let y = serde_saphyr::to_string(v).expect("YAML");
        json_bytes += j.len();
        yaml_bytes += y.len();
        std::fs::write(json_dir.join(format!("{ns}.json")), j).expect("write");
        std::fs::write(yaml_dir.join(format!("{ns}.yaml")), y).expect("write");
    }
    let bindings: Vec<Binding> = CATALOGS
        .iter()
        .map(|(n, p)| {
            Binding::parse(&format!(
                "openshift-marketplace/{n}={}",
                root.join(p).display()
            ))
            .expect("binding")
        })
        .collect();
    let bin = env!("CARGO_BIN_EXE_deppy");
    println!(
        "cluster state: {NAMESPACES} namespaces, {SUBSCRIPTIONS} Subscriptions, {SUBSCRIPTIONS} CSVs; JSON {:.1} MB, YAML {:.1} MB; medians of {RUNS} runs",
        json_bytes as f64 / 1e6,
        yaml_bytes as f64 / 1e6
    );
    println!(
        "{:<5} {:>9} {:>9} {:>11} {:>9} {:>22}",
        "form", "floor ms", "read ms", "resolve ms", "whole ms", "whole/(floor+resolve)"
    );
    for (form, dir, yaml) in [("json", &json_dir, false), ("yaml", &yaml_dir, true)] {
        let objects = floor(dir, yaml);
        let floor_t = time(RUNS, || floor(dir, yaml));
        let read_t = time(RUNS, || {
            read_paths(std::slice::from_ref(dir)).expect("state")
        });
        let state = ClusterState::from_dump(read_paths(std::slice::from_ref(dir)).expect("state"))
            .expect("state");
        let answer =
            resolve_cluster(&state, &bindings, &ClusterOptions::default()).expect("answer");
        let resolve_t = time(RUNS, || {
            resolve_cluster(&state, &bindings, &ClusterOptions::default()).expect("answer")
        });
        let mut args: Vec<String> = vec![
            "cluster".into(),
            "resolve".into(),
            dir.display().to_string(),
            "-o".into(),
            "json".into(),
        ];
        for (n, p) in CATALOGS {
            args.push("--catalog".into());
            args.push(format!(
                "openshift-marketplace/{n}={}",
                root.join(p).display()
            ));
        }
        let whole_t = time(RUNS, || {
            let out = std::process::Command::new(bin)
                .args(&args)
                .output()
                .expect("deppy runs");
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        });
        println!(
            "{form:<5} {:>9.1} {:>9.1} {:>11.1} {:>9.1} {:>22.2}   ({objects} objects, status {:?})",
            ms(floor_t),
            ms(read_t),
            ms(resolve_t),
            ms(whole_t),
            ms(whole_t) / (ms(floor_t) + ms(resolve_t)),
            answer.status
        );
    }
}
