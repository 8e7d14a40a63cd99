//! The resolution pipeline: configuration validation, node types that change answers,
//! events and failures, trace and replay through the CLI, and `deppy watch` reacting to a
//! catalog edit. (That the default pipeline and replays equal `deppy resolve` on every
//! scenario is checked by tests/scenarios.rs.)

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deppy::advanced::catalog::CatalogSource;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::Outcome;
use deppy::pipeline::{Body, NodeState, Pipeline, PipelineConfig, Sources};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_deppy");

fn data(p: &str) -> PathBuf {
    Path::new(MANIFEST).join("tests/pipeline").join(p)
}

fn source(name: &str) -> CatalogSource {
    CatalogSource {
        name: name.into(),
        path: data(name),
        priority: 0,
    }
}

fn sources(catalogs: &[&str], require: &[&str]) -> Sources {
    Sources {
        catalogs: catalogs.iter().map(|c| source(c)).collect(),
        request: Request {
            require: require
                .iter()
                .map(|r| Requirement::from_spec(r).expect("spec"))
                .collect(),
            ..Request::default()
        },
    }
}

fn config(name: &str) -> PipelineConfig {
    let text = std::fs::read_to_string(data(&format!("configs/{name}.yaml"))).expect("config");
    PipelineConfig::parse(&text).expect("parses")
}

fn selected(config: PipelineConfig, s: &Sources) -> Vec<String> {
    let mut p = Pipeline::new(config).expect("valid");
    let run = p.run(s);
    match run.result.map(|r| r.outcome) {
        Ok(Outcome::Resolved(a)) => a.selected.iter().map(|s| s.bundle.clone()).collect(),
        Ok(Outcome::Unsatisfiable(_)) => vec!["unsatisfiable".into()],
        Err(f) => vec![format!("failed at {}: {}", f.node, f.error)],
    }
}

#[test]
fn configured_nodes_change_answers_as_documented() {
    let vault = sources(&["catalog"], &["vault"]);
    let default = PipelineConfig::default_config();
    assert_eq!(
        selected(default.clone(), &vault),
        ["etcd.v0.9.2", "vault.v1.1.0"]
    );
    assert_eq!(
        selected(config("filter"), &vault),
        ["etcd.v0.9.0", "vault.v1.1.0"]
    );
    assert_eq!(
        selected(config("mutate-property"), &vault),
        ["etcd.v0.9.0", "vault.v1.1.0"]
    );
    assert_eq!(
        selected(config("static-variables"), &vault),
        ["etcd.v0.9.0", "vault.v1.0.0"]
    );
    assert_eq!(
        selected(config("static-prohibit"), &vault),
        ["unsatisfiable"]
    );
    let etcd = sources(&["catalog", "other"], &["etcd"]);
    assert_eq!(selected(default, &etcd), ["etcd.v0.9.2"]);
    assert_eq!(selected(config("mutate-priority"), &etcd), ["etcd.v0.9.1"]);
    // A static variable requiring a bundle brings it in with its dependencies.
    let only_etcd = sources(&["catalog"], &["etcd"]);
    assert_eq!(
        selected(config("static-variables"), &only_etcd),
        ["etcd.v0.9.0", "vault.v1.0.0"]
    );
}

fn node(name: &str, t: &str, inputs: &str, extra: &str) -> String {
    format!("  - {{name: {name}, type: {t}, inputs: [{inputs}]{extra}}}\n")
}

/// The default pipeline as YAML lines, with `edit` applied to the text.
fn default_yaml() -> String {
    let mut s = String::from("nodes:\n");
    s.push_str(
        "  - {name: catalogs, type: catalogs}\n  - {name: requirements, type: requirements}\n",
    );
    s.push_str(&node("load", "load-catalogs", "catalogs", ""));
    s.push_str(&node("derive", "datalog", "load, requirements", ""));
    s.push_str(&node("global", "global-constraints", "derive", ""));
    s.push_str(&node("solver", "solver", "derive, global", ""));
    s.push_str(&node("output", "output", "solver", ""));
    s
}

