//! Input files beyond catalogs: size limits on every file deppy reads (a request, a cluster
//! file, a pipeline, a generic model, a trace: `/dev/zero` used to grow until memory ran
//! out), `-` for standard input wherever a file is read, one answer for bytes that are not
//! UTF-8, duplicate keys refused in free-form fields, the YAML budgets in bundle
//! directories, and a bundle repository with a duplicate bundle name.

#[path = "support/cli.rs"]
mod cli;

use std::path::{Path, PathBuf};
use std::time::Duration;

use cli::{deppy, one_bundle_catalog};

const ODF: &str = "catalogs/odf-dev";

/// Every file a command reads is refused past `DEPPY_MAX_FILE_SIZE`, `/dev/zero` included
/// (reading stops at the limit), with exit 2 and the file named.
#[cfg(unix)]
#[test]
fn every_input_file_has_a_size_limit() {
    let zero = "/dev/zero";
    if !Path::new(zero).exists() {
        eprintln!("SKIPPED: no /dev/zero");
        return;
    }
    let cases: Vec<Vec<&str>> = vec![
        vec!["resolve", zero],
        vec![
            "resolve",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "--cluster",
            zero,
        ],
        vec![
            "resolve",
            "--catalog",
            ODF,
            "--require",
            "odf-dependencies",
            "--pipeline",
            zero,
        ],
        vec!["pipeline", "validate", zero],
        vec!["solve", zero],
        vec!["replay", zero],
        vec!["why", "x", zero],
        vec!["catalog", "inspect", zero],
    ];
    for args in cases {
        let ran = deppy(&args)
            .env("DEPPY_MAX_FILE_SIZE", "100000")
            .within(Duration::from_secs(20))
            .run();
        ran.expect(2);
        assert!(
            ran.stderr
                .contains("/dev/zero: file size is 97.7 KiB (100001 bytes), over the limit"),
            "{args:?}: {}",
            ran.stderr
        );
    }
}

/// `-` reads standard input wherever a file is read: a request, a catalog, a cluster file,
/// a pipeline, a generic model, a trace. Naming it twice is an error.
#[test]
fn a_dash_reads_standard_input() {
    let request = format!(
        "catalogs: [{{path: {}/{ODF}}}]\nrequire: [{{package: odf-dependencies}}]\n",
        env!("CARGO_MANIFEST_DIR")
    );
    let by_file = deppy(&["resolve", "--catalog", ODF, "--require", "odf-dependencies"]).run();
    by_file.expect(0);
    let ran = deppy(&["resolve", "-"]).stdin(request.clone()).run();
    ran.expect(0);
    assert_eq!(ran.stdout, by_file.stdout);

    let catalog = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/terminal/bad-version.yaml"),
    )
    .expect("read")
    .replace("1.0.0.beta", "1.0.0");
    let ran = deppy(&["catalog", "inspect", "-"])
        .stdin(catalog.clone())
        .run();
    ran.expect(0);
    assert!(ran.stdout.contains("foo"), "{}", ran.stdout);
    let ran = deppy(&["resolve", "--catalog", "-", "--require", "foo"])
        .stdin(catalog)
        .run();
    ran.expect(0);
    assert!(ran.stdout.contains("foo.v1.0.0"), "{}", ran.stdout);

    let cluster = "properties: [{type: olm.kubeversion, value: {version: 1.28.3}}]\n";
    let ran = deppy(&[
        "resolve",
        "--catalog",
        ODF,
        "--require",
        "odf-dependencies",
        "--cluster",
        "-",
    ])
    .stdin(cluster)
    .run();
    ran.expect(0);

    let pipeline = deppy(&["pipeline", "show"]).run();
    pipeline.expect(0);
    let ran = deppy(&["pipeline", "validate", "-"])
        .stdin(pipeline.stdout.clone())
        .run();
    ran.expect(0);
    assert!(ran.stdout.contains("valid"), "{}", ran.stdout);

    let model =
        "variables:\n  - {id: a, constraints: [{mandatory: {}}, {dependency: [b]}]}\n  - {id: b}\n";
    let ran = deppy(&["solve", "-"]).stdin(model).run();
    ran.expect(0);
    assert_eq!(ran.stdout, "Selected: a, b\n");

    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = tmp.path().join("t.jsonl");
    deppy(&[
        "resolve",
        "--catalog",
        ODF,
        "--require",
        "odf-dependencies",
        "--trace",
        trace.to_str().expect("utf8"),
    ])
    .run()
    .expect(0);
    let ran = deppy(&["replay", "-"])
        .stdin(std::fs::read(&trace).expect("trace"))
        .run();
    ran.expect(0);
    assert_eq!(ran.stdout, by_file.stdout);

    let ran = deppy(&["resolve", "-", "--cluster", "-"])
        .stdin(request)
        .run();
    ran.expect(2);
    assert!(
        ran.stderr.contains("standard input can be read only once"),
        "{}",
        ran.stderr
    );
}

