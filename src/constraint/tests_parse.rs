//! Parsing, limits, matching and wording of `olm.constraint` values.

use serde_json::{Value, json};

use super::*;
use crate::version::Version;

pub(crate) fn parse(raw: &str) -> Result<Constraint, ConstraintError> {
    Constraint::parse(raw, &Limits::default(), &mut CelCache::new())
}

pub(crate) fn parse_ok(raw: &str) -> Constraint {
    match parse(raw) {
        Ok(c) => c,
        Err(e) => panic!("{raw}: {e}"),
    }
}

pub(crate) fn gvk(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

/// Tests `c` against a bundle of `package` at `version` providing `provides`.
pub(crate) fn check(
    c: &Constraint,
    package: &str,
    version: &str,
    provides: &[Gvk],
    properties: &[(String, Value)],
) -> Verdict {
    let version = Version::parse(version).expect("version");
    let view = CandidateView {
        package,
        version: &version,
        provides: provides.iter().collect(),
        properties,
    };
    c.test(&view)
}

fn foo_v1() -> Gvk {
    gvk("foos.example.com", "v1", "Foo")
}

#[test]
fn package_predicate() {
    let c = parse_ok(r#"{"package": {"packageName": "foo", "versionRange": ">=1.0.0"}}"#);
    assert!(matches!(&c.predicate, Predicate::Package { package, .. } if package == "foo"));
    assert!(check(&c, "foo", "1.2.0", &[], &[]).matched);
    assert!(!check(&c, "foo", "0.9.0", &[], &[]).matched);
    assert!(!check(&c, "bar", "1.2.0", &[], &[]).matched);
    assert_eq!(c.describe(), "a bundle of package foo >=1.0.0");
}

#[test]
fn gvk_predicate() {
    let c = parse_ok(r#"{"gvk": {"group": "foos.example.com", "version": "v1", "kind": "Foo"}}"#);
    assert_eq!(c.predicate, Predicate::Gvk(foo_v1()));
    assert!(check(&c, "x", "1.0.0", &[foo_v1()], &[]).matched);
    assert!(
        !check(
            &c,
            "x",
            "1.0.0",
            &[gvk("foos.example.com", "v2", "Foo")],
            &[]
        )
        .matched
    );
    assert_eq!(
        c.describe(),
        "a bundle that provides Foo (foos.example.com/v1)"
    );
}

#[test]
fn cel_predicate_and_failure_message() {
    let c = parse_ok(
        r#"{"failureMessage": "require to have \"certified\"",
            "cel": {"rule": "properties.exists(p, p.type == \"certified\")"}}"#,
    );
    assert_eq!(
        c.failure_message.as_deref(),
        Some("require to have \"certified\"")
    );
    assert_eq!(c.message(), "require to have \"certified\"");
    let certified = vec![("certified".to_string(), Value::Null)];
    assert!(check(&c, "x", "1.0.0", &[], &certified).matched);
    assert!(!check(&c, "x", "1.0.0", &[], &[]).matched);
    assert_eq!(
        c.describe(),
        r#"a bundle matching CEL rule "properties.exists(p, p.type == \"certified\")""#
    );
}

#[test]
fn all_needs_one_bundle_with_every_part() {
    let c = parse_ok(
        r#"{"all": {"constraints": [
            {"package": {"packageName": "foo", "versionRange": ">=1.0.0"}},
            {"gvk": {"group": "foos.example.com", "version": "v1", "kind": "Foo"}}]}}"#,
    );
    assert!(check(&c, "foo", "1.0.0", &[foo_v1()], &[]).matched);
    assert!(!check(&c, "foo", "1.0.0", &[], &[]).matched);
    assert!(!check(&c, "bar", "1.0.0", &[foo_v1()], &[]).matched);
    assert_eq!(
        c.describe(),
        "a bundle of package foo >=1.0.0 that provides Foo (foos.example.com/v1)"
    );
}

