//! A CDCL solver with the search order of the Deppy design: explainable failures as
//! derivation trees, and answers that follow preference order (docs/semantics.md §5.3, §8).
//!
//! ```
//! use deppy::advanced::solver::{Constraint, Problem, solve, SolveOptions};
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

/// Limits on a solve. Every limit left `None` is no limit; a search past one ends in
/// [`SolveError::GaveUp`] with what it had proven by then.
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Give up after this many conflicts have been analysed (each one learns a clause).
    pub max_conflicts: Option<u64>,
    /// Give up once this much time has passed since the solve began.
    pub timeout: Option<std::time::Duration>,
    /// Give up once this instant has passed (a whole command's deadline: it also bounds rule
    /// evaluation before the solve, see [`crate::resolve::Prepared::derive_within`]). With
    /// `timeout`, whichever comes first.
    pub deadline: Option<std::time::Instant>,
    /// Give up once the learned clauses, their proofs and the derivation tree built from them
    /// take about this many bytes.
    pub max_memory: Option<u64>,
}

impl SolveOptions {
    /// The instant the time budget ends, for a solve that begins `now`.
    pub fn deadline_from(&self, now: std::time::Instant) -> Option<std::time::Instant> {
        let relative = self.timeout.and_then(|t| now.checked_add(t));
        match (relative, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Which budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// `max_conflicts`.
    Conflicts,
    /// `timeout` or `deadline`.
    Time,
    /// `max_memory`.
    Memory,
}

/// The first line of a search that gave up, as data: how many conflicts, which budget, and
/// whether the search had proven that no answer exists when its proof did not fit. The
/// reporter words it (`impl Display` in [`crate::advanced::explain`]): `gave up after 20 conflicts (the
/// conflict budget)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GaveUpLine {
    /// Conflicts analysed.
    pub conflicts: u64,
    /// Which budget ran out.
    pub exhausted: Exhausted,
    /// The search had proven that no answer exists, but its proof did not fit the budget.
    pub proven: bool,
}

/// Why a solve produced no selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError<L> {
    /// No selection satisfies every constraint; the tree proves it.
    Unsatisfiable(DerivationTree<L>),
    /// A budget ran out first.
    GaveUp {
        /// Conflicts analysed.
        conflicts: u64,
        /// Which budget.
        exhausted: Exhausted,
        /// The search had proven that no selection exists, but the proof did not fit.
        proven: bool,
        /// What the search had proven when it stopped: the derivation of the last
        /// incompatibility it learned (none when it learned none, or when that derivation
        /// does not fit the budget either).
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

/// What a search asks for as it goes ([`solve_with`]): a problem can start with what is
/// known and grow as the search selects variables, the way a package manager asks for a
/// package's dependencies only when its solver first needs them.
///
/// The search answers as it would on the whole problem when, once `provide` has been called
/// for a variable, the problem holds that variable's Dependency and Conflict entries and
/// every at-most set counting it (added whole, or extended to count it with
/// [`Problem::extend_at_most`]). `tests/solver_proptest.rs` holds this against the whole
/// problem's answers and checks the proofs.
pub trait Provider<L> {
    /// Called once for each variable, when the search first selects it, before its own
    /// constraints join the search. It may add variables and entries of any kind to
    /// `problem`, and variables to at-most entries; never remove or change one. A budget
    /// it runs out of ends the search with [`SolveError::GaveUp`].
    fn provide(&mut self, problem: &mut Problem<L>, var: Var) -> Result<(), Exhausted>;
}

/// Solves a problem that `provider` grows as the search selects variables (see
/// [`Provider`]). The problem is left as grown, whatever the outcome.
///
/// ```
/// use deppy::advanced::solver::{Constraint, Exhausted, Problem, Provider, SolveOptions, Var, solve_with};
/// // Variable 0 needs 1 or 2; that is only said when the search first selects 0.
/// struct Late;
/// impl Provider<&'static str> for Late {
///     fn provide(&mut self, p: &mut Problem<&'static str>, v: Var) -> Result<(), Exhausted> {
///         if v == Var(0) {
///             let (x, y) = (p.add_var(), p.add_var());
///             p.add(v, Constraint::Dependency(vec![x, y]), "0 needs 1 or 2");
///             p.add(x, Constraint::Prohibited, "1 is banned");
///         }
///         Ok(())
///     }
/// }
/// let mut p = Problem::new();
/// let a = p.add_var();
/// p.add(a, Constraint::Mandatory, "you want 0");
/// let answer = solve_with(&mut p, &mut Late, &SolveOptions::default()).unwrap();
/// assert_eq!(answer, vec![Var(0), Var(2)]);
/// ```
pub fn solve_with<L: Clone>(
    problem: &mut Problem<L>,
    provider: &mut dyn Provider<L>,
    options: &SolveOptions,
) -> Result<Vec<Var>, SolveError<L>> {
    let owned = std::mem::take(problem);
    let (answer, grown) = search::solve_growing(owned, provider, options);
    *problem = grown;
    if let Ok(sel) = &answer {
        debug_assert!(
            problem.check(sel).is_ok(),
            "solver answer fails the checker"
        );
    }
    answer
}
