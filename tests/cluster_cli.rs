//! `deppy cluster resolve` as a user runs it: arguments, exit codes, JSON keys, what-if files,
//! the output file and the list of skipped objects.

use std::path::Path;
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn deppy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_deppy"))
        .current_dir(ROOT)
        .args(args)
        .output()
        .expect("deppy runs")
}

const OPS: &str = "olm/ops=tests/cluster/_catalogs/ops";

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn an_upgrade_in_json_has_the_documented_keys() {
    let out = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/upgrade-replaces/state",
        "--catalog",
        OPS,
        "-o",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["status"], "resolved");
    let ns = &v["namespaces"][0];
    for key in [
        "namespace",
        "status",
        "globalNamespace",
        "subscriptions",
        "selected",
        "warnings",
    ] {
        assert!(ns.get(key).is_some(), "namespace lacks {key}: {ns}");
    }
    let sub = &ns["subscriptions"][0];
    assert_eq!(sub["name"], "etcd");
    assert_eq!(sub["installed"], "etcdoperator.v0.9.0");
    assert_eq!(sub["bundle"], "etcdoperator.v0.9.2");
    assert_eq!(sub["action"], "upgrade");
    assert_eq!(sub["catalog"], "olm/ops");
    let sel = &ns["selected"][0];
    for key in [
        "package", "bundle", "version", "catalog", "channel", "action", "from",
    ] {
        assert!(sel.get(key).is_some(), "selected lacks {key}: {sel}");
    }
    assert_eq!(sel["from"], "etcdoperator.v0.9.0");
}

#[test]
fn exit_codes_follow_the_namespaces() {
    let unsat = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/left-over-csv/state",
        "--catalog",
        OPS,
    ]);
    assert_eq!(unsat.status.code(), Some(1));
    let text = String::from_utf8_lossy(&unsat.stdout);
    assert!(
        text.contains("exists and is not referenced by a subscription"),
        "{text}"
    );
    let blocked = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/no-operatorgroup/state",
        "--catalog",
        OPS,
    ]);
    assert_eq!(blocked.status.code(), Some(1));
    let bad = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/bad-csv-version/state",
        "--catalog",
        OPS,
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("spec.version"));
}

#[test]
fn malformed_bindings_are_usage_errors() {
    for binding in [
        "ops=tests/cluster/_catalogs/ops",
        "olm/ops",
        "olm/=x",
        "olm/ops=tests/cluster/nowhere",
    ] {
        let out = deppy(&[
            "cluster",
            "resolve",
            "tests/cluster/new-subscription/state",
            "--catalog",
            binding,
        ]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{binding}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--catalog"),
            "{binding}"
        );
    }
}

#[test]
fn apply_output_file_and_skipped_objects() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("answer.json");
    let out = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/apply-what-if/state",
        "--apply",
        "tests/cluster/apply-what-if/what-if.yaml",
        "--catalog",
        OPS,
        "-o",
        "json",
        "--output-file",
        file.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("written")).expect("JSON");
    let subs: Vec<&str> = v["namespaces"][0]["subscriptions"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(subs, ["etcd", "vault"]);
    let listed = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/kubectl-json-list/state",
        "--catalog",
        OPS,
        "-v",
    ]);
    assert_eq!(listed.status.code(), Some(0));
    let err = String::from_utf8_lossy(&listed.stderr);
    assert!(
        err.contains("Pod") && err.contains("etcd-operator-abc"),
        "{err}"
    );
}

#[test]
fn a_policy_with_other_sections_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, "require: [{package: etcd}]\n").expect("written");
    let out = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/new-subscription/state",
        "--catalog",
        OPS,
        "--policy",
        policy.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only `constraints` and `cluster`"));
    assert!(
        Path::new(ROOT)
            .join("tests/cluster/policy-admin-constraint/policy.yaml")
            .exists()
    );
}