/// A catalog file with bytes that are not UTF-8, in a string no schema reads: every command
/// refuses it with the same message (some used to accept it), and replaying the trace of
/// the failed run says what failed.
#[test]
fn bytes_that_are_not_utf8_get_one_answer() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("c.json");
    let mut bytes = one_bundle_catalog("foo").into_bytes();
    bytes.extend_from_slice(b"{\"schema\":\"x.note\",\"text\":\"caf\xe9\"}\n");
    std::fs::write(&path, &bytes).expect("write");
    let p = path.to_str().expect("utf8");
    let expected = format!(
        "{p}:4:31: malformed JSON: not UTF-8 text (byte 345 is not part of a UTF-8 character)"
    );
    let commands: Vec<Vec<&str>> = vec![
        vec!["catalog", "inspect", p],
        vec!["catalog", "validate", p],
        vec!["catalog", "check", p],
        vec!["graph", "--catalog", p, "--package", "foo"],
        vec!["resolve", "--catalog", p, "--require", "foo"],
        vec!["why", "foo", "--catalog", p, "--require", "foo"],
        vec!["why-not", "foo", "--catalog", p, "--require", "foo"],
        vec!["plan", "--catalog", p, "--require", "foo"],
    ];
    for args in commands {
        let ran = deppy(&args).run();
        ran.expect(2);
        assert!(ran.stderr.contains(&expected), "{args:?}: {}", ran.stderr);
    }
    let trace = tmp.path().join("t.jsonl");
    let t = trace.to_str().expect("utf8");
    deppy(&["resolve", "--catalog", p, "--require", "foo", "--trace", t])
        .run()
        .expect(2);
    let ran = deppy(&["replay", t]).run();
    ran.expect(2);
    assert!(!ran.stderr.contains("no catalog given"), "{}", ran.stderr);
    assert!(ran.stderr.contains("not UTF-8 text"), "{}", ran.stderr);
}

/// A duplicate key in a free-form field (an admin constraint) is refused, in JSON and in
/// YAML, naming the key; the last `action` no longer silently wins.
#[test]
fn duplicate_keys_are_refused_everywhere() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let json = tmp.path().join("r.json");
    std::fs::write(
        &json,
        r#"{"require": [{"package": "odf-dependencies"}],
 "constraints": [{"action": "require", "action": "conflict", "package": {"packageName": "odf-dependencies"}}]}"#,
    )
    .expect("write");
    let yaml = tmp.path().join("r.yaml");
    std::fs::write(
        &yaml,
        "require: [{package: odf-dependencies}]\nconstraints:\n  - action: require\n    action: conflict\n    package: {packageName: odf-dependencies}\n",
    )
    .expect("write");
    for file in [&json, &yaml] {
        let f = file.to_str().expect("utf8");
        let ran = deppy(&["resolve", f, "--catalog", ODF]).run();
        ran.expect(2);
        assert!(ran.stderr.contains("duplicate"), "{}", ran.stderr);
        assert!(ran.stderr.contains("action"), "{}", ran.stderr);
        assert!(!ran.stderr.contains("DuplicateKeyPolicy"), "{}", ran.stderr);
    }
}

/// The same in a catalog: an `olm.constraint` value with a key given twice is refused.
#[test]
fn duplicate_keys_in_a_catalog_constraint_are_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("c.json");
    let text = one_bundle_catalog("foo").replace(
        r#"{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}}"#,
        r#"{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},{"type":"olm.constraint","value":{"package":{"packageName":"foo","versionRange":">=0.0.0"},"package":{"packageName":"bar","versionRange":">=0.0.0"}}}"#,
    );
    std::fs::write(&file, text).expect("write");
    let f = file.to_str().expect("utf8");
    let ran = deppy(&["resolve", "--catalog", f, "--require", "foo"]).run();
    ran.expect(2);
    assert!(
        ran.stderr.contains("duplicate key `package`"),
        "{}",
        ran.stderr
    );
}

