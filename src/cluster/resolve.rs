//! Resolving a cluster: each namespace with Subscriptions on its own (in parallel), against
//! the catalogs it sees, loaded once per distinct set of catalogs.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::answer::{
    self, CatalogAnswer, CatalogOrigin, ClusterAnswer, GaveUp, NamespaceAnswer, NamespaceOutcome,
    Status,
};
use super::binding::Binding;
use super::budget::{Meter, Stage};
use super::error::StateError;
use super::namespace::{self, NamespacePlan, VisibleCatalog};
use super::note::{Blocked, Note};
use super::object::{Kind, KindName};
use super::state::ClusterState;
use crate::catalog::{CatalogSet, CatalogSource, LoadOptions};
use crate::request::Request;
use crate::resolve::{Outcome, Proof, ResolveError, Resolver};
use crate::solver::{GaveUpLine, SolveOptions};

/// `load` with each catalog pulled from an image keyed by its manifest digest in the catalog
/// cache (`LoadOptions::content_keys`): its directory is named by that digest and written
/// once, so its files need not be fingerprinted or hashed.
fn keyed_by_digest(load: &LoadOptions, bindings: &[Binding]) -> LoadOptions {
    let mut load = load.clone();
    for b in bindings {
        if let Some(digest) = b.image.as_ref().and_then(|o| o.digest.as_ref()) {
            load.content_keys
                .entry(b.path.clone())
                .or_insert_with(|| digest.to_string());
        }
    }
    load
}

/// How to resolve a cluster.
///
/// The example on [`crate::resolve_cluster`] uses the defaults.
#[derive(Clone, Debug, Default)]
pub struct ClusterOptions {
    /// The global catalog namespace; None: `olm`, or `openshift-marketplace` when only it
    /// has catalogs.
    pub global_namespace: Option<String>,
    /// Admin and cluster constraints (a request's `constraints` and `cluster`) for every
    /// namespace.
    pub policy: Option<Request>,
    /// How catalogs are loaded.
    pub load: LoadOptions,
    /// The solver's budget.
    pub solve: SolveOptions,
}

/// Every catalog of the state: its CatalogSources, and bindings without one (priority 0).
fn catalogs(state: &ClusterState, bindings: &[Binding]) -> Vec<VisibleCatalog> {
    let mut out: BTreeMap<String, VisibleCatalog> = BTreeMap::new();
    for o in state.of_kind(KindName::CatalogSource) {
        let Kind::CatalogSource(spec) = &o.kind else {
            continue;
        };
        let name = format!("{}/{}", o.namespace(), o.name());
        out.insert(
            name.clone(),
            VisibleCatalog {
                name,
                namespace: o.namespace().to_string(),
                priority: spec.priority,
                path: None,
                image: spec.image.clone(),
                address: spec.address.clone(),
            },
        );
    }
    for b in bindings.iter().filter(|b| !b.is_cluster_scoped()) {
        let name = format!("{}/{}", b.namespace, b.name);
        out.entry(name.clone())
            .or_insert_with(|| VisibleCatalog {
                name,
                namespace: b.namespace.clone(),
                priority: 0,
                path: None,
                image: None,
                address: None,
            })
            .path = Some(b.path.clone());
    }
    out.into_values().collect()
}

/// Plans every namespace with a Subscription.
pub fn plan_cluster(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &ClusterOptions,
) -> Result<Vec<NamespacePlan>, StateError> {
    plan_within(state, bindings, opts, &Meter::unlimited())
}

/// [`plan_cluster`] within the time budget of `meter`.
fn plan_within(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &ClusterOptions,
    meter: &Meter,
) -> Result<Vec<NamespacePlan>, StateError> {
    let all = catalogs(state, bindings);
    let index = namespace::CatalogIndex::new(&all);
    let global = opts
        .global_namespace
        .clone()
        .unwrap_or_else(|| namespace::global_namespace(&all));
    let mut namespaces: Vec<&str> = state
        .of_kind(KindName::Subscription)
        .map(|o| o.namespace())
        .collect();
    namespaces.dedup();
    let mut plans = Vec::with_capacity(namespaces.len());
    for ns in namespaces {
        meter.check_time(Stage::Planning)?;
        let mut plan = namespace::plan(state, ns, &index, &global)?;
        if let Some(p) = &opts.policy {
            plan.request.constraints = p.constraints.clone();
            plan.request.cluster = p.cluster.clone();
        }
        plans.push(plan);
    }
    Ok(plans)
}

