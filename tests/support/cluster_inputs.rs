//! Hostile cluster states for tests and for the sweep (`cargo run --example sweep_inputs`),
//! made in memory: many objects, many namespaces, big objects, CRDs with many versions or
//! slow patterns, and the catalogs they need. No dependency on the binary.

#![allow(dead_code)]

use base64::Engine;

/// A `kind: List` of `n` empty objects (`{}`), as JSON: about 3 bytes an item.
pub fn empty_items_list(n: usize) -> String {
    let mut out = String::with_capacity(40 + 3 * n);
    out.push_str(r#"{"apiVersion":"v1","kind":"List","items":["#);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{}");
    }
    out.push_str("]}\n");
    out
}

/// `n` empty YAML documents (`{}`), 7 bytes each.
pub fn empty_documents(n: usize) -> String {
    "{}\n---\n".repeat(n)
}

/// The catalog side of the `db` operator: package `db`, channel `stable` with `db.v1.0.0`
/// and `db.v1.1.0` (replacing it), each shipping `crd` (a whole CRD object, JSON) as an
/// `olm.bundle.object`, as `opm render` writes them.
pub fn db_catalog(crd_v1: &str, crd_v11: &str) -> String {
    let object = |crd: &str| base64::engine::general_purpose::STANDARD.encode(crd);
    let bundle = |v: &str, crd: &str| {
        format!(
            r#"{{"schema":"olm.bundle","name":"db.v{v}","package":"db","image":"quay.io/example/db-bundle:v{v}","properties":[{{"type":"olm.package","value":{{"packageName":"db","version":"{v}"}}}},{{"type":"olm.gvk","value":{{"group":"example.com","kind":"Database","version":"v1"}}}},{{"type":"olm.bundle.object","value":{{"data":"{}"}}}}]}}
"#,
            object(crd)
        )
    };
    format!(
        r#"{{"schema":"olm.package","name":"db","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"db","name":"stable","entries":[{{"name":"db.v1.0.0"}},{{"name":"db.v1.1.0","replaces":"db.v1.0.0"}}]}}
{}{}"#,
        bundle("1.0.0", crd_v1),
        bundle("1.1.0", crd_v11)
    )
}

/// A CRD `databases.example.com` with `versions` served versions (`v1`, `v2`, ...; the
/// last one stored), each with a schema whose `spec.name` must match `pattern` (none when
/// empty), as JSON; `stored` lists `status.storedVersions` (none: a manifest).
pub fn db_crd(versions: usize, pattern: &str, stored: bool) -> String {
    let schema = if pattern.is_empty() {
        r#"{"type":"object"}"#.to_string()
    } else {
        format!(
            r#"{{"type":"object","properties":{{"spec":{{"type":"object","properties":{{"name":{{"type":"string","pattern":{}}}}}}}}}}}"#,
            serde_json::Value::String(pattern.to_string())
        )
    };
    let versions: Vec<String> = (1..=versions)
        .map(|i| {
            format!(
                r#"{{"name":"v{i}","served":true,"storage":{},"schema":{{"openAPIV3Schema":{schema}}}}}"#,
                i == versions
            )
        })
        .collect();
    let status = if stored {
        r#","status":{"storedVersions":["v1"]}"#
    } else {
        ""
    };
    format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"databases.example.com"}},"spec":{{"group":"example.com","scope":"Namespaced","names":{{"kind":"Database","plural":"databases","singular":"database","listKind":"DatabaseList"}},"versions":[{}]}}{status}}}"#,
        versions.join(",")
    )
}

/// The OLM objects of namespace `ns` subscribed to `db` from `olm/dbs` with `db.v1.0.0`
/// installed, as YAML documents.
pub fn db_namespace(ns: &str) -> String {
    format!(
        r#"---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {{name: og, namespace: {ns}}}
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {{name: db, namespace: {ns}}}
spec: {{name: db, channel: stable, source: dbs, sourceNamespace: olm}}
status: {{installedCSV: db.v1.0.0}}
---
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata: {{name: db.v1.0.0, namespace: {ns}}}
spec:
  version: 1.0.0
  customresourcedefinitions:
    owned: [{{name: databases.example.com, version: v1, kind: Database}}]
"#
    )
}

/// The CatalogSource `olm/dbs`.
pub const DB_CATALOG_SOURCE: &str = "---
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata: {name: dbs, namespace: olm}
spec: {sourceType: grpc, image: quay.io/example/db-index:latest}
";

