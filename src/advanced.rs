//! Everything beyond the crate root, by stage, for callers who need more than resolving a
//! request: the catalog model, the constraint language, the solver and its generic model, the
//! rules' derivation, reports and the tools the `deppy` binary is built from.
//!
//! Each module here re-exports, name by name, the public items of one of the library's
//! modules that a caller extending deppy needs; the layer each belongs to is listed at the top
//! of the crate documentation. Where two modules use one name for different things, the
//! re-export renames one (`constraint::OlmConstraint` beside `solver::Constraint`,
//! `crd::CrdProblem` beside `solver::Problem`, ...), so a name here has one meaning.
//!
//! Most callers need only the types at the crate root ([`crate::Resolver`],
//! [`crate::CatalogSet`], [`crate::Request`], [`crate::explain_failure`], [`crate::Pipeline`],
//! [`crate::resolve_cluster`]).

/// Output files that are never left half-written, and outputs that are not files at all.
pub mod atomic {
    pub use crate::atomic::{
        AtomicFile, Destination, Output, READ_ONLY, WriteError, WriteOptions, destination,
        write_atomic, write_output,
    };
}

/// Catalogs: loading File-Based Catalogs (JSON and YAML), the merged and interned model,
/// channels and their upgrade edges, and the cache of loaded catalogs.
pub mod catalog {
    pub use crate::catalog::{
        Bundle, BundleId, BundleManifests, Bundles, CatalogId, CatalogInfo, CatalogSet,
        CatalogSource, Channel, ChannelEntry, ChannelError, ChannelGraph, Deprecated, Deprecation,
        DeprecationRef, Edge, FileCache, Gvk, GvkId, Interner, LoadError, LoadOptions,
        OpaqueProperty, Origin, Package, PackageId, PackageRequirement, Packages, RenderedCatalog,
        SourceFile, Warning, WarningKind, bundle_manifests, bundle_properties, find_bundle_dirs,
        inspect, limits, locate, read_catalog, render_bundle_dirs,
    };
    /// Hooks for benchmarks: a package entry as the catalog cache stores and reads it.
    #[cfg(feature = "testing")]
    pub use crate::catalog::{decode_entry, encode_entry};
}

/// Cluster state as input (Kubernetes objects from a dump or a must-gather tree) and its
/// resolution per Subscription or ClusterExtension.
pub mod cluster {
    pub use crate::cluster::{
        ApiHolder, Binding, Blocked, CATALOG_SOURCE_LABEL, CatalogAnswer, CatalogOrigin,
        CatalogPod, CatalogSourceSpec, ClusterAnswer, ClusterCrds, ClusterOptions, ClusterState,
        ClusterWarning, Condition, CrdCheck, CrdDescription, CsvSpec, CsvStatus, Custom, Dump,
        EXCLUDE_GLOBAL, Exhausted as ClusterExhausted, GaveUp, ImageOrigin, InstallMode,
        InstallPlanSpec, InstallPlanStatus, Kind, KindName,
        MAX_DOCUMENTS_PER_FILE as MAX_CLUSTER_DOCUMENTS_PER_FILE, MAX_OBJECT_SIZE,
        MAX_OBJECTS_PER_DOCUMENT, Meter, NamespaceAnswer, NamespaceOutcome, NamespacePlan, Note,
        Object, ObjectRef, OperatorGroupSpec, OperatorGroupStatus, PROPERTIES_ANNOTATION, Precheck,
        ReadOptions, SelectedAnswer, Skipped, Source, Stage, StateError, Status,
        SubscriptionAction, SubscriptionAnswer, SubscriptionRef, SubscriptionSpec,
        SubscriptionStatus, VisibleCatalog, plan_cluster, read_paths, read_paths_with,
        read_text as read_dump_text, resolve_cluster,
    };
    #[cfg(feature = "registry")]
    pub use crate::cluster::{PulledBindings, pull_catalogs};

    /// OLM v1: ClusterCatalogs and ClusterExtensions as input, the choice of each extension's
    /// bundle, its answer and the advice for declared dependencies.
    pub mod v1 {
        pub use crate::cluster::v1::{
            AddExtension, Advice, AdviceStatus, Beaten, BundleMetadata, CATALOG_NAME_LABEL,
            CATALOGD_GROUP, Candidate, CatalogFilter, CatalogImage, CatalogOutcome,
            CatalogSourceRef, CatalogStat, Chosen, ClusterCatalog, ClusterCatalogSpec,
            ClusterExtensionSpec, ClusterExtensionStatus,
            ConstraintError as VersionConstraintError, Decision, DeclaredDependency,
            ExtensionAction, ExtensionAnswer, ExtensionSource, ExtensionStatus, ExtensionWarning,
            Failure as NoChoice, InstallStatus, OLM_V1_GROUP, OlmV1Refusal, Served, UpgradePolicy,
            VersionConstraint, decide, declared,
        };
    }
}

/// The `olm.constraint` language: parsing, CEL, and testing one predicate against one bundle.
pub mod constraint {
    pub use crate::constraint::{
        AdminConstraint, AdminEntry, CandidateView, CelCache, CelRule, Cluster,
        Constraint as OlmConstraint, ConstraintAction, ConstraintError, Limits, Predicate,
        Prohibit, Verdict as MatchVerdict,
    };
}

