//! The File-Based Catalog model after loading: packages, channels, bundles and their typed
//! properties, keyed by small interned ids so later stages work on `Copy` keys.

use std::fmt;

use serde_json::value::RawValue;

pub use crate::gvk::Gvk;
use crate::range::VersionRange;
use crate::version::Version;

/// Index of a loaded catalog inside a [`super::CatalogSet`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct CatalogId(pub u32);

/// Interned package name, shared by every catalog that ships the package.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct PackageId(pub u32);

/// Index of a bundle inside a [`super::CatalogSet`]; unique per (catalog, bundle name).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct BundleId(pub u32);

/// Interned group/version/kind.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct GvkId(pub u32);

/// Where a document came from, for error messages and warnings.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Origin {
    /// Path of the file, as given or found while walking the catalog directory.
    pub file: String,
    /// 1-based index of the document inside the file.
    pub document: usize,
    /// 1-based line where the document starts, when the parser reports one.
    pub line: Option<usize>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{} (document {})", self.file, line, self.document),
            None => write!(f, "{} (document {})", self.file, self.document),
        }
    }
}

/// One `olm.package` document of one catalog.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Package {
    /// The package name.
    pub id: PackageId,
    /// The catalog that declared it.
    pub catalog: CatalogId,
    /// `defaultChannel`, when the package declares one.
    pub default_channel: Option<String>,
    /// Channels of this package in this catalog, sorted by name.
    pub channels: Vec<Channel>,
    /// Where the `olm.package` document was (None when only channels/bundles named it).
    pub origin: Option<Origin>,
}

/// One `olm.channel` document.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Channel {
    /// Channel name.
    pub name: String,
    /// Entries as written in the catalog.
    pub entries: Vec<ChannelEntry>,
    /// Where the document was.
    pub origin: Origin,
}

/// One entry of a channel: a bundle name and its upgrade edges.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ChannelEntry {
    /// Bundle name.
    pub name: String,
    /// The bundle this entry replaces.
    pub replaces: Option<String>,
    /// Bundles this entry skips.
    pub skips: Vec<String>,
    /// Versions this entry can be upgraded to from (`olm.skipRange`).
    pub skip_range: Option<VersionRange>,
    /// The bundle of the same catalog and package with this name, if the catalog has one.
    pub bundle: Option<BundleId>,
}

/// An `olm.package.required` dependency.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PackageRequirement {
    /// Required package name.
    pub package: String,
    /// Acceptable versions.
    pub range: VersionRange,
}

/// A property the resolver does not interpret, kept as raw JSON for CEL.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct OpaqueProperty {
    /// Property `type`.
    pub kind: String,
    /// Raw JSON `value` (may be `null` when the catalog gave none).
    pub value: Box<RawValue>,
}

/// One `olm.bundle` document with its typed properties.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// This bundle's id.
    pub id: BundleId,
    /// Catalog it belongs to.
    pub catalog: CatalogId,
    /// Package it belongs to.
    pub package: PackageId,
    /// Bundle name, e.g. `etcdoperator.v0.9.4`.
    pub name: String,
    /// Version from the `olm.package` property.
    pub version: Version,
    /// Image reference.
    pub image: Option<String>,
    /// APIs provided (`olm.gvk`).
    pub provides: Vec<GvkId>,
    /// Labels provided (`olm.label`).
    pub labels: Vec<String>,
    /// `olm.package.required`.
    pub requires_packages: Vec<PackageRequirement>,
    /// `olm.gvk.required`.
    pub requires_gvks: Vec<GvkId>,
    /// `olm.label.required`.
    pub requires_labels: Vec<String>,
    /// `olm.constraint` values, kept raw until they are compiled.
    pub constraints: Vec<Box<RawValue>>,
    /// Requirements stated as constraints (`olm.constraint` and the `olm.all.required` /
    /// `olm.any.required` / `olm.none.required` alias forms), parsed, in property order.
    pub requires_constraints: Vec<crate::constraint::Constraint>,
    /// Carries an `olm.deprecated` property: never selected.
    pub deprecated: bool,
    /// Every other property, opaque (heavy ones only when loading was asked to keep them).
    pub properties: Vec<OpaqueProperty>,
    /// Where the document was.
    pub origin: Origin,
}

/// An `olm.deprecations` entry.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Deprecation {
    /// Package the entry belongs to.
    pub package: PackageId,
    /// Catalog that declared it.
    pub catalog: CatalogId,
    /// What is deprecated.
    pub reference: DeprecationRef,
    /// The catalog's message.
    pub message: String,
}

/// An `olm.deprecations` entry as it applies to one bundle (a resolution's selected bundle):
/// its package's, the channel it was taken from, or its own, as OLM sets PackageDeprecated,
/// ChannelDeprecated and BundleDeprecated. `impl Display` (in [`crate::advanced::explain`]) words it; it
/// serializes as those words.
///
/// The fields are declared in the order notices sort in: as their words do, by bundle,
/// catalog and message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deprecated {
    /// The bundle.
    pub bundle: String,
    /// The catalog that declares the deprecation (the bundle's).
    pub catalog: String,
    /// The catalog's message.
    pub message: String,
    /// The bundle's package.
    pub package: String,
    /// What the entry deprecates: the package, the channel the bundle was taken from, or the
    /// bundle itself.
    pub of: DeprecationRef,
}

/// What an `olm.deprecations` entry points at.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum DeprecationRef {
    /// The whole package.
    Package,
    /// One channel.
    Channel(String),
    /// One bundle by name.
    Bundle(String),
}
