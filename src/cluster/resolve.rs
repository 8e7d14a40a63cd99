//! Resolving a cluster: each namespace with Subscriptions on its own (in parallel), against
//! the catalogs it sees, loaded once per distinct set of catalogs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use super::answer::{self, ClusterAnswer, NamespaceAnswer, Status};
use super::budget::{Meter, Stage};
use super::error::StateError;
use super::namespace::{self, NamespacePlan, VisibleCatalog};
use super::note::{Blocked, Note};
use super::object::{Kind, KindName};
use super::state::ClusterState;
use crate::catalog::{CatalogSet, CatalogSource, FileCache, LoadOptions, SourceFile};
use crate::explain::Detail;
use crate::request::Request;
use crate::resolve::{Outcome, ResolveError, Resolver};
use crate::solver::SolveOptions;

/// `--catalog NAMESPACE/NAME=PATH`: the contents of a CatalogSource.
///
/// The example on [`crate::resolve_cluster`] parses one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The CatalogSource's namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// An FBC file or directory, or bundle directories.
    pub path: PathBuf,
}

impl Binding {
    /// Parses `NAMESPACE/NAME=PATH` (a CatalogSource) or `NAME=PATH` (an OLM v1
    /// ClusterCatalog, cluster-scoped: `namespace` is empty).
    pub fn parse(spec: &str) -> Result<Binding, StateError> {
        let bad = |m: &str| StateError::Binding {
            binding: spec.to_string(),
            message: m.to_string(),
        };
        let (name, path) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected NAMESPACE/NAME=PATH or NAME=PATH"))?;
        let (ns, n) = name.split_once('/').unwrap_or(("", name));
        if (name.contains('/') && ns.is_empty())
            || n.is_empty()
            || n.contains('/')
            || path.is_empty()
        {
            return Err(bad(
                "expected NAMESPACE/NAME=PATH or NAME=PATH, each part non-empty",
            ));
        }
        Ok(Binding {
            namespace: ns.to_string(),
            name: n.to_string(),
            path: PathBuf::from(path),
        })
    }

