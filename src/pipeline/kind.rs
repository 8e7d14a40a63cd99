//! The library of node types and the kinds of data their events carry.

use std::fmt;

/// What a data event carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataKind {
    /// One catalog's files (name, path, priority, contents).
    Catalog,
    /// Every catalog, loaded and merged.
    CatalogSet,
    /// The request's required packages.
    Requirements,
    /// The request's installed bundles and `keepInstalled`.
    Installed,
    /// The request's cluster node (properties and runtime constraints).
    Cluster,
    /// The request's admin constraints.
    Constraints,
    /// Variables injected by a `static-variables` node.
    StaticVariables,
    /// Candidates removed, required or preferred by a processor (filter, constraints).
    Adjustments,
    /// Solver variables with their Dependency and Mandatory constraints.
    Variables,
    /// At-most-one constraints per package and per API.
    GlobalConstraints,
    /// The solver's outcome: an answer or a failure.
    Outcome,
}

impl DataKind {
    /// The name used in traces and messages.
    pub fn name(self) -> &'static str {
        match self {
            DataKind::Catalog => "catalog",
            DataKind::CatalogSet => "catalog-set",
            DataKind::Requirements => "requirements",
            DataKind::Installed => "installed",
            DataKind::Cluster => "cluster",
            DataKind::Constraints => "constraints",
            DataKind::StaticVariables => "static-variables",
            DataKind::Adjustments => "adjustments",
            DataKind::Variables => "variables",
            DataKind::GlobalConstraints => "global-constraints",
            DataKind::Outcome => "outcome",
        }
    }
}

impl fmt::Display for DataKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Producer, processor or consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Creates data from outside the pipeline (the request, files, settings).
    Producer,
    /// Turns data into other data.
    Processor,
    /// Takes data and emits nothing.
    Consumer,
}

/// A node type of the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeType {
    /// Producer: one `catalog` event per catalog of the request.
    Catalogs,
    /// Producer: one extra catalog, from the node's `catalog: {name, path, priority}`.
    Catalog,
    /// Producer: the request's `require` list.
    Requirements,
    /// Producer: the request's `installed` list and `keepInstalled`.
    Installed,
    /// Producer: the request's `cluster` node.
    Cluster,
    /// Producer: the request's admin `constraints`.
    Constraints,
    /// Producer: the node's `variables` (require, prohibit or prefer bundles).
    StaticVariables,
    /// Processor: parses and merges catalogs into one catalog set.
    LoadCatalogs,
    /// Processor: changes catalogs (priority) or bundles (adds a property).
    Mutate,
    /// Processor: removes the candidates a selector matches.
    Filter,
    /// Processor: the request's admin constraints remove candidates.
    AdminConstraints,
    /// Processor: the cluster's runtime constraints and served APIs remove candidates.
    ClusterConstraints,
    /// Processor: the Datalog derivation (`rules/*.dl`) into solver variables.
    Datalog,
    /// Processor: at most one bundle per package and per API.
    GlobalConstraints,
    /// Processor: the solver; emits the outcome.
    Solver,
    /// Consumer: collects the outcome as the pipeline's result.
    Output,
    /// A type the caller added ([`super::CustomNodeType`]); the node carries its definition,
    /// which says its role and kinds. Not in [`NodeType::ALL`].
    Custom,
}

impl NodeType {
    /// Every type, in documentation order.
    pub const ALL: [NodeType; 16] = [
        NodeType::Catalogs,
        NodeType::Catalog,
        NodeType::Requirements,
        NodeType::Installed,
        NodeType::Cluster,
        NodeType::Constraints,
        NodeType::StaticVariables,
        NodeType::LoadCatalogs,
        NodeType::Mutate,
        NodeType::Filter,
        NodeType::AdminConstraints,
        NodeType::ClusterConstraints,
        NodeType::Datalog,
        NodeType::GlobalConstraints,
        NodeType::Solver,
        NodeType::Output,
    ];

