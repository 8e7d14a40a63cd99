//! The name of a Kubernetes API, shared by the catalog model and the constraint language
//! (`olm.gvk`); the public path is [`crate::catalog::Gvk`].

use std::fmt;

/// A Kubernetes API: group, version, kind.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Gvk {
    /// API group, e.g. `etcd.database.coreos.com` (empty for the core group).
    pub group: String,
    /// API version, e.g. `v1beta2`.
    pub version: String,
    /// Kind, e.g. `EtcdCluster`.
    pub kind: String,
}

impl fmt::Display for Gvk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}/{})", self.kind, self.group, self.version)
    }
}
