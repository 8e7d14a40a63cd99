//! `deppy catalog check` over bundle directories checks every upgrade edge's CRDs (docs/cli.md):
//! each folder of `tests/crd-author/` is a channel of bundle directories whose `expected.txt`
//! holds the exit code and the whole output. `DEPPY_UPDATE=1` rewrites them.

#[path = "support/cli.rs"]
mod support;

use std::fs;
use std::path::Path;

#[test]
fn author_checks_match_expectations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crd-author");
    let mut dirs: Vec<_> = fs::read_dir(&root)
        .expect("tests/crd-author")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.txt").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no author-check folder");
    let mut failures = Vec::new();
    for dir in dirs {
        let rel = dir
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .expect("inside");
        let ran = support::deppy(&[Path::new("catalog"), Path::new("check"), rel]).run();
        let actual = format!("exit: {}\n{}", ran.code.unwrap_or(-1), ran.stdout);
        let file = dir.join("expected.txt");
        if std::env::var_os("DEPPY_UPDATE").is_some() {
            fs::write(&file, &actual).expect("write expected.txt");
            continue;
        }
        let expected = fs::read_to_string(&file).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}--- stderr\n{}",
                rel.display(),
                ran.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_malformed_crd_manifest_is_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crd-author/db-channel/1.0.0");
    for sub in ["manifests", "metadata"] {
        fs::create_dir_all(tmp.path().join("b").join(sub)).expect("mkdir");
        for e in fs::read_dir(from.join(sub)).expect("read") {
            let e = e.expect("entry");
            fs::copy(e.path(), tmp.path().join("b").join(sub).join(e.file_name())).expect("copy");
        }
    }
    let crd = tmp.path().join("b/manifests/example.com_databases.yaml");
    let text = fs::read_to_string(&crd).expect("crd");
    fs::write(
        &crd,
        text.replace("\"storage\": true", "\"storage\": \"yes\""),
    )
    .expect("write");
    let ran = support::deppy(&[
        Path::new("catalog"),
        Path::new("check"),
        &tmp.path().join("b"),
    ])
    .run();
    ran.expect(2);
    assert!(
        ran.stderr.contains("example.com_databases.yaml"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("spec.versions[1].storage"),
        "{}",
        ran.stderr
    );
}
