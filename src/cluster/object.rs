//! The OLM objects deppy reads from a cluster dump, as typed views: only the fields
//! resolution needs. Heavy fields (icons, a CSV's install strategy, descriptions) are never
//! read into memory; unknown fields are ignored.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;

/// Where an object was found: its file, its document (1-based) and, inside a `List`, its
/// index in `items`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Source {
    /// The file, as found while walking the state paths.
    pub file: String,
    /// 1-based document index inside the file.
    pub document: usize,
    /// Index in the document's `items`, for an object of a `List`.
    pub item: Option<usize>,
    /// For an object of a list inside that item (kubectl flattens lists at any depth), its
    /// index in the item's `items`, and so on inwards.
    pub nested: Vec<usize>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = super::read::escape_newlines(&self.file);
        write!(f, "{file} (document {}", self.document)?;
        if let Some(i) = self.item {
            write!(f, ", items[{i}]")?;
            for j in &self.nested {
                write!(f, ".items[{j}]")?;
            }
        }
        f.write_str(")")
    }
}

/// A Subscription's `spec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionSpec {
    /// The package (`spec.name`).
    pub name: Option<String>,
    /// The channel; empty or absent means every channel, the default first.
    pub channel: Option<String>,
    /// The CatalogSource's name.
    pub source: Option<String>,
    /// The CatalogSource's namespace.
    pub source_namespace: Option<String>,
    /// The bundle to install first, when nothing is installed.
    #[serde(rename = "startingCSV")]
    pub starting_csv: Option<String>,
    /// `Automatic` or `Manual`.
    pub install_plan_approval: Option<String>,
}

/// A status condition.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// e.g. `ResolutionFailed`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// Machine-readable reason.
    #[serde(default)]
    pub reason: Option<String>,
    /// Human-readable message.
    #[serde(default)]
    pub message: Option<String>,
}

/// A reference to another object by name (and namespace).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ObjectRef {
    /// Name.
    #[serde(default)]
    pub name: Option<String>,
    /// Namespace.
    #[serde(default)]
    pub namespace: Option<String>,
}

/// A Subscription's `status`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionStatus {
    /// The CSV the Subscription installed.
    #[serde(rename = "installedCSV")]
    pub installed_csv: Option<String>,
    /// The CSV it is moving to.
    #[serde(rename = "currentCSV")]
    pub current_csv: Option<String>,
    /// e.g. `AtLatestKnown`, `UpgradePending`.
    pub state: Option<String>,
    /// Conditions, `ResolutionFailed` among them.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// The InstallPlan last made for it.
    pub install_plan_ref: Option<ObjectRef>,
    /// The same, older field.
    pub installplan: Option<ObjectRef>,
}

/// A CRD an operator owns or requires, as a CSV lists it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct CrdDescription {
    /// `<plural>.<group>`.
    #[serde(default)]
    pub name: String,
    /// API version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
}

/// A CSV's owned and required CRDs.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct CrdDescriptions {
    /// Owned.
    #[serde(default)]
    pub owned: Vec<CrdDescription>,
    /// Required.
    #[serde(default)]
    pub required: Vec<CrdDescription>,
}

/// An API service an operator owns or requires.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ApiServiceDescription {
    /// Plural name.
    #[serde(default)]
    pub name: String,
    /// Group.
    #[serde(default)]
    pub group: String,
    /// Version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
}

/// A CSV's owned and required API services.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct ApiServiceDescriptions {
    /// Owned.
    #[serde(default)]
    pub owned: Vec<ApiServiceDescription>,
    /// Required.
    #[serde(default)]
    pub required: Vec<ApiServiceDescription>,
}

/// One entry of a CSV's `installModes`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct InstallMode {
    /// `OwnNamespace`, `SingleNamespace`, `MultiNamespace` or `AllNamespaces`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether the operator supports it.
    #[serde(default)]
    pub supported: bool,
}

/// A ClusterServiceVersion's `spec`, without the install strategy, icons and descriptions.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CsvSpec {
    /// The operator's version (semver).
    pub version: Option<String>,
    /// The CSV it replaces.
    pub replaces: Option<String>,
    /// CSVs it skips.
    #[serde(default)]
    pub skips: Vec<String>,
    /// Owned and required CRDs.
    #[serde(default, rename = "customresourcedefinitions")]
    pub crds: CrdDescriptions,
    /// Owned and required API services.
    #[serde(default, rename = "apiservicedefinitions")]
    pub api_services: ApiServiceDescriptions,
    /// The namespace scopes it supports.
    #[serde(default)]
    pub install_modes: Vec<InstallMode>,
}

/// A ClusterServiceVersion's `status`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct CsvStatus {
    /// e.g. `Succeeded`, `Failed`, `Replacing`.
    pub phase: Option<String>,
    /// e.g. `Copied`, `UnsupportedOperatorGroup`.
    pub reason: Option<String>,
    /// Human-readable message.
    pub message: Option<String>,
}

/// A CatalogSource's `spec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CatalogSourceSpec {
    /// `grpc`, `configmap` or `internal`.
    pub source_type: Option<String>,
    /// The index image (`grpc` sources).
    pub image: Option<String>,
    /// A running registry's address (`grpc` sources without an image).
    pub address: Option<String>,
    /// Priority; higher is preferred. Default 0.
    #[serde(default)]
    pub priority: i32,
    /// Display name.
    pub display_name: Option<String>,
}

/// An OperatorGroup's `spec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OperatorGroupSpec {
    /// The namespaces its operators watch; absent or empty (without a selector) means all.
    pub target_namespaces: Option<Vec<String>>,
    /// A namespace selector, instead of a list.
    pub selector: Option<serde_json::Value>,
}

