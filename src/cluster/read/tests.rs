use super::*;
use crate::cluster::object::Kind;

const SUB: &str = "apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: etcd
  namespace: operators
  managedFields:
  - manager: kubectl
    operation: Update
    fieldsV1: {f:spec: {f:channel: {}}}
spec:
  name: etcd
  channel: alpha
  source: community
  sourceNamespace: olm
  installPlanApproval: Manual
status:
  installedCSV: etcdoperator.v0.9.2
  conditions:
  - {type: ResolutionFailed, status: 'True', message: 'constraints not satisfiable'}
";

fn kinds(d: &Dump) -> Vec<&'static str> {
    d.objects.iter().map(|o| o.kind_name().as_str()).collect()
}

#[test]
fn yaml_documents_become_typed_objects() {
    let text = format!(
        "{SUB}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: x, namespace: operators}}\nspec:\n  selector: {{app: x}}\n"
    );
    let d = read_text("state.yaml", &text).unwrap();
    assert_eq!(kinds(&d), ["Subscription"]);
    let o = &d.objects[0];
    assert_eq!((o.namespace(), o.name()), ("operators", "etcd"));
    let Kind::Subscription(spec, status) = &o.kind else {
        panic!("{:?}", o.kind)
    };
    assert_eq!(spec.name.as_deref(), Some("etcd"));
    assert_eq!(spec.source_namespace.as_deref(), Some("olm"));
    assert_eq!(status.installed_csv.as_deref(), Some("etcdoperator.v0.9.2"));
    assert_eq!(status.conditions[0].kind, "ResolutionFailed");
    assert!(o.has_status);
    assert_eq!(d.skipped.len(), 1);
    assert_eq!(d.skipped[0].kind, "Deployment");
    assert_eq!(d.skipped[0].source.document, 2);
}

#[test]
fn json_lists_and_concatenated_objects() {
    let text = r#"{"apiVersion": "v1", "items": [
        {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
         "metadata": {"name": "community", "namespace": "olm"},
         "spec": {"sourceType": "grpc", "image": "quay.io/x:1", "priority": 5}},
        {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
         "metadata": {"name": "og", "namespace": "operators"}, "spec": {}}
      ], "kind": "List", "metadata": {"resourceVersion": ""}}
      {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
       "metadata": {"name": "ip", "namespace": "operators"},
       "spec": {"approval": "Manual", "approved": false, "clusterServiceVersionNames": ["a.v2"]}}"#;
    let d = read_text("state.json", text).unwrap();
    assert_eq!(kinds(&d), ["CatalogSource", "OperatorGroup", "InstallPlan"]);
    let Kind::CatalogSource(cs) = &d.objects[0].kind else {
        panic!()
    };
    assert_eq!(cs.priority, 5);
    assert_eq!(d.objects[1].source.item, Some(1));
    assert_eq!(d.objects[2].source.document, 2);
}

#[test]
fn typed_list_items_take_the_lists_kind() {
    let text = "apiVersion: operators.coreos.com/v1alpha1
kind: SubscriptionList
items:
- metadata: {name: a, namespace: ns}
  spec: {name: a, source: c, sourceNamespace: ns}
";
    let d = read_text("subs.yaml", text).unwrap();
    assert_eq!(kinds(&d), ["Subscription"]);
    let Kind::Subscription(spec, _) = &d.objects[0].kind else {
        panic!()
    };
    assert_eq!(spec.source.as_deref(), Some("c"));
}

#[test]
fn a_spec_before_the_kind_is_read_afterwards() {
    let text = "spec: {name: a, source: c, sourceNamespace: ns}
metadata: {name: a, namespace: ns}
kind: Subscription
apiVersion: operators.coreos.com/v1alpha1
";
    let d = read_text("s.yaml", text).unwrap();
    let Kind::Subscription(spec, status) = &d.objects[0].kind else {
        panic!()
    };
    assert_eq!(spec.name.as_deref(), Some("a"));
    assert!(status.installed_csv.is_none());
    assert!(!d.objects[0].has_status);
}

#[test]
fn a_wrong_type_names_file_document_item_object_and_field() {
    let text = r#"{"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
         "metadata": {"name": "ok", "namespace": "olm"}, "spec": {"priority": 1}},
        {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
         "metadata": {"name": "bad", "namespace": "olm"}, "spec": {"priority": "high"}}]}"#;
    let e = read_text("dump.json", text).unwrap_err().to_string();
    assert!(e.starts_with("dump.json (document 1, items[1])"), "{e}");
    assert!(e.contains("CatalogSource olm/bad"), "{e}");
    assert!(e.contains("spec.priority"), "{e}");
    let yaml = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: a.v1, namespace: ns}\nspec:\n  installModes:\n  - {type: OwnNamespace, supported: maybe}\n";
    let e = read_text("csv.yaml", yaml).unwrap_err().to_string();
    assert!(e.contains("ClusterServiceVersion ns/a.v1"), "{e}");
    assert!(e.contains("spec.installModes[0].supported"), "{e}");
    let meta = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a, labels: [x]}\n";
    let e = read_text("m.yaml", meta).unwrap_err().to_string();
    assert!(e.contains("metadata.labels"), "{e}");
}

#[test]
fn syntax_errors_name_the_document() {
    let text = "apiVersion: v1\nkind: ConfigMap\n---\nkind: [unclosed\n";
    let e = read_text("x.yaml", text).unwrap_err().to_string();
    assert!(e.starts_with("x.yaml (document 2)"), "{e}");
    let e = read_text("x.json", "{\"kind\": 1}")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.json (document 1)"), "{e}");
}

#[test]
fn custom_resources_and_crds_are_kept_whole_and_still_counted_as_skipped() {
    let text = "apiVersion: example.com/v1\nkind: Database\nmetadata: {name: a, namespace: ns, uid: u}\nspec: {size: 3}\ndata: {x: 1}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: databases.example.com}\nspec: {group: example.com}\nstatus: {storedVersions: [v1]}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata: {x: '1'}\n";
    let d = read_text("s.yaml", text).unwrap();
    assert_eq!(d.skipped.len(), 3);
    assert_eq!(d.custom.len(), 2, "a ConfigMap (core group) is not kept");
    let db = &d.custom[0];
    assert_eq!(
        (db.group(), db.version(), db.id().as_str()),
        ("example.com", "v1", "ns/a")
    );
    assert_eq!(db.object["spec"]["size"], 3);
    assert_eq!(db.object["data"]["x"], 1, "other top-level fields are kept");
    assert_eq!(db.object["metadata"]["name"], "a");
    assert_eq!(d.custom[1].object["status"]["storedVersions"][0], "v1");
}

#[test]
fn a_custom_resource_whose_kind_comes_last_is_kept_whole() {
    let text = r#"{"spec": {"size": 3}, "extra": [1], "metadata": {"name": "a"}, "kind": "Database", "apiVersion": "example.com/v1"}"#;
    let d = read_text("s.json", text).unwrap();
    assert_eq!(d.custom.len(), 1);
    assert_eq!(d.custom[0].object["spec"]["size"], 3);
    assert_eq!(d.custom[0].object["extra"][0], 1);
    let sub = r#"{"spec": {"name": "etcd"}, "extra": 1, "metadata": {"name": "a", "namespace": "n"}, "kind": "Subscription", "apiVersion": "operators.coreos.com/v1alpha1"}"#;
    let d = read_text("s.json", sub).unwrap();
    assert!(
        d.custom.is_empty(),
        "an OLM kind is read typed, not kept whole"
    );
    assert_eq!(kinds(&d), ["Subscription"]);
}
