//! deppy: an embeddable, explainable dependency resolver for Operator Lifecycle Manager (OLM)
//! catalogs.
//!
//! Catalogs (File-Based Catalogs, JSON or YAML) and a [`request::Request`] go in; out comes the
//! smallest preferred set of bundles that satisfies everything, with an action per package
//! (install, upgrade, keep, no longer needed), or a [`resolve::Failure`]: a derivation tree
//! whose leaves say, as data ([`resolve::reason::Reason`]), why no such set exists.
//! [`explain`] words it.
//!
//! The stages: [`catalog`] loads and interns the catalogs; `rules/*.dl` (Datalog, compiled in
//! by build.rs) derive candidates, exclusions, upgrade edges and preference facts;
//! [`resolve`] orders candidates and builds a [`solver::Problem`]; [`solver`] (CDCL, with the
//! breadth-first search order of the Deppy design) selects or proves failure.
//! [`constraint`] is the `olm.constraint` language (CEL included) used by bundles, admin and
//! cluster constraints. [`pipeline`] runs these stages as an observable, configurable,
//! replayable DAG of nodes; `deppy resolve` is its default pipeline (see the example there).
//!
//! # Layers
//!
//! A module imports only from its own layer or an earlier one, never from a later one, and
//! the modules of one layer do not import each other in a circle. `tests/layers.rs` checks
//! both, reading this list; a module is in the layer of the longest path listed that
//! contains it (so a new file under `src/cluster/` is an input module unless listed).
//!
//! 1. input: `atomic`, `parallel`, `progress`, `version`, `range`, `yaml`, `input`, `gvk`, `constraint`, `catalog`, `crd`, `request`, `cluster`
//! 2. derive: `resolve::admin`, `resolve::candidates`, `resolve::constraints`, `resolve::demand`, `resolve::derive`, `resolve::facts`, `resolve::installed`, `resolve::reach`, `resolve::reason`, `resolve::universe`
//! 3. solve: `solver`, `generic`, `resolve`, `resolve::problem`, `resolve::answer`, `resolve::check`
//! 4. answer: `resolve::hints`, `resolve::plan`, `resolve::why`, `cluster::answer`, `cluster::v1::answer`
//! 5. explain and report: `explain`, `report`, `graph`, `installability`, `pipeline`, `scenario`, `cluster::resolve`, `cluster::crd`, `cluster::v1::advice`, `cluster::v1::resolve`
//! 6. CLI: `cli` (the `deppy` binary: `src/main.rs` and `src/cli/`, through the public API)
//!
//! # Example
//!
//! ```
//! use std::path::PathBuf;
//! use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};
//! use deppy::request::{Request, Requirement};
//! use deppy::resolve::{Outcome, Resolver};
//!
//! let source = CatalogSource { name: "odf".into(), path: PathBuf::from("catalogs/odf-dev"), priority: 0 };
//! let set = CatalogSet::load(&[source], &LoadOptions::default())?;
//! let request = Request {
//!     require: vec![Requirement::from_spec("ocs-client-operator")?],
//!     ..Request::default()
//! };
//! let resolver = Resolver::new(set);
//! let (universe, outcome) = resolver.resolve(&request)?;
//! match &outcome {
//!     Outcome::Resolved(answer) => {
//!         assert!(answer.selected.iter().any(|s| s.package == "ocs-client-operator"));
//!     }
//!     Outcome::Unsatisfiable(failure) => {
//!         let why = deppy::explain::explain_failure(failure, &universe, &request, Default::default());
//!         panic!("{why}");
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// No panics from input: library and CLI code may not unwrap, expect or index unchecked;
// the few places that index carry an `allow` with a comment proving the invariant.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]
#![warn(missing_docs)]

// The few types most callers need, at the crate root (docs/library.md); the modules below hold
// the rest.
pub use catalog::{CatalogSet, CatalogSource, LoadOptions};
pub use cluster::{
    Binding, ClusterAnswer, ClusterOptions, ClusterState, read_paths, resolve_cluster,
};
pub use explain::{Detail, explain_failure};
pub use pipeline::{Pipeline, PipelineConfig, Sources};
pub use request::{Request, Requirement};
pub use resolve::{Answer, Failure, Outcome, Resolver};

pub mod atomic;
pub mod catalog;
pub mod cluster;
pub mod constraint;
pub mod crd;
pub mod explain;
pub mod generic;
pub mod graph;
mod gvk;
pub mod input;
pub mod installability;
mod parallel;
pub mod pipeline;
pub mod progress;
pub mod range;
pub mod report;
pub mod request;
pub mod resolve;
pub mod scenario;
pub mod solver;
pub mod version;
mod yaml;
