//! Admin constraints, the cluster node (both spellings), and bundle properties from a catalog.

use serde_json::{Value, json};

use super::tests_parse::{check, gvk};
use super::*;

fn entry(v: Value) -> Result<AdminEntry, ConstraintError> {
    AdminEntry::from_value(&v, &Limits::default(), &mut CelCache::new())
}

fn cluster(v: Value) -> Result<Cluster, ConstraintError> {
    Cluster::from_value(&v, &Limits::default(), &mut CelCache::new())
}

#[test]
fn admin_constraint_forms() {
    let e = entry(
        json!({"action": "require", "failureMessage": "only certified",
                         "cel": {"rule": "properties.exists(p, p.type == 'certified')"}}),
    )
    .expect("require");
    let AdminEntry::Constraint(ac) = e else {
        panic!("constraint")
    };
    assert_eq!(ac.action, ConstraintAction::Require);
    assert_eq!(
        ac.constraint.failure_message.as_deref(),
        Some("only certified")
    );
    let e = entry(json!({"action": {"id": "conflict"},
                         "package": {"packageName": "legacy", "versionRange": "<2.0.0"}}))
    .expect("conflict");
    let AdminEntry::Constraint(ac) = e else {
        panic!("constraint")
    };
    assert_eq!(ac.action, ConstraintAction::Conflict);
    assert!(check(&ac.constraint, "legacy", "1.0.0", &[], &[]).matched);
}

#[test]
fn prohibit_forms() {
    let cases = [
        (
            json!({"prohibit": {"package": "etcd"}}),
            Prohibit::Package("etcd".into()),
        ),
        (
            json!({"prohibit": {"bundle": "etcd.v1"}}),
            Prohibit::Bundle("etcd.v1".into()),
        ),
        (
            json!({"prohibit": {"channel": {"package": "etcd", "name": "alpha"}}}),
            Prohibit::Channel {
                package: "etcd".into(),
                channel: "alpha".into(),
            },
        ),
        (
            json!({"prohibit": {"catalog": "community"}, "failureMessage": "not vetted"}),
            Prohibit::Catalog("community".into()),
        ),
    ];
    for (value, want) in cases {
        match entry(value.clone()) {
            Ok(AdminEntry::Prohibit { target, .. }) => assert_eq!(target, want, "{value}"),
            other => panic!("{value}: {other:?}"),
        }
    }
    assert_eq!(Prohibit::Catalog("c".into()).to_string(), "catalog c");
}

#[test]
fn admin_errors_name_fields() {
    let cases = [
        (
            json!({"gvk": {"version": "v1", "kind": "K"}}),
            "missing field action",
        ),
        (
            json!({"action": "allow", "gvk": {"version": "v1", "kind": "K"}}),
            "action: unknown action \"allow\"",
        ),
        (
            json!({"action": "require", "gvk": {"version": "v1", "kind": "K"}, "x": 1}),
            "unknown field \"x\" at x",
        ),
        (
            json!({"prohibit": {"pkg": "a"}}),
            "unknown field \"pkg\" at prohibit.pkg",
        ),
        (
            json!({"prohibit": {"channel": {"package": "a"}}}),
            "missing field prohibit.channel.name",
        ),
        (
            json!({"prohibit": {"package": "a", "bundle": "b"}}),
            "several constraints in one",
        ),
    ];
    for (value, expected) in cases {
        let err = entry(value.clone()).unwrap_err().to_string();
        assert!(err.contains(expected), "{value}: {err}");
    }
    let list = [
        json!({"prohibit": {"package": "a"}}),
        json!({"action": "require"}),
    ];
    let err = AdminEntry::list_from_values(&list, &Limits::default(), &mut CelCache::new())
        .unwrap_err()
        .prefixed("constraints");
    assert_eq!(
        err.to_string(),
        "constraints[1]: no constraint given; expected exactly one of gvk, package, cel, all, any, not"
    );
}

