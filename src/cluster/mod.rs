//! Cluster state as input: Kubernetes objects from a dump (`kubectl get -o yaml|json`, a
//! must-gather tree) turned into what the resolver takes, one namespace at a time, with the
//! Kubernetes names to map answers back (docs/semantics.md §9).
//!
//! ```no_run
//! use deppy::advanced::cluster::{Binding, ClusterOptions, ClusterState, read_paths, resolve_cluster};
//!
//! let state = ClusterState::from_dump(read_paths(&["must-gather/".into()])?)?;
//! let bindings = [Binding::parse("olm/community=catalogs/community-v4.22")?];
//! let answer = resolve_cluster(&state, &bindings, &ClusterOptions::default())?;
//! for ns in &answer.namespaces {
//!     println!("{}: {:?}", ns.namespace, ns.status);
//! }
//! # Ok::<(), deppy::advanced::cluster::StateError>(())
//! ```

mod answer;
mod budget;
mod crd;
mod csv;
mod custom;
mod error;
mod namespace;
mod note;
mod object;
mod precheck;
mod read;
mod resolve;
mod state;
pub mod v1;

pub use answer::{
    ApiHolder, ClusterAnswer, ClusterWarning, CrdCheck, NamespaceAnswer, SelectedAnswer, Status,
    SubscriptionAnswer,
};
pub use budget::{Exhausted, Meter, Stage};
pub use crd::ClusterCrds;
pub use csv::PROPERTIES_ANNOTATION;
pub use custom::Custom;
pub use error::StateError;
pub use namespace::{EXCLUDE_GLOBAL, NamespacePlan, SubscriptionRef, VisibleCatalog};
pub use note::{Blocked, Note};
pub use object::{
    CatalogSourceSpec, Condition, CrdDescription, CsvSpec, CsvStatus, InstallMode, InstallPlanSpec,
    InstallPlanStatus, Kind, KindName, Object, ObjectRef, OperatorGroupSpec, OperatorGroupStatus,
    Skipped, Source, SubscriptionSpec, SubscriptionStatus,
};
pub use precheck::Precheck;
pub use read::{
    Dump, MAX_DOCUMENTS_PER_FILE, MAX_OBJECT_SIZE, MAX_OBJECTS_PER_DOCUMENT, ReadOptions,
    read_paths, read_paths_with, read_text, read_text_with,
};
pub use resolve::{Binding, ClusterOptions, plan_cluster, resolve_cluster};
pub use state::ClusterState;