#[test]
fn each_validation_error_names_the_node() {
    let ok = default_yaml();
    assert!(Pipeline::new(PipelineConfig::parse(&ok).expect("yaml")).is_ok());
    let cases: Vec<(String, &str)> = vec![
        (
            ok.replace("name: global,", "name: derive,"),
            "node \"derive\": two nodes have this name",
        ),
        (
            ok.replace("type: solver", "type: sat"),
            "node \"solver\": unknown type \"sat\"",
        ),
        (
            ok.replace("inputs: [solver]", "inputs: [solvr]"),
            "node \"output\": input \"solvr\" names no node",
        ),
        (
            ok.replace("type: catalogs}", "type: catalogs, inputs: [load]}"),
            "node \"catalogs\": a producer takes no inputs",
        ),
        (
            ok.replace(
                "inputs: [derive, global]",
                "inputs: [derive, global, output]",
            ),
            "node \"solver\": input \"output\" is a consumer",
        ),
        (
            ok.replace("inputs: [catalogs]", "inputs: [catalogs, global]"),
            "the edges form a cycle",
        ),
        (
            ok.replace("inputs: [solver]", "inputs: []"),
            "node \"output\": this consumer has no inputs",
        ),
        (
            ok.replace("inputs: [derive]", "inputs: []"),
            "node \"global\": this processor has no inputs",
        ),
        (
            ok.replace("inputs: [solver]", "inputs: [derive]"),
            "node \"output\": cannot take the output of \"derive\" (variables)",
        ),
        (
            ok.replace("inputs: [derive, global]", "inputs: [global]"),
            "node \"solver\": needs an input of kind variables",
        ),
        (
            ok.replace("  - {name: output, type: output, inputs: [solver]}\n", ""),
            "no `output` node",
        ),
        (
            ok.replace(
                "type: load-catalogs,",
                "type: load-catalogs, select: {package: x},",
            ),
            "node \"load\": unknown setting `select`",
        ),
        (
            format!("{ok}  - {{name: f, type: filter, inputs: [load]}}\n"),
            "node \"f\": missing setting `select`",
        ),
        (
            format!("{ok}  - {{name: f, type: filter, inputs: [load], select: {{}}}}\n"),
            "node \"f\": select: give at least one",
        ),
        (
            format!(
                "{ok}  - {{name: m, type: mutate, inputs: [catalogs, load], mutations: [{{setPriority: {{catalog: a, priority: 1}}}}]}}\n"
            ),
            "node \"m\": a mutate node takes inputs of one kind",
        ),
        (
            ok.replace("type: datalog,", "type: datalog, onDemandFrom: -1,"),
            "node \"derive\": onDemandFrom: give a whole number of bundles",
        ),
        (
            ok.replace("type: datalog,", "type: datalog, onDemandFrom: many,"),
            "node \"derive\": onDemandFrom: give a whole number of bundles",
        ),
        (
            ok.replace("type: datalog,", "type: datalog, onDemand: 0,"),
            "node \"derive\": unknown setting `onDemand` (this type takes: onDemandFrom)",
        ),
        ("nodes: 3".to_string(), "pipeline configuration:"),
    ];
    for (yaml, want) in cases {
        let err = PipelineConfig::parse(&yaml)
            .and_then(Pipeline::new)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| panic!("accepted:\n{yaml}"));
        assert!(err.contains(want), "{err:?} does not contain {want:?}");
    }
}

#[test]
fn pipeline_ids_follow_the_normalised_config() {
    let a = PipelineConfig::parse(&default_yaml()).expect("yaml");
    let reordered = default_yaml().replace("inputs: [derive, global]", "inputs: [global, derive]");
    let b = PipelineConfig::parse(&reordered).expect("yaml");
    assert_eq!(a.id(), b.id(), "input order is normalised away");
    let c = PipelineConfig::parse(
        &default_yaml()
            .replace("name: global", "name: global2")
            .replace("[derive, global]", "[derive, global2]"),
    )
    .expect("yaml");
    assert_ne!(a.id(), c.id());
    assert_ne!(a.id(), PipelineConfig::default_config().id());
    assert!(a.id().starts_with("p-") && a.id().len() == 18);
}

