//! Every bad-input case of the catalog loader: fatal ones name file, line, document and field;
//! tolerated ones load with a warning.

use std::path::Path;

use deppy::advanced::catalog::inspect::WarningKind;
use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadError, LoadOptions, Warning};

/// Writes `files` (name, content) into a fresh directory and loads it as catalog `c`.
fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<CatalogSet, LoadError>) {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
    }
    let source = CatalogSource {
        name: "c".into(),
        path: dir.path().to_path_buf(),
        priority: 0,
    };
    let result = CatalogSet::load(&[source], &LoadOptions::default());
    (dir, result)
}

fn ok(files: &[(&str, &str)]) -> CatalogSet {
    let (_dir, r) = load(files);
    r.unwrap_or_else(|e| panic!("expected success, got: {e}"))
}

fn err(files: &[(&str, &str)]) -> LoadError {
    let (_dir, r) = load(files);
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

fn warnings_of(set: &CatalogSet, kind: WarningKind) -> Vec<&Warning> {
    set.warnings.iter().filter(|w| w.kind == kind).collect()
}

const PKG: &str = r#"{"schema":"olm.package","name":"foo","defaultChannel":"stable"}"#;
const CHANNEL: &str =
    r#"{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v1.0.0"}]}"#;

fn bundle(name: &str, version: &str) -> String {
    format!(
        r#"{{"schema":"olm.bundle","name":"{name}","package":"foo","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"foo","version":"{version}"}}}}]}}"#
    )
}

#[test]
fn malformed_json_is_fatal_with_line_and_column() {
    let text = format!("{PKG}\n{CHANNEL}\n{{\"schema\": \"olm.bundle\",\n  \"name\": }}\n");
    match err(&[("a.json", &text)]) {
        LoadError::Syntax {
            file,
            format,
            line,
            column,
            document,
            message,
        } => {
            assert!(file.ends_with("a.json"), "{file}");
            assert_eq!((format, line, document), ("JSON", 4, 3));
            assert!(column > 0);
            assert!(message.contains("expected value"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_yaml_is_fatal_with_line_and_document() {
    let text = "---\nschema: olm.package\nname: foo\n---\nschema: olm.channel\nname: [unclosed\n";
    let e = err(&[("a.yaml", text)]);
    match &e {
        LoadError::Syntax {
            format,
            line,
            document,
            ..
        } => {
            assert_eq!((*format, *document), ("YAML", 2));
            assert!((5..=7).contains(line), "line {line}");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("a.yaml:"), "{e}");
}

#[test]
fn document_without_schema_is_fatal() {
    let e = err(&[("a.json", &format!("{PKG}\n{{\"name\": \"x\"}}\n"))]);
    match &e {
        LoadError::MissingSchema { origin } => {
            assert_eq!((origin.document, origin.line), (2, Some(2)));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string()
            .contains("(document 2): document has no `schema` field"),
        "{e}"
    );
    let e = err(&[(
        "a.yaml",
        "---\nschema: olm.package\nname: a\n---\n# c\nname: x\n",
    )]);
    match e {
        LoadError::MissingSchema { origin } => {
            assert_eq!((origin.document, origin.line), (2, Some(6)))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bundle_without_olm_package_is_fatal() {
    let b = r#"{"schema":"olm.bundle","name":"foo.v1.0.0","package":"foo","properties":[{"type":"olm.gvk","value":{"group":"g","version":"v1","kind":"K"}}]}"#;
    match err(&[("a.json", &format!("{PKG}\n{b}\n"))]) {
        LoadError::Invalid {
            origin,
            field,
            message,
        } => {
            assert_eq!(origin.document, 2);
            assert_eq!(field, "properties");
            assert!(message.contains("no olm.package property"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_bundle_version_is_fatal() {
    match err(&[(
        "a.json",
        &format!("{PKG}\n{}\n", bundle("foo.v1", "one.two")),
    )]) {
        LoadError::Invalid { field, message, .. } => {
            assert_eq!(field, "properties[0].value.version");
            assert!(message.contains("one.two"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn known_schema_with_wrong_field_type_is_fatal() {
    let text = format!(
        "{PKG}\n{{\"schema\":\"olm.channel\",\"package\":\"foo\",\"name\":\"s\",\"entries\":5}}\n"
    );
    match err(&[("a.json", &text)]) {
        LoadError::Syntax {
            line,
            document,
            message,
            ..
        } => {
            assert_eq!((line, document), (2, 2));
            assert!(
                message.starts_with("invalid olm.channel document"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    match err(&[(
        "a.yaml",
        "schema: olm.bundle\nname: foo.v1\npackage: foo\nproperties: {a: 1}\n",
    )]) {
        LoadError::Syntax {
            format, message, ..
        } => {
            assert_eq!(format, "YAML");
            assert!(
                message.starts_with("invalid olm.bundle document"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_required_field_is_fatal() {
    match err(&[("a.json", r#"{"schema":"olm.channel","name":"stable"}"#)]) {
        LoadError::Invalid { field, .. } => assert_eq!(field, "package"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_schemas_and_non_catalog_files_are_skipped() {
    let odd = r#"{"schema":"olm.template.basic","entries":"not a list","name":5}"#;
    let yaml_odd = "schema: example.com/thing\nentries: 7\n";
    let set = ok(&[
        (
            "a.json",
            &format!(
                "{PKG}\n{odd}\n{CHANNEL}\n{}\n",
                bundle("foo.v1.0.0", "1.0.0")
            ),
        ),
        ("b.yaml", yaml_odd),
        ("notes.txt", "not a catalog"),
        (".hidden/x.json", "{ broken"),
    ]);
    assert_eq!(set.bundles.len(), 1);
    assert!(set.warnings.is_empty(), "{:?}", set.warnings);
}

#[test]
fn channel_entry_without_bundle_warns() {
    let set = ok(&[("a.json", &format!("{PKG}\n{CHANNEL}\n"))]);
    let w = warnings_of(&set, WarningKind::EntryWithoutBundle);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].field.as_deref(), Some("entries[0].name"));
    assert!(
        w[0].to_string().contains("a.json:2 (document 2)"),
        "{}",
        w[0]
    );
    assert_eq!(set.packages[0].channels[0].entries[0].bundle, None);
}

#[test]
fn duplicate_bundles() {
    let b = bundle("foo.v1.0.0", "1.0.0");
    let set = ok(&[
        ("a.json", &format!("{PKG}\n{CHANNEL}\n{b}\n")),
        ("b.json", &b),
    ]);
    assert_eq!(set.bundles.len(), 1);
    let w = warnings_of(&set, WarningKind::DuplicateBundle);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].origin
            .as_ref()
            .is_some_and(|o| o.file.ends_with("b.json"))
    );
    // Same name, another version: which one is meant cannot be decided.
    let other = bundle("foo.v1.0.0", "1.0.1");
    match err(&[("a.json", &format!("{PKG}\n{b}\n")), ("b.json", &other)]) {
        LoadError::Conflict {
            origin,
            first,
            message,
        } => {
            assert!(origin.file.ends_with("b.json") && first.file.ends_with("a.json"));
            assert!(message.contains("declared twice"), "{message}");
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn property_without_value_warns_and_unknown_types_are_kept() {
    let b = r#"{"schema":"olm.bundle","name":"foo.v1.0.0","package":"foo","properties":[
        {"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},
        {"type":"relatedImage","value":null},
        {"type":"olm.gvk"},
        {"type":"example.com/custom","value":{"a":[1,2]}},
        {"type":"olm.maxOpenShiftVersion","value":"4.22"}]}"#;
    let set = ok(&[("a.json", &format!("{PKG}\n{CHANNEL}\n{b}\n"))]);
    let w = warnings_of(&set, WarningKind::PropertyWithoutValue);
    let fields: Vec<_> = w.iter().filter_map(|w| w.field.as_deref()).collect();
    assert_eq!(fields, ["properties[1].value", "properties[2].value"]);
    let props: Vec<_> = set.bundles[0]
        .properties
        .iter()
        .map(|p| (p.kind.as_str(), p.value.get()))
        .collect();
    assert_eq!(
        props,
        [
            ("relatedImage", "null"),
            ("example.com/custom", r#"{"a":[1,2]}"#),
            ("olm.maxOpenShiftVersion", r#""4.22""#)
        ]
    );
}

#[test]
fn skip_ranges_repaired_or_dropped() {
    let ch = r#"{"schema":"olm.channel","package":"foo","name":"stable","entries":[
        {"name":"foo.v1.0.0","skipRange":"not a range"},
        {"name":"foo.v2.0.0","replaces":"foo.v1.0.0","skipRange":"<v1.2.0"}]}"#;
    let b2 = bundle("foo.v2.0.0", "2.0.0");
    let set = ok(&[(
        "a.json",
        &format!("{PKG}\n{ch}\n{}\n{b2}\n", bundle("foo.v1.0.0", "1.0.0")),
    )]);
    let bad = warnings_of(&set, WarningKind::InvalidSkipRange);
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].field.as_deref(), Some("entries[0].skipRange"));
    assert!(bad[0].message.contains("foo.v1.0.0"), "{}", bad[0]);
    let entries = &set.packages[0].channels[0].entries;
    assert!(entries[0].skip_range.is_none());
    let repaired = warnings_of(&set, WarningKind::RepairedRange);
    assert_eq!(repaired.len(), 1, "{:?}", set.warnings);
    assert!(entries[1].skip_range.is_some());
}

#[test]
fn missing_default_channel_and_package_document_warn() {
    let set = ok(&[(
        "a.yaml",
        "schema: olm.package\nname: foo\n---\nschema: olm.bundle\nname: bar.v1\npackage: bar\nproperties:\n- type: olm.package\n  value: {packageName: bar, version: 1.0.0}\n",
    )]);
    assert_eq!(
        warnings_of(&set, WarningKind::MissingDefaultChannel).len(),
        1
    );
    let missing = warnings_of(&set, WarningKind::MissingPackageDocument);
    assert_eq!(missing.len(), 1);
    assert!(missing[0].message.contains("\"bar\""));
    assert_eq!(set.package_count(), 2);
}

#[test]
fn missing_path_is_fatal() {
    let source = CatalogSource {
        name: "gone".into(),
        path: Path::new("/nonexistent/deppy/catalog").to_path_buf(),
        priority: 0,
    };
    let e = CatalogSet::load(&[source], &LoadOptions::default()).err();
    assert!(matches!(e, Some(LoadError::MissingPath { .. })), "{e:?}");
}

#[test]
fn malformed_typed_properties() {
    // A malformed provided GVK warns; a malformed requirement is fatal (dropping it would let
    // the bundle install without its dependency).
    let gvk = r#"{"schema":"olm.bundle","name":"foo.v1","package":"foo","properties":[
        {"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},
        {"type":"olm.gvk","value":{"group":"g","version":"v1","kind":"K","plural":"ks"}},
        {"type":"olm.gvk","value":{"group":"g","version":"v1"}}]}"#;
    let set = ok(&[("a.json", gvk)]);
    assert_eq!(set.bundles[0].provides.len(), 1);
    assert_eq!(warnings_of(&set, WarningKind::InvalidProperty).len(), 1);
    let req = r#"{"schema":"olm.bundle","name":"foo.v1","package":"foo","properties":[
        {"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},
        {"type":"olm.package.required","value":{"packageName":"bar","versionRange":"not a range"}}]}"#;
    match err(&[("a.json", req)]) {
        LoadError::Invalid { field, .. } => assert_eq!(field, "properties[1].value"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn package_name_mismatch_warns() {
    let b = r#"{"schema":"olm.bundle","name":"foo.v1","package":"foo","properties":[
        {"type":"olm.package","value":{"packageName":"other","version":"1.0.0"}}]}"#;
    let set = ok(&[("a.json", b)]);
    assert_eq!(warnings_of(&set, WarningKind::PackageNameMismatch).len(), 1);
    assert_eq!(set.package_name(set.bundles[0].package), "foo");
}

#[test]
fn yaml_alias_bomb_is_rejected() {
    let mut text =
        String::from("schema: olm.package\nname: foo\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let prev = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    let e = err(&[("bomb.yaml", &text)]);
    assert!(matches!(e, LoadError::Syntax { .. }), "{e:?}");
}

#[test]
fn duplicate_packages_and_channels() {
    let set = ok(&[("a.json", PKG), ("b.json", PKG)]);
    assert_eq!(warnings_of(&set, WarningKind::DuplicatePackage).len(), 1);
    assert_eq!(set.packages.len(), 1);
    let other = r#"{"schema":"olm.package","name":"foo","defaultChannel":"beta"}"#;
    assert!(matches!(
        err(&[("a.json", PKG), ("b.json", other)]),
        LoadError::Conflict { .. }
    ));
    match err(&[("a.json", CHANNEL), ("b.json", CHANNEL)]) {
        LoadError::Conflict { message, .. } => {
            assert!(message.contains("channel \"stable\""), "{message}")
        }
        e => panic!("{e:?}"),
    }
    let dup_entry = r#"{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v1.0.0"},{"name":"foo.v1.0.0","replaces":"x"}]}"#;
    let set = ok(&[(
        "a.json",
        &format!("{PKG}\n{dup_entry}\n{}\n", bundle("foo.v1.0.0", "1.0.0")),
    )]);
    assert_eq!(warnings_of(&set, WarningKind::DuplicateEntry).len(), 1);
    assert_eq!(set.packages[0].channels[0].entries.len(), 1);
}

#[test]
fn deprecations_load_and_dangling_ones_are_reported() {
    let dep = r#"{"schema":"olm.deprecations","package":"foo","entries":[
        {"reference":{"schema":"olm.package"},"message":"foo is gone"},
        {"reference":{"schema":"olm.channel","name":"stable"},"message":"use fast"},
        {"reference":{"schema":"olm.bundle","name":"foo.v0.9.0"},"message":"old"},
        {"reference":{"schema":"olm.thing","name":"x"},"message":"?"}]}"#;
    let text = format!(
        "{PKG}\n{CHANNEL}\n{}\n{dep}\n",
        bundle("foo.v1.0.0", "1.0.0")
    );
    let set = ok(&[("a.json", &text)]);
    assert_eq!(set.deprecations.len(), 3);
    assert_eq!(warnings_of(&set, WarningKind::InvalidDeprecation).len(), 1);
    let report = deppy::advanced::catalog::inspect::validate(&set);
    assert!(!report.has_errors());
    let dangling: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.message.contains("olm.deprecations"))
        .collect();
    assert_eq!(dangling.len(), 1);
    assert!(dangling[0].message.contains("foo.v0.9.0"));
}
