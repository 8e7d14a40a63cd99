//! Pipeline configuration: nodes from the library of node types, wired by their `inputs`;
//! validation (a DAG; every processor and consumer fed, which in a DAG makes every node
//! reachable from a producer; every edge carrying data its receiver accepts) and the pipeline id, a hash of the normalised
//! configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::custom::CustomNodeType;
use super::kind::{DataKind, NodeType, Role};
use super::params::Params;

/// One node of a pipeline configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeConfig {
    /// Unique name; events name it as creator, sender and receiver.
    pub name: String,
    /// Node type (see [`NodeType`]).
    #[serde(rename = "type")]
    pub node_type: String,
    /// Names of the nodes whose output this node takes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// Type-specific settings (e.g. a filter's `select`).
    #[serde(flatten)]
    pub params: BTreeMap<String, serde_json::Value>,
}

/// A pipeline configuration, as written in `--pipeline FILE`.
///
/// The example of the [`crate::pipeline`] module runs the default configuration;
/// `examples/pipeline.rs` parses one from a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    /// The nodes, in the order they run when the edges allow.
    pub nodes: Vec<NodeConfig>,
}

/// A configuration that cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Not YAML/JSON of the expected shape.
    #[error("pipeline configuration: {0}")]
    Syntax(String),
    /// Two nodes share a name.
    #[error("node {0:?}: two nodes have this name")]
    DuplicateName(String),
    /// A node type the library does not have.
    #[error("node {node:?}: unknown type {node_type:?} (known: {known})")]
    UnknownType {
        /// The node.
        node: String,
        /// The type given.
        node_type: String,
        /// Known types.
        known: String,
    },
    /// Settings a node type does not take, or malformed ones.
    #[error("node {node:?}: {message}")]
    Params {
        /// The node.
        node: String,
        /// What is wrong.
        message: String,
    },
    /// An input names no node.
    #[error("node {node:?}: input {input:?} names no node")]
    UnknownInput {
        /// The node.
        node: String,
        /// The missing input.
        input: String,
    },
    /// A producer with inputs.
    #[error("node {0:?}: a producer takes no inputs")]
    ProducerWithInputs(String),
    /// A consumer used as an input.
    #[error("node {node:?}: input {input:?} is a consumer, which has no output")]
    ConsumerAsInput {
        /// The node.
        node: String,
        /// The consumer.
        input: String,
    },
    /// A cycle through this node.
    #[error("node {0:?}: the edges form a cycle through this node; a pipeline must be a DAG")]
    Cycle(String),
    /// A processor or consumer without inputs.
    #[error("node {0:?}: this {1} has no inputs")]
    Unfed(String, &'static str),
    /// An edge carrying data the receiver does not take.
    #[error("node {node:?}: cannot take the output of {input:?} ({kind}); it takes {accepts}")]
    Mismatch {
        /// The receiver.
        node: String,
        /// The sender.
        input: String,
        /// What the sender emits.
        kind: DataKind,
        /// What the receiver takes.
        accepts: String,
    },
    /// A node lacks an input it needs.
    #[error("node {node:?}: needs an input of kind {kind}")]
    Missing {
        /// The node.
        node: String,
        /// The missing kind.
        kind: DataKind,
    },
    /// No output consumer.
    #[error("pipeline has no `output` node; nothing would collect the answer")]
    NoOutput,
    /// A caller's node type with the name of a built-in type, or of another caller's type.
    #[error("node type {0:?}: the name is taken (by a built-in type or an earlier custom type)")]
    TypeNameTaken(String),
}

/// A validated node: its config, type, parsed settings and output kind.
#[derive(Clone, Debug)]
pub struct Node {
    /// Name.
    pub name: String,
    /// Type.
    pub node_type: NodeType,
    /// Settings.
    pub params: Params,
    /// Indexes of input nodes, sorted.
    pub inputs: Vec<usize>,
    /// Indexes of nodes taking this one's output, sorted.
    pub outputs: Vec<usize>,
    /// What it emits.
    pub emits: Option<DataKind>,
    /// The caller's definition, for a node of a [`CustomNodeType`] (`node_type` is then
    /// [`NodeType::Custom`]).
    pub custom: Option<CustomNodeType>,
}

impl Node {
    /// The type's name, as written in the configuration.
    pub fn type_name(&self) -> &str {
        match &self.custom {
            Some(c) => c.name(),
            None => self.node_type.name(),
        }
    }

    /// Producer, processor or consumer.
    pub fn role(&self) -> Role {
        match &self.custom {
            Some(c) => c.role(),
            None => self.node_type.role(),
        }
    }

    /// Kinds it takes.
    pub fn accepts(&self) -> &[DataKind] {
        match &self.custom {
            Some(c) => &c.accepts,
            None => self.node_type.accepts(),
        }
    }

