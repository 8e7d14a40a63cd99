//! The OLM v1 objects deppy reads (group `olm.operatorframework.io`): `ClusterCatalog` and
//! `ClusterExtension`, cluster-scoped, as typed views of the fields resolution needs
//! (docs/semantics.md §10). Versions v1 and v1alpha1 are read alike, and each earlier
//! v1alpha1 shape of operator-controller (docs/cluster.md, "Earlier OLM v1 objects"): the
//! flat `spec.packageName`, `spec.channel`, `spec.version` and `spec.upgradeConstraintPolicy`
//! (v0.9.0 to v0.13.0), `spec.source.catalog.channel` (v0.14.0, v0.15.0),
//! `status.installedBundleResource` (v0.9.x), `status.installedBundle` (v0.10.0 to v0.14.0).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::Deserialize;

/// The API group of OLM v1's objects.
pub const OLM_V1_GROUP: &str = "olm.operatorframework.io";

/// The group of older (catalogd) `ClusterCatalog`s.
pub const CATALOGD_GROUP: &str = "catalogd.operatorframework.io";

/// The label every ClusterCatalog carries automatically: its name.
pub const CATALOG_NAME_LABEL: &str = "olm.operatorframework.io/metadata.name";

/// `spec.source.image` of a ClusterCatalog.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct CatalogImage {
    /// The catalog image reference.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
}

/// `spec.source` of a ClusterCatalog.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct CatalogSourceRef {
    /// `Image`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The image.
    pub image: Option<CatalogImage>,
}

/// A ClusterCatalog's `spec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterCatalogSpec {
    /// Where its contents come from.
    #[serde(default)]
    pub source: CatalogSourceRef,
    /// Priority; higher is preferred. Default 0.
    #[serde(default)]
    pub priority: i32,
    /// `Available` (default) or `Unavailable` (left out of resolution).
    pub availability_mode: Option<String>,
    /// The older v1alpha1 switch (`Enabled` / `Disabled`).
    pub availability: Option<String>,
}

impl ClusterCatalogSpec {
    /// Whether OLM v1 leaves the catalog out of resolution.
    pub fn unavailable(&self) -> bool {
        self.availability_mode.as_deref() == Some("Unavailable")
            || self.availability.as_deref() == Some("Disabled")
    }

    /// The image reference, when given.
    pub fn image(&self) -> Option<&str> {
        self.source.image.as_ref()?.reference.as_deref()
    }
}

/// `spec.source.catalog` of a ClusterExtension.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CatalogFilter {
    /// The package.
    pub package_name: Option<String>,
    /// A Masterminds-style version constraint.
    pub version: Option<String>,
    /// Channels the bundle must be in (any of them); empty: any channel.
    #[serde(default)]
    pub channels: Vec<String>,
    /// Which ClusterCatalogs to use; absent or empty: all.
    pub selector: Option<LabelSelector>,
    /// `CatalogProvided` (default) or `SelfCertified` (before operator-controller v0.16.0:
    /// `Enforce` and `Ignore`).
    pub upgrade_constraint_policy: Option<String>,
    /// v1alpha1 of operator-controller v0.14.0 and v0.15.0: one channel (`channels` since
    /// v0.16.0).
    pub channel: Option<String>,
}

impl CatalogFilter {
    /// The channels asked for: `channels`, and the older single `channel`.
    pub fn all_channels(&self) -> Vec<String> {
        let mut out = self.channels.clone();
        out.extend(self.channel.iter().filter(|c| !c.is_empty()).cloned());
        out
    }
}

/// `spec.source` of a ClusterExtension.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionSource {
    /// `Catalog`.
    pub source_type: Option<String>,
    /// The catalog filter.
    pub catalog: Option<CatalogFilter>,
}

/// `spec.install` of a ClusterExtension of operator-controller v0.15.0.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct InstallConfig {
    /// The namespace it installs into.
    pub namespace: Option<String>,
}