/// `n` custom resources `Database` in namespace `ns` at version `v1`, each with
/// `spec.name` set to `name`, as one JSON List.
pub fn databases(n: usize, ns: &str, name: &str) -> String {
    let name = serde_json::Value::String(name.to_string());
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"apiVersion":"example.com/v1","kind":"Database","metadata":{{"name":"db{i}","namespace":"{ns}"}},"spec":{{"name":{name}}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    )
}

/// One custom resource whose `spec.blob` is a list of `n` small strings (about 6 bytes
/// an element).
pub fn big_database(n: usize) -> String {
    let mut out = String::with_capacity(200 + 6 * n);
    out.push_str(r#"{"apiVersion":"example.com/v1","kind":"Database","metadata":{"name":"big","namespace":"apps"},"spec":{"blob":["#);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("\"{}\"", i % 1000));
    }
    out.push_str("]}}\n");
    out
}

/// `n` namespaces subscribed to `db`, plus the CatalogSource (YAML).
pub fn many_namespaces(n: usize) -> String {
    let mut out = String::from(DB_CATALOG_SOURCE);
    for i in 0..n {
        out.push_str(&db_namespace(&format!("ns{i}")));
    }
    out
}

/// A ClusterExtension of package `argo` with the given `spec.source.catalog` fields (YAML
/// flow-map body, e.g. `packageName: argo`).
pub fn cluster_extension(name: &str, catalog: &str) -> String {
    format!(
        "---\napiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {{name: {name}}}\nspec:\n  namespace: {name}\n  serviceAccount: {{name: installer}}\n  source:\n    sourceType: Catalog\n    catalog: {{{catalog}}}\n"
    )
}

/// `n` ClusterCatalogs `c0` ... (YAML).
pub fn cluster_catalogs(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            "---\napiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata: {{name: c{i}, labels: {{team: t{}}}}}\nspec: {{priority: {}, source: {{type: Image, image: {{ref: quay.io/example/c{i}:latest}}}}}}\n",
            i % 10,
            i % 7
        ));
    }
    out
}

/// A catalog of package `argo` with one channel `stable` of `n` entries, each replacing
/// the one before (JSON).
pub fn long_channel_catalog(n: usize) -> String {
    let mut out = String::from(
        "{\"schema\":\"olm.package\",\"name\":\"argo\",\"defaultChannel\":\"stable\"}\n",
    );
    let entries: Vec<String> = (0..n)
        .map(|i| match i {
            0 => "{\"name\":\"argo.v0.0.0\"}".to_string(),
            _ => format!(
                "{{\"name\":\"argo.v0.0.{i}\",\"replaces\":\"argo.v0.0.{}\"}}",
                i - 1
            ),
        })
        .collect();
    out.push_str(&format!(
        "{{\"schema\":\"olm.channel\",\"package\":\"argo\",\"name\":\"stable\",\"entries\":[{}]}}\n",
        entries.join(",")
    ));
    for i in 0..n {
        out.push_str(&format!(
            "{{\"schema\":\"olm.bundle\",\"name\":\"argo.v0.0.{i}\",\"package\":\"argo\",\"image\":\"img\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"argo\",\"version\":\"0.0.{i}\"}}}}]}}\n"
        ));
    }
    out
}

/// An installed CSV in namespace `apps` whose properties annotation lists `n` distinct
/// `olm.gvk` properties that no catalog has, with its Subscription and OperatorGroup (YAML).
pub fn csv_with_many_apis(n: usize) -> String {
    let props: Vec<String> = (0..n)
        .map(|i| {
            format!(r#"{{"type":"olm.gvk","value":{{"group":"g{i}.example.com","kind":"K","version":"v1"}}}}"#)
        })
        .collect();
    let annotation = format!(
        r#"{{"properties":[{{"type":"olm.package","value":{{"packageName":"db","version":"1.0.0"}}}},{}]}}"#,
        props.join(",")
    );
    format!(
        "{DB_CATALOG_SOURCE}---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {{name: og, namespace: apps}}\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: db, namespace: apps}}\nspec: {{name: db, channel: stable, source: dbs, sourceNamespace: olm}}\nstatus: {{installedCSV: db.v1.0.0}}\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: db.v1.0.0\n  namespace: apps\n  annotations:\n    operatorframework.io/properties: {}\nspec: {{version: 1.0.0}}\n",
        serde_json::Value::String(annotation)
    )
}