    /// Kinds it cannot work without.
    pub fn needs(&self) -> &[DataKind] {
        match &self.custom {
            Some(c) => &c.needs,
            None => self.node_type.needs(),
        }
    }

    fn emits_given(&self, inputs: &[DataKind]) -> Option<DataKind> {
        match &self.custom {
            Some(c) => Some(c.emits),
            None => self.node_type.emits(inputs),
        }
    }
}

impl PipelineConfig {
    /// Parses YAML or JSON.
    pub fn parse(text: &str) -> Result<PipelineConfig, ConfigError> {
        serde_saphyr::from_str_with_options(text, crate::input::yaml_options(text.len()))
            .map_err(|e| ConfigError::Syntax(crate::input::yaml_reason(&e)))
    }

    /// The default pipeline: the resolver of `deppy resolve`.
    pub fn default_config() -> PipelineConfig {
        let node = |name: &str, t: &str, inputs: &[&str]| NodeConfig {
            name: name.into(),
            node_type: t.into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            params: BTreeMap::new(),
        };
        PipelineConfig {
            nodes: vec![
                node("catalogs", "catalogs", &[]),
                node("requirements", "requirements", &[]),
                node("installed", "installed", &[]),
                node("cluster", "cluster", &[]),
                node("constraints", "constraints", &[]),
                node("load", "load-catalogs", &["catalogs"]),
                node(
                    "admin",
                    "admin-constraints",
                    &["load", "constraints", "installed"],
                ),
                node(
                    "runtime",
                    "cluster-constraints",
                    &["load", "cluster", "installed"],
                ),
                node(
                    "derive",
                    "datalog",
                    &[
                        "load",
                        "requirements",
                        "installed",
                        "cluster",
                        "admin",
                        "runtime",
                    ],
                ),
                node("global", "global-constraints", &["derive"]),
                node("solver", "solver", &["derive", "global"]),
                node("output", "output", &["solver"]),
            ],
        }
    }

    /// The normalised form: inputs sorted and deduplicated, settings in key order.
    pub fn normalised(&self) -> PipelineConfig {
        let mut c = self.clone();
        for n in &mut c.nodes {
            n.inputs.sort();
            n.inputs.dedup();
        }
        c
    }

    /// The pipeline id: `p-` and 16 hex digits of a hash of the normalised configuration
    /// as JSON (any change gives a new id).
    pub fn id(&self) -> String {
        let json = serde_json::to_string(&self.normalised()).unwrap_or_default();
        format!("p-{:016x}", fnv1a(json.as_bytes()))
    }

    /// Validates the configuration and returns its nodes in run order.
    pub fn validate(&self) -> Result<Vec<Node>, ConfigError> {
        self.validate_with(&[])
    }

    /// As [`PipelineConfig::validate`], with the caller's node types usable as `type`.
    // Invariant for indexing: every index is a position in `nodes` (from enumerating it or
    // from `position` lookups that were checked), and `nodes` does not change length here.
    #[allow(clippy::indexing_slicing)]
    pub fn validate_with(&self, custom: &[CustomNodeType]) -> Result<Vec<Node>, ConfigError> {
        for (i, c) in custom.iter().enumerate() {
            if NodeType::parse(c.name()).is_some()
                || custom[..i].iter().any(|o| o.name() == c.name())
            {
                return Err(ConfigError::TypeNameTaken(c.name().to_string()));
            }
        }
        let cfg = self.normalised();
        let mut nodes = Vec::with_capacity(cfg.nodes.len());
        for (i, n) in cfg.nodes.iter().enumerate() {
            if cfg.nodes[..i].iter().any(|o| o.name == n.name) {
                return Err(ConfigError::DuplicateName(n.name.clone()));
            }
            nodes.push(node(n, custom)?);
        }
        wire(&cfg, &mut nodes)?;
        let order = run_order(&nodes)?;
        check_kinds(&mut nodes, &order)?;
        if !nodes.iter().any(|n| n.node_type == NodeType::Output) {
            return Err(ConfigError::NoOutput);
        }
        let mut by_order: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
        // Re-index edges into run order so later stages can index by position.
        let pos: Vec<usize> = {
            let mut p = vec![0; order.len()];
            for (k, &i) in order.iter().enumerate() {
                p[i] = k;
            }
            p
        };
        let mut out = Vec::with_capacity(order.len());
        for &i in &order {
            if let Some(mut n) = by_order.get_mut(i).and_then(Option::take) {
                n.inputs = sorted(n.inputs.iter().map(|j| pos[*j]));
                n.outputs = sorted(n.outputs.iter().map(|j| pos[*j]));
                out.push(n);
            }
        }
        Ok(out)
    }
}