/// Resolves every namespace with a Subscription.
///
/// ```
/// use std::path::PathBuf;
/// use deppy::{Binding, ClusterOptions, ClusterState, read_paths, resolve_cluster};
///
/// let dump = read_paths(&[PathBuf::from("catalogs/cluster-example/cluster.yaml")])?;
/// let state = ClusterState::from_dump(dump)?;
/// let catalog = Binding::parse("openshift-marketplace/community-operators=catalogs/community-v4.22")?;
/// let answer = resolve_cluster(&state, &[catalog], &ClusterOptions::default())?;
/// assert!(answer.namespaces.iter().any(|ns| !ns.subscriptions.is_empty()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resolve_cluster(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &ClusterOptions,
) -> Result<ClusterAnswer, StateError> {
    if let Some(b) = bindings
        .iter()
        .find(|b| b.image.as_ref().is_some_and(|o| o.digest.is_none()))
    {
        return Err(StateError::Binding {
            binding: b.describe(),
            message:
                "the image is not pulled yet: pull the state's catalogs first (`pull_catalogs`)"
                    .into(),
        });
    }
    let meter = Meter::new(opts.solve.deadline_from(Instant::now()), None);
    let plans = plan_within(state, bindings, opts, &meter)?;
    let crds = super::crd::ClusterCrds::read(state)?;
    // A bundle's `olm.bundle.object` properties are its manifests, needed only when there
    // are CRDs to check them against: then read back from the catalog cache, where a load
    // through it streams them, or else kept in memory.
    let keyed = keyed_by_digest(&opts.load, bindings);
    let load = LoadOptions {
        keep_bundle_objects: opts.load.keep_bundle_objects
            || (!crds.is_empty() && keyed.cache_dir.is_none()),
        ..keyed.clone()
    };
    let resolvers = load_resolvers(&plans, &load, &opts.solve)?;
    let mut answers = crate::parallel::parallel_map(&plans, |plan| {
        let resolver = resolvers.get(&bound_names(plan));
        resolve_namespace(plan, resolver)
    });
    // A set read from the catalog cache decodes package entries on first use: one that did
    // not decode voids the answers.
    if let Some(why) = resolvers.values().find_map(|r| r.catalogs().cache_damage()) {
        return Err(StateError::Binding {
            binding: "catalog cache".into(),
            message: format!(
                "a catalog cache entry was damaged ({why}); it was removed: run again"
            ),
        });
    }
    let dirs = if crds.is_empty() {
        super::crd::DirManifests::default()
    } else {
        super::crd::DirManifests::read(bound_paths(&plans))?
    };
    let mut sets = BTreeMap::new();
    let mut checked = super::crd::BundleChecks::default();
    for (plan, answer) in plans.iter().zip(answers.iter_mut()) {
        let set = resolvers.get(&bound_names(plan)).map(|r| r.catalogs());
        if let Some(set) = set {
            sets.insert(plan.namespace.clone(), set);
        }
        if answer.status == Status::Resolved {
            super::crd::check_namespace(&crds, &dirs, set, &mut checked, &meter, answer)?;
        }
    }
    let resolved: Vec<&NamespaceAnswer> = answers
        .iter()
        .filter(|a| a.status == Status::Resolved)
        .collect();
    let warnings = super::crd::cluster_warnings(state, &resolved, &sets);
    let extensions = super::v1::resolve_extensions(state, bindings, &keyed, &meter)?;
    let mut answer = ClusterAnswer::new(answers, state.skipped.len());
    answer.cluster_warnings = warnings;
    answer.catalogs = bound_catalogs(bindings);
    Ok(answer.with_extensions(extensions))
}

/// Every bound catalog some namespace sees: its name and path.
fn bound_paths(plans: &[NamespacePlan]) -> impl Iterator<Item = (&str, &std::path::Path)> {
    plans
        .iter()
        .flat_map(|p| &p.catalogs)
        .filter_map(|c| c.path.as_deref().map(|p| (c.name.as_str(), p)))
}

/// The bound catalogs a namespace sees, by name.
fn bound_names(plan: &NamespacePlan) -> Vec<String> {
    plan.catalogs
        .iter()
        .filter(|c| c.path.is_some())
        .map(|c| c.name.clone())
        .collect()
}

/// The bound catalogs a namespace sees, as sources.
fn bound_sources(plan: &NamespacePlan) -> Vec<CatalogSource> {
    plan.catalogs
        .iter()
        .filter_map(|c| {
            Some(CatalogSource {
                name: c.name.clone(),
                path: c.path.clone()?,
                priority: c.priority,
            })
        })
        .collect()
}

