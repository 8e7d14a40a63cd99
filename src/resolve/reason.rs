//! Why each solver constraint exists, as data. Wording lives in [`crate::advanced::explain`].

use crate::catalog::{BundleId, GvkId, PackageId};
use crate::range::VersionRange;

pub use super::derive::{Edge, Exclusion, Mismatch};

/// What a bundle dependency asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// `olm.package.required`.
    Package {
        /// Package name (may be unknown to every catalog).
        package: String,
        /// Acceptable versions.
        range: VersionRange,
    },
    /// `olm.gvk.required`.
    Gvk(GvkId),
    /// `olm.label.required`.
    Label(String),
    /// `olm.constraint` (or an alias form): one predicate over one bundle.
    Constraint {
        /// The predicate in words.
        text: String,
        /// The author's `failureMessage`, when given.
        failure_message: Option<String>,
        /// Evaluation errors (`bundle: error`), each of which made the rule false.
        errors: Vec<String>,
    },
}

/// Why a bundle that looked like a candidate is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rejection {
    /// Excluded everywhere.
    Excluded(Exclusion),
    /// Fails the requirement.
    Mismatch(Mismatch),
    /// The package is installed and this bundle is not one upgrade edge away.
    NotAnUpgrade,
}

/// The label of every solver constraint deppy builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The user requires requirement number `.0`.
    Required(usize),
    /// Requirement number `requirement` is met by one of its candidates; `rejected` lists
    /// bundles of the package that are not candidates, with why.
    RequirementCandidates {
        /// Index into the request's requirements.
        requirement: usize,
        /// Bundles of the package that are not candidates.
        rejected: Vec<(BundleId, Rejection)>,
    },
    /// A bundle's dependency is met by one of its candidates.
    Dependency {
        /// The dependent bundle.
        bundle: BundleId,
        /// What it needs.
        dependency: Dependency,
        /// Bundles that match but are excluded, with why.
        excluded: Vec<(BundleId, Exclusion)>,
    },
    /// At most one bundle per package.
    OnePerPackage(PackageId),
    /// At most one selected bundle provides an API.
    OnePerGvk(GvkId),
    /// `keepInstalled: true` keeps this installed bundle.
    KeepInstalled(BundleId),
    /// This installed bundle is marked `keep`: it stays exactly as it is (OLM: a CSV that no
    /// Subscription references).
    Kept(BundleId),
    /// Rule number `rule` of [`super::Universe::rules`] (a static variable) makes this
    /// bundle mandatory.
    Injected {
        /// The bundle.
        bundle: BundleId,
        /// Index into the universe's rules.
        rule: u32,
    },
}