/// Copies `catalogs/bundle-dirs/my-bundle` to `to`, changing the CSV's name, version and
/// replaces.
fn bundle(to: &Path, name: &str, version: &str, replaces: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/bundle-dirs/my-bundle");
    for sub in ["manifests", "metadata"] {
        std::fs::create_dir_all(to.join(sub)).expect("mkdir");
        for e in std::fs::read_dir(src.join(sub)).expect("ls") {
            let e = e.expect("entry");
            let text = std::fs::read_to_string(e.path()).expect("read");
            let text = text
                .replace("name: pelorus-operator.v0.0.10", &format!("name: {name}"))
                .replace("  version: 0.0.10\n", &format!("  version: {version}\n"))
                .replace(
                    "replaces: pelorus-operator.v0.0.9",
                    &format!("replaces: {replaces}"),
                );
            std::fs::write(to.join(sub).join(e.file_name()), text).expect("write");
        }
    }
}

/// A bundle repository where two directories define the same CSV name: rendering goes on,
/// the first by version is kept, and a warning names both directories.
#[test]
fn a_duplicate_bundle_in_a_repository_is_reported_not_fatal() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("operators");
    let pkg = repo.join("pelorus-operator");
    bundle(
        &pkg.join("0.0.10"),
        "pelorus-operator.v0.0.10",
        "0.0.10",
        "pelorus-operator.v0.0.9",
    );
    bundle(
        &pkg.join("0.0.10-1"),
        "pelorus-operator.v0.0.10",
        "0.0.10",
        "pelorus-operator.v0.0.9",
    );
    bundle(
        &pkg.join("0.0.11"),
        "pelorus-operator.v0.0.11",
        "0.0.11",
        "pelorus-operator.v0.0.10",
    );
    let r = repo.to_str().expect("utf8");
    let ran = deppy(&["catalog", "render", r]).run();
    ran.expect(0);
    assert!(
        ran.stdout.contains("pelorus-operator.v0.0.11"),
        "{}",
        ran.stdout
    );
    assert_eq!(
        ran.stdout.matches("\"schema\": \"olm.bundle\"").count(),
        2,
        "{}",
        ran.stdout
    );
    let first = pkg.join("0.0.10");
    let second = pkg.join("0.0.10-1");
    let warning = ran
        .stderr
        .lines()
        .find(|l| l.contains("defined twice"))
        .unwrap_or_else(|| panic!("no warning: {}", ran.stderr));
    assert!(warning.starts_with("warning: "), "{warning}");
    assert!(warning.contains(&first.display().to_string()), "{warning}");
    assert!(warning.contains(&second.display().to_string()), "{warning}");
    // The loader renders the same way.
    let ran = deppy(&["catalog", "inspect", r]).run();
    ran.expect(0);
    assert!(ran.stderr.contains("defined twice"), "{}", ran.stderr);
}

/// A 600-byte alias bomb in a bundle directory's CSV is refused at once, as in a
/// File-Based Catalog, with the same words.
#[test]
fn an_alias_bomb_in_a_csv_is_refused_at_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir: PathBuf = tmp.path().join("bomb");
    bundle(
        &dir,
        "pelorus-operator.v0.0.10",
        "0.0.10",
        "pelorus-operator.v0.0.9",
    );
    let csv = dir.join("manifests/pelorus-operator.clusterserviceversion.yaml");
    let bomb = cli::alias_bomb_yaml();
    let text = std::fs::read_to_string(&csv).expect("read");
    std::fs::write(&csv, format!("{bomb}{text}")).expect("write");
    let d = dir.to_str().expect("utf8");
    let ran = deppy(&["catalog", "render", d])
        .within(Duration::from_secs(10))
        .run();
    ran.expect(2);
    assert!(
        ran.stderr.contains("YAML safety limit exceeded") && ran.stderr.contains("alias bomb"),
        "{}",
        ran.stderr
    );
}
