//! What deppy recommends for the dependencies OLM v1 does not resolve (docs/semantics.md
//! §10.2): every resolved ClusterExtension's chosen bundle is pinned as a requirement, and
//! deppy's resolver finds the bundles their declared dependencies need (at most one bundle per
//! package, one provider per API). Each extra bundle is a ClusterExtension to add, with its
//! YAML; when no such set exists, the proof says why. Nothing is applied.

use std::sync::Arc;

use super::answer::{
    AddExtension, Advice, AdviceStatus, ExtensionAnswer, ExtensionStatus, declared,
};
use super::object::CATALOG_NAME_LABEL;
use crate::catalog::CatalogSet;
use crate::explain::Detail;
use crate::request::{Request, Requirement};
use crate::resolve::{Outcome, ResolveError, Resolver};

/// The YAML of a ClusterExtension that installs exactly `bundle`'s version from `catalog`.
fn yaml(name: &str, package: &str, version: &str, catalog: &str) -> String {
    format!(
        "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: {name}\nspec:\n  namespace: {name}\n  serviceAccount:\n    name: {name}-installer\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: {package}\n      version: \"{version}\"\n      selector:\n        matchLabels:\n          {CATALOG_NAME_LABEL}: {catalog}\n"
    )
}

/// The request: each resolved extension's bundle, pinned to its catalog.
fn request(extensions: &[ExtensionAnswer]) -> Request {
    let require = extensions
        .iter()
        .filter(|e| e.status == ExtensionStatus::Resolved)
        .filter_map(|e| {
            Some(Requirement {
                package: e.package.clone(),
                bundle: Some(e.bundle.clone()?),
                catalog: Some(e.catalog.clone()?),
                name: Some(format!("clusterextension {}", e.name)),
                ..Requirement::default()
            })
        })
        .collect();
    Request {
        require,
        ..Request::default()
    }
}

/// Advice for `extensions` whose bundles declare dependencies, set on each of them.
pub(crate) fn advise(extensions: &mut [ExtensionAnswer], set: &Arc<CatalogSet>) {
    if !extensions
        .iter()
        .any(|e| e.status == ExtensionStatus::Resolved && !e.dependencies.is_empty())
    {
        return;
    }
    let req = request(extensions);
    let resolver = Resolver::new(Arc::clone(set));
    let advice = match resolver.resolve(&req) {
        Ok((_, Outcome::Resolved(a))) => {
            let pinned: Vec<&str> = req.require.iter().map(|r| r.package.as_str()).collect();
            let add = a
                .selected
                .iter()
                .filter(|s| !pinned.contains(&s.package.as_str()))
                .map(|s| AddExtension {
                    name: s.package.clone(),
                    package: s.package.clone(),
                    bundle: s.bundle.clone(),
                    version: s.version.clone(),
                    catalog: s.catalog.clone(),
                    olm_v1_refuses: refuses(set, &s.catalog, &s.bundle),
                    yaml: yaml(&s.package, &s.package, &s.version, &s.catalog),
                })
                .collect();
            Advice {
                status: AdviceStatus::Resolved,
                add,
                explanation: None,
            }
        }
        Ok((universe, Outcome::Unsatisfiable(failure))) => Advice {
            status: AdviceStatus::Unsatisfiable,
            add: Vec::new(),
            explanation: Some(crate::explain::explain_failure(
                &failure,
                &universe,
                &req,
                Detail::Summary,
            )),
        },
        Err(ResolveError::GaveUp { conflicts, .. }) => Advice {
            status: AdviceStatus::Unsatisfiable,
            add: Vec::new(),
            explanation: Some(crate::explain::olmv1::advice_gave_up(conflicts)),
        },
        Err(e) => Advice {
            status: AdviceStatus::Unsatisfiable,
            add: Vec::new(),
            explanation: Some(e.to_string()),
        },
    };
    for e in extensions.iter_mut() {
        if e.status == ExtensionStatus::Resolved && !e.dependencies.is_empty() {
            e.advice = Some(advice.clone());
        }
    }
}

/// Whether the catalog's bundle declares dependencies (OLM v1 refuses it).
fn refuses(set: &CatalogSet, catalog: &str, bundle: &str) -> bool {
    set.catalog_id(catalog)
        .and_then(|c| set.find_bundle(c, bundle))
        .and_then(|b| set.bundle(b))
        .is_some_and(|b| !declared(set, b).is_empty())
}
