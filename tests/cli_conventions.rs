//! Command-line manners, with cargo and rustc as the model: one exit-code table that the
//! code follows and `--help` shows; `warning: …` and `error: …` on stderr in one shape,
//! `-q` and `-v`; no Rust internals in messages; catalogs named on the command line.

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;

use cli::{deppy, one_bundle_catalog};

const ODF: &str = "catalogs/odf-dev";

/// The exit-code table `deppy --help` prints: `(code, meaning)` rows.
fn help_table() -> Vec<(u8, String)> {
    let ran = deppy(&["--help"]).run();
    ran.expect(0);
    let section = ran
        .stdout
        .split_once("Exit codes:")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_else(|| panic!("no exit codes in --help: {}", ran.stdout));
    section
        .lines()
        .filter_map(|l| {
            let (code, meaning) = l.trim().split_once(' ')?;
            Some((code.parse().ok()?, meaning.trim().to_string()))
        })
        .collect()
}

#[test]
fn help_shows_one_exit_code_table() {
    let table = help_table();
    let codes: Vec<u8> = table.iter().map(|(c, _)| *c).collect();
    assert_eq!(codes, [0, 1, 2, 3, 4], "{table:?}");
    // Every command's help points at it; resolve, solve and cluster resolve name the
    // budget's code.
    for cmd in [&["resolve"][..], &["solve"], &["cluster", "resolve"]] {
        let ran = deppy(&[cmd, &["--help"]].concat()).run();
        ran.expect(0);
        assert!(ran.stdout.contains("3 "), "{cmd:?}: {}", ran.stdout);
    }
}

/// The documentation's table is the binary's.
#[test]
fn the_documented_table_is_the_binary_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = ["docs/cli.md", "README.md"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(root.join(f)).ok())
        .find(|t| t.contains("## Exit codes"))
        .expect("a document with an `## Exit codes` section");
    let section = docs
        .split_once("## Exit codes")
        .map(|(_, rest)| rest)
        .expect("section");
    let rows: Vec<(u8, String)> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            Some((cells.first()?.parse().ok()?, cells.get(1)?.to_string()))
        })
        .collect();
    assert_eq!(rows, help_table());
}

#[test]
fn questions_whose_answer_is_no_exit_1() {
    // why: the request is unsatisfiable (not bad input).
    let ran = deppy(&[
        "why",
        "etcd-backup",
        "tests/scenarios/deprecated-only-provider-etcd/request.yaml",
    ])
    .run();
    ran.expect(1);
    assert!(
        ran.stderr.is_empty() || !ran.stderr.contains("error"),
        "{}",
        ran.stderr
    );
    // why-not: the bundle is in the answer.
    let ran = deppy(&[
        "why-not",
        "odf-dependencies",
        "--catalog",
        ODF,
        "--require",
        "odf-dependencies",
    ])
    .run();
    ran.expect(1);
}

#[test]
fn watch_refuses_zero_runs() {
    let ran = deppy(&[
        "watch",
        "--catalog",
        ODF,
        "--require",
        "odf-dependencies",
        "--max-runs",
        "0",
    ])
    .run();
    ran.expect(2);
    assert!(ran.stderr.starts_with("error:"), "{}", ran.stderr);
}

