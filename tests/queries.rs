//! `deppy why`, `why-not`, hints, `catalog check` and `graph`: snapshots of their output on
//! test and real catalogs, and a check that every hint the scenario suite prints really makes
//! its request resolve when applied by hand.

use std::path::Path;
use std::process::Command;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn deppy(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_deppy"))
        .args(args)
        .current_dir(MANIFEST)
        .output()
        .expect("deppy runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), text)
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_omit_expression(true);
    s
}

fn snap(name: &str, args: &[&str]) {
    let (code, out) = deppy(args);
    let body = format!("$ deppy {}\nexit: {code}\n{out}", args.join(" "));
    settings().bind(|| insta::assert_snapshot!(name, body));
}

#[test]
fn why_and_why_not() {
    let cat = ["--catalog", "tests/pipeline/catalog", "--require", "vault"];
    fn with<'a>(head: &[&'a str], cat: &[&'a str]) -> Vec<&'a str> {
        head.iter().chain(cat.iter()).copied().collect()
    }
    snap("why_etcd", &with(&["why", "etcd"], &cat));
    snap("why_not_older", &with(&["why-not", "etcd.v0.9.0"], &cat));
    snap(
        "why_not_other_channel",
        &with(&["why-not", "etcd.v1.0.0-beta"], &cat),
    );
    snap("why_not_package_head", &with(&["why-not", "vault"], &cat));
    snap(
        "why_odf_chain",
        &[
            "why",
            "rook-ceph-operator",
            "--catalog",
            "catalogs/odf-dev",
            "--require",
            "odf-dependencies",
        ],
    );
    snap(
        "why_not_excluded",
        &[
            "why-not",
            "etcdoperator.v0.9.4",
            "tests/scenarios/deprecated-only-provider-etcd/request.yaml",
        ],
    );
    snap(
        "why_not_impossible",
        &[
            "why-not",
            "etcd.v0.9.2",
            "tests/pipeline/catalog-conflict/request.yaml",
        ],
    );
}

#[test]
fn graphs() {
    snap(
        "graph_channels_dot",
        &[
            "graph",
            "--catalog",
            "tests/pipeline/catalog",
            "--package",
            "etcd",
        ],
    );
    snap(
        "graph_resolution_mermaid",
        &[
            "graph",
            "--catalog",
            "tests/pipeline/catalog",
            "--require",
            "vault",
            "--format",
            "mermaid",
        ],
    );
    snap(
        "graph_failure_dot",
        &[
            "graph",
            "tests/scenarios/deprecated-only-provider-etcd/request.yaml",
        ],
    );
}

/// A failure's picture shows every bundle its explanation blames: the excluded provider, the
/// rejected candidates of a requirement.
#[test]
fn failure_graphs_show_the_bundles_the_explanation_names() {
    for scenario in [
        "deprecated-only-provider-etcd",
        "deprecated-pinned",
        "admin-require-unsatisfiable",
        "cluster-runtime-constraint-unsatisfiable",
        "missing-version-range",
        "missing-pinned-bundle",
    ] {
        let request = format!("tests/scenarios/{scenario}/request.yaml");
        let (code, json) = deppy(&["resolve", &request, "-o", "json"]);
        assert_eq!(code, 1, "{scenario} is unsatisfiable");
        let report: serde_json::Value = serde_json::from_str(&json).expect("a JSON report");
        let explanation = report["explanation"].as_str().expect("an explanation");
        let (_, graph) = deppy(&["graph", &request]);
        let parsed = deppy::advanced::request::Request::from_file(
            Path::new(MANIFEST).join(&request).as_path(),
        )
        .expect("the request");
        let sources = deppy::advanced::scenario::catalog_sources(&parsed).expect("catalogs");
        let set = deppy::advanced::catalog::CatalogSet::load(&sources, &Default::default())
            .expect("loads");
        let blamed: Vec<&str> = set
            .bundles
            .iter()
            .map(|b| b.name.as_str())
            .filter(|n| explanation.contains(n))
            .collect();
        assert!(!blamed.is_empty(), "{scenario}: {explanation}");
        for name in blamed {
            assert!(
                graph.contains(&format!("\"{name}")),
                "{scenario}: the explanation names {name}, the graph does not:\n{graph}"
            );
        }
    }
}

#[test]
fn plans_and_completions() {
    snap(
        "plan_all_actions",
        &["plan", "tests/scenarios/answer-all-actions/request.yaml"],
    );
    snap(
        "plan_odf_yaml",
        &[
            "plan",
            "--catalog",
            "catalogs/odf-dev",
            "--require",
            "ocs-client-operator",
            "-o",
            "yaml",
        ],
    );
    let (code, out) = deppy(&[
        "plan",
        "tests/scenarios/answer-all-actions/request.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    let steps: Vec<serde_json::Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(
        steps.last().map(|s| s["action"].clone()),
        Some("remove".into())
    );
    for shell in ["bash", "zsh", "fish"] {
        let (code, out) = deppy(&["completions", shell]);
        assert_eq!(code, 0);
        assert!(out.contains("why-not"), "{shell}");
    }
}

#[test]
fn catalog_check() {
    snap(
        "check_pipeline_catalog",
        &["catalog", "check", "tests/pipeline/catalog"],
    );
    snap("check_odf_dev", &["catalog", "check", "catalogs/odf-dev"]);
    let (code, out) = deppy(&[
        "catalog",
        "check",
        "catalogs/community-v4.22",
        "catalogs/certified-v4.22",
        "-o",
        "json",
    ]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("json rows");
    assert!(rows.len() > 100, "{} rows", rows.len());
    let bad = rows.iter().filter(|r| r["installable"] == false).count();
    assert_eq!(code, if bad > 0 { 1 } else { 0 });
}

/// Applies a hint's change to a request file's YAML value.
fn apply(request: &mut serde_json::Value, change: &serde_json::Value) {
    let i = change["requirement"].as_u64().unwrap_or(0) as usize;
    let req = &mut request["require"][i];
    match change["kind"].as_str().unwrap_or("") {
        "dropRange" => drop(req.as_object_mut().map(|m| m.remove("versionRange"))),
        "dropPin" => drop(req.as_object_mut().map(|m| m.remove("bundle"))),
        "dropCatalog" => drop(req.as_object_mut().map(|m| m.remove("catalog"))),
        "useChannel" => req["channel"] = change["channel"].clone(),
        "removeAdminConstraint" => {
            let k = change["index"].as_u64().unwrap_or(0) as usize;
            drop(request["constraints"].as_array_mut().map(|a| a.remove(k)));
        }
        "removeClusterConstraint" => {
            let k = change["index"].as_u64().unwrap_or(0) as usize;
            drop(
                request["cluster"]["constraints"]
                    .as_array_mut()
                    .map(|a| a.remove(k)),
            );
        }
        "dropKeepInstalled" => request["keepInstalled"] = false.into(),
        other => panic!("unknown hint kind {other}"),
    }
}

#[test]
fn every_printed_hint_resolves() {
    let root = Path::new(MANIFEST).join("tests/scenarios");
    let tmp = tempfile::tempdir().expect("tmp");
    let mut checked = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("scenarios")
        .map(|e| e.expect("entry").path())
        .collect();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.join("request.yaml").exists()) {
        let req = dir.join("request.yaml");
        let (code, out) = deppy(&["resolve", req.to_str().expect("utf8"), "-o", "json"]);
        if code != 1 {
            continue;
        }
        let report: serde_json::Value = serde_json::from_str(&out).expect("json report");
        let Some(hints) = report["hints"].as_array() else {
            continue;
        };
        let text = std::fs::read_to_string(&req).expect("request");
        let base: serde_json::Value = serde_saphyr::from_str(&text).expect("yaml");
        for (k, h) in hints.iter().enumerate() {
            let mut changed = base.clone();
            apply(&mut changed, &h["change"]);
            // Catalog paths stay relative to the scenario folder.
            if let Some(cats) = changed["catalogs"].as_array_mut() {
                for c in cats {
                    let p = dir.join(c["path"].as_str().unwrap_or("."));
                    c["path"] = p.display().to_string().into();
                }
            }
            let file = tmp.path().join(format!(
                "{}-{k}.json",
                dir.file_name().and_then(|n| n.to_str()).unwrap_or("x")
            ));
            std::fs::write(&file, changed.to_string()).expect("write");
            let (code, out) = deppy(&["resolve", file.to_str().expect("utf8"), "-o", "json"]);
            assert_eq!(
                code,
                0,
                "{}: hint {h} does not resolve:\n{out}",
                dir.display()
            );
            let got: serde_json::Value = serde_json::from_str(&out).expect("json");
            let names: Vec<&str> = got["selected"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s["bundle"].as_str())
                .collect();
            let said: Vec<&str> = h["selects"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str())
                .collect();
            assert_eq!(names, said, "{}: hint {h}", dir.display());
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} hints checked");
}