/// One node of the configuration, its type looked up among the built-in types and then the
/// caller's.
fn node(n: &NodeConfig, custom: &[CustomNodeType]) -> Result<Node, ConfigError> {
    let own = custom.iter().find(|c| c.name() == n.node_type);
    let t = match (NodeType::parse(&n.node_type), own) {
        (Some(t), _) => t,
        (None, Some(_)) => NodeType::Custom,
        (None, None) => {
            let mut known: Vec<&str> = NodeType::ALL.map(NodeType::name).to_vec();
            known.extend(custom.iter().map(CustomNodeType::name));
            return Err(ConfigError::UnknownType {
                node: n.name.clone(),
                node_type: n.node_type.clone(),
                known: known.join(", "),
            });
        }
    };
    let params = Params::parse(t, &n.params).map_err(|message| ConfigError::Params {
        node: n.name.clone(),
        message,
    })?;
    Ok(Node {
        name: n.name.clone(),
        node_type: t,
        params,
        inputs: Vec::new(),
        outputs: Vec::new(),
        emits: None,
        custom: own.filter(|_| t == NodeType::Custom).cloned(),
    })
}

fn sorted(it: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut v: Vec<usize> = it.collect();
    v.sort_unstable();
    v
}

// Invariant for indexing: every index is a position in `nodes` (from enumerating it or
// from `position` lookups that were checked), and `nodes` does not change length here.
#[allow(clippy::indexing_slicing)]
fn wire(cfg: &PipelineConfig, nodes: &mut [Node]) -> Result<(), ConfigError> {
    for (i, n) in cfg.nodes.iter().enumerate() {
        let role = nodes[i].role();
        if role == Role::Producer && !n.inputs.is_empty() {
            return Err(ConfigError::ProducerWithInputs(n.name.clone()));
        }
        if role != Role::Producer && n.inputs.is_empty() {
            let what = if role == Role::Consumer {
                "consumer"
            } else {
                "processor"
            };
            return Err(ConfigError::Unfed(n.name.clone(), what));
        }
        for input in &n.inputs {
            let j = cfg
                .nodes
                .iter()
                .position(|o| &o.name == input)
                .ok_or_else(|| ConfigError::UnknownInput {
                    node: n.name.clone(),
                    input: input.clone(),
                })?;
            if nodes[j].role() == Role::Consumer {
                return Err(ConfigError::ConsumerAsInput {
                    node: n.name.clone(),
                    input: input.clone(),
                });
            }
            nodes[i].inputs.push(j);
            nodes[j].outputs.push(i);
        }
    }
    Ok(())
}

/// Kahn's algorithm, ties broken by configuration order; a leftover node is on a cycle.
// Invariant for indexing: every index is a position in `nodes` (from enumerating it or
// from `position` lookups that were checked), and `nodes` does not change length here.
#[allow(clippy::indexing_slicing)]
fn run_order(nodes: &[Node]) -> Result<Vec<usize>, ConfigError> {
    let mut indegree: Vec<usize> = nodes.iter().map(|n| n.inputs.len()).collect();
    let mut done = vec![false; nodes.len()];
    let mut order = Vec::with_capacity(nodes.len());
    while order.len() < nodes.len() {
        let Some(next) = (0..nodes.len()).find(|&i| !done[i] && indegree[i] == 0) else {
            let stuck = (0..nodes.len()).find(|&i| !done[i]).unwrap_or(0);
            return Err(ConfigError::Cycle(nodes[stuck].name.clone()));
        };
        done[next] = true;
        order.push(next);
        for &o in &nodes[next].outputs {
            indegree[o] = indegree[o].saturating_sub(1);
        }
    }
    Ok(order)
}

// Invariant for indexing: every index is a position in `nodes` (from enumerating it or
// from `position` lookups that were checked), and `nodes` does not change length here.
#[allow(clippy::indexing_slicing)]
fn check_kinds(nodes: &mut [Node], order: &[usize]) -> Result<(), ConfigError> {
    for &i in order {
        let mut got = Vec::new();
        for &j in &nodes[i].inputs {
            let kind = nodes[j].emits.unwrap_or(DataKind::Catalog);
            let accepts = nodes[i].accepts();
            if !accepts.contains(&kind) {
                return Err(ConfigError::Mismatch {
                    node: nodes[i].name.clone(),
                    input: nodes[j].name.clone(),
                    kind,
                    accepts: accepts
                        .iter()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            got.push(kind);
        }
        for kind in nodes[i].needs() {
            if !got.contains(kind) {
                return Err(ConfigError::Missing {
                    node: nodes[i].name.clone(),
                    kind: *kind,
                });
            }
        }
        if nodes[i].node_type == NodeType::Mutate && got.iter().any(|k| Some(k) != got.first()) {
            return Err(ConfigError::Params {
                node: nodes[i].name.clone(),
                message: "a mutate node takes inputs of one kind (catalog or catalog-set)".into(),
            });
        }
        nodes[i].emits = nodes[i].emits_given(&got);
    }
    Ok(())
}

/// FNV-1a, 64 bits: stable across platforms and releases, unlike std's hashers.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
