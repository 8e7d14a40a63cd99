use super::*;
use serde_json::json;

fn fields(schema: Value, object: Value) -> Vec<String> {
    Schema::compile(&schema)
        .unwrap()
        .rejections(&object)
        .into_iter()
        .map(|r| r.field)
        .collect()
}

fn spec(props: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}})
}

#[test]
fn a_plain_schema_names_the_failing_field() {
    let s = json!({"type": "object", "required": ["spec"], "properties": {"spec": {
        "type": "object", "required": ["size"],
        "properties": {"size": {"type": "integer"}, "mode": {"type": "string", "enum": ["a", "b"]},
          "ports": {"type": "array", "items": {"type": "integer"}}}}}});
    assert_eq!(fields(s.clone(), json!({})), ["spec"]);
    assert_eq!(fields(s.clone(), json!({"spec": {}})), ["spec.size"]);
    assert_eq!(
        fields(s.clone(), json!({"spec": {"size": "3", "mode": "c"}})),
        ["spec.mode", "spec.size"]
    );
    assert_eq!(
        fields(s, json!({"spec": {"size": 3, "ports": [1, "x"]}})),
        ["spec.ports[1]"]
    );
}

#[test]
fn int_or_string_takes_both_and_nothing_else() {
    let s = spec(json!({"port": {"x-kubernetes-int-or-string": true,
        "anyOf": [{"type": "integer"}, {"type": "string"}]}}));
    assert!(fields(s.clone(), json!({"spec": {"port": 8080}})).is_empty());
    assert!(fields(s.clone(), json!({"spec": {"port": "http"}})).is_empty());
    assert_eq!(fields(s, json!({"spec": {"port": true}})), ["spec.port"]);
}

#[test]
fn int_or_string_with_a_declared_type_still_takes_both() {
    // A plain JSON Schema check of {"type": "string"} would refuse 8080.
    let s = spec(json!({"port": {"type": "string", "x-kubernetes-int-or-string": true}}));
    assert!(fields(s, json!({"spec": {"port": 8080}})).is_empty());
}

#[test]
fn nullable_takes_null_and_only_where_said() {
    let s = spec(json!({"a": {"type": "string", "nullable": true},
        "b": {"type": "string"}, "c": {"type": "string", "enum": ["x"], "nullable": true}}));
    assert!(fields(s.clone(), json!({"spec": {"a": null, "c": null}})).is_empty());
    assert_eq!(fields(s, json!({"spec": {"b": null}})), ["spec.b"]);
}

#[test]
fn unknown_fields_are_pruned_not_rejected() {
    let s = spec(json!({"a": {"type": "string"},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}));
    let o =
        json!({"spec": {"a": "x", "extra": 1, "free": {"anything": [1, {"b": 2}]}}, "other": 3});
    assert!(fields(s, o).is_empty());
}

#[test]
fn root_api_version_kind_and_metadata_are_the_servers() {
    let s = json!({"type": "object", "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {"apiVersion": {"type": "integer"}, "kind": {"type": "integer"},
          "metadata": {"type": "object", "properties": {"name": {"maxLength": 1}}},
          "spec": {"type": "object"}}});
    let o = json!({"apiVersion": "x.io/v1", "kind": "A", "metadata": {"name": "long"}, "spec": {}});
    assert!(fields(s.clone(), o).is_empty());
    assert_eq!(
        fields(s, json!({"apiVersion": "x.io/v1", "kind": "A"})),
        ["spec"]
    );
}

#[test]
fn embedded_resources_metadata_is_not_the_schemas() {
    let s = spec(
        json!({"template": {"type": "object", "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true, "required": ["metadata", "kind"],
        "properties": {"metadata": {"type": "string"}, "kind": {"type": "string"}}}}),
    );
    let ok = json!({"spec": {"template": {"kind": "Pod", "metadata": {"name": "p"}}}});
    assert!(fields(s.clone(), ok).is_empty());
    let bad = json!({"spec": {"template": {"kind": 3}}});
    assert_eq!(fields(s, bad), ["spec.template.kind"]);
}

#[test]
fn formats_and_cel_rules_are_not_checked() {
    let s = spec(json!({"when": {"type": "string", "format": "date-time",
        "x-kubernetes-validations": [{"rule": "self == 'never'"}]}}));
    assert!(fields(s, json!({"spec": {"when": "not a date"}})).is_empty());
}

#[test]
fn a_schema_the_validator_cannot_compile_is_an_error() {
    let e = Schema::compile(&json!({"type": "object", "properties": {"a": {"pattern": "("}}}));
    assert!(e.is_err());
    let e = Schema::compile(&json!({"type": 7}));
    assert!(e.is_err());
}

#[test]
fn pointers_become_fields() {
    assert_eq!(pointer_to_field(""), "(root)");
    assert_eq!(pointer_to_field("/spec/items/0/a~1b"), "spec.items[0].a/b");
}

#[test]
fn patterns_are_gos_regular_expressions() {
    let with = |p: &str| spec(json!({"name": {"type": "string", "pattern": p}}));
    let name = |v: &str| json!({"spec": {"name": v}});
    // Go syntax JavaScript lacks: accepted, and matched as Go matches.
    for (p, good, bad) in [
        ("^(?i)[a-z]+$", "ABC", "ab1"),
        ("^[[:alpha:]]+$", "abc", "ab1"),
        (r"\Aab\z", "ab", "abc"),
        (r"^\pL+$", "héllo", "h1"),
        (r"^\Q.*\E$", ".*", "ab"),
        ("^(?P<x>a+)$", "aa", "b"),
    ] {
        assert!(fields(with(p), name(good)).is_empty(), "{p} on {good}");
        assert_eq!(fields(with(p), name(bad)), ["spec.name"], "{p} on {bad}");
    }
    // Syntax Go refuses (lookaround, backreferences) makes the schema invalid at once.
    for p in ["^(?=a)a$", r"^(a)\1$", "(?<!x)y"] {
        let e = Schema::compile(&with(p)).err().unwrap_or_default();
        assert!(e.contains("error parsing regexp"), "{p}: {e}");
    }
}

#[test]
fn a_message_quotes_a_value_cut_to_a_fixed_length() {
    let s = spec(json!({"name": {"type": "string", "pattern": "^x$"}}));
    let long = "y".repeat(100_000);
    let schema = Schema::compile(&s).expect("compiles");
    let r = schema.rejections(&json!({"spec": {"name": long}}));
    assert_eq!(r.len(), 1);
    assert!(r[0].message.len() < 400, "{}", r[0].message.len());
    assert!(
        r[0].message.contains("(100002 bytes in all)"),
        "{}",
        r[0].message
    );
}
