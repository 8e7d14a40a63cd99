//! The answer for one ClusterExtension (the `extensions` of `deppy cluster resolve -o json`),
//! as data: [`super::resolve`] builds it, `crate::explain::olmv1` words it.

use serde::Serialize;

use super::choose::Decision;
use crate::catalog::{Bundle, CatalogSet};
use crate::range::VersionRange;
use crate::resolve::Proof;

/// How an extension came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ExtensionStatus {
    /// A bundle was chosen.
    Resolved,
    /// No bundle can be chosen (the decision's result says why).
    Unsatisfiable,
}

/// What happens to the installed bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ExtensionAction {
    /// Nothing is installed.
    Install,
    /// A higher version replaces the installed bundle.
    Upgrade,
    /// A lower version replaces it (`SelfCertified` only).
    Downgrade,
    /// The installed bundle stays.
    Keep,
}

/// A dependency a bundle declares, as OLM v1's `NoDependencyValidation` sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclaredDependency {
    /// `olm.package.required`: a package in a version range.
    Package {
        /// The package.
        package: String,
        /// The acceptable versions.
        range: VersionRange,
    },
    /// `olm.gvk.required`: an API.
    Api {
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// Kind.
        kind: String,
    },
    /// `olm.constraint`: the constraint's JSON value as written.
    Constraint(String),
}

impl DeclaredDependency {
    /// The property that declares it: `olm.package.required`, `olm.gvk.required` or
    /// `olm.constraint`.
    pub fn property(&self) -> &'static str {
        match self {
            DeclaredDependency::Package { .. } => "olm.package.required",
            DeclaredDependency::Api { .. } => "olm.gvk.required",
            DeclaredDependency::Constraint(_) => "olm.constraint",
        }
    }

    /// True when `b` (of `set`) satisfies it: the package in the range, the API provided,
    /// the constraint true (one that does not parse is satisfied by nothing).
    pub fn satisfied_by(&self, set: &CatalogSet, b: &Bundle) -> bool {
        match self {
            DeclaredDependency::Package { package, range } => {
                set.package_name(b.package) == package && range.matches(&b.version)
            }
            DeclaredDependency::Api {
                group,
                version,
                kind,
            } => b
                .provides
                .iter()
                .filter_map(|g| set.gvk(*g))
                .any(|g| (&g.group, &g.version, &g.kind) == (group, version, kind)),
            DeclaredDependency::Constraint(raw) => {
                use crate::constraint::{CandidateView, CelCache, Constraint, Limits};
                let Ok(c) = Constraint::parse(raw, &Limits::default(), &mut CelCache::new()) else {
                    return false;
                };
                let properties = crate::catalog::bundle_properties(b, set);
                c.test(&CandidateView::of_bundle(b, set, &properties))
                    .matched
            }
        }
    }
}

/// What OLM v1 itself does differently from the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OlmV1Refusal {
    /// The chosen bundle declares dependencies, and OLM v1 resolves none
    /// (`NoDependencyValidation`); it does not fall back to another bundle.
    DeclaresDependencies,
}

/// A diagnostic of one extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtensionWarning {
    /// A ClusterCatalog the extension selects has no bound contents: it is taken as empty.
    UnboundCatalog {
        /// The ClusterCatalog.
        catalog: String,
        /// `spec.source.image.ref`, to fetch it.
        image: Option<String>,
    },
    /// `upgradeConstraintPolicy: Enforce` (with a bundle installed) is read as
    /// `CatalogProvided`, its name since operator-controller v0.16.0; v0.7.0 to v0.9.x took
    /// any higher version of the same major version under it instead.
    EnforceReadAsCatalogProvided,
}

/// One ClusterExtension's answer.
#[derive(Clone, Debug)]
pub struct ExtensionAnswer {
    /// `metadata.name`.
    pub name: String,
    /// `spec.source.catalog.packageName`.
    pub package: String,
    /// `resolved` or `unsatisfiable`.
    pub status: ExtensionStatus,
    /// The bundle OLM v1 picks (None when unsatisfiable).
    pub bundle: Option<String>,
    /// Its version.
    pub version: Option<String>,
    /// Its ClusterCatalog.
    pub catalog: Option<String>,
    /// `install`, `upgrade`, `downgrade` or `keep` (None when unsatisfiable).
    pub action: Option<ExtensionAction>,
    /// `status.install.bundle.name`.
    pub installed: Option<String>,
    /// The dependencies the bundle declares (OLM v1 resolves none of them).
    pub dependencies: Vec<DeclaredDependency>,
    /// What OLM v1 itself would do, when it differs from the answer.
    pub olm_v1: Option<OlmV1Refusal>,
    /// Why this bundle, or why none: what the extension asks for, each catalog's part
    /// (the bundles left after each filter), and the outcome.
    pub decision: Decision,
    /// The ClusterExtensions to add for the declared dependencies, resolved together with
    /// the other extensions (only when the bundle declares dependencies).
    pub advice: Option<Advice>,
    /// Diagnostics.
    pub warnings: Vec<ExtensionWarning>,
}

/// The dependencies a bundle declares, as OLM v1's `NoDependencyValidation` sees them.
pub fn declared(set: &CatalogSet, b: &Bundle) -> Vec<DeclaredDependency> {
    let mut out = Vec::new();
    for p in &b.requires_packages {
        out.push(DeclaredDependency::Package {
            package: p.package.clone(),
            range: p.range.clone(),
        });
    }
    for g in b.requires_gvks.iter().filter_map(|g| set.gvk(*g)) {
        out.push(DeclaredDependency::Api {
            group: g.group.clone(),
            version: g.version.clone(),
            kind: g.kind.clone(),
        });
    }
    for c in &b.constraints {
        out.push(DeclaredDependency::Constraint(c.get().to_string()));
    }
    out
}

/// Whether the advice could be found (JSON `advice.status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum AdviceStatus {
    /// Adding `add` satisfies every declared dependency.
    Resolved,
    /// No set of extensions satisfies them together with the others.
    Unsatisfiable,
}

/// A declared dependency an added extension satisfies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    /// The ClusterExtension whose bundle declares it (an existing one, or another added one
    /// by its proposed name).
    pub extension: String,
    /// The dependency.
    pub dependency: DeclaredDependency,
}

/// A ClusterExtension to add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddExtension {
    /// Its proposed name (the package's).
    pub name: String,
    /// Package.
    pub package: String,
    /// The bundle it would get.
    pub bundle: String,
    /// Its version.
    pub version: String,
    /// Its ClusterCatalog.
    pub catalog: String,
    /// That bundle declares dependencies itself, so OLM v1 would refuse it too.
    pub olm_v1_refuses: bool,
    /// The declared dependencies its bundle satisfies, by extension.
    pub serves: Vec<Served>,
}

/// The advice for the extensions whose bundles declare dependencies.
#[derive(Clone, Debug)]
pub enum Advice {
    /// Adding these extensions, by name, satisfies every declared dependency (none: the
    /// other extensions already do).
    Add(Vec<AddExtension>),
    /// No set of extensions satisfies them together with the others: the proof, each
    /// extension a requirement named `clusterextension NAME`.
    Unsatisfiable(Box<Proof>),
    /// deppy's search gave up after this many conflicts.
    GaveUp {
        /// Conflicts analysed.
        conflicts: u64,
    },
    /// The resolution failed: the error's message.
    Failed(String),
}

impl Advice {
    /// Found or not.
    pub fn status(&self) -> AdviceStatus {
        match self {
            Advice::Add(_) => AdviceStatus::Resolved,
            _ => AdviceStatus::Unsatisfiable,
        }
    }
}
