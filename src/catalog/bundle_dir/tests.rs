//! Rendering synthetic bundle directories: the mapping, each quirk, channels, errors,
//! determinism and the loader hook.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::catalog::{CatalogSet, CatalogSource, LoadOptions, read_catalog};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn annotations(package: &str, channels: &str, default: Option<&str>) -> String {
    let mut s = format!(
        "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.package.v1: {package}\n  operators.operatorframework.io.bundle.channels.v1: {channels}\n"
    );
    if let Some(d) = default {
        s.push_str(&format!(
            "  operators.operatorframework.io.bundle.channel.default.v1: {d}\n"
        ));
    }
    s
}

fn csv(name: &str, version: &str, spec_extra: &str) -> String {
    format!(
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {name}\nspec:\n  version: {version}\n{spec_extra}"
    )
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  versions: [{name: v1}, {name: v1beta1}]
";

/// A bundle directory `rel` under `root` with the given annotations and CSV.
fn bundle(root: &Path, rel: &str, annotations: &str, csv: &str) -> PathBuf {
    write(
        root,
        &format!("{rel}/metadata/annotations.yaml"),
        annotations,
    );
    write(root, &format!("{rel}/manifests/csv.yaml"), csv);
    root.join(rel)
}

fn render_json(dirs: &[PathBuf]) -> (Vec<Value>, Vec<String>) {
    let r = render_bundle_dirs(dirs).unwrap_or_else(|e| panic!("{e}"));
    let docs = r
        .to_json()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    (docs, r.warnings)
}

fn doc<'a>(docs: &'a [Value], schema: &str, name: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["schema"] == schema && d["name"] == name)
        .unwrap_or_else(|| panic!("no {schema} {name} in {docs:#?}"))
}