#[test]
fn cluster_request_form() {
    let c = cluster(json!({
        "properties": [
            {"type": "olm.kubeversion", "value": {"version": "1.28.3"}},
            {"type": "olm.gvk", "value": {"group": "", "version": "v1", "kind": "ConfigMap"}}],
        "constraints": [{"action": "require", "cel": {"rule": "true"}}]}))
    .expect("cluster");
    assert_eq!(c.properties.len(), 2);
    assert_eq!(c.constraints.len(), 1);
    assert_eq!(c.provides(), vec![gvk("", "v1", "ConfigMap")]);
    let err = cluster(json!({"properties": [{"type": "x", "valeu": 1}]})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown field \"valeu\" at properties[0].valeu"
    );
    let err =
        cluster(json!({"properties": [{"type": "olm.gvk", "value": {"kind": "K"}}]})).unwrap_err();
    assert_eq!(err.to_string(), "missing field properties[0].value.version");
    let err = cluster(json!({"constraints": [{"prohibit": {"package": "a"}}]})).unwrap_err();
    assert!(err.to_string().contains("constraints[0].prohibit"), "{err}");
    assert_eq!(cluster(json!({})).expect("empty"), Cluster::default());
}

#[test]
fn cluster_satisfies() {
    let c = cluster(json!({"properties": [
        {"type": "olm.kubeversion", "value": {"version": "1.28.3"}},
        {"type": "olm.gvk", "value": {"group": "", "version": "v1", "kind": "ConfigMap"}}]}))
    .expect("cluster");
    let parse = |raw: Value| {
        Constraint::parse(&raw.to_string(), &Limits::default(), &mut CelCache::new())
            .expect("parse")
    };
    let kube = parse(json!({"cel": {"rule":
        "properties.exists(p, p.type == 'olm.kubeversion' && semver_compare(p.value.version, '1.25.0') >= 0)"}}));
    assert!(c.satisfies(&kube).matched);
    assert!(
        c.satisfies(&parse(
            json!({"gvk": {"version": "v1", "kind": "ConfigMap"}})
        ))
        .matched
    );
    assert!(
        !c.satisfies(&parse(json!({"gvk": {"version": "v1", "kind": "Secret"}})))
            .matched
    );
    let package = parse(json!({"package": {"packageName": "a", "versionRange": "*"}}));
    assert!(
        !c.satisfies(&package).matched,
        "a package predicate never matches the cluster"
    );
    let not_package = parse(
        json!({"not": {"constraints": [{"package": {"packageName": "a", "versionRange": "*"}}]}}),
    );
    assert!(c.satisfies(&not_package).matched);
}

#[test]
fn cluster_config_map_form() {
    let properties = json!([
        {"type": "olm.constraint", "value": {
            "evaluator": {"id": "cel"},
            "source": "properties.exists(p, p.type == \"certified\")",
            "action": {"id": "require"},
            "failureMessage": "only certified operators"}},
        {"type": "olm.constraint", "value": {
            "evaluator": {"id": "cel"},
            "rule": "properties.exists(p, p.type == \"new\")",
            "message": "no new",
            "action": {"id": "conflict"}}},
        {"type": "olm.constraint", "value": {"action": "require", "gvk": {"version": "v1", "kind": "K"}}},
        {"type": "olm.kubeversion", "value": {"version": "1.28.0"}}]);
    let config_map = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "olm-runtime-constraints", "namespace": "olm"},
        "data": {"properties": properties.to_string()}});
    let c = cluster(config_map).expect("configmap");
    assert_eq!(
        c.properties,
        vec![("olm.kubeversion".to_string(), json!({"version": "1.28.0"}))]
    );
    assert_eq!(c.constraints.len(), 3);
    assert_eq!(c.constraints[0].action, ConstraintAction::Require);
    assert_eq!(
        c.constraints[0].constraint.failure_message.as_deref(),
        Some("only certified operators")
    );
    assert_eq!(c.constraints[1].action, ConstraintAction::Conflict);
    assert_eq!(
        c.constraints[1].constraint.failure_message.as_deref(),
        Some("no new")
    );
    let certified = vec![("certified".to_string(), Value::Null)];
    assert!(check(&c.constraints[0].constraint, "x", "1.0.0", &[], &certified).matched);
    // The same list written as YAML (already a list) is accepted.
    let as_list = json!({"kind": "ConfigMap", "data": {"properties": properties}});
    assert_eq!(cluster(as_list).expect("list").constraints.len(), 3);
}