#[test]
fn keeping_parsed_files_between_runs_changes_no_answer() {
    let src = sources(&["catalog"], &["vault"]);
    let once = Pipeline::new(PipelineConfig::default_config())
        .expect("valid")
        .run(&src);
    let mut kept = Pipeline::new(PipelineConfig::default_config()).expect("valid");
    kept.keep_parsed_files(true);
    let first = kept.run(&src);
    let second = kept.run(&src);
    let answer = |r: &deppy::pipeline::Run| format!("{:?}", r.result.as_ref().map(|r| &r.outcome));
    assert!(once.result.is_ok());
    assert_eq!(answer(&once), answer(&first));
    assert_eq!(answer(&first), answer(&second));
}

#[test]
fn events_carry_headers_and_a_failure_aborts_with_the_node_named() {
    let mut p = Pipeline::new(PipelineConfig::default_config()).expect("valid");
    p.set_metadata("ticket", "T-1");
    let events = Arc::new(Mutex::new(Vec::new()));
    let log = events.clone();
    p.subscribe(move |e| log.lock().expect("lock").push(e.clone()));
    let ok = p.run(&sources(&["catalog"], &["vault"]));
    assert!(ok.result.is_ok());
    assert!(ok.states.iter().all(|(_, s)| *s == NodeState::Successful));
    let bad = p.run(&sources(&["catalog", "missing"], &["vault"]));
    assert_ne!(ok.execution, bad.execution);
    let failure = bad.result.err().expect("fails");
    assert_eq!(failure.node, "catalogs");
    assert!(
        failure.error.to_string().contains("does not exist"),
        "{}",
        failure.error
    );
    let state = |n: &str| bad.states.iter().find(|(x, _)| x == n).map(|(_, s)| *s);
    assert_eq!(state("catalogs"), Some(NodeState::Failed));
    assert_eq!(state("load"), Some(NodeState::Aborted));
    assert_eq!(state("output"), Some(NodeState::Aborted));
    let events = events.lock().expect("lock");
    let mut ids: Vec<&str> = events.iter().map(|e| e.header.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), events.len(), "event ids are unique");
    let names: Vec<&str> = p.nodes().iter().map(|n| n.name.as_str()).collect();
    for e in events.iter() {
        assert_eq!(e.header.pipeline, p.id());
        assert_eq!(
            e.header.metadata.get("ticket").map(String::as_str),
            Some("T-1")
        );
        assert!(names.contains(&e.header.sender.as_str()));
        assert!(e.header.receiver == "*" || names.contains(&e.header.receiver.as_str()));
        assert!(e.header.time.ends_with('Z'));
    }
    let errors: Vec<_> = events
        .iter()
        .filter(|e| matches!(e.body, Body::Error(_)))
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].header.execution, bad.execution);
    assert_eq!(errors[0].header.sender, "catalogs");
}

fn deppy(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(MANIFEST)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("dir");
    for e in std::fs::read_dir(from).expect("read") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
    }
}

#[test]
fn replay_needs_no_catalog_files_and_refuses_other_pipelines() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cat = tmp.path().join("catalog");
    copy_dir(&data("catalog"), &cat);
    let trace = tmp.path().join("t.jsonl");
    let (t, c) = (trace.to_str().expect("utf8"), cat.to_str().expect("utf8"));
    let (code, original, _) = deppy(&[
        "resolve",
        "--catalog",
        c,
        "--require",
        "vault",
        "-o",
        "json",
        "--trace",
        t,
    ]);
    assert_eq!(code, 0);
    std::fs::remove_dir_all(&cat).expect("catalog removed");
    let (code, replayed, err) = deppy(&["replay", t, "-o", "json"]);
    assert_eq!((code, replayed.as_str()), (0, original.as_str()), "{err}");
    let filter = data("configs/filter.yaml");
    let (code, _, err) = deppy(&["replay", t, "--pipeline", filter.to_str().expect("utf8")]);
    assert_eq!(code, 2);
    assert!(err.contains("trace was recorded by pipeline p-"), "{err}");
    std::fs::write(&trace, "{\"not\": \"a trace\"}\n").expect("write");
    let (code, _, err) = deppy(&["replay", t]);
    assert_eq!(code, 2);
    assert!(err.contains("line 1: not a deppy trace"), "{err}");
}

