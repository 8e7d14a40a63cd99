//! Failure as data: the derivation tree of incompatibilities that proves a problem has no
//! solution. Leaves are the caller's constraints; inner nodes are derived by resolution.

use super::problem::Var;

/// A term of an incompatibility: `var` is selected (`selected == true`) or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Term {
    /// The variable.
    pub var: Var,
    /// Whether the term says "selected".
    pub selected: bool,
}

/// Why an incompatibility holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause<L> {
    /// One of the caller's constraints (its label).
    External(L),
    /// Derived from two earlier incompatibilities (node indexes) by resolution on `pivot`.
    Derived {
        /// The first premise.
        left: usize,
        /// The second premise.
        right: usize,
        /// The variable the premises disagree on.
        pivot: Var,
    },
}

/// A set of terms that cannot all hold at once, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incompatibility<L> {
    /// The terms; empty means "no solution at all".
    pub terms: Vec<Term>,
    /// Why.
    pub cause: Cause<L>,
}

/// A proof of unsatisfiability: nodes in topological order (premises first), root last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivationTree<L> {
    /// Every incompatibility of the proof; `Derived` causes point to earlier indexes.
    pub nodes: Vec<Incompatibility<L>>,
}

impl<L> DerivationTree<L> {
    /// The root: the empty incompatibility (or the last derived one).
    pub fn root(&self) -> Option<&Incompatibility<L>> {
        self.nodes.last()
    }

    /// The caller's constraints the proof uses, each once, in proof order.
    pub fn external_causes(&self) -> Vec<&L> {
        self.nodes
            .iter()
            .filter_map(|n| match &n.cause {
                Cause::External(l) => Some(l),
                Cause::Derived { .. } => None,
            })
            .collect()
    }

    /// Maps labels to another type, keeping the shape.
    pub fn map<M>(self, mut f: impl FnMut(L) -> M) -> DerivationTree<M> {
        DerivationTree {
            nodes: self
                .nodes
                .into_iter()
                .map(|n| Incompatibility {
                    terms: n.terms,
                    cause: match n.cause {
                        Cause::External(l) => Cause::External(f(l)),
                        Cause::Derived { left, right, pivot } => {
                            Cause::Derived { left, right, pivot }
                        }
                    },
                })
                .collect(),
        }
    }
}
