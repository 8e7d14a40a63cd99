//! Terminal output of bad input: the diagnostic `deppy` prints on stderr for a malformed or
//! invalid catalog, request or pipeline file (`tests/terminal/`), plain when stderr is not a
//! terminal, coloured only with `--color always`.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_deppy");

/// Runs deppy in the crate's folder (so paths in messages are relative and stable) with
/// stderr captured, i.e. not a terminal.
fn deppy(args: &[&str], no_color: bool) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR");
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    cmd.output().expect("deppy runs")
}

/// Stderr of a run that must fail with exit 2 and print nothing on stdout.
fn bad_input(args: &[&str]) -> String {
    let out = deppy(args, true);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains('\x1b'), "{stderr}");
    stderr
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s
}

#[test]
fn malformed_json_catalog() {
    let err = bad_input(&["catalog", "inspect", "tests/terminal/bad-json.json"]);
    assert!(
        err.contains("bad-json.json:5:27 (document 3): malformed JSON"),
        "{err}"
    );
    settings().bind(|| insta::assert_snapshot!("malformed_json_catalog", err));
}

#[test]
fn malformed_yaml_catalog() {
    let err = bad_input(&["catalog", "validate", "tests/terminal/bad-yaml.yaml"]);
    settings().bind(|| insta::assert_snapshot!("malformed_yaml_catalog", err));
}

#[test]
fn invalid_bundle_version_points_at_the_field() {
    let err = bad_input(&["catalog", "check", "tests/terminal/bad-version.yaml"]);
    assert!(err.contains("22 |       version: 1.0.0.beta"), "{err}");
    settings().bind(|| insta::assert_snapshot!("invalid_bundle_version", err));
}

#[test]
fn catalog_errors_through_the_pipeline_name_the_node() {
    let err = bad_input(&[
        "resolve",
        "--catalog",
        "tests/terminal/bad-version.yaml",
        "--require",
        "foo",
    ]);
    assert!(err.contains("pipeline node \"load\" failed"), "{err}");
    assert!(err.contains("version: 1.0.0.beta"), "{err}");
}

#[test]
fn request_with_an_unknown_field() {
    let err = bad_input(&["resolve", "tests/terminal/request-unknown-field.yaml"]);
    settings().bind(|| insta::assert_snapshot!("request_unknown_field", err));
}

#[test]
fn request_that_is_not_yaml() {
    let err = bad_input(&["resolve", "tests/terminal/request-bad-yaml.yaml"]);
    settings().bind(|| insta::assert_snapshot!("request_bad_yaml", err));
}

#[test]
fn pipeline_with_an_unknown_node_type() {
    let err = bad_input(&[
        "pipeline",
        "validate",
        "tests/terminal/pipeline-unknown-type.yaml",
    ]);
    settings().bind(|| insta::assert_snapshot!("pipeline_unknown_type", err));
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let args = ["catalog", "inspect", "tests/terminal/bad-json.json"];
    let with = |extra: &[&str], no_color: bool| {
        let all: Vec<&str> = args.iter().chain(extra).copied().collect();
        let out = deppy(&all, no_color);
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(with(&["--color", "always"], false).contains("\x1b["));
    // --color always wins over NO_COLOR, as an explicit choice.
    assert!(with(&["--color", "always"], true).contains("\x1b["));
    assert!(!with(&["--color", "auto"], true).contains('\x1b'));
    assert!(
        !with(&[], false).contains('\x1b'),
        "stderr is not a terminal"
    );
    assert!(!with(&["--color", "never"], false).contains('\x1b'));
    // The coloured report says the same as the plain one.
    let plain = with(&[], true);
    let coloured = with(&["--color", "always"], false);
    assert_eq!(strip_ansi(&coloured), plain);
}

/// `text` without ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn errors_without_a_file_stay_one_line() {
    let out = deppy(&["catalog", "inspect", "catalogs/odf-dev:high"], true);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: \"catalogs/odf-dev:high\": priority"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn cli_doc_example_is_real_output() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md"))
        .expect("docs/cli.md");
    let section = doc
        .split_once("### Terminal output")
        .map(|(_, rest)| rest)
        .expect("docs/cli.md has a Terminal output section");
    let block = section
        .split_once("```\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("a code block");
    let (command, output) = block.split_once('\n').expect("command line");
    let args: Vec<&str> = command
        .strip_prefix("$ deppy ")
        .expect("a deppy command")
        .split(' ')
        .collect();
    assert_eq!(bad_input(&args), output);
}