    /// Binds a cluster-scoped ClusterCatalog (`NAME=PATH`) rather than a CatalogSource.
    pub(crate) fn is_cluster_scoped(&self) -> bool {
        self.namespace.is_empty()
    }
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
    /// How much of an unsatisfiable namespace's proof to word.
    pub detail: Detail,
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
    let meter = Meter::new(opts.solve.deadline_from(Instant::now()), None);
    let plans = plan_within(state, bindings, opts, &meter)?;
    let crds = super::crd::ClusterCrds::read(state)?;
    // Without the catalog cache, every bound catalog's files are read once, and each file
    // parsed once, for every namespace (`cache`). With it, each distinct set of catalogs is
    // loaded from their paths through the cache (its stored set, or the files' entries).
    let files = match opts.load.cache_dir {
        Some(_) => BTreeMap::new(),
        None => read_bound(&plans)?,
    };
    let mut cache = FileCache::new();
    // A bundle's `olm.bundle.object` properties are its manifests: kept only when there
    // are CRDs to check them against.
    let load = LoadOptions {
        keep_heavy_properties: opts.load.keep_heavy_properties || !crds.is_empty(),
        ..opts.load.clone()
    };
    let mut resolvers: BTreeMap<Vec<String>, Resolver> = BTreeMap::new();
    for plan in plans.iter().filter(|p| p.blocked.is_none()) {
        let key = bound_names(plan);
        if resolvers.contains_key(&key) {
            continue;
        }
        let set = load_set(plan, &files, &load, &mut cache)?;
        resolvers.insert(
            key,
            Resolver::new(Arc::new(set)).with_options(opts.solve.clone()),
        );
    }
    let mut answers = crate::parallel::parallel_map(&plans, |plan| {
        let resolver = resolvers.get(&bound_names(plan));
        resolve_namespace(plan, resolver, opts.detail)
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
    let resolved: Vec<NamespaceAnswer> = answers
        .iter()
        .filter(|a| a.status == Status::Resolved)
        .cloned()
        .collect();
    let warnings = super::crd::cluster_warnings(state, &resolved, &sets);
    let extensions = super::v1::resolve_extensions(state, bindings, &opts.load, &meter)?;
    let mut answer = ClusterAnswer::new(answers, state.skipped.len());
    answer.cluster_warnings = warnings;
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

/// The files of every bound catalog some namespace sees, read once.
fn read_bound(plans: &[NamespacePlan]) -> Result<BTreeMap<String, Vec<SourceFile>>, StateError> {
    let mut out = BTreeMap::new();
    for c in plans.iter().flat_map(|p| &p.catalogs) {
        let Some(path) = &c.path else { continue };
        if out.contains_key(&c.name) {
            continue;
        }
        let source = CatalogSource {
            name: c.name.clone(),
            path: path.clone(),
            priority: c.priority,
        };
        let files = crate::catalog::read_catalog(&source).map_err(|e| StateError::Binding {
            binding: format!("{}={}", c.name, path.display()),
            message: e.to_string(),
        })?;
        out.insert(c.name.clone(), files);
    }
    Ok(out)
}

fn load_set(
    plan: &NamespacePlan,
    files: &BTreeMap<String, Vec<SourceFile>>,
    opts: &LoadOptions,
    cache: &mut FileCache,
) -> Result<CatalogSet, StateError> {
    let mut sources: Vec<(CatalogSource, &[SourceFile])> = Vec::new();
    for c in &plan.catalogs {
        let (Some(path), Some(f)) = (&c.path, files.get(&c.name)) else {
            continue;
        };
        let source = CatalogSource {
            name: c.name.clone(),
            path: path.clone(),
            priority: c.priority,
        };
        sources.push((source, f.as_slice()));
    }
    let borrowed: Vec<(&CatalogSource, &[SourceFile])> =
        sources.iter().map(|(s, f)| (s, *f)).collect();
    let loaded = match opts.cache_dir {
        Some(_) => {
            let paths: Vec<CatalogSource> = plan
                .catalogs
                .iter()
                .filter_map(|c| {
                    Some(CatalogSource {
                        name: c.name.clone(),
                        path: c.path.clone()?,
                        priority: c.priority,
                    })
                })
                .collect();
            CatalogSet::load(&paths, opts)
        }
        None => CatalogSet::load_file_slices_cached(&borrowed, opts, cache),
    };
    loaded.map_err(|e| StateError::Binding {
        binding: plan
            .catalogs
            .iter()
            .filter(|c| c.path.is_some())
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        message: e.to_string(),
    })
}

fn base(plan: &NamespacePlan, status: Status) -> NamespaceAnswer {
    NamespaceAnswer {
        namespace: plan.namespace.clone(),
        status,
        global_namespace: plan.global_namespace.clone(),
        subscriptions: answer::stuck(&plan.subscriptions),
        selected: Vec::new(),
        warnings: Vec::new(),
        explanation: None,
        reason: None,
        crd_checks: Vec::new(),
        crd_unchecked: Vec::new(),
    }
}

/// One namespace's answer.
fn resolve_namespace(
    plan: &NamespacePlan,
    resolver: Option<&Resolver>,
    detail: Detail,
) -> NamespaceAnswer {
    let words = crate::explain::cluster::Words::new(plan);
    let mut notes = plan.notes.clone();
    let blocked = |b: &Blocked, notes: &[Note]| NamespaceAnswer {
        reason: Some(words.blocked(b)),
        warnings: words.notes(notes, false),
        ..base(plan, Status::Blocked)
    };
    if let Some(b) = &plan.blocked {
        return blocked(b, &notes);
    }
    let Some(resolver) = resolver else {
        return blocked(&Blocked::BrokenCatalog("no catalog loaded".into()), &notes);
    };
    let precheck = super::precheck::subscriptions(plan, resolver.catalogs());
    if !precheck.is_empty() {
        return NamespaceAnswer {
            explanation: Some(words.prechecks(&precheck)),
            warnings: words.notes(&notes, false),
            ..base(plan, Status::Unsatisfiable)
        };
    }
    match resolver.resolve(&plan.request) {
        Ok((_, Outcome::Resolved(a))) => {
            notes.extend(a.warnings.iter().cloned().map(Note::Resolution));
            let (subscriptions, selected) = answer::resolved(plan, &a);
            NamespaceAnswer {
                subscriptions,
                selected,
                warnings: words.notes(&notes, false),
                ..base(plan, Status::Resolved)
            }
        }
        Ok((universe, Outcome::Unsatisfiable(failure))) => {
            notes.extend(super::precheck::left_over(plan, resolver.catalogs()));
            let proof = crate::explain::explain_failure(&failure, &universe, &plan.request, detail);
            NamespaceAnswer {
                explanation: Some(words.unsatisfiable(&proof, &notes)),
                warnings: words.notes(&notes, true),
                ..base(plan, Status::Unsatisfiable)
            }
        }
        Err(ResolveError::GaveUp {
            conflicts,
            exhausted,
            proven,
            partial,
        }) => NamespaceAnswer {
            explanation: Some(
                words.gave_up(
                    &crate::solver::GaveUpLine {
                        conflicts,
                        exhausted,
                        proven,
                    }
                    .to_string(),
                    &partial.to_string(),
                ),
            ),
            warnings: words.notes(&notes, false),
            ..base(plan, Status::GaveUp)
        },
        Err(e) => blocked(&Blocked::BrokenCatalog(e.to_string()), &notes),
    }
}