/// A resolver for each distinct set of bound catalogs the namespaces see (by their names),
/// the sets loaded from their paths with each catalog read and parsed once for all of them
/// (`CatalogSet::load_sets`; through the catalog cache when `load` names one).
fn load_resolvers(
    plans: &[NamespacePlan],
    load: &LoadOptions,
    solve: &SolveOptions,
) -> Result<BTreeMap<Vec<String>, Resolver>, StateError> {
    let mut keys: Vec<Vec<String>> = Vec::new();
    let mut sets: Vec<Vec<CatalogSource>> = Vec::new();
    for plan in plans.iter().filter(|p| p.blocked.is_none()) {
        let key = bound_names(plan);
        if !keys.contains(&key) {
            keys.push(key);
            sets.push(bound_sources(plan));
        }
    }
    let loaded = CatalogSet::load_sets(&sets, load).map_err(|e| {
        let set = sets.get(e.set).map_or(&[][..], Vec::as_slice);
        // A catalog whose files failed is named with its path, as it was bound; a set that
        // failed as a whole by the names of its catalogs.
        let binding = match e.catalog.and_then(|i| set.get(i)) {
            Some(c) => format!("{}={}", c.name, c.path.display()),
            None => set
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        };
        StateError::Binding {
            binding,
            message: e.error.to_string(),
        }
    })?;
    Ok(keys
        .into_iter()
        .zip(loaded)
        .map(|(key, set)| {
            let resolver = Resolver::new(Arc::new(set)).with_options(solve.clone());
            (key, resolver)
        })
        .collect())
}

/// One namespace's answer, as data (the reporter words it afterwards).
fn resolve_namespace(plan: &NamespacePlan, resolver: Option<&Resolver>) -> NamespaceAnswer {
    let mut notes = plan.notes.clone();
    let blocked = |b: Blocked, notes: Vec<Note>| {
        answer::unresolved(plan, NamespaceOutcome::Blocked(b), notes)
    };
    if let Some(b) = &plan.blocked {
        return blocked(b.clone(), notes);
    }
    let Some(resolver) = resolver else {
        return blocked(Blocked::BrokenCatalog("no catalog loaded".into()), notes);
    };
    let precheck = super::precheck::subscriptions(plan, resolver.catalogs());
    if !precheck.is_empty() {
        return answer::unresolved(plan, NamespaceOutcome::Refused(precheck), notes);
    }
    match resolver.resolve(&plan.request) {
        Ok((_, Outcome::Resolved(a))) => {
            notes.extend(a.warnings.iter().cloned().map(Note::Deprecated));
            answer::resolved(plan, &a, notes)
        }
        Ok((universe, Outcome::Unsatisfiable(failure))) => {
            notes.extend(super::precheck::left_over(plan, resolver.catalogs()));
            let proof = Proof {
                failure,
                universe,
                request: Arc::new(plan.request.clone()),
            };
            answer::unresolved(
                plan,
                NamespaceOutcome::Unsatisfiable(Box::new(proof)),
                notes,
            )
        }
        Err(ResolveError::GaveUp {
            conflicts,
            exhausted,
            proven,
            partial,
        }) => {
            let gave_up = GaveUp {
                line: GaveUpLine {
                    conflicts,
                    exhausted,
                    proven,
                },
                partial: Arc::new(partial),
            };
            answer::unresolved(plan, NamespaceOutcome::GaveUp(gave_up), notes)
        }
        Err(e) => blocked(Blocked::BrokenCatalog(e.to_string()), notes),
    }
}

/// The answer's `catalogs`: one per binding, by namespace and name.
fn bound_catalogs(bindings: &[Binding]) -> Vec<CatalogAnswer> {
    let mut out: Vec<CatalogAnswer> = bindings
        .iter()
        .map(|b| CatalogAnswer {
            namespace: (!b.namespace.is_empty()).then(|| b.namespace.clone()),
            name: b.name.clone(),
            source: if b.image.is_some() {
                CatalogOrigin::Image
            } else {
                CatalogOrigin::Path
            },
            image: b.image.as_ref().map(|o| o.image_text()),
            digest: b
                .image
                .as_ref()
                .and_then(|o| o.digest.as_ref().map(ToString::to_string)),
            pinned_by: b.image.as_ref().and_then(|o| o.pinned_by.clone()),
        })
        .collect();
    out.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    out.dedup_by(|a, b| a.namespace == b.namespace && a.name == b.name);
    out
}