/// Warnings read `warning: …` (not a logger's `[WARN  deppy::…]`); `-q` silences them and
/// `-v` adds notes.
#[test]
fn warnings_notes_and_quiet() {
    let ran = deppy(&["catalog", "inspect", ODF]).run();
    ran.expect(0);
    assert!(ran.stderr.starts_with("warning: "), "{}", ran.stderr);
    assert!(!ran.stderr.contains("[WARN"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("deppy::"), "{}", ran.stderr);
    let quiet = deppy(&["-q", "catalog", "inspect", ODF]).run();
    quiet.expect(0);
    assert_eq!(quiet.stderr, "");
    assert_eq!(quiet.stdout, ran.stdout);
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("c.json");
    let mut text = one_bundle_catalog("foo");
    text.push_str("{\"schema\":\"x.note\"}\n");
    std::fs::write(&file, text).expect("write");
    let f = file.to_str().expect("utf8");
    let plain = deppy(&["catalog", "inspect", f]).run();
    plain.expect(0);
    assert!(!plain.stderr.contains("note:"), "{}", plain.stderr);
    let verbose = deppy(&["catalog", "inspect", "-v", f]).run();
    verbose.expect(0);
    assert!(
        verbose.stderr.contains("note: ") && verbose.stderr.contains("x.note"),
        "{}",
        verbose.stderr
    );
}

/// Every error starts `error: `: with a source excerpt (rustc's shape), without one, and
/// for usage errors.
#[test]
fn errors_have_one_shape() {
    for args in [
        vec!["catalog", "inspect", "tests/terminal/bad-json.json"],
        vec!["resolve", "tests/terminal/request-unknown-field.yaml"],
        vec![
            "pipeline",
            "validate",
            "tests/terminal/pipeline-unknown-type.yaml",
        ],
        vec!["catalog", "inspect", "no/such/dir"],
        vec!["resolve", "--timeout", "soon"],
        vec!["solve", "tests"],
    ] {
        let ran = deppy(&args).run();
        ran.expect(2);
        assert!(
            ran.stderr.starts_with("error: "),
            "{args:?}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("×"), "{args:?}: {}", ran.stderr);
    }
}

/// An I/O error is said once ("Is a directory" used to appear twice), and no message shows
/// Rust's debug output (a CEL string with a bad escape used to print
/// `InvalidUnicode { source: Unicode { value: 55296 }, … }`) or is cut short.
#[test]
fn messages_say_things_once_and_in_words() {
    for args in [
        vec!["replay", "tests"],
        vec!["solve", "tests"],
        vec!["resolve", "tests"],
    ] {
        let ran = deppy(&args).run();
        ran.expect(2);
        let lower = ran.stderr.to_lowercase();
        assert_eq!(
            lower.matches("directory").count(),
            1,
            "{args:?}: {}",
            ran.stderr
        );
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let request = tmp.path().join("r.yaml");
    std::fs::write(
        &request,
        format!(
            "require: [{{package: odf-dependencies}}]\ncatalogs: [{{path: {}/{ODF}}}]\nconstraints:\n  - {{action: require, cel: {{rule: \"'\\\\uD800x' == ''\"}}}}\n",
            env!("CARGO_MANIFEST_DIR")
        ),
    )
    .expect("write");
    let ran = deppy(&["resolve", request.to_str().expect("utf8")]).run();
    ran.expect(2);
    assert!(ran.stderr.contains("does not compile"), "{}", ran.stderr);
    assert!(!ran.stderr.contains(" { "), "{}", ran.stderr);
    assert!(!ran.stderr.contains("InvalidUnicode"), "{}", ran.stderr);
}

/// A malformed `DEPPY_MAX_FILE_SIZE` is warned about once per run, not once per file.
#[test]
fn the_file_size_warning_comes_once() {
    let ran = deppy(&["catalog", "inspect", "catalogs/bundle-dirs/my-bundle", ODF])
        .env("DEPPY_MAX_FILE_SIZE", "lots")
        .run();
    ran.expect(0);
    assert_eq!(
        ran.stderr.matches("DEPPY_MAX_FILE_SIZE").count(),
        1,
        "{}",
        ran.stderr
    );
}

/// `--catalog NAME=PATH[:PRIORITY]` names a catalog, so two directories with the same last
/// component can be given together.
#[test]
fn catalogs_can_be_named_on_the_command_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (dir, pkg) in [("a", "foo"), ("b", "bar")] {
        let d = tmp.path().join(dir).join("catalog");
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join("c.json"), one_bundle_catalog(pkg)).expect("write");
    }
    let a = format!("one={}", tmp.path().join("a/catalog").display());
    let b = format!("two={}:5", tmp.path().join("b/catalog").display());
    let ran = deppy(&[
        "resolve",
        "--catalog",
        &a,
        "--catalog",
        &b,
        "--require",
        "foo",
        "--require",
        "bar",
        "-o",
        "json",
    ])
    .run();
    ran.expect(0);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).expect("json");
    let catalogs: Vec<&str> = v["selected"]
        .as_array()
        .expect("selected")
        .iter()
        .filter_map(|s| s["catalog"].as_str())
        .collect();
    assert_eq!(catalogs, ["two", "one"], "{}", ran.stdout);
    let ran = deppy(&["catalog", "inspect", &a, &b]).run();
    ran.expect(0);
}

/// A diagnostic's column counts characters, and its carets sit under the right ones when the
/// line holds multi-byte text.
#[test]
fn carets_land_right_after_multibyte_text() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("c.yaml");
    std::fs::write(
        &file,
        "schema: olm.bundle\nname: foo.v1\npackage: foo\nimage: img\nproperties:\n- type: olm.package\n  value: {packageName: foo, \"ééé\": 1, version: 1.0.0.beta}\n",
    )
    .expect("write");
    let ran = deppy(&["catalog", "inspect", file.to_str().expect("utf8")]).run();
    ran.expect(2);
    let err = &ran.stderr;
    let line = "  value: {packageName: foo, \"ééé\": 1, version: 1.0.0.beta}";
    let column = line
        .find("1.0.0.beta")
        .map(|b| line[..b].chars().count() + 1);
    let at = format!(":7:{}", column.expect("column"));
    assert!(err.contains(&at), "{at} not in:\n{err}");
    let lines: Vec<&str> = err.lines().collect();
    let src = lines
        .iter()
        .position(|l| l.ends_with(line))
        .unwrap_or_else(|| panic!("no source line:\n{err}"));
    let carets = lines.get(src + 1).expect("caret line");
    let gutter = lines[src].len() - line.len();
    let caret_at = carets.find('^').expect("a caret") - gutter;
    assert_eq!(
        caret_at,
        line[..line.find("1.0.0.beta").expect("value")]
            .chars()
            .count(),
        "\n{err}"
    );
    assert_eq!(carets.matches('^').count(), "1.0.0.beta".len(), "\n{err}");
}
