//! The resolver as a pipeline (`resolution-pipelines.md`): a DAG of producers, processors
//! and consumers exchanging [`Event`]s. The default pipeline is what `deppy resolve` runs;
//! `--pipeline FILE` swaps in another configuration, `--trace FILE` records every event and
//! `deppy replay` re-runs an execution from its recorded source events.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use deppy::advanced::catalog::CatalogSource;
//! use deppy::pipeline::{Pipeline, PipelineConfig, Sources};
//! use deppy::advanced::request::{Request, Requirement};
//! use deppy::advanced::resolve::Outcome;
//!
//! let mut pipeline = Pipeline::new(PipelineConfig::default_config())?;
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let log = seen.clone();
//! pipeline.subscribe(move |e| log.lock().unwrap().push(e.header.receiver.clone()));
//! let sources = Sources {
//!     catalogs: vec![CatalogSource { name: "odf".into(), path: "catalogs/odf-dev".into(), priority: 0 }],
//!     request: Request {
//!         require: vec![Requirement::from_spec("ocs-client-operator")?],
//!         ..Request::default()
//!     },
//! };
//! let run = pipeline.run(&sources);
//! let resolution = run.result.map_err(|f| f.to_string())?;
//! match &resolution.outcome {
//!     Outcome::Resolved(answer) => assert!(answer.selected.iter().any(|s| s.package == "ocs-client-operator")),
//!     Outcome::Unsatisfiable(_) => unreachable!(),
//! }
//! assert!(seen.lock().unwrap().iter().any(|r| r == "solver"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod custom;
mod data;
mod event;
mod kind;
mod nodes;
mod params;
mod select;
pub mod trace;
pub mod watch;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use config::{ConfigError, Node, NodeConfig, PipelineConfig};
pub use custom::{CustomNodeType, NodeContext, NodeFn};
pub use data::{CatalogData, Data, InstalledData, OutcomeData, VariablesData};
pub use event::{Body, Event, Header, NodeState};
pub use kind::{DataKind, NodeType, Role};
pub use params::{
    ExtraCatalog, Mutation, Params, PropertySpec, Selector, StaticAction, StaticVariable,
};

use crate::catalog::{CatalogSource, LoadError};
use crate::request::Request;
use crate::resolve::{Outcome, ResolveError, Universe};
use crate::solver::SolveOptions;
use nodes::NodeCache;

/// What producers read: the catalogs to load and the request.
///
/// The example of this module fills one.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Catalogs for the `catalogs` producer.
    pub catalogs: Vec<CatalogSource>,
    /// The request (its `catalogs` are not read: give them resolved in `catalogs`).
    pub request: Request,
}

/// Why a node failed.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// A catalog could not be read or loaded.
    #[error(transparent)]
    Load(Box<LoadError>),
    /// The request could not be resolved (bad request, broken channel, budget).
    #[error(transparent)]
    Resolve(Box<ResolveError>),
    /// The node's inputs or settings do not fit the data.
    #[error("{0}")]
    Input(String),
    /// A caller's node ([`CustomNodeType`]) failed, with its message.
    #[error("{0}")]
    Custom(String),
}

/// A failed execution: the node, its error, and every node's state.
#[derive(Debug)]
pub struct Failure {
    /// The node that failed.
    pub node: String,
    /// Its error.
    pub error: NodeError,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)
    }
}

/// What the `output` node collected.
pub struct Resolution {
    /// The variables the outcome was solved from (universe and request).
    pub variables: Arc<VariablesData>,
    /// The outcome.
    pub outcome: Outcome,
}

impl Resolution {
    /// The universe that words the outcome.
    pub fn universe(&self) -> &Universe {
        &self.variables.model.universe
    }

    /// The request as the pipeline saw it.
    pub fn request(&self) -> &Request {
        &self.variables.model.request
    }

    /// Loader, channel and pipeline warnings.
    pub fn warnings(&self) -> &[String] {
        &self.variables.warnings
    }
}

/// One execution's result.
pub struct Run {
    /// Execution id.
    pub execution: String,
    /// Every node's final state, in run order.
    pub states: Vec<(String, NodeState)>,
    /// The resolution, or the failed node.
    pub result: Result<Resolution, Failure>,
}

