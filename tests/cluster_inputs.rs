//! `deppy cluster resolve` with hostile input, and the conventions it shares with the other
//! resolving commands: budgets with exit code 3, `--output-file` by destination kind, `-` for
//! standard input, state directories walked as catalog directories are (special files and
//! links out never opened), inputs read within their limits, one error shape, escaped text.

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;
use std::time::Duration;

use cli::deppy;

const OPS: &str = "olm/ops=tests/cluster/_catalogs/ops";
const STATE: &str = "tests/cluster/new-subscription/state/state.yaml";

fn state_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(STATE);
    std::fs::read_to_string(path).expect("state fixture")
}

fn resolve(extra: &[&str]) -> cli::Ran {
    let mut args = vec!["cluster", "resolve"];
    args.extend_from_slice(extra);
    deppy(&args).within(Duration::from_secs(30)).run()
}

#[test]
fn a_budget_that_runs_out_is_exit_3() {
    // Every stage is within the time budget: with none left, reading the state stops.
    let out = resolve(&[STATE, "--catalog", OPS, "--timeout", "0", "-o", "json"]);
    out.expect(3);
    assert!(
        out.stderr
            .contains("error: the time budget ran out while reading the state"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "", "no answer to print");
    // The same state within its budget resolves.
    resolve(&[STATE, "--catalog", OPS, "--max-conflicts", "1000"]).expect(0);
    // Budgets are checked as everywhere else.
    resolve(&[STATE, "--catalog", OPS, "--max-conflicts", "0"]).expect(2);
}

#[test]
fn output_files_are_written_by_destination_kind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = resolve(&[STATE, "--catalog", OPS]);
    plain.expect(0);
    // `-` is stdout: no file named `-`.
    let dash = deppy(&[
        "cluster",
        "resolve",
        STATE,
        "--catalog",
        OPS,
        "--output-file",
        "-",
    ])
    .run();
    dash.expect(0);
    assert_eq!(dash.stdout, plain.stdout);
    // A read-only file is refused (exit 4, unchanged) unless --force.
    let file = dir.path().join("answer.txt");
    std::fs::write(&file, "old\n").expect("write");
    let mut perms = std::fs::metadata(&file).expect("meta").permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&file, perms).expect("chmod");
    let path = file.to_str().expect("utf-8 path");
    let refused = resolve(&[STATE, "--catalog", OPS, "--output-file", path]);
    // Root may write anything: the refusal is deppy's own, so it holds for root too.
    refused.expect(4);
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "old\n");
    resolve(&[STATE, "--catalog", OPS, "--output-file", path, "--force"]).expect(0);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), plain.stdout);
}

#[cfg(target_os = "linux")]
#[test]
fn dev_null_stays_a_device() {
    use std::os::unix::fs::FileTypeExt;
    resolve(&[STATE, "--catalog", OPS, "--output-file", "/dev/null"]).expect(0);
    let t = std::fs::metadata("/dev/null").expect("meta").file_type();
    assert!(t.is_char_device());
}

#[test]
fn a_dash_reads_the_state_from_standard_input() {
    let out = deppy(&["cluster", "resolve", "-", "--catalog", OPS])
        .stdin(state_text())
        .within(Duration::from_secs(30))
        .run();
    out.expect(0);
    assert!(
        out.stdout.contains("install etcdoperator"),
        "{}",
        out.stdout
    );
}