fn types(bundle: &Value) -> Vec<String> {
    let props = bundle["properties"].as_array().expect("properties");
    props
        .iter()
        .map(|p| p["type"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn maps_a_bundle_as_opm_does() {
    let root = tempfile::tempdir().expect("tempdir");
    let spec = "  replaces: foo.v0.9.0
  skips: [foo.v0.9.1]
  customresourcedefinitions:
    owned: [{name: foos.example.com, version: v1, kind: Foo}]
    required: [{name: bars.other.io, version: v2, kind: Bar}]
  apiservicedefinitions:
    owned: [{group: metrics.example.com, version: v1, kind: Metric, name: metrics}]
    required: [{group: core.io, version: v1, kind: Core, name: cores}]
";
    let mut text = csv("foo.v1.0.0", "1.0.0", spec);
    text = text.replace(
        "  name: foo.v1.0.0\n",
        "  name: foo.v1.0.0\n  annotations:\n    olm.skipRange: '>=0.5.0 <1.0.0'\n    olm.properties: '[{\"type\": \"olm.maxOpenShiftVersion\", \"value\": \"4.8\"}]'\n",
    );
    let dir = bundle(
        root.path(),
        "foo",
        &annotations("foo", "stable", None),
        &text,
    );
    write(&dir, "manifests/foos.crd.yaml", CRD);
    write(
        &dir,
        "manifests/old.crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nspec:\n  group: old.io\n  version: v1alpha1\n  names: {kind: Old, plural: olds}\n",
    );
    write(
        &dir,
        "metadata/dependencies.yaml",
        "dependencies:\n- type: olm.package\n  value: {packageName: bar, version: '>=2.0.0'}\n- type: olm.gvk\n  value: {group: baz.io, kind: Baz, version: v1}\n- type: olm.constraint\n  value: {failureMessage: needs qux, package: {packageName: qux, versionRange: '>=1.0.0'}}\n",
    );
    write(
        &dir,
        "metadata/properties.yaml",
        "properties:\n- type: olm.gvk\n  value: {group: extra.io, kind: Extra, version: v1}\n- type: custom\n  value: {b: 1, a: 2}\n",
    );
    let (docs, warnings) = render_json(&[dir]);
    assert!(warnings.is_empty(), "{warnings:?}");
    let b = doc(&docs, "olm.bundle", "foo.v1.0.0");
    let gvk = |g: &str, k: &str, v: &str| json!({"group": g, "kind": k, "version": v});
    let expected = json!([
        {"type": "custom", "value": {"a": 2, "b": 1}},
        {"type": "olm.constraint", "value": {"failureMessage": "needs qux", "package": {"packageName": "qux", "versionRange": ">=1.0.0"}}},
        {"type": "olm.gvk", "value": gvk("example.com", "Foo", "v1")},
        {"type": "olm.gvk", "value": gvk("example.com", "Foo", "v1beta1")},
        {"type": "olm.gvk", "value": gvk("extra.io", "Extra", "v1")},
        {"type": "olm.gvk", "value": gvk("metrics.example.com", "Metric", "v1")},
        {"type": "olm.gvk", "value": gvk("old.io", "Old", "v1alpha1")},
        {"type": "olm.gvk.required", "value": gvk("baz.io", "Baz", "v1")},
        {"type": "olm.gvk.required", "value": gvk("core.io", "Core", "v1")},
        {"type": "olm.gvk.required", "value": gvk("other.io", "Bar", "v2")},
        {"type": "olm.maxOpenShiftVersion", "value": "4.8"},
        {"type": "olm.package", "value": {"packageName": "foo", "version": "1.0.0"}},
        {"type": "olm.package.required", "value": {"packageName": "bar", "versionRange": ">=2.0.0"}},
    ]);
    assert_eq!(b["properties"], expected);
    assert_eq!(b["package"], "foo");
    let ch = doc(&docs, "olm.channel", "stable");
    let e = json!([{"name": "foo.v1.0.0", "replaces": "foo.v0.9.0", "skips": ["foo.v0.9.1"], "skipRange": ">=0.5.0 <1.0.0"}]);
    assert_eq!(
        ch["entries"], e,
        "a dangling replaces is kept: it may name a published bundle"
    );
    assert_eq!(doc(&docs, "olm.package", "foo")["defaultChannel"], "stable");
}

#[test]
fn package_comes_from_the_annotation_not_the_directory() {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = bundle(
        root.path(),
        "operators/foo-dir/1.0.0",
        &annotations("foo", "stable", None),
        &csv("foo.v1.0.0", "1.0.0", ""),
    );
    let (docs, _) = render_json(&[dir]);
    assert_eq!(doc(&docs, "olm.bundle", "foo.v1.0.0")["package"], "foo");
    doc(&docs, "olm.package", "foo");
    assert!(!docs.iter().any(|d| d["name"] == "foo-dir"));
}

#[test]
fn any_metadata_file_may_hold_dependencies_and_properties() {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = bundle(
        root.path(),
        "b",
        &annotations("foo", "stable", None),
        &csv("foo.v1.0.0", "1.0.0", ""),
    );
    // Real quirk: pelorus-operator keeps its `dependencies:` in properties.yaml.
    write(
        &dir,
        "metadata/properties.yaml",
        "dependencies:\n- {type: olm.package, value: {packageName: bar, version: 1.2.3}}\n",
    );
    write(
        &dir,
        "metadata/zz-more.yaml",
        "dependencies:\n- {type: olm.package, value: {packageName: ignored, version: 1.0.0}}\n",
    );
    write(
        &dir,
        "metadata/my-props.yml",
        "properties:\n- {type: olm.maxOpenShiftVersion, value: '4.12'}\n",
    );
    let (docs, warnings) = render_json(&[dir]);
    let b = doc(&docs, "olm.bundle", "foo.v1.0.0");
    assert_eq!(
        types(b),
        [
            "olm.maxOpenShiftVersion",
            "olm.package",
            "olm.package.required"
        ]
    );
    assert_eq!(b["properties"][2]["value"]["packageName"], "bar");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("zz-more.yaml") && w.contains("properties.yaml")),
        "{warnings:?}"
    );
}

#[test]
fn only_the_first_document_of_a_file_counts() {
    let root = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "---\n# leading empty document\n---\n{}---\n{CRD}",
        csv("foo.v1.0.0", "1.0.0", "")
    );
    let dir = bundle(root.path(), "b", &annotations("foo", "stable", None), &text);
    write(
        &dir,
        "metadata/dependencies.yaml",
        "---\ndependencies:\n- {type: olm.package, value: {packageName: bar, version: 1.0.0}}\n---\ndependencies:\n- {type: olm.package, value: {packageName: later, version: 1.0.0}}\n",
    );
    let (docs, _) = render_json(&[dir]);
    let b = doc(&docs, "olm.bundle", "foo.v1.0.0");
    assert_eq!(
        types(b),
        ["olm.package", "olm.package.required"],
        "the CRD in a second document is not read"
    );
    assert_eq!(b["properties"][1]["value"]["packageName"], "bar");
}

