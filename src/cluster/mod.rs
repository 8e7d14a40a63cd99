//! Cluster state as input: Kubernetes objects from a dump (`kubectl get -o yaml|json`, a
//! must-gather tree) turned into what the resolver takes, one namespace at a time, with the
//! Kubernetes names to map answers back (docs/semantics.md §9).

mod error;
mod object;
mod read;

pub use error::StateError;
pub use object::{
    CatalogSourceSpec, Condition, CrdDescription, CsvSpec, CsvStatus, InstallMode, InstallPlanSpec,
    InstallPlanStatus, Kind, KindName, Object, ObjectRef, OperatorGroupSpec, OperatorGroupStatus,
    Skipped, Source, SubscriptionSpec, SubscriptionStatus,
};
pub use read::{Dump, read_file, read_paths, read_text};