#[cfg(unix)]
#[test]
fn special_files_and_links_out_of_a_state_directory_are_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    std::fs::create_dir(&state).expect("mkdir");
    std::fs::write(state.join("state.yaml"), state_text()).expect("write");
    // A sibling the walk must not reach through `up`: it defines the Subscription again.
    let other = state_text().replace("channel: \"alpha\"", "channel: \"beta\"");
    assert_ne!(other, state_text(), "the fixture changed");
    std::fs::write(dir.path().join("other.yaml"), other).expect("write");
    std::os::unix::fs::symlink("..", state.join("up")).expect("link");
    std::os::unix::fs::symlink("missing.yaml", state.join("dangling.yaml")).expect("link");
    std::fs::write(state.join("NOTES.txt"), "not read").expect("write");
    let fifo = state.join("pipe.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let out = deppy(&[
        "cluster",
        "resolve",
        state.to_str().expect("utf-8 path"),
        "--catalog",
        OPS,
    ])
    .within(Duration::from_secs(20))
    .run();
    out.expect(0);
    assert!(
        out.stderr.contains("dangling.yaml: skipped"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("up: skipped: it is a link out of the directory given"),
        "{}",
        out.stderr
    );
    if made.is_ok_and(|s| s.success()) {
        assert!(
            out.stderr.contains("pipe.yaml: skipped: it is a FIFO"),
            "{}",
            out.stderr
        );
    }
    assert!(!out.stderr.contains("NOTES.txt"), "{}", out.stderr);
    // -q: errors only.
    let quiet = deppy(&[
        "-q",
        "cluster",
        "resolve",
        state.to_str().expect("utf-8"),
        "--catalog",
        OPS,
    ])
    .within(Duration::from_secs(20))
    .run();
    quiet.expect(0);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn inputs_are_refused_with_the_place_and_without_internals() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Not UTF-8: the line and column of the first bad byte, as every reader says it.
    let bad = dir.path().join("bad.yaml");
    let mut bytes = state_text().into_bytes();
    bytes.extend_from_slice(b"# \xff\n");
    std::fs::write(&bad, &bytes).expect("write");
    let lines = state_text().lines().count();
    let out = resolve(&[bad.to_str().expect("utf-8"), "--catalog", OPS]);
    out.expect(2);
    let at = format!("bad.yaml:{}:3: not UTF-8 text", lines + 1);
    assert!(
        out.stderr.starts_with("error: ") && out.stderr.contains(&at),
        "{}",
        out.stderr
    );
    // Over the size limit: refused before it is read.
    let limited = deppy(&["cluster", "resolve", STATE, "--catalog", OPS])
        .env("DEPPY_MAX_FILE_SIZE", "100")
        .run();
    limited.expect(2);
    assert!(
        limited.stderr.contains("over the limit"),
        "{}",
        limited.stderr
    );
    // A key given twice in JSON would silently replace the first.
    let dup = dir.path().join("dup.json");
    std::fs::write(
        &dup,
        r#"{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
            "metadata": {"name": "etcd", "namespace": "operators"},
            "spec": {"name": "etcd", "source": "ops", "sourceNamespace": "olm"},
            "spec": {"name": "vault", "source": "ops", "sourceNamespace": "olm"}}"#,
    )
    .expect("write");
    let out = resolve(&[dup.to_str().expect("utf-8"), "--catalog", OPS]);
    out.expect(2);
    assert!(
        out.stderr.contains("duplicate key `spec`"),
        "{}",
        out.stderr
    );
    // A YAML alias bomb: refused at once, in words.
    let bomb = dir.path().join("bomb.yaml");
    let text = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\n{}",
        cli::alias_bomb_yaml()
    );
    std::fs::write(&bomb, text).expect("write");
    let out = resolve(&[bomb.to_str().expect("utf-8"), "--catalog", OPS]);
    out.expect(2);
    assert!(out.stderr.contains("alias"), "{}", out.stderr);
    assert!(out.took < Duration::from_secs(10), "took {:?}", out.took);
    for internal in ["Options", "Budget", "{ "] {
        assert!(!out.stderr.contains(internal), "{}", out.stderr);
    }
}

#[test]
fn control_characters_in_names_are_escaped_in_text() {
    let text = state_text().replace(
        "name: \"etcd\"\n  namespace: \"operators\"",
        "name: \"etcd\\e[2J\\e]0;pwned\\a\"\n  namespace: \"operators\"",
    );
    assert_ne!(text, state_text(), "the fixture changed");
    let out = deppy(&["cluster", "resolve", "-", "--catalog", OPS])
        .stdin(text)
        .within(Duration::from_secs(30))
        .run();
    out.expect(0);
    assert!(
        !out.stdout.contains('\x1b') && !out.stderr.contains('\x1b'),
        "{out:?}"
    );
    assert!(out.stdout.contains("\\x1b[2J"), "{}", out.stdout);
}

#[test]
fn an_invalid_field_is_shown_in_its_file() {
    let out = resolve(&[
        "tests/cluster/bad-csv-version/state",
        "--catalog",
        OPS,
        "--color",
        "never",
    ]);
    out.expect(2);
    assert!(
        out.stderr.starts_with("error: ") && out.stderr.contains("field `spec.version`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("--> tests/cluster/bad-csv-version/state/state.yaml:40:12"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("40 |   version: \"0.9.0.1\"\n   |            ^^^^^^^^^"),
        "{}",
        out.stderr
    );
}

/// `--explain full` adds every step of the derivation, as `resolve --explain full` does.
#[test]
fn explain_full_prints_every_step() {
    let state = "tests/cluster/left-over-csv/state";
    let summary = resolve(&[state, "--catalog", OPS]);
    summary.expect(1);
    assert!(
        !summary.stdout.contains("Derivation:"),
        "{}",
        summary.stdout
    );
    let full = resolve(&[state, "--catalog", OPS, "--explain", "full"]);
    full.expect(1);
    assert!(full.stdout.contains("Derivation:\n"), "{}", full.stdout);
    assert!(full.stdout.contains("(1) Because "), "{}", full.stdout);
    assert!(
        !full.stdout.contains(" \n"),
        "trailing blanks: {}",
        full.stdout
    );
    let json = resolve(&[state, "--catalog", OPS, "--explain", "full", "-o", "json"]);
    json.expect(1);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let e = v["namespaces"][0]["explanation"]
        .as_str()
        .unwrap_or_default();
    assert!(e.contains("Derivation:"), "{e}");
}
