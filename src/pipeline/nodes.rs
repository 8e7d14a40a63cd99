//! What each node type does with its inputs.

use std::sync::Arc;

use super::config::Node;
use super::data::{CatalogData, Data, InstalledData, OutcomeData, VariablesData};
use super::kind::NodeType;
use super::params::{Mutation, Params, StaticAction, StaticVariable};
use super::select::select;
use super::{NodeError, Sources};
use crate::catalog::{CatalogSet, CatalogSource, FileCache, LoadOptions, SourceFile, read_catalog};
use crate::constraint::Cluster;
use crate::request::Request;
use crate::resolve::{
    AdjustmentWarning, Adjustments, Demand, Model, ON_DEMAND_FROM, Prepared, ResolveError, Rule,
    RuleEffect, RuleOrigin, StaticEffect, admin_adjustments, cluster_adjustments,
};
use crate::solver::SolveOptions;

/// State a node keeps between executions of a long-lived pipeline (`deppy watch`).
#[derive(Default)]
pub(crate) struct NodeCache {
    /// `load-catalogs`: keep parse results between executions (off: a one-shot run neither
    /// hashes files nor keeps copies of their records).
    pub(crate) keep_files: bool,
    /// `load-catalogs`: parse results of files seen before.
    files: FileCache,
    /// `catalog`, `catalogs`: emit catalogs unread (nothing but the load node needs their
    /// texts: no trace, no custom node, no parse cache kept).
    pub(crate) unread_catalogs: bool,
    /// `datalog`: channel orders of the last catalog set.
    prepared: Option<Arc<Prepared>>,
}

/// Runs one node.
pub(crate) fn run(
    node: &Node,
    cache: &mut NodeCache,
    inputs: &[Data],
    creators: &[String],
    sources: &Sources,
    options: &SolveOptions,
    load_options: &LoadOptions,
) -> Result<Vec<Data>, NodeError> {
    match node.node_type {
        NodeType::Catalogs => sources
            .catalogs
            .iter()
            .map(|s| read(s, cache.unread_catalogs).map(Data::Catalog))
            .collect(),
        NodeType::Catalog => match &node.params {
            Params::Catalog(c) => {
                let source = CatalogSource {
                    name: c.name.clone(),
                    path: c.path.clone().into(),
                    priority: c.priority,
                };
                Ok(vec![Data::Catalog(read(&source, cache.unread_catalogs)?)])
            }
            _ => Ok(Vec::new()),
        },
        NodeType::Requirements => Ok(vec![Data::Requirements(Arc::new(
            sources.request.require.clone(),
        ))]),
        NodeType::Installed => Ok(vec![Data::Installed(Arc::new(InstalledData {
            installed: sources.request.installed.clone(),
            keep_installed: sources.request.keep_installed,
        }))]),
        NodeType::Cluster => Ok(vec![Data::Cluster(Arc::new(
            sources.request.cluster.clone().unwrap_or_default(),
        ))]),
        NodeType::Constraints => Ok(vec![Data::Constraints(Arc::new(
            sources.request.constraints.clone(),
        ))]),
        NodeType::StaticVariables => match &node.params {
            Params::StaticVariables(v) => Ok(vec![Data::StaticVariables(Arc::new(v.clone()))]),
            _ => Ok(Vec::new()),
        },
        NodeType::LoadCatalogs => load(cache, inputs, load_options),
        NodeType::Mutate => mutate(node, inputs),
        NodeType::Filter => filter(node, inputs),
        NodeType::AdminConstraints => admin(inputs, options),
        NodeType::ClusterConstraints => runtime(inputs, options),
        NodeType::Datalog => datalog(node, cache, inputs, creators, options),
        NodeType::GlobalConstraints => Ok(variables(inputs)
            .map(|v| Data::GlobalConstraints(Arc::new(v.model.global_constraints())))
            .collect()),
        NodeType::Solver => solve(inputs, options),
        NodeType::Output => Ok(Vec::new()),
        NodeType::Custom => custom(node, inputs),
    }
}

