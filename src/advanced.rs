//! Everything beyond the crate root, by stage, for callers who need more than resolving a
//! request: the catalog model, the constraint language, the solver and its generic model, the
//! rules' derivation, reports and the tools the `deppy` binary is built from.
//!
//! Each module here re-exports the public items of one of the library's modules; the layer
//! each belongs to is listed at the top of the crate documentation. Most callers need only the
//! types at the crate root ([`crate::Resolver`], [`crate::CatalogSet`], [`crate::Request`],
//! [`crate::explain_failure`], [`crate::Pipeline`], [`crate::resolve_cluster`]).

/// Output files that are never left half-written, and outputs that are not files at all.
pub mod atomic {
    pub use crate::atomic::*;
}

/// Catalogs: loading File-Based Catalogs (JSON and YAML), the merged and interned model,
/// channels and their upgrade edges, and the cache of loaded catalogs.
pub mod catalog {
    pub use crate::catalog::*;
}

/// Cluster state as input (Kubernetes objects from a dump or a must-gather tree) and its
/// resolution per Subscription or ClusterExtension.
pub mod cluster {
    pub use crate::cluster::*;
}

/// The `olm.constraint` language: parsing, CEL, and testing one predicate against one bundle.
pub mod constraint {
    pub use crate::constraint::*;
}

/// CustomResourceDefinition upgrade safety: stored and served versions, and existing objects
/// against a new schema.
pub mod crd {
    pub use crate::crd::*;
}

/// The reporter: the words for failures, reasons, warnings and check results.
pub mod explain {
    pub use crate::explain::*;
}

/// The generic solver model as a file format (`deppy solve FILE`).
pub mod generic {
    pub use crate::generic::*;
}

/// Pictures: a package's channel graphs and a resolution's graph.
pub mod graph {
    pub use crate::graph::*;
}

/// Catalog images: references (`docker://`, `oci:`, `oci-archive:`), pulling an index
/// image's File-Based Catalog from a registry or a layout, and the cache of pulled catalogs.
pub mod image {
    pub use crate::image::*;
}

/// Reading input files with bounds, and the errors that name the file and the field.
pub mod input {
    pub use crate::input::*;
}

/// Installability of a catalog set: for every channel head, whether some answer installs it.
pub mod installability {
    pub use crate::installability::*;
}

/// Progress of long operations, reported to a caller's observer.
pub mod progress {
    pub use crate::progress::*;
}

/// OLM version ranges (`github.com/blang/semver/v4` `ParseRange`).
pub mod range {
    pub use crate::range::*;
}

/// The answer of `deppy resolve` as a document: the JSON/YAML contract and the text view.
pub mod report {
    pub use crate::report::*;
}

/// What the user asks for: catalogs, required packages, installed bundles, and options.
pub mod request {
    pub use crate::request::*;
}

/// OLM resolution: facts, the Datalog rules, ordered candidates, the problem, the answer, the
/// checker, hints and why-not.
pub mod resolve {
    pub use crate::resolve::*;
}

/// Scenario directories, as `deppy test` runs them.
pub mod scenario {
    pub use crate::scenario::*;
}

/// The CDCL solver with the search order of the Deppy design, and its derivation trees.
pub mod solver {
    pub use crate::solver::*;
}

/// Bundle versions, parsed tolerantly like OLM.
pub mod version {
    pub use crate::version::*;
}
