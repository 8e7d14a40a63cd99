//! `deppy cluster resolve` against cluster objects as people and hostile inputs hand them
//! over: keys given twice, names with line breaks, parser limits in words, byte order marks,
//! link loops, FIFOs nobody writes, and states too big for their limits or budgets
//! (docs/reliability.md, "Resource bounds"). Each input is made by `support/cluster_inputs.rs`,
//! which the sweep (`cargo run --example sweep_inputs`) writes too.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/cluster_inputs.rs"]
mod inputs;

use std::path::Path;
use std::time::{Duration, Instant};

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
    deppy(&args).within(Duration::from_secs(120)).run()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("utf-8 path").to_string()
}

#[test]
fn keys_given_twice_are_refused_in_metadata_and_in_a_crs_spec() {
    let dir = tempfile::tempdir().expect("tempdir");
    let meta = write(
        dir.path(),
        "meta.json",
        r#"{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
            "metadata": {"name": "etcd", "name": "vault", "namespace": "operators"},
            "spec": {"name": "etcd", "source": "ops", "sourceNamespace": "olm"}}"#,
    );
    let out = resolve(&[&meta, "--catalog", OPS]);
    out.expect(2);
    assert!(
        out.stderr.contains("duplicate key `name`"),
        "{}",
        out.stderr
    );
    let cr = write(
        dir.path(),
        "cr.json",
        r#"{"apiVersion": "example.com/v1", "kind": "Database",
            "metadata": {"name": "db", "namespace": "apps"},
            "spec": {"size": 1, "size": 2}}"#,
    );
    let out = resolve(&[&cr, "--catalog", OPS]);
    out.expect(2);
    assert!(
        out.stderr.contains("duplicate key `size`"),
        "{}",
        out.stderr
    );
    let yaml = write(
        dir.path(),
        "dup.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, name: b}\n",
    );
    let out = resolve(&[&yaml]);
    out.expect(2);
    assert!(
        out.stderr.contains("duplicate key `name`"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("DuplicateKeyPolicy"), "{}", out.stderr);
    assert!(!out.stderr.contains(".?"), "{}", out.stderr);
}

#[test]
fn line_breaks_in_names_cannot_forge_lines() {
    let text = state_text().replace(
        "name: \"etcd\"\n  namespace: \"operators\"",
        "name: \"etcd\\nerror: forged\"\n  namespace: \"operators\"",
    );
    assert_ne!(text, state_text(), "the fixture changed");
    let out = deppy(&["cluster", "resolve", "-", "--catalog", OPS])
        .stdin(text)
        .within(Duration::from_secs(60))
        .run();
    out.expect(0);
    assert!(
        !out.stdout.lines().any(|l| l.starts_with("error: forged")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("etcd\\nerror: forged"),
        "{}",
        out.stdout
    );
    // A file named with a line break, with an error in it: one `error:` line.
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "x\nerror: forged.yaml", "kind: [unclosed\n");
    let out = resolve(&[&bad]);
    out.expect(2);
    let errors = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("error"))
        .count();
    assert_eq!(errors, 1, "{}", out.stderr);
}

#[test]
fn messages_name_the_place_without_parser_internals() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Nesting past the parser's depth limit.
    let deep = format!(
        "apiVersion: example.com/v1\nkind: Database\nmetadata: {{name: d, namespace: apps}}\nspec: {}{}\n",
        "[".repeat(70),
        "]".repeat(70)
    );
    let out = resolve(&[&write(dir.path(), "deep.yaml", &deep)]);
    out.expect(2);
    for internal in [
        "Depth {",
        "Nodes {",
        "RecordedAnchorEvents",
        "budget breached",
    ] {
        assert!(!out.stderr.contains(internal), "{}", out.stderr);
    }
    assert!(
        out.stderr.contains("YAML safety limit exceeded"),
        "{}",
        out.stderr
    );
    // A value given through an alias that does not fit: the message is whole.
    let alias = "apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: c, namespace: olm}\nx: &p high\nspec: {priority: *p}\n";
    let out = resolve(&[&write(dir.path(), "alias.yaml", alias)]);
    out.expect(2);
    assert!(!out.stderr.contains("(defined\n"), "{}", out.stderr);
    assert!(out.stderr.contains("spec.priority"), "{}", out.stderr);
    // A byte order mark before JSON, as before YAML.
    let bom = format!(
        "\u{feff}{}",
        r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}"#
    );
    resolve(&[&write(dir.path(), "bom.json", &bom)]).expect(0);
    // A link loop in a state directory is named as one.
    #[cfg(unix)]
    {
        let state = dir.path().join("loop");
        std::fs::create_dir(&state).expect("mkdir");
        std::os::unix::fs::symlink("a.yaml", state.join("b.yaml")).expect("link");
        std::os::unix::fs::symlink("b.yaml", state.join("a.yaml")).expect("link");
        let out = resolve(&[state.to_str().expect("utf-8")]);
        out.expect(0);
        assert!(out.stderr.contains("a link that loops"), "{}", out.stderr);
        assert!(!out.stderr.contains("does not exist"), "{}", out.stderr);
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_nobody_writes_is_waited_on_within_the_time_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("change.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let start = Instant::now();
    let out = resolve(&[
        STATE,
        "--catalog",
        OPS,
        "--apply",
        fifo.to_str().expect("utf-8"),
        "--timeout",
        "1",
    ]);
    out.expect(3);
    assert!(start.elapsed() < Duration::from_secs(60));
    assert!(
        out.stderr.contains("a FIFO that nothing wrote to"),
        "{}",
        out.stderr
    );
}

#[test]
fn states_past_their_limits_are_refused_in_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A List of 1,000,001 empty objects: over the objects a document may hold.
    let list = write(
        dir.path(),
        "list.json",
        &inputs::empty_items_list(1_000_001),
    );
    let out = resolve(&[&list]);
    out.expect(2);
    assert!(
        out.stderr
            .contains("more than 1,000,000 objects in this document"),
        "{}",
        out.stderr
    );
    // 1,000,001 empty YAML documents.
    let docs = write(dir.path(), "docs.yaml", &inputs::empty_documents(1_000_001));
    let out = resolve(&[&docs]);
    out.expect(2);
    assert!(
        out.stderr.contains("more than 1,000,000 documents"),
        "{}",
        out.stderr
    );
    // One custom resource bigger than any object the API server stores.
    let big = write(dir.path(), "big.json", &inputs::big_database(1_000_000));
    let out = resolve(&[&big]);
    out.expect(2);
    assert!(out.stderr.contains("larger than 16 MiB"), "{}", out.stderr);
    assert!(out.stderr.contains("spec.blob"), "{}", out.stderr);
}