/// An OperatorGroup's `status`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct OperatorGroupStatus {
    /// The namespaces OLM resolved its targets to (`""` for all).
    pub namespaces: Option<Vec<String>>,
}

/// An InstallPlan's `spec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InstallPlanSpec {
    /// `Automatic` or `Manual`.
    pub approval: Option<String>,
    /// Whether it was approved.
    #[serde(default)]
    pub approved: bool,
    /// The CSVs it installs.
    #[serde(default, rename = "clusterServiceVersionNames")]
    pub csv_names: Vec<String>,
}

/// An InstallPlan's `status`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct InstallPlanStatus {
    /// e.g. `RequiresApproval`, `Complete`.
    pub phase: Option<String>,
}

/// The kinds of `operators.coreos.com` deppy reads, with their typed parts.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// `Subscription`.
    Subscription(SubscriptionSpec, SubscriptionStatus),
    /// `ClusterServiceVersion`.
    ClusterServiceVersion(CsvSpec, CsvStatus),
    /// `CatalogSource`.
    CatalogSource(CatalogSourceSpec),
    /// `OperatorGroup`.
    OperatorGroup(OperatorGroupSpec, OperatorGroupStatus),
    /// `InstallPlan`.
    InstallPlan(InstallPlanSpec, InstallPlanStatus),
    /// OLM v1 `ClusterCatalog` (cluster-scoped).
    ClusterCatalog(super::v1::ClusterCatalogSpec),
    /// OLM v1 `ClusterExtension` (cluster-scoped).
    ClusterExtension(
        super::v1::ClusterExtensionSpec,
        super::v1::ClusterExtensionStatus,
    ),
}

/// Which kind a `(group, kind)` names, if deppy reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KindName {
    /// `Subscription`.
    Subscription,
    /// `ClusterServiceVersion`.
    ClusterServiceVersion,
    /// `CatalogSource`.
    CatalogSource,
    /// `OperatorGroup`.
    OperatorGroup,
    /// `InstallPlan`.
    InstallPlan,
    /// OLM v1 `ClusterCatalog`.
    ClusterCatalog,
    /// OLM v1 `ClusterExtension`.
    ClusterExtension,
}

/// The API group of OLM v0's objects.
pub(crate) const OLM_GROUP: &str = "operators.coreos.com";

impl KindName {
    /// The kind an `apiVersion` and `kind` name, when deppy reads it.
    pub fn of(api_version: &str, kind: &str) -> Option<KindName> {
        let group = api_version.split_once('/').map_or("", |(g, _)| g);
        if let Some(catalog) = super::v1::is_catalog(group, kind) {
            return Some(match catalog {
                true => KindName::ClusterCatalog,
                false => KindName::ClusterExtension,
            });
        }
        if group != OLM_GROUP {
            return None;
        }
        Some(match kind {
            "Subscription" => KindName::Subscription,
            "ClusterServiceVersion" => KindName::ClusterServiceVersion,
            "CatalogSource" => KindName::CatalogSource,
            "OperatorGroup" => KindName::OperatorGroup,
            "InstallPlan" => KindName::InstallPlan,
            _ => return None,
        })
    }

    /// True for the kinds that live in a namespace (OLM v0's); OLM v1's are cluster-scoped.
    pub fn is_namespaced(self) -> bool {
        !matches!(self, KindName::ClusterCatalog | KindName::ClusterExtension)
    }

    /// The kind's name.
    pub fn as_str(self) -> &'static str {
        match self {
            KindName::Subscription => "Subscription",
            KindName::ClusterServiceVersion => "ClusterServiceVersion",
            KindName::CatalogSource => "CatalogSource",
            KindName::OperatorGroup => "OperatorGroup",
            KindName::InstallPlan => "InstallPlan",
            KindName::ClusterCatalog => "ClusterCatalog",
            KindName::ClusterExtension => "ClusterExtension",
        }
    }
}

/// An object deppy reads, with where it came from.
#[derive(Clone, Debug)]
pub struct Object {
    /// Its `apiVersion`.
    pub api_version: String,
    /// Its metadata (name, namespace, labels, annotations).
    pub metadata: ObjectMeta,
    /// Its typed parts.
    pub kind: Kind,
    /// Where it was found.
    pub source: Source,
    /// The document carried a `status` (an object applied with `--apply` without one keeps
    /// the status of the object it replaces).
    pub has_status: bool,
}

impl Object {
    /// The kind's name.
    pub(crate) fn kind_name(&self) -> KindName {
        match self.kind {
            Kind::Subscription(..) => KindName::Subscription,
            Kind::ClusterServiceVersion(..) => KindName::ClusterServiceVersion,
            Kind::CatalogSource(..) => KindName::CatalogSource,
            Kind::OperatorGroup(..) => KindName::OperatorGroup,
            Kind::InstallPlan(..) => KindName::InstallPlan,
            Kind::ClusterCatalog(..) => KindName::ClusterCatalog,
            Kind::ClusterExtension(..) => KindName::ClusterExtension,
        }
    }

    /// `metadata.name` (empty when absent).
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    /// `metadata.namespace` (empty when absent).
    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or_default()
    }

    /// An annotation's value.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .map(String::as_str)
    }

    /// A label's value.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.metadata
            .labels
            .as_ref()
            .and_then(|a: &BTreeMap<String, String>| a.get(key))
            .map(String::as_str)
    }
}

/// An object of a kind deppy does not read: named so `-v` can list what was skipped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skipped {
    /// `apiVersion`, e.g. `apps/v1`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `namespace/name` or `name`.
    pub name: String,
    /// Where it was found.
    pub source: Source,
}
