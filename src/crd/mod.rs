//! CustomResourceDefinition upgrade safety (docs/semantics.md §11): CRDs
//! as the checks read them ([`model`]), their schemas with Kubernetes' structural rules
//! ([`schema`]), and the comparison of a CRD in a cluster with the one a bundle ships
//! ([`compare()`], module [`mod@compare`]).

pub mod compare;
pub mod edges;
pub mod gore;
pub mod model;
pub mod schema;

pub use compare::{
    Comparison, CustomResource, MAX_REJECTED_OBJECTS, Problem, compare, compare_until,
};
pub use edges::{BundleCrds, EdgeProblem, check_edges};
pub use gore::{GoRegex, GoRegexError};
pub use model::{Crd, CrdError, CrdVersion, is_crd, parse};
pub use schema::{Rejection, Schema};