    /// The name used in configurations.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::Catalogs => "catalogs",
            NodeType::Catalog => "catalog",
            NodeType::Requirements => "requirements",
            NodeType::Installed => "installed",
            NodeType::Cluster => "cluster",
            NodeType::Constraints => "constraints",
            NodeType::StaticVariables => "static-variables",
            NodeType::LoadCatalogs => "load-catalogs",
            NodeType::Mutate => "mutate",
            NodeType::Filter => "filter",
            NodeType::AdminConstraints => "admin-constraints",
            NodeType::ClusterConstraints => "cluster-constraints",
            NodeType::Datalog => "datalog",
            NodeType::GlobalConstraints => "global-constraints",
            NodeType::Solver => "solver",
            NodeType::Output => "output",
            NodeType::Custom => "custom",
        }
    }

    /// The type with this name.
    pub fn parse(name: &str) -> Option<NodeType> {
        NodeType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Its role.
    pub fn role(self) -> Role {
        match self {
            NodeType::Catalogs
            | NodeType::Catalog
            | NodeType::Requirements
            | NodeType::Installed
            | NodeType::Cluster
            | NodeType::Constraints
            | NodeType::StaticVariables => Role::Producer,
            NodeType::Output => Role::Consumer,
            _ => Role::Processor,
        }
    }

    /// Kinds it takes.
    pub fn accepts(self) -> &'static [DataKind] {
        use DataKind as K;
        match self {
            NodeType::LoadCatalogs => &[K::Catalog],
            NodeType::Mutate => &[K::Catalog, K::CatalogSet],
            NodeType::Filter => &[K::CatalogSet],
            NodeType::AdminConstraints => &[K::CatalogSet, K::Constraints, K::Installed],
            NodeType::ClusterConstraints => &[K::CatalogSet, K::Cluster, K::Installed],
            NodeType::Datalog => &[
                K::CatalogSet,
                K::Requirements,
                K::Installed,
                K::Cluster,
                K::StaticVariables,
                K::Adjustments,
            ],
            NodeType::GlobalConstraints => &[K::Variables],
            NodeType::Solver => &[K::Variables, K::GlobalConstraints],
            NodeType::Output => &[K::Outcome],
            _ => &[],
        }
    }

    /// Kinds it cannot work without.
    pub fn needs(self) -> &'static [DataKind] {
        use DataKind as K;
        match self {
            NodeType::LoadCatalogs => &[K::Catalog],
            NodeType::Filter => &[K::CatalogSet],
            NodeType::AdminConstraints => &[K::CatalogSet, K::Constraints, K::Installed],
            NodeType::ClusterConstraints => &[K::CatalogSet, K::Cluster, K::Installed],
            NodeType::Datalog => &[K::CatalogSet],
            NodeType::GlobalConstraints | NodeType::Solver => &[K::Variables],
            NodeType::Output => &[K::Outcome],
            _ => &[],
        }
    }

    /// What it emits, given the kinds of its inputs.
    pub fn emits(self, inputs: &[DataKind]) -> Option<DataKind> {
        use DataKind as K;
        match self {
            NodeType::Catalogs | NodeType::Catalog => Some(K::Catalog),
            NodeType::Requirements => Some(K::Requirements),
            NodeType::Installed => Some(K::Installed),
            NodeType::Cluster => Some(K::Cluster),
            NodeType::Constraints => Some(K::Constraints),
            NodeType::StaticVariables => Some(K::StaticVariables),
            NodeType::LoadCatalogs => Some(K::CatalogSet),
            NodeType::Mutate => inputs.first().copied(),
            NodeType::Filter | NodeType::AdminConstraints | NodeType::ClusterConstraints => {
                Some(K::Adjustments)
            }
            NodeType::Datalog => Some(K::Variables),
            NodeType::GlobalConstraints => Some(K::GlobalConstraints),
            NodeType::Solver => Some(K::Outcome),
            NodeType::Output | NodeType::Custom => None,
        }
    }
}
