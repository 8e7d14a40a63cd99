//! An object's `metadata`, read into the fields deppy uses (name, namespace, labels,
//! annotations, uid, resourceVersion); the rest (`managedFields`, owner references, ...) is
//! skipped unbuilt. A field given twice is an error, as a key given twice is anywhere.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer};

use super::body::head_name;
use super::doc::{Head, record};

/// The fields of `metadata` deppy reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    name: Option<String>,
    namespace: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
    labels: Option<BTreeMap<String, String>>,
    annotations: Option<BTreeMap<String, String>>,
}

/// `metadata`, with a failure recorded against the field that broke.
pub(super) struct MetaSeed<'h> {
    pub(super) head: &'h Head,
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ObjectMeta;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ObjectMeta, D::Error> {
        let m: Meta = serde_path_to_error::deserialize(d).map_err(|e| {
            let field = match e.path().to_string().as_str() {
                "." => "metadata".to_string(),
                path => format!("metadata.{path}"),
            };
            let object = head_name(self.head);
            let inner = e.into_inner();
            record(object, field, inner.to_string());
            inner
        })?;
        Ok(ObjectMeta {
            name: m.name,
            namespace: m.namespace,
            uid: m.uid,
            resource_version: m.resource_version,
            labels: m.labels,
            annotations: m.annotations,
            ..ObjectMeta::default()
        })
    }
}
