//! The author's check (`deppy catalog check` over bundle directories): every upgrade edge
//! of a channel (`replaces`, `skips`, `skipRange`) between two bundles whose manifests are
//! known, each CRD both ship compared as OLM would compare them on a cluster where the old
//! bundle is installed: its storage version is stored, and the objects of its CSV's
//! `alm-examples` annotation exist (docs/semantics.md §11).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::compare::{CustomResource, Problem, compare};
use super::model::Crd;
use crate::catalog::{CatalogId, CatalogSet};

/// What the check needs of one bundle: its CRDs and its previous CSV's examples.
#[derive(Clone, Debug, Default)]
pub struct BundleCrds {
    /// Its CRDs, by name.
    pub crds: BTreeMap<String, Crd>,
    /// Its CSV's `alm-examples` annotation as written (None when absent).
    pub alm_examples: Option<String>,
}

/// One problem of one edge.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct EdgeProblem {
    /// Package.
    pub package: String,
    /// The channel the edge is in (the first by name, when several have it).
    pub channel: String,
    /// The bundle upgraded from.
    pub from: String,
    /// The bundle upgraded to.
    pub to: String,
    /// `replaces`, `skips` or `skipRange`.
    pub via: String,
    /// The CRD.
    pub crd: String,
    /// What is wrong.
    pub problem: Problem,
}

/// One upgrade edge: (package, from, to) → (channel, via).
type Edges = BTreeMap<(String, String, String), (String, String)>;

/// Every edge between two bundles of catalog `catalog`, the first channel (by name) and way
/// kept for an edge several give.
fn edges(set: &CatalogSet, catalog: CatalogId) -> Edges {
    let mut out = Edges::new();
    for p in set.packages.iter().filter(|p| p.catalog == catalog) {
        let package = set.package_name(p.id).to_string();
        let mut channels: Vec<_> = p.channels.iter().collect();
        channels.sort_by(|a, b| a.name.cmp(&b.name));
        for ch in channels {
            let bundle_of = |name: &str| set.find_bundle(catalog, name);
            for e in &ch.entries {
                let Some(to) = e.bundle else { continue };
                let mut add = |from: &str, via: &str| {
                    if bundle_of(from).is_some() && from != e.name {
                        let key = (package.clone(), from.to_string(), e.name.clone());
                        out.entry(key)
                            .or_insert_with(|| (ch.name.clone(), via.to_string()));
                    }
                };
                if let Some(r) = &e.replaces {
                    add(r, "replaces");
                }
                for s in &e.skips {
                    add(s, "skips");
                }
                let Some(range) = &e.skip_range else { continue };
                for other in &ch.entries {
                    let version = other.bundle.and_then(|b| set.bundle(b)).map(|b| &b.version);
                    if other.bundle != Some(to) && version.is_some_and(|v| range.matches(v)) {
                        add(&other.name, "skipRange");
                    }
                }
            }
        }
    }
    out
}

/// The objects of an `alm-examples` annotation, each with a name for messages; the reason
/// when the annotation is not a JSON list of objects.
fn examples(text: &str) -> Result<Vec<(String, Value)>, String> {
    let list: Vec<Value> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    list.into_iter()
        .enumerate()
        .map(|(i, v)| {
            if !v.is_object() {
                return Err(format!("item {i} is not an object"));
            }
            let name = v
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .map_or_else(|| format!("alm-examples[{i}]"), |n| format!("example {n}"));
            Ok((name, v))
        })
        .collect()
}

/// The problems of one CRD on one edge: `compare` with the old storage version stored and
/// the old examples of the CRD as the existing objects, plus a storage version that moved
/// to one where the old is no longer served.
fn crd_problems(old: &Crd, new: &Crd, examples: &[(String, Value)]) -> Vec<Problem> {
    let mut old = old.clone();
    old.stored_versions = old.storage().map(str::to_string).into_iter().collect();
    let objects: Vec<CustomResource<'_>> = examples
        .iter()
        .filter_map(|(id, v)| {
            let api = v.get("apiVersion")?.as_str()?;
            let (group, version) = api.split_once('/')?;
            let kind = v.get("kind")?.as_str()?;
            (group == old.group && kind == old.kind).then_some(CustomResource {
                id,
                version,
                object: v,
            })
        })
        .collect();
    let mut problems = compare(&old, new, &objects).problems;
    if let (Some(from), Some(to)) = (old.storage(), new.storage())
        && from != to
        && new.version(from).is_some()
        && !new.served().any(|v| v == from)
    {
        problems.push(Problem::StorageVersionChanged {
            from: from.into(),
            to: to.into(),
        });
    }
    problems
}

/// Every problem of every edge of catalog `catalog` whose two bundles are in `bundles`
/// (by bundle name), by package, edge and CRD.
pub fn check_edges(
    set: &CatalogSet,
    catalog: CatalogId,
    bundles: &BTreeMap<String, BundleCrds>,
) -> Vec<EdgeProblem> {
    let mut out = Vec::new();
    for ((package, from, to), (channel, via)) in edges(set, catalog) {
        let (Some(old), Some(new)) = (bundles.get(&from), bundles.get(&to)) else {
            continue;
        };
        let edge = |crd: &str, problem: Problem| EdgeProblem {
            package: package.clone(),
            channel: channel.clone(),
            from: from.clone(),
            to: to.clone(),
            via: via.clone(),
            crd: crd.to_string(),
            problem,
        };
        let found = match old.alm_examples.as_deref().map(examples) {
            Some(Err(message)) => {
                out.push(edge("", Problem::ExamplesUnreadable { message }));
                Vec::new()
            }
            Some(Ok(found)) => found,
            None => Vec::new(),
        };
        let names: BTreeSet<&String> = old.crds.keys().collect();
        for name in names {
            let (Some(o), Some(n)) = (old.crds.get(name), new.crds.get(name)) else {
                continue;
            };
            out.extend(
                crd_problems(o, n, &found)
                    .into_iter()
                    .map(|p| edge(name, p)),
            );
        }
    }
    out
}