/// A caller's node: its function on its inputs and settings.
fn custom(node: &Node, inputs: &[Data]) -> Result<Vec<Data>, NodeError> {
    let (Some(t), Params::Custom(params)) = (&node.custom, &node.params) else {
        return Err(NodeError::Input(format!(
            "node {:?} has no definition of its custom type",
            node.name
        )));
    };
    let context = super::custom::NodeContext {
        node: &node.name,
        params,
    };
    t.call(&context, inputs).map_err(NodeError::Custom)
}

/// A catalog's data: its files read, or (`unread`) only its path checked.
fn read(source: &CatalogSource, unread: bool) -> Result<Arc<CatalogData>, NodeError> {
    let files = if unread {
        crate::catalog::check_source(source).map_err(|e| NodeError::Load(Box::new(e)))?;
        Vec::new()
    } else {
        read_catalog(source).map_err(|e| NodeError::Load(Box::new(e)))?
    };
    Ok(Arc::new(CatalogData {
        name: source.name.clone(),
        path: source.path.display().to_string(),
        priority: source.priority,
        files,
        unread,
    }))
}

fn load(
    cache: &mut NodeCache,
    inputs: &[Data],
    load_options: &LoadOptions,
) -> Result<Vec<Data>, NodeError> {
    // The files stay where they are (shared with the trace and other nodes): borrowed, not
    // copied.
    let catalogs: Vec<(CatalogSource, &[SourceFile], bool)> = inputs
        .iter()
        .filter_map(|d| match d {
            Data::Catalog(c) => Some((
                CatalogSource {
                    name: c.name.clone(),
                    path: c.path.clone().into(),
                    priority: c.priority,
                },
                c.files.as_slice(),
                c.unread,
            )),
            _ => None,
        })
        .collect();
    if catalogs.is_empty() {
        return Err(NodeError::Input(
            "no catalog given: name one with --catalog PATH or in the request's catalogs".into(),
        ));
    }
    for (i, (s, _, _)) in catalogs.iter().enumerate() {
        if catalogs.iter().take(i).any(|(o, _, _)| o.name == s.name) {
            return Err(NodeError::Input(format!(
                "two catalogs are named {:?}; give one a name in the request file",
                s.name
            )));
        }
    }
    let load_error = |e| NodeError::Load(Box::new(e));
    if catalogs.iter().all(|(_, _, unread)| *unread) {
        // Read from their paths, a file at a time (and through the cache's index when it
        // holds these catalogs).
        let sources: Vec<CatalogSource> = catalogs.into_iter().map(|(s, _, _)| s).collect();
        let set = CatalogSet::load(&sources, load_options).map_err(load_error)?;
        return Ok(vec![Data::CatalogSet(Arc::new(set))]);
    }
    let mut read_now: Vec<Vec<SourceFile>> = Vec::new();
    for (s, _, unread) in &catalogs {
        read_now.push(match unread {
            true => read_catalog(s).map_err(load_error)?,
            false => Vec::new(),
        });
    }
    let borrowed: Vec<(&CatalogSource, &[SourceFile])> = catalogs
        .iter()
        .zip(&read_now)
        .map(|((s, f, unread), now)| (s, if *unread { now.as_slice() } else { *f }))
        .collect();
    let set = if cache.keep_files {
        CatalogSet::load_file_slices_cached(&borrowed, load_options, &mut cache.files)
    } else {
        CatalogSet::load_file_slices(&borrowed, load_options)
    }
    .map_err(|e| NodeError::Load(Box::new(e)))?;
    Ok(vec![Data::CatalogSet(Arc::new(set))])
}