#[test]
fn cli_names_the_failed_node() {
    let (code, _, err) = deppy(&[
        "resolve",
        "--catalog",
        "tests/pipeline/nope",
        "--require",
        "vault",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("pipeline node \"catalogs\" failed"), "{err}");
    assert!(err.contains("output aborted"), "{err}");
}

const ETCD_094: &str = "---
schema: olm.channel
package: etcd
name: stable
entries:
  - {name: etcd.v0.9.0}
  - {name: etcd.v0.9.2, replaces: etcd.v0.9.0}
  - {name: etcd.v0.9.4, replaces: etcd.v0.9.2}
---
schema: olm.bundle
package: etcd
name: etcd.v0.9.4
image: example.com/etcd:v0.9.4
properties:
  - {type: olm.package, value: {packageName: etcd, version: 0.9.4}}
  - {type: olm.gvk, value: {group: etcd.database.coreos.com, version: v1beta2, kind: EtcdCluster}}
";

#[test]
fn watch_reacts_to_catalog_edits_and_keeps_the_last_good_answer() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cat = tmp.path().join("catalog");
    copy_dir(&data("catalog"), &cat);
    let request = tmp.path().join("request.yaml");
    std::fs::write(
        &request,
        "catalogs: [{path: catalog}]\nrequire:\n  - {package: etcd, channel: stable}\n  - {package: vault, bundle: vault.v1.0.0}\ninstalled:\n  - {bundle: etcd.v0.9.2, package: etcd, version: 0.9.2}\n",
    )
    .expect("request");
    let mut child = Command::new(BIN)
        .args([
            "watch",
            request.to_str().expect("utf8"),
            "--interval",
            "50",
            "--max-runs",
            "3",
        ])
        .current_dir(tmp.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("watch starts");
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |prefix: &str| -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no line starting with {prefix:?}; saw {seen:?}"),
            }
        }
    };
    let first = wait_for("  vault");
    assert!(
        first
            .iter()
            .any(|l| l.contains("etcd.v0.9.2") && l.contains("keep")),
        "{first:?}"
    );
    // Publish etcd 0.9.4 (and a newer vault, which the pinned requirement must ignore).
    let etcd = cat.join("etcd.yaml");
    let text = std::fs::read_to_string(&etcd).expect("read");
    let edited = text.replace("  - {name: etcd.v0.9.2, replaces: etcd.v0.9.0}\n---", "  - {name: etcd.v0.9.2, replaces: etcd.v0.9.0}\n  - {name: etcd.v0.9.4, replaces: etcd.v0.9.2}\n---");
    let bundle = ETCD_094
        .split("---\nschema: olm.bundle")
        .nth(1)
        .expect("bundle doc");
    let save = |text: &str| {
        // As editors do: write aside, then rename over (a watcher never sees half a file).
        let aside = tmp.path().join("aside.yaml");
        std::fs::write(&aside, text).expect("write");
        std::fs::rename(&aside, &etcd).expect("rename");
    };
    save(&format!("{edited}---\nschema: olm.bundle{bundle}"));
    let second = wait_for("[run 2]");
    let line = second.last().expect("a line");
    assert_eq!(
        line,
        "[run 2] etcd: upgrade available 0.9.2 → 0.9.4 via replaces (was 0.9.2)"
    );
    // A broken edit: the error is printed and the last good answer kept.
    save("schema: olm.bundle\nname: [unclosed\n");
    let third = wait_for("[run 3]");
    let line = third.last().expect("a line");
    assert!(
        line.contains("error: pipeline node \"load\" failed")
            && line.contains("keeping the last good answer"),
        "{line}"
    );
    let status = child.wait().expect("watch exits after --max-runs");
    assert!(status.success());
}