/// CustomResourceDefinition upgrade safety: stored and served versions, and existing objects
/// against a new schema.
pub mod crd {
    pub use crate::crd::compare::compare;
    pub use crate::crd::{
        BundleCrds, Comparison, Crd, CrdError, CrdVersion, CustomResource, EdgeProblem, GoRegex,
        GoRegexError, MAX_REJECTED_OBJECTS, Problem as CrdProblem, Rejection as SchemaRejection,
        Schema, check_edges, parse,
    };
}

/// What a new version of a catalog does to the users of the old one: stranded bundles with
/// verified rescues, removed channels and packages, moved default channels, heads that no
/// longer install, lost dependency providers, new deprecations (`deppy catalog diff`).
pub mod diff {
    pub use crate::diff::*;
}

/// The reporter: the words for failures, reasons, warnings and check results.
pub mod explain {
    pub use crate::explain::{
        Detail, PARTIAL_TOO_LARGE, cluster, crd, explain_failure, explain_generic,
        explain_generic_partial, explain_partial,
    };

    /// Why a bundle is (not) selected, and the hints after a failure, in words.
    pub mod why {
        pub use crate::explain::why::{hints as hints_text, preference, why, why_not};
    }
}

/// The generic solver model as a file format (`deppy solve FILE`).
pub mod generic {
    pub use crate::generic::{
        AtMostValue, GenericAnswer, GenericError, GenericFile, GenericTree, Label, RawConstraint,
        RawVariable,
    };
}

/// Pictures: a package's channel graphs and a resolution's graph.
pub mod graph {
    pub use crate::graph::{Syntax, channels, resolution};
}

/// Catalog images: references (`docker://`, `oci:`, `oci-archive:`), pulling an index
/// image's File-Based Catalog from a registry or a layout, and the cache of pulled catalogs.
pub mod image {
    pub use crate::image::reference::has_transport;
    pub use crate::image::{Algorithm, Digest, ImageError, ImageRef, PullBudget, RegistryRef};
    #[cfg(feature = "registry")]
    pub use crate::image::{
        CONFIGS_LABEL, DATABASE_LABEL, MAX_ENTRIES, PullOptions, PulledCatalog, Puller,
        RegistryOptions, default_cache_dir,
    };
}

/// Reading input files with bounds, and the errors that name the file and the field.
pub mod input {
    pub use crate::input::{
        DEFAULT_MAX_FILE_SIZE, InputError, MAX_FILE_SIZE_ENV, check_json_keys, is_stdin,
        max_file_size, position, read_text, utf8, yaml_options, yaml_reason,
    };
}

/// Installability of a catalog set: for every channel head, whether some answer installs it.
pub mod installability {
    pub use crate::installability::{
        Row, Scope, Unchecked, Verdict, check as check_bundles, check_with_progress, to_text,
    };
}

/// Progress of long operations, reported to a caller's observer.
pub mod progress {
    pub use crate::progress::{Progress, Task};
}

/// OLM version ranges (`github.com/blang/semver/v4` `ParseRange`).
pub mod range {
    pub use crate::range::{RangeError, VersionRange};
}

/// The answer of `deppy resolve` as a document: the JSON/YAML contract and the text view.
pub mod report {
    pub use crate::report::{Report, plan_to_text};
}

/// What the user asks for: catalogs, required packages, installed bundles, and options.
pub mod request {
    pub use crate::request::{
        CatalogRef, EXISTING_CATALOG, InstalledBundle, Request, RequestError, Requirement,
    };
}

/// OLM resolution: facts, the Datalog rules, ordered candidates, the problem, the answer, the
/// checker, hints and why-not.
pub mod resolve {
    pub use crate::resolve::{
        Action, AdjustmentWarning, Adjustments, Answer, ConstraintMatches, Demand, Derivation,
        Edge, Exclusion, Failure, INSTALLED_CATALOG, ListKind, Mismatch, Model, Outcome, Partial,
        Preference, Prepared, Proof, RequestError as UniverseError, ResolveError, Resolver, Rule,
        RuleEffect, RuleOrigin, Selected, StaticEffect, Subject, Universe, Unneeded, Via,
        Violation, check, hints, plan, reason, why,
    };
}

/// Scenario directories, as `deppy test` runs them.
pub mod scenario {
    pub use crate::scenario::{
        Answer as ScenarioAnswer, EXPECTED, answer_of, catalog_sources, cluster, diff, find,
        folder_prefix, resolve, run_dir,
    };
}

/// The CDCL solver with the search order of the Deppy design, and its derivation trees.
pub mod solver {
    pub use crate::solver::{
        Cause, Constraint, DerivationTree, Entry, Exhausted, GaveUpLine, Incompatibility, Problem,
        Provider, SolveError, SolveOptions, Term, Var, solve, solve_with,
    };
}

/// Bundle versions, parsed tolerantly like OLM.
pub mod version {
    pub use crate::version::{Version, VersionError};
}
