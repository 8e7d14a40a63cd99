//! Remedies for an unsatisfiable request, each verified by resolving the changed request:
//! relax or drop a version range, pin, catalog or channel restriction, remove an admin or
//! cluster constraint, drop `keepInstalled`, add a catalog.

use std::sync::Arc;

use crate::catalog::{CatalogSet, CatalogSource, LoadOptions};
use crate::request::{Request, Requirement};

use super::{Outcome, Resolver};

/// One change to the request that makes it resolvable.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Change {
    /// Drop requirement `requirement`'s version range.
    DropRange {
        /// Requirement index.
        requirement: usize,
        /// The range dropped.
        range: String,
    },
    /// Drop its bundle pin.
    DropPin {
        /// Requirement index.
        requirement: usize,
        /// The bundle pinned.
        bundle: String,
    },
    /// Drop its catalog restriction.
    DropCatalog {
        /// Requirement index.
        requirement: usize,
        /// The catalog named.
        catalog: String,
    },
    /// Use another channel.
    UseChannel {
        /// Requirement index.
        requirement: usize,
        /// The channel to use.
        channel: String,
    },
    /// Remove admin constraint number `index`.
    RemoveAdminConstraint {
        /// Index in `constraints`.
        index: usize,
    },
    /// Remove cluster constraint number `index`.
    RemoveClusterConstraint {
        /// Index in `cluster.constraints`.
        index: usize,
    },
    /// Set `keepInstalled: false`.
    DropKeepInstalled,
    /// Add this catalog.
    AddCatalog {
        /// Its name.
        name: String,
        /// Its path.
        path: String,
    },
}

/// A verified hint: the change and the bundles the changed request selects.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Hint {
    /// The change.
    pub change: Change,
    /// Bundles selected once the change is made.
    pub selects: Vec<String>,
}

/// `request` changed by `edit`.
fn changed(request: &Request, edit: impl FnOnce(&mut Request)) -> Request {
    let mut r = request.clone();
    edit(&mut r);
    r
}

/// `request` with requirement `i` changed by `edit`.
fn with_requirement(request: &Request, i: usize, edit: impl FnOnce(&mut Requirement)) -> Request {
    changed(request, |r| {
        if let Some(q) = r.require.get_mut(i) {
            edit(q);
        }
    })
}

/// The single changes to try, in the order their hints are listed: per requirement (its
/// range, pin, catalog, then every other channel), then each admin constraint, each cluster
/// constraint, and `keepInstalled`.
fn candidates(set: &CatalogSet, request: &Request) -> Vec<(Change, Request)> {
    let mut out = Vec::new();
    for (i, q) in request.require.iter().enumerate() {
        if let Some(range) = &q.version_range {
            let range = range.raw().to_string();
            let change = Change::DropRange {
                requirement: i,
                range,
            };
            out.push((
                change,
                with_requirement(request, i, |q| q.version_range = None),
            ));
        }
        if let Some(bundle) = &q.bundle {
            let change = Change::DropPin {
                requirement: i,
                bundle: bundle.clone(),
            };
            out.push((change, with_requirement(request, i, |q| q.bundle = None)));
        }
        if let Some(catalog) = &q.catalog {
            let change = Change::DropCatalog {
                requirement: i,
                catalog: catalog.clone(),
            };
            out.push((change, with_requirement(request, i, |q| q.catalog = None)));
        }
        if let (Some(current), Some(p)) = (&q.channel, set.package_id(&q.package)) {
            let mut channels: Vec<&str> = set
                .package_entries(p)
                .flat_map(|e| e.channels.iter().map(|c| c.name.as_str()))
                .filter(|c| c != current)
                .collect();
            channels.sort();
            channels.dedup();
            for ch in channels {
                let change = Change::UseChannel {
                    requirement: i,
                    channel: ch.to_string(),
                };
                let edit = |q: &mut Requirement| q.channel = Some(ch.to_string());
                out.push((change, with_requirement(request, i, edit)));
            }
        }
    }
    for i in 0..request.constraints.len() {
        let change = Change::RemoveAdminConstraint { index: i };
        let edit = |r: &mut Request| {
            r.constraints.remove(i);
        };
        out.push((change, changed(request, edit)));
    }
    let cluster_constraints = request
        .cluster
        .as_ref()
        .and_then(|c| c.get("constraints"))
        .and_then(|c| c.as_array())
        .map_or(0, Vec::len);
    for i in 0..cluster_constraints {
        let change = Change::RemoveClusterConstraint { index: i };
        let edit = |r: &mut Request| {
            if let Some(list) = r
                .cluster
                .as_mut()
                .and_then(|c| c.get_mut("constraints"))
                .and_then(|c| c.as_array_mut())
            {
                list.remove(i);
            }
        };
        out.push((change, changed(request, edit)));
    }
    if request.keep_installed {
        let edit = |r: &mut Request| r.keep_installed = false;
        out.push((Change::DropKeepInstalled, changed(request, edit)));
    }
    out
}

fn selects(resolver: &Resolver, request: &Request) -> Option<Vec<String>> {
    match resolver.resolve(request).ok()?.1 {
        Outcome::Resolved(a) => Some(a.selected.iter().map(|s| s.bundle.clone()).collect()),
        Outcome::Unsatisfiable(_) => None,
    }
}

/// Every single change that makes `request` resolvable against `set`, verified by resolving
/// the changed request. `extra` catalogs are tried one at a time as additions.
pub fn hints(
    set: &Arc<CatalogSet>,
    sources: &[CatalogSource],
    request: &Request,
    extra: &[CatalogSource],
) -> Vec<Hint> {
    let resolver = Resolver::new(set.clone());
    let mut out: Vec<Hint> = candidates(set, request)
        .into_iter()
        .filter_map(|(change, r)| selects(&resolver, &r).map(|s| Hint { change, selects: s }))
        .collect();
    for c in extra {
        let mut all = sources.to_vec();
        all.push(c.clone());
        let Ok(bigger) = CatalogSet::load(&all, &LoadOptions::default()) else {
            continue;
        };
        if let Some(s) = selects(&Resolver::new(bigger), request) {
            let change = Change::AddCatalog {
                name: c.name.clone(),
                path: c.path.display().to_string(),
            };
            out.push(Hint { change, selects: s });
        }
    }
    out
}