#[test]
fn any_and_nesting() {
    let c = parse_ok(
        r#"{"failureMessage": "Required for Red because...", "any": {"constraints": [
            {"all": {"constraints": [
                {"package": {"packageName": "blue", "versionRange": ">=1.0.0"}},
                {"gvk": {"group": "blues.example.com", "version": "v1", "kind": "Blue"}}]}},
            {"all": {"constraints": [
                {"package": {"packageName": "blue", "versionRange": "<1.0.0"}},
                {"gvk": {"group": "blues.example.com", "version": "v1beta1", "kind": "Blue"}}]}}]}}"#,
    );
    let v1 = gvk("blues.example.com", "v1", "Blue");
    let beta = gvk("blues.example.com", "v1beta1", "Blue");
    assert!(check(&c, "blue", "1.1.0", std::slice::from_ref(&v1), &[]).matched);
    assert!(check(&c, "blue", "0.5.0", std::slice::from_ref(&beta), &[]).matched);
    assert!(!check(&c, "blue", "0.5.0", &[v1], &[]).matched);
    assert!(!check(&c, "blue", "1.5.0", &[beta], &[]).matched);
    assert!(
        c.describe()
            .starts_with("one of: (a bundle of package blue >=1.0.0 that provides")
    );
}

#[test]
fn not_inside_all_and_any() {
    let c = parse_ok(
        r#"{"all": {"constraints": [
            {"package": {"packageName": "blue", "versionRange": ">=1.0.0"}},
            {"not": {"constraints": [
                {"gvk": {"group": "greens.example.com", "version": "v1alpha1", "kind": "Green"}}]}}]}}"#,
    );
    let green = gvk("greens.example.com", "v1alpha1", "Green");
    assert!(check(&c, "blue", "1.0.0", &[], &[]).matched);
    assert!(!check(&c, "blue", "1.0.0", std::slice::from_ref(&green), &[]).matched);
    assert_eq!(
        c.describe(),
        "a bundle of package blue >=1.0.0 that does not provide Green (greens.example.com/v1alpha1)"
    );
    let any = parse_ok(
        r#"{"any": {"constraints": [
            {"package": {"packageName": "red", "versionRange": ">=1.0.0"}},
            {"not": {"constraints": [
                {"package": {"packageName": "blue", "versionRange": ">=0.0.0"}},
                {"package": {"packageName": "green", "versionRange": ">=0.0.0"}}]}}]}}"#,
    );
    assert!(check(&any, "red", "1.0.0", &[], &[]).matched);
    assert!(check(&any, "yellow", "1.0.0", &[], &[]).matched);
    assert!(
        !check(&any, "blue", "1.0.0", &[], &[]).matched,
        "not = none of them"
    );
    assert!(!check(&any, "green", "1.0.0", &[], &[]).matched);
}

#[test]
fn deprecated_none_is_not() {
    let c = parse_ok(
        r#"{"none": {"constraints": [{"package": {"packageName": "a", "versionRange": ">=0.0.0"}}]}}"#,
    );
    assert!(matches!(c.predicate, Predicate::Not(_)));
    assert_eq!(c.describe(), "a bundle not of package a >=0.0.0");
}

#[test]
fn unknown_key_names_key_and_path() {
    let err = parse(
        r#"{"all": {"constraints": [
            {"gvk": {"group": "g", "version": "v1", "kind": "K"}},
            {"gvk": {"group": "g", "version": "v1", "kind": "K"}, "foo": 1}]}}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown field "foo" at all.constraints[1].foo"#
    );
    let err = parse(r#"{"package": {"name": "blue", "versionRange": ">=1.0.0"}}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown field "name" at package.name (did you mean "packageName"?)"#
    );
    let err =
        parse(r#"{"gvk": {"group": "g", "version": "v1", "kind": "K", "x": 1}}"#).unwrap_err();
    assert_eq!(err.path(), Some("gvk.x"));
}