#[test]
fn channels_are_built_in_replaces_mode() {
    let root = tempfile::tempdir().expect("tempdir");
    let r = root.path();
    let a = |ch: &str, d: Option<&str>| annotations("a", ch, d);
    let dirs = vec![
        bundle(r, "a/0", &a("stable", None), &csv("a.v0", "0.0.1", "")),
        bundle(
            r,
            "a/1",
            &a("stable", Some("stable")),
            &csv("a.v1", "1.0.0", ""),
        ),
        bundle(
            r,
            "a/1b",
            &a("stable", None),
            &csv("a.v1b", "1.1.0-rc.1", ""),
        ),
        bundle(
            r,
            "a/2",
            &a("stable,fast", Some("fast")),
            &csv("a.v2", "2.0.0", "  replaces: a.v1\n"),
        ),
        bundle(
            r,
            "a/3",
            &a("stable", None),
            &csv("a.v3", "3.0.0", "  replaces: a.v2\n  skips: [a.v1b]\n"),
        ),
    ];
    let (docs, warnings) = render_json(&dirs);
    let names = |ch: &str| -> Vec<String> {
        let entries = doc(&docs, "olm.channel", ch)["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        entries
            .iter()
            .map(|e| e["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(names("stable"), ["a.v1", "a.v2", "a.v3", "a.v1b"]);
    assert_eq!(
        names("fast"),
        ["a.v1", "a.v2"],
        "replaces is followed whatever channels a.v1 lists"
    );
    assert_eq!(
        doc(&docs, "olm.package", "a")["defaultChannel"],
        "fast",
        "the newest bundle naming a default wins"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("a.v0") && w.contains("left out of the channel")),
        "{warnings:?}"
    );
    assert_eq!(
        docs.iter().filter(|d| d["schema"] == "olm.bundle").count(),
        5
    );
}

#[test]
fn errors_name_the_file_and_the_field() {
    let good_csv = csv("foo.v1.0.0", "1.0.0", "");
    let good_ann = annotations("foo", "stable", None);
    let cases: Vec<(&str, String, String, &str)> = vec![
        (
            "no package",
            annotations("", "stable", None).replace("package.v1: \n", "package.v1: ''\n"),
            good_csv.clone(),
            "annotations.yaml:1 (document 1), field `annotations[\"operators.operatorframework.io.bundle.package.v1\"]`: is empty",
        ),
        (
            "unquoted channel",
            annotations("foo", "1.0", None),
            good_csv.clone(),
            "field `annotations[\"operators.operatorframework.io.bundle.channels.v1\"]`: expected a string, found a number (quote it)",
        ),
        (
            "no version",
            good_ann.clone(),
            good_csv.replace("  version: 1.0.0\n", "  displayName: x\n"),
            "csv.yaml:1 (document 1), field `spec.version`: is missing",
        ),
        (
            "bad version",
            good_ann.clone(),
            good_csv.replace("1.0.0", "1.x.y"),
            "field `spec.version`: invalid version",
        ),
        (
            "malformed",
            good_ann.clone(),
            format!("{good_csv}  skips: [a\n"),
            "csv.yaml:7:",
        ),
        (
            "owned CRD missing",
            good_ann.clone(),
            csv(
                "foo.v1.0.0",
                "1.0.0",
                "  customresourcedefinitions:\n    owned: [{name: foos.example.com, version: v1, kind: Foo}]\n",
            ),
            "field `spec.customresourcedefinitions.owned[0]`: the CSV owns Foo",
        ),
        (
            "bad required CRD",
            good_ann.clone(),
            csv(
                "foo.v1.0.0",
                "1.0.0",
                "  customresourcedefinitions:\n    required: [{name: foos, version: v1, kind: Foo}]\n",
            ),
            "field `spec.customresourcedefinitions.required[0].name`: \"foos\" is not <plural>.<group>",
        ),
        (
            "bad olm.properties",
            good_ann.clone(),
            good_csv.replace(
                "  name: foo.v1.0.0\n",
                "  name: foo.v1.0.0\n  annotations: {olm.properties: '[{'}\n",
            ),
            "field `metadata.annotations[\"olm.properties\"]`: not a JSON list",
        ),
        (
            "not a CSV",
            good_ann.clone(),
            CRD.to_string(),
            "manifests (document 1), field `kind`: no manifest is a ClusterServiceVersion",
        ),
    ];
    for (what, ann, csv_text, expected) in cases {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = bundle(root.path(), "b", &ann, &csv_text);
        let err = render_bundle_dirs(&[dir]).expect_err(what).to_string();
        assert!(err.contains(expected), "{what}: {err}");
    }
}

#[test]
fn errors_in_metadata_files_and_between_bundles() {
    let root = tempfile::tempdir().expect("tempdir");
    let good_csv = csv("foo.v1.0.0", "1.0.0", "");
    let dir = bundle(
        root.path(),
        "b",
        &annotations("foo", "stable", None),
        &good_csv,
    );
    std::fs::remove_file(dir.join("metadata/annotations.yaml")).expect("rm");
    write(
        &dir,
        "metadata/dependencies.yaml",
        "dependencies:\n- {type: olm.package, value: {packageName: bar, version: 'not a range'}}\n",
    );
    let err = render_bundle_dirs(std::slice::from_ref(&dir))
        .expect_err("no annotations")
        .to_string();
    assert!(
        err.contains("metadata/annotations.yaml")
            && err.contains("no file under metadata/ holds the bundle annotations"),
        "{err}"
    );
    write(
        &dir,
        "metadata/annotations.yaml",
        &annotations("foo", "stable", None),
    );
    let err = render_bundle_dirs(std::slice::from_ref(&dir))
        .expect_err("bad range")
        .to_string();
    assert!(err.contains("dependencies.yaml:1 (document 1), field `dependencies[0].value.version`: invalid version range"), "{err}");
    write(
        &dir,
        "metadata/dependencies.yaml",
        "dependencies: [{type: olm.gvk, value: {group: g.io, kind: K}}]\n",
    );
    let err = render_bundle_dirs(std::slice::from_ref(&dir))
        .expect_err("gvk")
        .to_string();
    assert!(
        err.contains("field `dependencies[0].value.version`: is missing"),
        "{err}"
    );
    std::fs::remove_file(dir.join("metadata/dependencies.yaml")).expect("rm");
    let twin = bundle(
        root.path(),
        "twin",
        &annotations("foo", "stable", None),
        &good_csv,
    );
    // The same bundle twice: the first (in version, then directory order) is kept and the
    // other skipped, with a warning naming both directories.
    let rendered = render_bundle_dirs(&[twin.clone(), dir.clone()]).expect("twice");
    assert_eq!(rendered.bundle_count(), 1);
    let warning = rendered
        .warnings
        .iter()
        .find(|w| w.contains("defined twice"))
        .expect("a warning");
    assert!(
        warning.contains(&dir.display().to_string())
            && warning.contains(&format!("{} is skipped", twin.display())),
        "{warning}"
    );
}

#[test]
fn rendering_is_deterministic() {
    let root = tempfile::tempdir().expect("tempdir");
    let r = root.path();
    let mut dirs = vec![
        bundle(
            r,
            "z/1",
            &annotations("z", "b,a", Some("a")),
            &csv("z.v1", "1.0.0", ""),
        ),
        bundle(
            r,
            "a/2",
            &annotations("a", "stable", None),
            &csv("a.v2", "2.0.0", "  replaces: a.v1\n"),
        ),
        bundle(
            r,
            "a/1",
            &annotations("a", "stable", None),
            &csv("a.v1", "1.0.0", ""),
        ),
    ];
    write(&dirs[0], "manifests/crd.yaml", CRD);
    let first = render_bundle_dirs(&dirs).expect("render").to_json();
    dirs.reverse();
    assert_eq!(render_bundle_dirs(&dirs).expect("render").to_json(), first);
    let order: Vec<String> = first
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            format!(
                "{} {}",
                v["schema"].as_str().unwrap_or(""),
                v["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            "olm.package a",
            "olm.channel stable",
            "olm.bundle a.v1",
            "olm.bundle a.v2",
            "olm.package z",
            "olm.channel a",
            "olm.channel b",
            "olm.bundle z.v1"
        ]
    );
}

#[test]
fn the_loader_renders_bundle_directories() {
    let root = tempfile::tempdir().expect("tempdir");
    let tree = root.path().join("operators");
    bundle(
        &tree,
        "a/1.0.0",
        &annotations("a", "stable", None),
        &csv("a.v1.0.0", "1.0.0", ""),
    );
    bundle(
        &tree,
        "a/2.0.0",
        &annotations("a", "stable", None),
        &csv("a.v2.0.0", "2.0.0", "  replaces: a.v1.0.0\n"),
    );
    write(&tree, "a/ci.yaml", "updateGraph: replaces-mode\n");
    let source = |path: PathBuf| CatalogSource {
        name: "c".into(),
        path,
        priority: 0,
    };
    let set = CatalogSet::load(&[source(tree.clone())], &LoadOptions::default()).expect("load");
    assert_eq!(set.bundles.len(), 2);
    let files = read_catalog(&source(tree.clone())).expect("read");
    assert_eq!(files.len(), 1);
    assert_eq!(
        files[0].path,
        format!("{} (rendered from bundle directories)", tree.display())
    );
    let one =
        CatalogSet::load(&[source(tree.join("a/2.0.0"))], &LoadOptions::default()).expect("one");
    assert_eq!(one.bundles.len(), 1);
    write(&tree, "a/catalog.yaml", "schema: olm.package\nname: a\n");
    let err =
        CatalogSet::load(&[source(tree.clone())], &LoadOptions::default()).expect_err("mixed");
    assert!(
        err.to_string()
            .contains("holds both FBC files and bundle directories"),
        "{err}"
    );
    let fbc = read_catalog(&source("catalogs/odf-dev".into())).expect("fbc");
    assert!(fbc.len() > 1, "an FBC directory is read file by file");
}