type Subscriber = Box<dyn FnMut(&Event) + Send>;

/// A validated pipeline, ready to run many times.
///
/// The module documentation runs the default pipeline with a subscriber;
/// `examples/pipeline.rs` runs a configuration read from a file and `examples/custom_node.rs`
/// one with a node type written in Rust.
pub struct Pipeline {
    config: PipelineConfig,
    id: String,
    nodes: Vec<Node>,
    caches: Vec<NodeCache>,
    subscribers: Vec<Subscriber>,
    options: SolveOptions,
    load: crate::catalog::LoadOptions,
    metadata: BTreeMap<String, String>,
}

impl Pipeline {
    /// Validates `config`.
    pub fn new(config: PipelineConfig) -> Result<Pipeline, ConfigError> {
        Pipeline::with_node_types(config, Vec::new())
    }

    /// Validates `config`, where a node's `type` may also name one of `types` (see
    /// [`CustomNodeType`]; `examples/custom_node.rs`).
    pub fn with_node_types(
        config: PipelineConfig,
        types: Vec<CustomNodeType>,
    ) -> Result<Pipeline, ConfigError> {
        let nodes = config.validate_with(&types)?;
        let caches = nodes.iter().map(|_| NodeCache::default()).collect();
        Ok(Pipeline {
            id: config.id(),
            config,
            nodes,
            caches,
            subscribers: Vec::new(),
            options: SolveOptions::default(),
            load: crate::catalog::LoadOptions::default(),
            metadata: BTreeMap::new(),
        })
    }

    /// The pipeline id (changes with any change to the configuration).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The configuration.
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// The nodes, in run order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Limits the solver.
    pub fn set_options(&mut self, options: SolveOptions) {
        self.options = options;
    }

    /// How the load node reads catalogs (the catalog cache, heavy properties).
    pub fn set_load_options(&mut self, load: crate::catalog::LoadOptions) {
        self.load = load;
    }

    /// Keeps each catalog file's parsed records between executions, so that a later run
    /// parses only the files whose contents changed (`deppy watch`). Off by default: a run
    /// then parses every file once and keeps nothing (no content hashes, no copies).
    pub fn keep_parsed_files(&mut self, on: bool) {
        for c in &mut self.caches {
            c.keep_files = on;
        }
    }

    /// Adds metadata to every event's header.
    pub fn set_metadata(&mut self, key: &str, value: &str) {
        self.metadata.insert(key.to_string(), value.to_string());
    }

    /// Calls `f` with every event, as it is sent (the debug channel).
    pub fn subscribe(&mut self, f: impl FnMut(&Event) + Send + 'static) {
        self.subscribers.push(Box::new(f));
    }

    /// Runs one execution; producers read `sources`.
    pub fn run(&mut self, sources: &Sources) -> Run {
        self.execute(sources, None)
    }

    /// Runs one execution whose producers emit `recorded` data (by node name, in output
    /// order) instead of reading anything.
    pub fn replay(&mut self, recorded: &BTreeMap<String, Vec<Data>>) -> Run {
        self.execute(&Sources::default(), Some(recorded))
    }

