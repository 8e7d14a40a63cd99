//! Node types a caller adds in Rust (`resolution-pipelines.md`: "by adding different types of
//! nodes, the pipeline can be further configured and extended"). A [`CustomNodeType`] has a
//! name, the kinds of data it takes, needs and emits, and a function from its inputs to its
//! outputs. [`super::Pipeline::with_node_types`] makes its name usable as a node `type` in a
//! configuration; the configuration is validated against it like any built-in type, and its
//! events are traced and published like theirs.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::data::Data;
use super::kind::{DataKind, Role};

/// What a custom node's function sees besides its inputs.
pub struct NodeContext<'a> {
    /// The node's name in the configuration (e.g. for a [`crate::advanced::resolve::Rule`]'s
    /// origin).
    pub node: &'a str,
    /// The node's settings: every key of its configuration entry but `name`, `type` and
    /// `inputs`.
    pub params: &'a BTreeMap<String, serde_json::Value>,
}

/// A custom node's function: its outputs from its inputs, or why it failed (the run then
/// fails at this node with that message).
pub type NodeFn = dyn Fn(&NodeContext<'_>, &[Data]) -> Result<Vec<Data>, String> + Send + Sync;

/// A node type written by the caller.
#[derive(Clone)]
pub struct CustomNodeType {
    pub(crate) name: String,
    pub(crate) accepts: Vec<DataKind>,
    pub(crate) needs: Vec<DataKind>,
    pub(crate) emits: DataKind,
    pub(crate) run: Arc<NodeFn>,
}

impl CustomNodeType {
    /// A processor: takes data of the kinds in `accepts` from its inputs and emits `emits`.
    /// Its outputs must be of kind `emits` (a run fails at the node otherwise).
    pub fn processor(
        name: &str,
        accepts: &[DataKind],
        emits: DataKind,
        run: impl Fn(&NodeContext<'_>, &[Data]) -> Result<Vec<Data>, String> + Send + Sync + 'static,
    ) -> CustomNodeType {
        CustomNodeType {
            name: name.to_string(),
            accepts: accepts.to_vec(),
            needs: Vec::new(),
            emits,
            run: Arc::new(run),
        }
    }

    /// A producer: no inputs, emits `emits` (read from wherever the function reads).
    pub fn producer(
        name: &str,
        emits: DataKind,
        run: impl Fn(&NodeContext<'_>, &[Data]) -> Result<Vec<Data>, String> + Send + Sync + 'static,
    ) -> CustomNodeType {
        CustomNodeType::processor(name, &[], emits, run)
    }

    /// Kinds the node cannot work without: a configuration that does not feed it one of
    /// each is refused.
    pub fn needing(mut self, kinds: &[DataKind]) -> CustomNodeType {
        self.needs = kinds.to_vec();
        self
    }

    /// The type's name, as written in configurations.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A producer when it takes no inputs, a processor otherwise.
    pub fn role(&self) -> Role {
        if self.accepts.is_empty() {
            Role::Producer
        } else {
            Role::Processor
        }
    }

    /// Runs the function and checks the kinds of its outputs.
    pub(crate) fn call(
        &self,
        context: &NodeContext<'_>,
        inputs: &[Data],
    ) -> Result<Vec<Data>, String> {
        let outputs = (self.run)(context, inputs)?;
        match outputs.iter().find(|d| d.kind() != self.emits) {
            Some(d) => Err(format!(
                "node type {:?} emitted {} data; it declares {}",
                self.name,
                d.kind(),
                self.emits
            )),
            None => Ok(outputs),
        }
    }
}

impl fmt::Debug for CustomNodeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomNodeType")
            .field("name", &self.name)
            .field("accepts", &self.accepts)
            .field("needs", &self.needs)
            .field("emits", &self.emits)
            .finish_non_exhaustive()
    }
}
