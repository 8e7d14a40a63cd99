//! The answer for one ClusterExtension (the `extensions` of `deppy cluster resolve -o json`),
//! as data: [`super::resolve`] builds it, `crate::explain::olmv1` words it.

use serde::Serialize;

use crate::catalog::{Bundle, CatalogSet};

/// How an extension came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ExtensionStatus {
    /// A bundle was chosen.
    Resolved,
    /// No bundle can be chosen (see `explanation`).
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

/// A dependency the chosen bundle declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DependencyAnswer {
    /// `olm.package.required`, `olm.gvk.required` or `olm.constraint`.
    pub property: String,
    /// What it asks for, in words.
    pub requirement: String,
}

/// One ClusterExtension's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
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
    pub dependencies: Vec<DependencyAnswer>,
    /// What OLM v1 itself would do, when it differs from the answer (it refuses a bundle
    /// that declares dependencies).
    pub olm_v1: Option<String>,
    /// Why this bundle, or why none: each catalog's part.
    pub explanation: String,
    /// The ClusterExtensions to add for the declared dependencies, resolved together with
    /// the other extensions (only when the bundle declares dependencies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<Advice>,
    /// Diagnostics (catalogs taken as empty, and the like).
    pub warnings: Vec<String>,
}

/// The dependencies a bundle declares, as OLM v1's `NoDependencyValidation` sees them.
pub fn declared(set: &CatalogSet, b: &Bundle) -> Vec<DependencyAnswer> {
    let mut out = Vec::new();
    for p in &b.requires_packages {
        out.push(DependencyAnswer {
            property: "olm.package.required".into(),
            requirement: format!("package {} {}", p.package, p.range),
        });
    }
    for g in b.requires_gvks.iter().filter_map(|g| set.gvk(*g)) {
        out.push(DependencyAnswer {
            property: "olm.gvk.required".into(),
            requirement: format!("API {}/{} {}", g.group, g.version, g.kind),
        });
    }
    for c in &b.constraints {
        out.push(DependencyAnswer {
            property: "olm.constraint".into(),
            requirement: c.get().to_string(),
        });
    }
    out
}

/// Whether the advice could be found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum AdviceStatus {
    /// Adding `add` satisfies every declared dependency.
    Resolved,
    /// No set of extensions satisfies them together with the others (see `explanation`).
    Unsatisfiable,
}

/// A ClusterExtension to add.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// The ClusterExtension to apply (`kubectl apply -f`).
    pub yaml: String,
}

/// The advice for the extensions whose bundles declare dependencies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Advice {
    /// Found or not.
    pub status: AdviceStatus,
    /// The extensions to add, by name.
    pub add: Vec<AddExtension>,
    /// Why none can be found (unsatisfiable only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}
