//! The answer for one ClusterExtension (the `extensions` of `deppy cluster resolve -o json`).

use serde::Serialize;

use super::choose::Decision;
use crate::catalog::{Bundle, CatalogSet};
use crate::explain::olmv1 as words;

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
    pub advice: Option<super::advice::Advice>,
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

/// The answer for an extension named `name` from its decision.
pub fn answer(name: &str, d: &Decision, set: Option<&CatalogSet>) -> ExtensionAnswer {
    let installed = d.installed.as_ref().map(|(n, _)| n.clone());
    let mut a = ExtensionAnswer {
        name: name.to_string(),
        package: d.package.clone(),
        status: ExtensionStatus::Unsatisfiable,
        bundle: None,
        version: None,
        catalog: None,
        action: None,
        installed,
        dependencies: Vec::new(),
        olm_v1: None,
        explanation: words::explanation(name, d),
        advice: None,
        warnings: words::warnings(d),
    };
    let Ok(chosen) = &d.result else {
        return a;
    };
    a.status = ExtensionStatus::Resolved;
    a.bundle = Some(chosen.candidate.bundle.clone());
    a.version = Some(chosen.candidate.version.to_string());
    a.catalog = Some(chosen.catalog.clone());
    a.action = Some(action(d));
    if let Some(b) = set.and_then(|s| s.bundle(chosen.id).map(|b| (s, b))) {
        a.dependencies = declared(b.0, b.1);
    }
    if !a.dependencies.is_empty() {
        a.olm_v1 = Some(words::refused(&chosen.candidate.bundle, &a.dependencies));
    }
    a
}

fn action(d: &Decision) -> ExtensionAction {
    let (Ok(chosen), Some((name, version))) = (&d.result, &d.installed) else {
        return ExtensionAction::Install;
    };
    if &chosen.candidate.bundle == name {
        return ExtensionAction::Keep;
    }
    let Ok(v) = crate::version::Version::parse(version) else {
        return ExtensionAction::Upgrade;
    };
    let (new, old) = (chosen.candidate.version.semver(), v.semver());
    match new.cmp(old) {
        std::cmp::Ordering::Greater => ExtensionAction::Upgrade,
        std::cmp::Ordering::Less => ExtensionAction::Downgrade,
        std::cmp::Ordering::Equal => ExtensionAction::Keep,
    }
}