#[test]
fn shape_errors() {
    let cases = [
        (
            r#"{"failureMessage": "x"}"#,
            "(top level): no constraint given",
        ),
        (
            r#"{"gvk": {"version": "v1", "kind": "K"}, "cel": {"rule": "true"}}"#,
            "several constraints in one (cel, gvk)",
        ),
        (
            r#"{"package": {"packageName": "a"}}"#,
            "missing field package.versionRange",
        ),
        (
            r#"{"package": {"packageName": "a", "versionRange": ">>1"}}"#,
            "package.versionRange: invalid versionRange \">>1\"",
        ),
        (
            r#"{"gvk": {"version": 1, "kind": "K"}}"#,
            "gvk.version: expected a string, found a number",
        ),
        (
            r#"{"all": {"constraints": []}}"#,
            "all.constraints: empty list of constraints",
        ),
        (r#"{"any": {}}"#, "missing field any.constraints"),
        (
            r#"{"not": {"constraints": {}}}"#,
            "not.constraints: expected a list, found an object",
        ),
        (r#"[1]"#, "(top level): expected an object, found a list"),
        (r#"{"gvk": "#, "invalid JSON"),
    ];
    for (raw, expected) in cases {
        let err = parse(raw).unwrap_err().to_string();
        assert!(err.contains(expected), "{raw}: {err}");
    }
}

#[test]
fn group_may_be_empty_or_absent() {
    let c = parse_ok(r#"{"gvk": {"version": "v1", "kind": "ConfigMap"}}"#);
    assert_eq!(c.predicate, Predicate::Gvk(gvk("", "v1", "ConfigMap")));
}

/// `depth` levels of `all`, a package leaf at the bottom.
fn nested_all(depth: usize) -> String {
    let mut s = r#"{"package": {"packageName": "a", "versionRange": ">=0.0.0"}}"#.to_string();
    for _ in 1..depth {
        s = format!(r#"{{"all": {{"constraints": [{s}]}}}}"#);
    }
    s
}

#[test]
fn depth_limit() {
    assert!(parse(&nested_all(32)).is_ok());
    let err = parse(&nested_all(33)).unwrap_err();
    assert!(
        matches!(err, ConstraintError::TooDeep { limit: 32, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("all.constraints[0]"), "{err}");
    let value: Value = serde_json::from_str(&nested_all(33)).expect("json");
    let err = Constraint::from_value(&value, &Limits::default(), &mut CelCache::new()).unwrap_err();
    assert!(matches!(err, ConstraintError::TooDeep { .. }), "{err}");
}

#[test]
fn size_limit() {
    let rule = format!("'{}' == ''", "a".repeat(65 * 1024));
    let raw = json!({"cel": {"rule": rule}}).to_string();
    let err = parse(&raw).unwrap_err();
    assert!(
        matches!(err, ConstraintError::TooLarge { limit: 65536, .. }),
        "{err}"
    );
}

#[test]
fn hostile_nesting_gives_clean_errors() {
    let limits = Limits {
        max_bytes: 4 << 20,
        ..Limits::default()
    };
    let n = 100_000;
    let arrays = format!("{}{}", "[".repeat(n), "]".repeat(n));
    let objects = format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    let alls = format!(
        "{}{}",
        r#"{"all":{"constraints":["#.repeat(n),
        "]}}".repeat(n)
    );
    for raw in [&arrays, &objects, &alls] {
        let err = Constraint::parse(raw, &limits, &mut CelCache::new()).unwrap_err();
        assert!(matches!(err, ConstraintError::TooDeep { .. }), "{err}");
    }
    // Default limits: too large first.
    assert!(matches!(
        parse(&arrays),
        Err(ConstraintError::TooLarge { .. })
    ));
    // A decoded value built 100k levels deep (leaked: serde_json drops it recursively).
    let mut v = json!({"package": {"packageName": "a", "versionRange": "*"}});
    for _ in 0..n {
        // Built by hand: `json!` would serialize (recursively copy) the interpolated value.
        let mut list = serde_json::Map::new();
        list.insert("constraints".into(), Value::Array(vec![v]));
        let mut all = serde_json::Map::new();
        all.insert("all".into(), Value::Object(list));
        v = Value::Object(all);
    }
    let v: &'static Value = Box::leak(Box::new(v));
    let err = Constraint::from_value(v, &Limits::default(), &mut CelCache::new()).unwrap_err();
    assert!(matches!(err, ConstraintError::TooDeep { .. }), "{err}");
}

#[test]
fn alias_form() {
    let raw = r#"{
      "description": "Required for Baz because...",
      "constraints": [
        {"type": "olm.all.required", "value": {
          "description": "All are required for Baz because...",
          "constraints": [
            {"type": "olm.package.required", "value": {"packageName": "foo", "versionRange": ">=1.0.0"}},
            {"type": "olm.gvk.required", "value": {"group": "foos.example.com", "version": "v1", "kind": "Foo"}},
            {"type": "olm.none.required", "value": {"constraints": [
              {"type": "olm.gvk.required", "value": {"group": "bars.example.com", "version": "v1alpha1", "kind": "Bar"}}]}}]}},
        {"type": "olm.all.required", "value": {
          "constraints": [
            {"type": "olm.package.required", "value": {"packageName": "foo", "versionRange": "<1.0.0"}},
            {"type": "olm.gvk.required", "value": {"group": "foos.example.com", "version": "v1beta1", "kind": "Foo"}}]}}]}"#;
    let limits = Limits::default();
    let c = Constraint::parse_typed("olm.any.required", raw, &limits, &mut CelCache::new())
        .expect("alias form");
    assert_eq!(
        c.failure_message.as_deref(),
        Some("Required for Baz because...")
    );
    let bar = gvk("bars.example.com", "v1alpha1", "Bar");
    assert!(check(&c, "foo", "1.0.0", &[foo_v1()], &[]).matched);
    assert!(!check(&c, "foo", "1.0.0", &[foo_v1(), bar], &[]).matched);
    assert!(
        check(
            &c,
            "foo",
            "0.1.0",
            &[gvk("foos.example.com", "v1beta1", "Foo")],
            &[]
        )
        .matched
    );
    let Predicate::Any(children) = &c.predicate else {
        panic!("any")
    };
    assert!(matches!(&children[0].predicate, Predicate::All(parts) if parts.len() == 3));

    let label = Constraint::parse_typed(
        "olm.label.required",
        r#"{"label": "beta"}"#,
        &limits,
        &mut CelCache::new(),
    )
    .expect("label");
    let props = vec![("olm.label".to_string(), json!({"label": "beta"}))];
    assert!(check(&label, "x", "1.0.0", &[], &props).matched);
    assert!(!check(&label, "x", "1.0.0", &[], &[]).matched);
    assert!(Constraint::is_constraint_type("olm.none.required"));
    assert!(!Constraint::is_constraint_type("olm.gvk"));
}

#[test]
fn alias_errors_name_paths() {
    let limits = Limits::default();
    let mut cache = CelCache::new();
    let err = Constraint::parse_typed(
        "olm.all.required",
        r#"{"constraints": [{"type": "olm.gvk.required", "value": {"group": "g", "version": "v1", "kind": "K", "extra": 1}}]}"#,
        &limits,
        &mut cache,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown field "extra" at constraints[0].value.extra"#
    );
    let err = Constraint::parse_typed(
        "olm.all.required",
        r#"{"constraints": [{"type": "olm.color", "value": "red"}]}"#,
        &limits,
        &mut cache,
    )
    .unwrap_err();
    assert!(
        matches!(&err, ConstraintError::UnknownType { path, kind } if path == "constraints[0].value" && kind == "olm.color"),
        "{err}"
    );
    let nested_olm_constraint = Constraint::parse_typed(
        "olm.any.required",
        r#"{"constraints": [{"type": "olm.constraint", "value": {"cel": {"rule": "true"}}}]}"#,
        &limits,
        &mut cache,
    );
    assert!(nested_olm_constraint.is_ok());
}

#[test]
fn describe_fallbacks() {
    let c = parse_ok(
        r#"{"all": {"constraints": [
            {"any": {"constraints": [{"gvk": {"group": "g", "version": "v1", "kind": "A"}}, {"gvk": {"group": "g", "version": "v1", "kind": "B"}}]}},
            {"gvk": {"group": "g", "version": "v1", "kind": "C"}}]}}"#,
    );
    assert_eq!(
        c.describe(),
        "a bundle that is all of: (one of: (a bundle that provides A (g/v1)), \
         (a bundle that provides B (g/v1))), (a bundle that provides C (g/v1))"
    );
    let not2 = parse_ok(
        r#"{"not": {"constraints": [{"gvk": {"group": "g", "version": "v1", "kind": "A"}}, {"package": {"packageName": "p", "versionRange": "*"}}]}}"#,
    );
    assert_eq!(
        not2.to_string(),
        "a bundle that is none of: (a bundle that provides A (g/v1)), (a bundle of package p)"
    );
}