#[test]
fn config_map_errors_name_fields() {
    let cm = |value: Value| json!({"kind": "ConfigMap", "data": {"properties": json!([{"type": "olm.constraint", "value": value}]).to_string()}});
    let cases = [
        (
            cm(json!({"evaluator": {"id": "rego"}, "source": "true", "action": {"id": "require"}})),
            "data.properties[0].value.evaluator.id: unsupported evaluator \"rego\"",
        ),
        (
            cm(json!({"evaluator": {"id": "cel"}, "action": {"id": "require"}})),
            "missing field data.properties[0].value.source",
        ),
        (
            cm(json!({"evaluator": {"id": "cel"}, "source": "true"})),
            "missing field data.properties[0].value.action",
        ),
        (
            cm(json!({"evaluator": {"id": "cel"}, "source": "true", "action": {"id": "deny"}})),
            "data.properties[0].value.action.id: unknown action \"deny\"",
        ),
        (
            cm(json!({"evaluator": {"id": "cel"}, "source": "1 +", "action": {"id": "require"}})),
            "data.properties[0].value.source: CEL rule \"1 +\" does not compile",
        ),
        (
            json!({"kind": "ConfigMap", "data": {"properties": "[{"}}),
            "data.properties: invalid JSON",
        ),
        (
            json!({"kind": "ConfigMap", "data": {"props": "[]"}}),
            "unknown field \"props\" at data.props",
        ),
    ];
    for (value, expected) in cases {
        let err = cluster(value.clone()).unwrap_err().to_string();
        assert!(err.contains(expected), "{value}: {err}");
    }
}

#[test]
fn bundle_properties_from_a_catalog() {
    use crate::catalog::{CatalogSet, CatalogSource, LoadOptions, bundle_properties};
    let dir = tempfile::tempdir().expect("tempdir");
    let fbc = r#"
{"schema": "olm.package", "name": "foo", "defaultChannel": "stable"}
{"schema": "olm.channel", "package": "foo", "name": "stable", "entries": [{"name": "foo.v1.2.0"}]}
{"schema": "olm.bundle", "package": "foo", "name": "foo.v1.2.0", "image": "img", "properties": [
  {"type": "olm.package", "value": {"packageName": "foo", "version": "1.2.0"}},
  {"type": "olm.gvk", "value": {"group": "foos.example.com", "version": "v1", "kind": "Foo"}},
  {"type": "olm.label", "value": {"label": "beta"}},
  {"type": "certified", "value": {"by": "acme"}}]}
"#;
    std::fs::write(dir.path().join("catalog.json"), fbc).expect("write");
    let source = CatalogSource {
        name: "test".into(),
        path: dir.path().to_path_buf(),
        priority: 0,
    };
    let set = CatalogSet::load(&[source], &LoadOptions::default()).expect("load");
    let package = set.package_id("foo").expect("package");
    let id = *set.bundles_of(package).first().expect("bundle");
    let bundle = set.bundle(id).expect("bundle");
    let props = bundle_properties(bundle, &set);
    let types: Vec<&str> = props.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(types, ["olm.package", "olm.gvk", "olm.label", "certified"]);
    assert_eq!(
        props[0].1,
        json!({"packageName": "foo", "version": "1.2.0"})
    );
    let view = CandidateView::of_bundle(bundle, &set, &props);
    let raw = json!({"all": {"constraints": [
        {"package": {"packageName": "foo", "versionRange": ">=1.0.0"}},
        {"gvk": {"group": "foos.example.com", "version": "v1", "kind": "Foo"}},
        {"cel": {"rule": "properties.exists(p, p.type == 'certified' && p.value.by == 'acme') && properties.exists(p, p.type == 'olm.label' && p.value.label == 'beta')"}}]}})
    .to_string();
    let c = Constraint::parse(&raw, &Limits::default(), &mut CelCache::new()).expect("parse");
    let verdict = c.test(&view);
    assert!(verdict.matched, "{verdict:?}");
}

#[test]
fn deep_admin_and_cluster_values_are_rejected() {
    let mut v = Value::Null;
    for _ in 0..100_000 {
        v = Value::Array(vec![v]);
    }
    let mut cluster_map = serde_json::Map::new();
    cluster_map.insert("properties".into(), v);
    // Leaked: serde_json drops values recursively.
    let deep: &'static Value = Box::leak(Box::new(Value::Object(cluster_map)));
    let err = Cluster::from_value(deep, &Limits::default(), &mut CelCache::new()).unwrap_err();
    assert!(matches!(err, ConstraintError::TooDeep { .. }), "{err}");
    let err = AdminEntry::from_value(deep, &Limits::default(), &mut CelCache::new()).unwrap_err();
    assert!(matches!(err, ConstraintError::TooDeep { .. }), "{err}");
}

#[test]
fn constraints_can_be_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Constraint>();
    assert_send_sync::<AdminEntry>();
    assert_send_sync::<Cluster>();
    assert_send_sync::<CelCache>();
}
