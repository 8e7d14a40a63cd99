//! Catalogs: loading File-Based Catalogs (JSON and YAML), the merged and interned model, and
//! channel graphs.

mod bundle_dir;
mod channel;
mod error;
mod fbc;
pub mod inspect;
mod intern;
mod model;
mod mutate;
mod set;
mod table;
mod view;
pub(crate) mod walk;

pub use bundle_dir::{
    BundleManifests, RenderedCatalog, bundle_manifests, find_bundle_dirs, render_bundle_dirs,
};
pub use channel::{ChannelError, ChannelGraph, Edge};
pub use error::{LoadError, Warning, WarningKind};
pub use fbc::{FileCache, LoadOptions, SourceFile, limits, locate, read_catalog};
pub(crate) use fbc::{check_source, split_yaml_bounded, yaml_options};
#[cfg(feature = "testing")]
pub use fbc::{decode_entry, encode_entry};
pub use intern::Interner;
pub use model::{
    Bundle, BundleId, CatalogId, Channel, ChannelEntry, Deprecated, Deprecation, DeprecationRef,
    Gvk, GvkId, OpaqueProperty, Origin, Package, PackageId, PackageRequirement,
};
pub use set::{CatalogInfo, CatalogSet, CatalogSource};
pub use table::{Bundles, Packages};
pub use view::bundle_properties;
