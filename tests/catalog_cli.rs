//! `deppy catalog inspect|validate`: output formats and exit codes.

use std::process::{Command, Output};

fn deppy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_deppy"))
        .args(args)
        .output()
        .expect("run deppy")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn inspect_text_json_yaml() {
    let text = deppy(&["catalog", "inspect", "catalogs/odf-dev"]);
    assert_eq!(text.status.code(), Some(0));
    assert!(stdout(&text).starts_with("catalog odf-dev (priority 0): 16 packages"));
    let json = deppy(&["catalog", "inspect", "catalogs/odf-dev:7", "-o", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["catalogs"][0]["priority"], 7);
    assert_eq!(v["totals"]["bundles"], 15);
    let yaml = deppy(&["catalog", "inspect", "catalogs/odf-dev", "--output", "yaml"]);
    assert_eq!(yaml.status.code(), Some(0));
    assert!(stdout(&yaml).contains("gvk_providers:"));
}

#[test]
fn inspect_several_catalogs() {
    let o = deppy(&[
        "catalog",
        "inspect",
        "catalogs/community-v4.22:1",
        "catalogs/certified-v4.22:2",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.contains("catalog community-v4.22 (priority 1)"),
        "{out}"
    );
    assert!(
        out.contains("catalog certified-v4.22 (priority 2)"),
        "{out}"
    );
}

#[test]
fn validate_exit_codes() {
    let good = deppy(&["catalog", "validate", "catalogs/odf-dev"]);
    assert_eq!(good.status.code(), Some(0));
    assert!(stdout(&good).contains("0 error(s)"));

    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.yaml");
    let text = "schema: olm.package\nname: foo\ndefaultChannel: beta\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n- name: foo.v2\n  replaces: foo.v1\n- name: foo.v1\n  replaces: foo.v2\n";
    std::fs::write(&bad, text).expect("write");
    let path = bad.to_string_lossy().into_owned();
    let o = deppy(&["catalog", "validate", &path]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("error: bad/foo/stable: channel \"stable\" has a replaces cycle"),
        "{out}"
    );
    assert!(
        out.contains("error: bad/foo: defaultChannel \"beta\" names no channel"),
        "{out}"
    );
    let json = deppy(&["catalog", "validate", &path, "-o", "json"]);
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["errors"], 2);
    // inspect still works on an invalid channel and shows the error.
    let o = deppy(&["catalog", "inspect", &path]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("channel stable: ERROR"));
}

#[test]
fn bad_input_exits_2() {
    let o = deppy(&["catalog", "inspect", "catalogs/does-not-exist"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not exist"), "{err}");
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("x.json");
    std::fs::write(
        &f,
        "{\"schema\":\"olm.package\",\"name\":\"a\"}\n{\"name\":",
    )
    .expect("write");
    let o = deppy(&["catalog", "validate", &f.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("x.json:2:") && err.contains("(document 2): malformed JSON"),
        "{err}"
    );
    let o = deppy(&["catalog", "inspect", "catalogs/odf-dev:high"]);
    assert_eq!(o.status.code(), Some(2));
}
