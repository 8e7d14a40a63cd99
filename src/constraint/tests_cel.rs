//! CEL: the environment, compile errors, hostile rules, errors as values.

use serde_json::{Value, json};

use super::tests_parse::check;
use super::*;

fn cel(rule: &str) -> Result<Constraint, ConstraintError> {
    let raw = json!({"cel": {"rule": rule}}).to_string();
    Constraint::parse(&raw, &Limits::default(), &mut CelCache::new())
}

fn cel_ok(rule: &str) -> Constraint {
    match cel(rule) {
        Ok(c) => c,
        Err(e) => panic!("{rule}: {e}"),
    }
}

fn kube(version: &str) -> Vec<(String, Value)> {
    vec![("olm.kubeversion".to_string(), json!({"version": version}))]
}

#[test]
fn semver_compare_in_rules() {
    let c = cel_ok(
        r#"properties.exists(p, p.type == "olm.kubeversion" && semver_compare(p.value.version, "1.21.0") >= 0)"#,
    );
    assert!(check(&c, "x", "1.0.0", &[], &kube("1.22.3")).matched);
    assert!(
        check(&c, "x", "1.0.0", &[], &kube("v1.21")).matched,
        "tolerant parsing"
    );
    assert!(!check(&c, "x", "1.0.0", &[], &kube("1.20.9")).matched);
    for (a, b, want) in [
        ("1.0.0", "1.0.0", 0),
        ("v1", "1.0.1", -1),
        ("2.0.0-rc.1", "1.9.9", 1),
    ] {
        let rule = format!("semver_compare('{a}', '{b}') == {want}");
        assert!(
            check(&cel_ok(&rule), "x", "1.0.0", &[], &[]).matched,
            "{rule}"
        );
    }
}

#[test]
fn unparseable_version_is_an_evaluation_error() {
    let c = cel_ok(
        r#"properties.exists(p, p.type == "olm.kubeversion" && semver_compare(p.value.version, "1.21.0") >= 0)"#,
    );
    let verdict = check(&c, "x", "1.0.0", &[], &kube("not-a-version"));
    assert!(!verdict.matched);
    assert_eq!(verdict.errors.len(), 1, "{verdict:?}");
    assert!(
        verdict.errors[0].contains("unable to parse \"not-a-version\""),
        "{verdict:?}"
    );
}

