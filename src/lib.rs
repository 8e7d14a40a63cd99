//! deppy: an embeddable, explainable dependency resolver for Operator Lifecycle Manager (OLM)
//! catalogs.
//!
//! Catalogs (File-Based Catalogs, JSON or YAML, loaded into a [`CatalogSet`]) and a
//! [`Request`] go in; a [`Resolver`] returns an [`Outcome`]: the smallest preferred set of
//! bundles that satisfies everything, with an action per package (install, upgrade, keep, no
//! longer needed), as an [`Answer`], or a [`Failure`]: a derivation tree whose leaves say, as
//! data ([`advanced::resolve::reason::Reason`]), why no such set exists. [`explain_failure`]
//! words it. A cluster's state (a `kubectl get -o yaml` dump or a must-gather tree) is read by
//! [`read_paths`] and resolved per Subscription or ClusterExtension by [`resolve_cluster`].
//!
//! The stages: [`advanced::catalog`] loads and interns the catalogs; `rules/*.dl` (Datalog,
//! compiled by build.rs into crepe's whole program and an evaluator on demand) derive
//! candidates, exclusions, upgrade edges and preference facts;
//! [`advanced::resolve`] orders candidates and builds an [`advanced::solver::Problem`];
//! [`advanced::solver`] (CDCL, with the breadth-first search order of the Deppy design)
//! selects or proves failure. [`advanced::constraint`] is the `olm.constraint` language (CEL
//! included) used by bundles, admin and cluster constraints. [`pipeline`] runs these stages as
//! an observable, configurable, replayable DAG of nodes; `deppy resolve` is its default
//! pipeline (see the example there).
//!
//! The crate root holds the types most callers need; [`advanced`] holds the rest, one module
//! per stage, and [`pipeline`] the pipeline.
//!
//! # Layers
//!
//! A module imports only from its own layer or an earlier one, never from a later one, and
//! the modules of one layer do not import each other in a circle. `tests/layers.rs` checks
//! both, reading this list; a module is in the layer of the longest path listed that
//! contains it (so a new file under `src/cluster/` is an input module unless listed).
//!
//! 1. input: `atomic`, `parallel`, `progress`, `version`, `range`, `yaml`, `input`, `gvk`, `constraint`, `catalog`, `image`, `crd`, `request`, `cluster`
//! 2. derive: `resolve::admin`, `resolve::candidates`, `resolve::constraints`, `resolve::demand`, `resolve::derive`, `resolve::facts`, `resolve::installed`, `resolve::lookups`, `resolve::orders`, `resolve::reach`, `resolve::reason`, `resolve::universe`
//! 3. solve: `solver`, `generic`, `resolve`, `resolve::problem`, `resolve::answer`, `resolve::check`
//! 4. answer: `resolve::hints`, `resolve::plan`, `resolve::why`, `cluster::answer`, `cluster::v1::answer`, `cluster::resolve`, `cluster::pull`, `cluster::crd`, `cluster::v1::advice`, `cluster::v1::resolve`
//! 5. explain and report: `explain`, `report`, `graph`, `installability`, `diff`, `pipeline`, `scenario`
//! 6. facade: `advanced` (the public re-exports of the modules above, for callers outside the crate)
//! 7. CLI: `cli` (the `deppy` binary: `src/main.rs` and `src/cli/`, through the public API)
//!
//! # Example
//!
//! ```
//! use std::path::PathBuf;
//! use deppy::{CatalogSet, CatalogSource, LoadOptions, Outcome, Request, Requirement, Resolver};
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
//!         let why = deppy::explain_failure(failure, &universe, &request, Default::default());
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
pub use catalog::{CatalogSet, CatalogSource, LoadError, LoadOptions};
pub use cluster::{
    Binding, ClusterAnswer, ClusterOptions, ClusterState, read_paths, resolve_cluster,
};
pub use explain::{Detail, explain_failure};
pub use pipeline::{Pipeline, PipelineConfig, Sources};
pub use request::{Request, Requirement};
pub use resolve::{Answer, Failure, Outcome, ResolveError, Resolver, Universe};

pub mod advanced;
mod atomic;
mod catalog;
mod cluster;
mod constraint;
mod crd;
mod diff;
mod explain;
mod generic;
mod graph;
mod gvk;
mod image;
mod input;
mod installability;
mod parallel;
pub mod pipeline;
mod progress;
mod range;
mod report;
mod request;
mod resolve;
mod scenario;
mod solver;
mod version;
mod yaml;