fn mutate(node: &Node, inputs: &[Data]) -> Result<Vec<Data>, NodeError> {
    let Params::Mutate(mutations) = &node.params else {
        return Ok(inputs.to_vec());
    };
    inputs
        .iter()
        .map(|d| match d {
            Data::Catalog(c) => {
                let mut c = (**c).clone();
                for m in mutations {
                    match m {
                        Mutation::SetPriority { catalog, priority } if *catalog == c.name => {
                            c.priority = *priority;
                        }
                        Mutation::SetPriority { .. } => {}
                        Mutation::AddProperty { .. } => {
                            return Err(NodeError::Input(
                                "addProperty works on a catalog set: put this node after load-catalogs".into(),
                            ));
                        }
                    }
                }
                Ok(Data::Catalog(Arc::new(c)))
            }
            Data::CatalogSet(s) => {
                let mut s = (**s).clone();
                for m in mutations {
                    apply(&mut s, m)?;
                }
                Ok(Data::CatalogSet(Arc::new(s)))
            }
            other => Ok(other.clone()),
        })
        .collect()
}

fn apply(set: &mut CatalogSet, m: &Mutation) -> Result<(), NodeError> {
    match m {
        Mutation::SetPriority { catalog, priority } => {
            if !set.set_priority(catalog, *priority) {
                return Err(NodeError::Input(format!(
                    "setPriority: no catalog named {catalog:?}"
                )));
            }
        }
        Mutation::AddProperty {
            select: sel,
            property,
        } => {
            let chosen = select(set, sel);
            if chosen.is_empty() {
                return Err(NodeError::Input(format!(
                    "addProperty: no bundle matches {}",
                    sel.describe()
                )));
            }
            for b in chosen {
                set.add_property(b, &property.kind, &property.value)
                    .map_err(|e| NodeError::Input(format!("addProperty {}: {e}", property.kind)))?;
            }
        }
    }
    Ok(())
}

