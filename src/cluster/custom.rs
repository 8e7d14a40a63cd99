//! Objects the resolver does not read but the CRD checks need (docs/cluster.md, "CRD
//! checks"): CustomResourceDefinitions and custom resources, kept whole. Every object whose
//! API group has a dot and whose kind deppy does not otherwise read is kept (a custom
//! resource's group always has one); which are custom resources is known only once the
//! state's CRDs are.

use serde_json::Value;

use super::object::Source;

/// An object kept whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Custom {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.namespace` (empty when cluster-scoped, or not given).
    pub namespace: String,
    /// The namespace `-n` gives when the object names none: its CRD says whether it is
    /// namespaced (docs/cluster.md, "Input").
    pub namespace_default: Option<String>,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid` and `metadata.resourceVersion`: the same object seen twice has both.
    pub revision: Option<(String, String)>,
    /// The object: `apiVersion`, `kind`, `metadata` (name and namespace only), `spec`,
    /// `status` and any other top-level field.
    pub object: Value,
    /// Where it was found.
    pub source: Source,
}

/// True for an `apiVersion` whose objects are kept: its group has a dot.
pub fn keeps(api_version: &str) -> bool {
    api_version
        .split_once('/')
        .is_some_and(|(group, _)| group.contains('.'))
}

impl Custom {
    /// The API group.
    pub fn group(&self) -> &str {
        self.api_version.split_once('/').map_or("", |(g, _)| g)
    }

    /// The API version without its group.
    pub fn version(&self) -> &str {
        self.api_version
            .split_once('/')
            .map_or(self.api_version.as_str(), |(_, v)| v)
    }

    /// `namespace/name`, or `name` when cluster-scoped.
    pub fn id(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }

    /// `Kind namespace/name`, for messages.
    pub fn describe(&self) -> String {
        format!("{} {}", self.kind, self.id())
    }
}