#[test]
fn states_past_their_budgets_end_with_exit_3() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 20,000 custom resources kept for the CRD checks, within a 1 MiB memory budget.
    let many = write(
        dir.path(),
        "crs.json",
        &inputs::databases(20_000, "apps", "n"),
    );
    let out = resolve(&[&many, "--max-memory", "1"]);
    out.expect(3);
    assert!(
        out.stderr
            .contains("the memory budget (1 MiB) ran out while reading the state"),
        "{}",
        out.stderr
    );
    // 5,000 namespaces, with hardly any time: whichever stage it is in stops.
    let ns = write(dir.path(), "ns.yaml", &inputs::many_namespaces(5_000));
    let out = resolve(&[&ns, "--timeout", "0.2"]);
    out.expect(3);
    assert!(
        out.stderr.contains("the time budget ran out while"),
        "{}",
        out.stderr
    );
}

#[test]
fn long_channels_and_many_apis_are_handled_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A ClusterExtension over a 100,000-entry channel (every entry scanned once).
    let catalog = write(
        dir.path(),
        "argo.json",
        &inputs::long_channel_catalog(100_000),
    );
    let ext = inputs::cluster_extension("argo", "packageName: argo, channels: [stable]")
        + "status: {install: {bundle: {name: argo.v0.0.5, version: 0.0.5}}}\n";
    let state = write(dir.path(), "ext.yaml", &ext);
    let out = resolve(&[
        &state,
        "--catalog",
        &format!("argo={catalog}"),
        "--timeout",
        "100",
    ]);
    out.expect(0);
    assert!(out.stdout.contains("argo.v0.0.6"), "{}", out.stdout);
    // An installed CSV listing 50,000 APIs no catalog has.
    let csv = write(dir.path(), "csv.yaml", &inputs::csv_with_many_apis(50_000));
    let db = write(
        dir.path(),
        "db.json",
        &inputs::db_catalog(&inputs::db_crd(1, "", false), &inputs::db_crd(1, "", false)),
    );
    let out = resolve(&[
        &csv,
        "--catalog",
        &format!("olm/dbs={db}"),
        "--timeout",
        "100",
    ]);
    out.expect(0);
    assert!(
        out.stdout.contains("upgrade db.v1.0.0 → db.v1.1.0"),
        "{}",
        out.stdout
    );
}

#[test]
fn every_stage_stops_at_the_time_budget() {
    use deppy::advanced::cluster::{
        Binding, ClusterOptions, ClusterState, read_paths, read_text, resolve_cluster,
    };
    let mut opts = ClusterOptions::default();
    opts.solve.deadline = Some(Instant::now());
    // Planning: the state was read within its budget; the namespaces are planned after.
    let state = ClusterState::from_dump(read_paths(&[STATE.into()]).expect("read")).expect("state");
    let ops = Binding::parse(OPS).expect("binding");
    let e = resolve_cluster(&state, &[ops], &opts).expect_err("out of time");
    assert_eq!(
        e.to_string(),
        "the time budget ran out while planning the namespaces"
    );
    // OLM v1's choice: ClusterExtensions only.
    let ext = inputs::cluster_extension("argo", "packageName: argo");
    let state = ClusterState::from_dump(read_text("ext.yaml", &ext).expect("read")).expect("state");
    let e = resolve_cluster(&state, &[], &opts).expect_err("out of time");
    assert_eq!(
        e.to_string(),
        "the time budget ran out while choosing the ClusterExtensions' bundles"
    );
}
