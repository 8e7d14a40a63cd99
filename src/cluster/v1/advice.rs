//! What deppy recommends for the dependencies OLM v1 does not resolve (docs/semantics.md
//! §10.2): every resolved ClusterExtension's chosen bundle is pinned as a requirement, and
//! deppy's resolver finds the bundles their declared dependencies need (at most one bundle per
//! package, one provider per API). Each extra bundle is a ClusterExtension to add, with the
//! declared dependencies it satisfies; when no such set exists, the proof says why. Nothing
//! is applied.

use std::sync::Arc;

use super::answer::{AddExtension, Advice, ExtensionAnswer, ExtensionStatus, Served, declared};
use crate::catalog::{Bundle, CatalogSet};
use crate::request::{Request, Requirement};
use crate::resolve::{Outcome, Proof, ResolveError, Resolver, Selected};

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
            let added: Vec<&Selected> = a
                .selected
                .iter()
                .filter(|s| !pinned.contains(&s.package.as_str()))
                .collect();
            let add = added
                .iter()
                .map(|s| AddExtension {
                    name: s.package.clone(),
                    package: s.package.clone(),
                    bundle: s.bundle.clone(),
                    version: s.version.clone(),
                    catalog: s.catalog.clone(),
                    olm_v1_refuses: bundle(set, &s.catalog, &s.bundle)
                        .is_some_and(|b| !declared(set, b).is_empty()),
                    serves: serves(set, extensions, &added, s),
                })
                .collect();
            Advice::Add(add)
        }
        Ok((universe, Outcome::Unsatisfiable(failure))) => Advice::Unsatisfiable(Box::new(Proof {
            failure,
            universe,
            request: Arc::new(req),
        })),
        Err(ResolveError::GaveUp { conflicts, .. }) => Advice::GaveUp { conflicts },
        Err(e) => Advice::Failed(e.to_string()),
    };
    for e in extensions.iter_mut() {
        if e.status == ExtensionStatus::Resolved && !e.dependencies.is_empty() {
            e.advice = Some(advice.clone());
        }
    }
}

/// The bundle of that name in that catalog.
fn bundle<'s>(set: &'s CatalogSet, catalog: &str, name: &str) -> Option<&'s Bundle> {
    set.catalog_id(catalog)
        .and_then(|c| set.find_bundle(c, name))
        .and_then(|b| set.bundle(b))
}

/// The declared dependencies `add` satisfies: those of the resolved extensions' bundles,
/// and those of the other added bundles, by extension.
fn serves(
    set: &CatalogSet,
    extensions: &[ExtensionAnswer],
    added: &[&Selected],
    add: &Selected,
) -> Vec<Served> {
    let Some(b) = bundle(set, &add.catalog, &add.bundle) else {
        return Vec::new();
    };
    let existing = extensions
        .iter()
        .filter(|e| e.status == ExtensionStatus::Resolved)
        .map(|e| (e.name.clone(), e.dependencies.clone()));
    let others = added.iter().filter(|o| o.bundle != add.bundle).map(|o| {
        let deps = bundle(set, &o.catalog, &o.bundle).map_or_else(Vec::new, |d| declared(set, d));
        (o.package.clone(), deps)
    });
    existing
        .chain(others)
        .flat_map(|(extension, deps)| {
            deps.into_iter()
                .filter(|d| d.satisfied_by(set, b))
                .map(move |dependency| Served {
                    extension: extension.clone(),
                    dependency,
                })
        })
        .collect()
}