/// A ClusterExtension's `spec`: v1, and the earlier v1alpha1 shapes (the flat fields of
/// operator-controller v0.9.0 to v0.13.0, `spec.install.namespace` of v0.15.0).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterExtensionSpec {
    /// Where the bundle comes from.
    pub source: Option<ExtensionSource>,
    /// The namespace it installs into.
    pub namespace: Option<String>,
    /// v1alpha1 (v0.10.0 to v0.14.0): the install namespace.
    pub install_namespace: Option<String>,
    /// v1alpha1 (v0.15.0): the install namespace, in `spec.install.namespace`.
    pub install: Option<InstallConfig>,
    /// v1alpha1: the package.
    pub package_name: Option<String>,
    /// v1alpha1: the version constraint.
    pub version: Option<String>,
    /// v1alpha1: one channel.
    pub channel: Option<String>,
    /// v1alpha1: channels.
    #[serde(default)]
    pub channels: Vec<String>,
    /// v1alpha1: the upgrade policy.
    pub upgrade_constraint_policy: Option<String>,
}

impl ClusterExtensionSpec {
    /// The catalog filter, from `spec.source.catalog` or the v1alpha1 flat fields.
    pub fn filter(&self) -> CatalogFilter {
        if let Some(c) = self.source.as_ref().and_then(|s| s.catalog.as_ref()) {
            return CatalogFilter {
                channels: c.all_channels(),
                channel: None,
                ..c.clone()
            };
        }
        let mut channels = self.channels.clone();
        channels.extend(self.channel.iter().filter(|c| !c.is_empty()).cloned());
        CatalogFilter {
            package_name: self.package_name.clone(),
            version: self.version.clone(),
            channels,
            selector: None,
            upgrade_constraint_policy: self.upgrade_constraint_policy.clone(),
            channel: None,
        }
    }

    /// The namespace the extension installs into.
    pub fn install_namespace(&self) -> Option<&str> {
        self.namespace
            .as_deref()
            .or(self.install_namespace.as_deref())
            .or(self.install.as_ref().and_then(|i| i.namespace.as_deref()))
    }
}

/// A bundle as a ClusterExtension's status names it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct BundleMetadata {
    /// Bundle name.
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
}

/// `status.install` of a ClusterExtension.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct InstallStatus {
    /// The installed bundle.
    pub bundle: Option<BundleMetadata>,
}

/// A ClusterExtension's `status`. What operator-controller resolved but has not installed
/// (`resolution`, `resolvedBundle`, `resolvedBundleResource`) is not read: only what is
/// installed changes the choice.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterExtensionStatus {
    /// v1 (and v1alpha1 since operator-controller v0.15.0): what is installed.
    pub install: Option<InstallStatus>,
    /// v1alpha1 of v0.10.0 to v0.14.0: what is installed.
    pub installed_bundle: Option<BundleMetadata>,
    /// v1alpha1 of v0.9.x (2023): the image of the installed bundle, looked up in the
    /// catalogs (the bundle of the package with that image).
    pub installed_bundle_resource: Option<String>,
}

impl ClusterExtensionStatus {
    /// The installed bundle, when one is.
    pub fn installed(&self) -> Option<&BundleMetadata> {
        self.install
            .as_ref()
            .and_then(|i| i.bundle.as_ref())
            .or(self.installed_bundle.as_ref())
            .filter(|b| !b.name.is_empty())
    }
}

/// Whether `(group, kind)` is an OLM v1 kind deppy reads: `Some(true)` for a
/// ClusterCatalog, `Some(false)` for a ClusterExtension.
pub(crate) fn is_catalog(group: &str, kind: &str) -> Option<bool> {
    match (group, kind) {
        (OLM_V1_GROUP | CATALOGD_GROUP, "ClusterCatalog") => Some(true),
        (OLM_V1_GROUP, "ClusterExtension") => Some(false),
        _ => None,
    }
}