fn installed_of(inputs: &[Data]) -> Vec<crate::request::InstalledBundle> {
    inputs
        .iter()
        .filter_map(|d| match d {
            Data::Installed(i) => Some(i.installed.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn cluster_of(inputs: &[Data]) -> Result<Option<Cluster>, NodeError> {
    let mut out = None;
    for d in inputs {
        if let Data::Cluster(v) = d {
            let request = Request {
                cluster: Some((**v).clone()),
                ..Request::default()
            };
            if let Some(c) = request
                .cluster_node()
                .map_err(|e| NodeError::Input(e.to_string()))?
            {
                out = Some(c);
            }
        }
    }
    Ok(out)
}

/// Runs `f` (which evaluates rules) within the time budget of `options`.
fn timed<R>(options: &SolveOptions, f: impl FnOnce() -> R) -> Result<R, NodeError> {
    let deadline = options.deadline_from(std::time::Instant::now());
    match crate::constraint::within_deadline(deadline, f) {
        (r, false) => Ok(r),
        (_, true) => Err(NodeError::Resolve(Box::new(
            crate::resolve::ResolveError::out_of_time(),
        ))),
    }
}

fn admin(inputs: &[Data], options: &SolveOptions) -> Result<Vec<Data>, NodeError> {
    let set = catalog_set(inputs)?;
    let values: Vec<serde_json::Value> = inputs
        .iter()
        .filter_map(|d| match d {
            Data::Constraints(c) => Some(c.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect();
    let request = Request {
        constraints: values,
        ..Request::default()
    };
    let entries = request
        .admin_constraints()
        .map_err(|e| NodeError::Input(e.to_string()))?;
    let installed = installed_of(inputs);
    let adjust = timed(options, || admin_adjustments(set, &entries, &installed))?;
    Ok(vec![Data::Adjustments(Arc::new(adjust))])
}

fn runtime(inputs: &[Data], options: &SolveOptions) -> Result<Vec<Data>, NodeError> {
    let set = catalog_set(inputs)?;
    let adjust = match cluster_of(inputs)? {
        Some(c) => {
            let installed = installed_of(inputs);
            timed(options, || cluster_adjustments(set, &c, &installed))?
        }
        None => Adjustments::default(),
    };
    Ok(vec![Data::Adjustments(Arc::new(adjust))])
}

fn catalog_set(inputs: &[Data]) -> Result<&Arc<CatalogSet>, NodeError> {
    let mut sets = inputs.iter().filter_map(|d| match d {
        Data::CatalogSet(s) => Some(s),
        _ => None,
    });
    let first = sets
        .next()
        .ok_or_else(|| NodeError::Input("no catalog set arrived".into()))?;
    if sets.next().is_some() {
        return Err(NodeError::Input(
            "takes one catalog set, got several".into(),
        ));
    }
    Ok(first)
}

fn filter(node: &Node, inputs: &[Data]) -> Result<Vec<Data>, NodeError> {
    let Params::Filter(sel) = &node.params else {
        return Ok(Vec::new());
    };
    let set = catalog_set(inputs)?;
    let adjust = Adjustments {
        rules: vec![Rule {
            origin: RuleOrigin::PipelineNode(node.name.clone()),
            effect: RuleEffect::FilterDrops {
                selection: sel.describe(),
            },
        }],
        removed: select(set, sel).into_iter().map(|b| (b, 0)).collect(),
        ..Adjustments::default()
    };
    Ok(vec![Data::Adjustments(Arc::new(adjust))])
}

/// Static variables as adjustments: bundles named, checked against the catalog set.
fn statics(
    set: &CatalogSet,
    node: &str,
    vars: &[StaticVariable],
    adjust: &mut Adjustments,
    warnings: &mut Vec<AdjustmentWarning>,
) -> Result<(), NodeError> {
    for (i, v) in vars.iter().enumerate() {
        let chosen = select(set, &v.select);
        let what = v.select.describe();
        let rule = adjust.rules.len() as u32;
        let action = match v.action {
            StaticAction::Require => StaticEffect::Require,
            StaticAction::Prohibit => StaticEffect::Prohibit,
            StaticAction::Prefer => StaticEffect::Prefer,
        };
        adjust.rules.push(Rule {
            origin: RuleOrigin::PipelineNode(node.to_string()),
            effect: RuleEffect::StaticVariable {
                index: i,
                action,
                selection: what.clone(),
            },
        });
        match (v.action, chosen.as_slice()) {
            (StaticAction::Require, [one]) => adjust.required.push((*one, rule)),
            (StaticAction::Require, found) => {
                return Err(NodeError::Input(format!(
                    "variables[{i}]: a required static variable must select exactly one bundle; {what} selects {}",
                    found.len()
                )));
            }
            (_, []) => warnings.push(AdjustmentWarning::StaticSelectsNothing {
                node: node.to_string(),
                index: i,
                what: what.clone(),
            }),
            (StaticAction::Prohibit, found) => {
                adjust.removed.extend(found.iter().map(|b| (*b, rule)));
            }
            (StaticAction::Prefer, found) => adjust.preferred.extend(found.iter().copied()),
        }
    }
    Ok(())
}

fn datalog(
    node: &Node,
    cache: &mut NodeCache,
    inputs: &[Data],
    creators: &[String],
    options: &SolveOptions,
) -> Result<Vec<Data>, NodeError> {
    let set = catalog_set(inputs)?;
    let prepared = match &cache.prepared {
        Some(p) if Arc::ptr_eq(p.catalogs(), set) => p.clone(),
        _ => {
            let p = Arc::new(Prepared::new(set.clone()));
            cache.prepared = Some(p.clone());
            p
        }
    };
    let mut request = Request::default();
    let mut adjust = Adjustments::default();
    let mut warnings: Vec<String> = set.warnings.iter().map(|w| w.to_string()).collect();
    warnings.extend(prepared.channel_warnings());
    for d in inputs {
        match d {
            Data::Requirements(r) => request.require.extend(r.iter().cloned()),
            Data::Installed(i) => {
                request.installed.extend(i.installed.iter().cloned());
                request.keep_installed |= i.keep_installed;
            }
            Data::Adjustments(a) => adjust.extend(a),
            _ => {}
        }
    }
    let cluster = cluster_of(inputs)?;
    request.cluster = inputs.iter().find_map(|d| match d {
        Data::Cluster(v) if !v.is_null() => Some((**v).clone()),
        _ => None,
    });
    for (node, vars) in static_inputs(inputs, creators) {
        let mut own = Adjustments::default();
        let mut notes = Vec::new();
        statics(set, &node, &vars, &mut own, &mut notes)?;
        own.warnings = notes;
        adjust.extend(&own);
    }
    if request.require.is_empty() && request.installed.is_empty() {
        return Err(NodeError::Input(
            "nothing to resolve: give --require PKG or a request file with require:".into(),
        ));
    }
    let model = derive(node, &prepared, request, &adjust, cluster.as_ref(), options)
        .map_err(|e| NodeError::Resolve(Box::new(e)))?;
    Ok(vec![Data::Variables(Arc::new(VariablesData {
        model,
        warnings,
    }))])
}

/// The `datalog` node's model: derived on the search's demand from `onDemandFrom` bundles
/// reached (the closed or refuted relaxation's model, see
/// [`Prepared::derive_on_demand_from`]), else, or when a budget runs out on demand, by the
/// whole program. As the library's resolver: never
/// on demand under a conflict budget (a relaxation may spend a different number of
/// conflicts than the whole problem).
fn derive(
    node: &Node,
    prepared: &Prepared,
    request: Request,
    adjust: &Adjustments,
    cluster: Option<&Cluster>,
    options: &SolveOptions,
) -> Result<Model, ResolveError> {
    let request = Arc::new(request);
    let mut options = options.clone();
    options.deadline = options.deadline_from(std::time::Instant::now());
    options.timeout = None;
    if options.max_conflicts.is_some() {
        return prepared.derive_within(request, adjust, cluster, options.deadline);
    }
    let from = match node.params {
        Params::Datalog {
            on_demand_from: Some(n),
        } => n,
        _ => ON_DEMAND_FROM,
    };
    let mut stats = Demand::default();
    let derived =
        prepared.derive_on_demand_from(request, adjust, cluster, &options, from, &mut stats)?;
    Ok(derived.into_model())
}

/// Static variables with the node that produced them (recorded in the data itself).
fn static_inputs(inputs: &[Data], creators: &[String]) -> Vec<(String, Vec<StaticVariable>)> {
    inputs
        .iter()
        .zip(creators)
        .filter_map(|(d, c)| match d {
            Data::StaticVariables(v) => Some((c.clone(), (**v).clone())),
            _ => None,
        })
        .collect()
}

fn variables(inputs: &[Data]) -> impl Iterator<Item = &Arc<VariablesData>> {
    inputs.iter().filter_map(|d| match d {
        Data::Variables(v) => Some(v),
        _ => None,
    })
}

fn solve(inputs: &[Data], options: &SolveOptions) -> Result<Vec<Data>, NodeError> {
    let mut vars = variables(inputs);
    let v = vars
        .next()
        .ok_or_else(|| NodeError::Input("no variables arrived".into()))?;
    if vars.next().is_some() {
        return Err(NodeError::Input(
            "takes one set of variables, got several".into(),
        ));
    }
    let global: Vec<_> = inputs
        .iter()
        .filter_map(|d| match d {
            Data::GlobalConstraints(g) => Some(g.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect();
    let outcome = v
        .model
        .solve(&global, options)
        .map_err(|e| NodeError::Resolve(Box::new(e)))?;
    Ok(vec![Data::Outcome(Arc::new(OutcomeData {
        variables: v.clone(),
        outcome,
    }))])
}
