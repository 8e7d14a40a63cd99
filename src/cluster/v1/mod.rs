//! OLM v1 (operator-controller): `ClusterCatalog` and `ClusterExtension` objects, the bundle
//! OLM v1 would pick for each extension and why, and what OLM v1 itself would refuse
//! (docs/semantics.md §10).

mod advice;
mod answer;
mod catalogs;
mod choose;
mod masterminds;
mod object;
mod resolve;
mod selector;

pub use answer::{
    AddExtension, Advice, AdviceStatus, DependencyAnswer, ExtensionAction, ExtensionAnswer,
    ExtensionStatus, declared,
};
pub use catalogs::ClusterCatalog;
pub use choose::{
    Beaten, Candidate, CatalogOutcome, CatalogStat, Chosen, Decision, Failure, UpgradePolicy,
    decide,
};
pub use masterminds::{Constraint as VersionConstraint, ConstraintError};
pub(crate) use object::is_catalog;
pub use object::{
    BundleMetadata, CATALOG_NAME_LABEL, CATALOGD_GROUP, CatalogFilter, CatalogImage,
    CatalogSourceRef, ClusterCatalogSpec, ClusterExtensionSpec, ClusterExtensionStatus,
    ExtensionSource, InstallStatus, OLM_V1_GROUP,
};
pub(crate) use resolve::resolve_extensions;