    // Invariant for indexing: `states`, `inbox` and `self.caches` have one slot per node, and
    // `i` and the receivers `r` are node positions.
    #[allow(clippy::indexing_slicing)]
    fn execute(
        &mut self,
        sources: &Sources,
        recorded: Option<&BTreeMap<String, Vec<Data>>>,
    ) -> Run {
        let mut exec = Execution::new(self);
        // Catalogs are emitted unread when nothing but the load node reads their texts.
        let unread = self.subscribers.is_empty() && self.nodes.iter().all(|n| n.custom.is_none());
        for c in &mut self.caches {
            c.unread_catalogs = unread && !c.keep_files;
        }
        let n = self.nodes.len();
        let mut inbox: Vec<Vec<(String, Data)>> = vec![Vec::new(); n];
        let mut states = vec![NodeState::Inactive; n];
        let mut collected = None;
        let mut failure = None;
        // Catalog sets read from the catalog cache decode package entries on first use: one
        // that did not decode voids the run (checked at its end).
        let mut sets: Vec<(String, Arc<crate::catalog::CatalogSet>)> = Vec::new();
        for i in 0..n {
            let Some(node) = self.nodes.get(i) else { break };
            states[i] = NodeState::Active;
            let (creators, inputs): (Vec<String>, Vec<Data>) =
                std::mem::take(&mut inbox[i]).into_iter().unzip();
            let outputs = match (recorded, node.role()) {
                // A caller's producer is run again: traces record only built-in sources.
                (Some(rec), Role::Producer) if node.custom.is_none() => {
                    Ok(rec.get(&node.name).cloned().unwrap_or_default())
                }
                _ => nodes::run(
                    node,
                    &mut self.caches[i],
                    &inputs,
                    &creators,
                    sources,
                    &self.options,
                    &self.load,
                ),
            };
            match outputs {
                Ok(outputs) => {
                    states[i] = NodeState::Successful;
                    if node.node_type == NodeType::Output && collected.is_none() {
                        collected = inputs.iter().find_map(|d| match d {
                            Data::Outcome(o) => Some(o.clone()),
                            _ => None,
                        });
                    }
                    for data in &outputs {
                        if let Data::CatalogSet(set) = data {
                            sets.push((node.name.clone(), set.clone()));
                        }
                    }
                    for (k, data) in outputs.into_iter().enumerate() {
                        for &r in &node.outputs {
                            let receiver = self.nodes.get(r).map_or("", |x| x.name.as_str());
                            let e = exec.event(
                                &node.name,
                                receiver,
                                Body::Data {
                                    output: k,
                                    data: data.clone(),
                                },
                            );
                            publish(&mut self.subscribers, &e);
                            inbox[r].push((node.name.clone(), data.clone()));
                        }
                    }
                }
                Err(error) => {
                    states[i] = NodeState::Failed;
                    for s in states.iter_mut().skip(i + 1) {
                        *s = NodeState::Aborted;
                    }
                    let e = exec.event(&node.name, "*", Body::Error(error.to_string()));
                    publish(&mut self.subscribers, &e);
                    failure = Some(Failure {
                        node: node.name.clone(),
                        error,
                    });
                    break;
                }
            }
        }
        if failure.is_none()
            && let Some((node, why)) = sets.iter().find_map(|(n, s)| Some((n, s.cache_damage()?)))
        {
            failure = Some(Failure {
                node: node.clone(),
                error: NodeError::Load(Box::new(crate::catalog::LoadError::Io {
                    path: self.load.cache_dir.clone().unwrap_or_default(),
                    source: std::io::Error::other(format!(
                        "a catalog cache entry was damaged ({why}); it was removed: run again"
                    )),
                })),
            });
        }
        let states = self
            .nodes
            .iter()
            .map(|n| n.name.clone())
            .zip(states)
            .collect();
        let result = match (failure, collected) {
            (Some(f), _) => Err(f),
            (None, Some(o)) => Ok(Resolution {
                variables: o.variables.clone(),
                outcome: o.outcome.clone(),
            }),
            (None, None) => Err(Failure {
                node: "output".into(),
                error: NodeError::Input("no outcome reached an output node".into()),
            }),
        };
        Run {
            execution: exec.id,
            states,
            result,
        }
    }
}

fn publish(subscribers: &mut [Subscriber], e: &Event) {
    for s in subscribers {
        s(e);
    }
}

/// Mints event headers for one execution.
struct Execution {
    id: String,
    pipeline: String,
    metadata: BTreeMap<String, String>,
    seq: u64,
}

impl Execution {
    fn new(p: &Pipeline) -> Execution {
        Execution {
            id: event::new_execution_id(),
            pipeline: p.id.clone(),
            metadata: p.metadata.clone(),
            seq: 0,
        }
    }

    fn event(&mut self, sender: &str, receiver: &str, body: Body) -> Event {
        self.seq += 1;
        Event {
            header: Header {
                id: format!("{}-{}", self.id, self.seq),
                time: event::now_rfc3339(),
                creator: sender.to_string(),
                sender: sender.to_string(),
                receiver: receiver.to_string(),
                pipeline: self.pipeline.clone(),
                execution: self.id.clone(),
                metadata: self.metadata.clone(),
            },
            body,
        }
    }
}