#[test]
fn evaluation_errors_are_values() {
    // No such key.
    let c = cel_ok(r#"properties.exists(p, p.value.nothere == 1)"#);
    let verdict = check(&c, "x", "1.0.0", &[], &kube("1.2.3"));
    assert!(!verdict.matched);
    assert!(!verdict.errors.is_empty());
    // Not a bool.
    let c = cel_ok("1 + 1");
    let verdict = check(&c, "x", "1.0.0", &[], &[]);
    assert!(!verdict.matched);
    assert!(verdict.errors[0].contains("not a bool"), "{verdict:?}");
    // Wrong types.
    let c = cel_ok("'a' + 1 == 2");
    assert!(!check(&c, "x", "1.0.0", &[], &[]).errors.is_empty());
    // `not` over a failing rule matches (the rule is false), and the error is kept.
    let raw = json!({"not": {"constraints": [{"cel": {"rule": "1 / 0 == 1"}}]}}).to_string();
    let not = Constraint::parse(&raw, &Limits::default(), &mut CelCache::new()).expect("parse");
    let verdict = check(&not, "x", "1.0.0", &[], &[]);
    assert!(verdict.matched);
    assert_eq!(verdict.errors.len(), 1);
}

#[test]
fn rules_see_typed_and_opaque_properties() {
    let props = vec![
        (
            "olm.package".to_string(),
            json!({"packageName": "foo", "version": "1.2.3"}),
        ),
        ("color".to_string(), json!("red")),
        ("sizes".to_string(), json!([1, 2, 3])),
        ("big".to_string(), json!(18446744073709551615u64)),
        ("ratio".to_string(), json!(0.5)),
    ];
    for rule in [
        r#"properties.exists(p, p.type == "olm.package" && p.value.packageName == "foo")"#,
        r#"properties.exists(p, p.type == "color" && p.value == "red")"#,
        r#"properties.exists(p, p.type == "sizes" && p.value.size() == 3 && p.value[1] == 2)"#,
        r#"properties.exists(p, p.type == "big" && p.value == 18446744073709551615u)"#,
        r#"properties.exists(p, p.type == "ratio" && p.value < 1.0)"#,
        r#"size(properties) == 5"#,
    ] {
        let verdict = check(&cel_ok(rule), "foo", "1.2.3", &[], &props);
        assert!(verdict.matched, "{rule}: {verdict:?}");
    }
}

#[test]
fn compile_error_has_line_and_column() {
    let err = cel("properties.exists(p,\n  p.type == )").unwrap_err();
    match &err {
        ConstraintError::CelCompile {
            line, column, path, ..
        } => {
            assert_eq!((*line, *column), (2, 13), "{err}");
            assert_eq!(path, "cel.rule");
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().starts_with("cel.rule: CEL rule \"properties.exists(p, p.type == )\" does not compile: line 2, column 13"), "{err}");
    let err = cel("1 + ").unwrap_err();
    assert!(
        matches!(
            err,
            ConstraintError::CelCompile {
                line: 1,
                column: 5,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn undeclared_variables_are_compile_errors() {
    let err = cel("properties.exists(p, p.type == kind)").unwrap_err();
    match &err {
        ConstraintError::CelCompile {
            message,
            line,
            column,
            ..
        } => {
            assert!(message.contains("'kind'"), "{err}");
            assert_eq!((*line, *column), (1, 32), "{err}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn too_costly_rules_are_rejected() {
    let three =
        "properties.exists(a, properties.exists(b, properties.exists(c, a.type == c.type)))";
    let err = cel(three).unwrap_err();
    assert!(
        matches!(
            err,
            ConstraintError::CelTooCostly {
                limit: 1_000_000,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("too costly"), "{err}");
    let two = cel_ok("properties.exists(a, properties.exists(b, a.type == b.type))");
    let Predicate::Cel(rule) = &two.predicate else {
        panic!()
    };
    assert!(
        rule.cost() > 10_000 && rule.cost() <= 1_000_000,
        "{}",
        rule.cost()
    );
    let strict = Limits {
        max_cel_cost: 50,
        ..Limits::default()
    };
    let raw = json!({"cel": {"rule": "properties.exists(p, p.type == 'x')"}}).to_string();
    assert!(Constraint::parse(&raw, &strict, &mut CelCache::new()).is_err());
}

#[test]
fn hostile_rules_are_rejected() {
    // Deeply nested parentheses, 100k deep: the bracket scan stops them.
    let parens = format!("{}true{}", "(".repeat(100_000), ")".repeat(100_000));
    let limits = Limits {
        max_bytes: 1 << 20,
        max_cel_bytes: 1 << 20,
        ..Limits::default()
    };
    let raw = json!({"cel": {"rule": parens}}).to_string();
    let err = Constraint::parse(&raw, &limits, &mut CelCache::new()).unwrap_err();
    assert!(
        matches!(
            err,
            ConstraintError::CelTooDeep {
                what: "brackets",
                ..
            }
        ),
        "{err}"
    );
    // 33 levels: just over the limit.
    let err = cel(&format!("{}true{}", "(".repeat(33), ")".repeat(33))).unwrap_err();
    assert!(
        matches!(err, ConstraintError::CelTooDeep { limit: 32, .. }),
        "{err}"
    );
    assert!(cel(&format!("{}true{}", "(".repeat(30), ")".repeat(30))).is_ok());
    // A huge rule.
    let err = cel(&format!("true{}", " && true".repeat(3000))).unwrap_err();
    assert!(
        matches!(err, ConstraintError::CelTooLong { limit: 16384, .. }),
        "{err}"
    );
    // A long operator chain within the length limit: the parser recurses per operator, on
    // its own thread; the tree depth check rejects it.
    let chain = format!("1{} == 1", " + 1".repeat(4000));
    let err = cel(&chain).unwrap_err();
    assert!(
        matches!(
            err,
            ConstraintError::CelTooDeep {
                what: "expressions",
                ..
            }
        ),
        "{err}"
    );
    // The densest chains the length limit allows (two or three bytes per operator).
    for dense in [
        format!("1{}", "+1".repeat(8000)),
        format!("properties{}", ".a".repeat(8000)),
        format!("properties{}", "[0]".repeat(5000)),
        format!("{}1 == 1", "-".repeat(16000)),
        format!("{}true", "!".repeat(16000)),
    ] {
        assert!(dense.len() <= 16384);
        let _ = cel(&dense); // Must return (an error or not), never overflow.
    }
    // Chained ternaries hit the parser's own recursion limit.
    let ternaries = format!("{}true", "true ? true : ".repeat(200));
    let err = cel(&ternaries).unwrap_err();
    assert!(matches!(err, ConstraintError::CelTooDeep { .. }), "{err}");
}

#[test]
fn rules_at_the_depth_limit_evaluate_on_a_small_stack() {
    // 90 chained additions (just under the tree-depth limit) inside a comprehension, evaluated
    // on a 256 KiB thread: the tree depth bound keeps evaluation's recursion small.
    let rule = format!("properties.exists(p, 0{} == 90)", " + 1".repeat(90));
    let c = cel_ok(&rule);
    let handle = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || check(&c, "x", "1.0.0", &[], &kube("1.0.0")).matched)
        .expect("thread");
    assert!(handle.join().expect("no overflow"));
}

#[test]
fn cache_compiles_each_rule_once() {
    let limits = Limits::default();
    let mut cache = CelCache::new();
    let raw = json!({"any": {"constraints": [
        {"cel": {"rule": "true"}}, {"cel": {"rule": "true"}}, {"cel": {"rule": "false"}}]}})
    .to_string();
    Constraint::parse(&raw, &limits, &mut cache).expect("parse");
    Constraint::parse(&raw, &limits, &mut cache).expect("parse again");
    assert_eq!(cache.len(), 2);
    // Failures are cached too, and re-pathed at each use.
    let bad = json!({"all": {"constraints": [{"cel": {"rule": "1 +"}}]}}).to_string();
    let e1 = Constraint::parse(&bad, &limits, &mut cache).unwrap_err();
    let e2 = Constraint::parse(
        &json!({"cel": {"rule": "1 +"}}).to_string(),
        &limits,
        &mut cache,
    )
    .unwrap_err();
    assert_eq!(e1.path(), Some("all.constraints[0].cel.rule"));
    assert_eq!(e2.path(), Some("cel.rule"));
    assert_eq!(cache.len(), 3);
}
