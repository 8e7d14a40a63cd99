//! A CDCL solver with the search order of the Deppy design: explainable failures as
//! derivation trees, and answers that follow preference order (docs/semantics.md §5.3, §8).
//!
//! ```
//! use deppy::solver::{Constraint, Problem, solve, SolveOptions};
//! let mut p = Problem::new();
//! let (a, x, y) = (p.add_var(), p.add_var(), p.add_var());
//! p.add(a, Constraint::Mandatory, "you want a");
//! p.add(a, Constraint::Dependency(vec![x, y]), "a needs x or y");
//! p.add(x, Constraint::Prohibited, "x is banned");
//! assert_eq!(solve(&p, &SolveOptions::default()).unwrap(), vec![a, y]);
//! ```

mod atmost;
mod engine;
mod expand;
mod index;
mod problem;
mod search;
#[cfg(test)]
mod tests;
mod tree;

pub use problem::{Constraint, Entry, Problem, Var};
pub use tree::{Cause, DerivationTree, Incompatibility, Term};

/// Limits on a solve.
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Give up after this many conflicts.
    pub max_conflicts: Option<u64>,
    /// Give up once this much time has passed (checked at every conflict, so a search
    /// that meets no conflict always finishes: it makes at most one decision a variable).
    pub timeout: Option<std::time::Duration>,
}

/// Why a solve produced no selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError<L> {
    /// No selection satisfies every constraint; the tree proves it.
    Unsatisfiable(DerivationTree<L>),
    /// The conflict or time budget ran out first.
    GaveUp {
        /// Conflicts seen.
        conflicts: u64,
        /// What the search had proven when it stopped: the derivation of the last
        /// incompatibility it learned (none when it gave up before learning any).
        partial: Option<DerivationTree<L>>,
    },
}

/// Solves a problem. The selection lists variables in the order the search selected them:
/// mandatory ones first, then dependencies breadth-first.
pub fn solve<L: Clone>(
    problem: &Problem<L>,
    options: &SolveOptions,
) -> Result<Vec<Var>, SolveError<L>> {
    let answer = search::solve(problem, options);
    if let Ok(sel) = &answer {
        debug_assert!(
            problem.check(sel).is_ok(),
            "solver answer fails the checker"
        );
    }
    answer
}
