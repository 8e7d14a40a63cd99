//! The search order of docs/semantics.md §5.3: mandatory variables first, then dependencies
//! breadth-first in the order they were added. A dependency already satisfied by a *selected*
//! variable (not one merely implied) pulls in nothing new; otherwise its first candidate not
//! yet ruled out is tried. The CDCL engine rules candidates out, so the answer is the one a
//! greedy search with a perfect look-ahead would give.

// Invariant for the indexing below: variables and entry indexes come from the problem the
// search was built for, and per-variable vectors have `var_count` slots.
#![allow(clippy::indexing_slicing)]

use super::engine::{Engine, Value};
use std::borrow::Cow;

use super::Provider;
use super::problem::{Constraint, Problem, Var};
use super::tree::{Cause, DerivationTree, Incompatibility, Term};
use super::{Exhausted, SolveError, SolveOptions};

/// Search state: selected (local) variables in breadth-first order and the dependency cursor.
struct Search<'p, L: Clone> {
    engine: Engine<'p, L>,
    /// Selected variables with the level they were selected at (non-decreasing).
    selected: Vec<(u32, u32)>,
    /// By local variable.
    is_selected: Vec<bool>,
    /// (index into `selected`, index into that variable's owned entries).
    cursor: (usize, usize),
    /// Cursor saved before the decision that opened each level (index = level - 1).
    saved: Vec<(usize, usize)>,
}

enum Step {
    Decide(u32),
    Done,
}

/// What a solve may spend, fixed when it begins.
struct Limits {
    max_conflicts: Option<u64>,
    deadline: Option<std::time::Instant>,
    max_memory: Option<u64>,
}

impl Limits {
    fn late(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }

    fn over_memory(&self, bytes: u64) -> bool {
        self.max_memory.is_some_and(|m| bytes > m)
    }
}

/// How often (in decisions) a search that meets no conflict looks at the clock.
const DECISIONS_PER_CLOCK: u64 = 1024;

/// Solves `problem`; the selection is in breadth-first order.
pub(crate) fn solve<L: Clone>(
    problem: &Problem<L>,
    options: &SolveOptions,
) -> Result<Vec<Var>, SolveError<L>> {
    let (engine, input_conflict) = Engine::new(Cow::Borrowed(problem), None);
    run(engine, input_conflict, options).0
}

/// Solves `problem` as `provider` grows it; returns the grown problem too.
pub(crate) fn solve_growing<L: Clone>(
    problem: Problem<L>,
    provider: &mut dyn Provider<L>,
    options: &SolveOptions,
) -> (Result<Vec<Var>, SolveError<L>>, Problem<L>) {
    let (engine, input_conflict) = Engine::new(Cow::Owned(problem), Some(provider));
    let (answer, engine) = run(engine, input_conflict, options);
    (answer, engine.problem.into_owned())
}

/// The search over `engine`; the engine is handed back so a caller can take the problem.
fn run<'p, L: Clone>(
    engine: Engine<'p, L>,
    input_conflict: Option<usize>,
    options: &SolveOptions,
) -> (Result<Vec<Var>, SolveError<L>>, Engine<'p, L>) {
    let limits = Limits {
        max_conflicts: options.max_conflicts,
        deadline: options.deadline_from(std::time::Instant::now()),
        max_memory: options.max_memory,
    };
    let mut s = Search {
        engine,
        selected: Vec::new(),
        is_selected: Vec::new(),
        cursor: (0, 0),
        saved: Vec::new(),
    };
    let answer = s.search(input_conflict, &limits);
    (answer, s.engine)
}

impl<L: Clone> Search<'_, L> {
    /// Mandatory variables first, then the breadth-first walk, learning from conflicts.
    fn search(
        &mut self,
        input_conflict: Option<usize>,
        limits: &Limits,
    ) -> Result<Vec<Var>, SolveError<L>> {
        let s = self;
        let mut conflicts: u64 = 0;
        if let Some(c) = input_conflict {
            return Err(s.unsatisfiable(c, conflicts, limits));
        }
        if let Some(c) = s.engine.propagate() {
            return Err(s.unsatisfiable(c, conflicts, limits));
        }
        let problem = &s.engine.problem;
        let mandatory: Vec<Var> = (problem.index().units().iter())
            .filter_map(|i| problem.entries().get(*i as usize))
            .filter(|e| e.constraint == Constraint::Mandatory)
            .map(|e| e.subject)
            .collect();
        for g in mandatory {
            let v = s.engine.local(g);
            s.select(v);
        }
        let mut decisions: u64 = 0;
        loop {
            let conflict = s.engine.propagate();
            if let Some(exhausted) = s.engine.stopped {
                return Err(s.gave_up(conflicts, exhausted, None, limits));
            }
            if let Some(c) = conflict {
                conflicts += 1;
                let lvl = s.engine.clause_level(c);
                if lvl == 0 {
                    return Err(s.unsatisfiable(c, conflicts, limits));
                }
                if lvl < s.engine.decision_level() {
                    s.backjump(lvl);
                }
                let back = s.engine.learn(c);
                let learned = s.engine.clauses.len() - 1;
                // The conflict is analysed before any budget is looked at: a budget of N
                // conflicts analyses exactly N, and what the last one proved is kept.
                let exhausted = if limits.max_conflicts.is_some_and(|m| conflicts >= m) {
                    Some(Exhausted::Conflicts)
                } else if limits.late() {
                    Some(Exhausted::Time)
                } else if limits.over_memory(s.engine.learned_bytes) {
                    Some(Exhausted::Memory)
                } else {
                    None
                };
                if let Some(exhausted) = exhausted {
                    return Err(s.gave_up(conflicts, exhausted, Some(learned), limits));
                }
                s.restore(back);
                continue;
            }
            match s.next_step() {
                Step::Done => {
                    let g = &s.engine.global;
                    return Ok(s.selected.iter().map(|(v, _)| g[*v as usize]).collect());
                }
                Step::Decide(v) => {
                    decisions += 1;
                    if decisions.is_multiple_of(DECISIONS_PER_CLOCK) && limits.late() {
                        return Err(s.gave_up(conflicts, Exhausted::Time, None, limits));
                    }
                    s.saved.push(s.cursor);
                    s.engine.decide(v);
                    s.select(v);
                }
            }
        }
    }

    fn is_selected(&self, v: u32) -> bool {
        self.is_selected.get(v as usize).copied().unwrap_or(false)
    }

    fn select(&mut self, v: u32) {
        if !self.is_selected(v) {
            if self.is_selected.len() <= v as usize {
                self.is_selected.resize(v as usize + 1, false);
            }
            self.is_selected[v as usize] = true;
            self.selected.push((v, self.engine.decision_level()));
        }
    }

    fn backjump(&mut self, level: u32) {
        self.engine.backjump(level);
        self.restore(level);
    }

    /// Drops selections above `level` and rewinds the cursor to the decision that opened
    /// `level + 1`.
    fn restore(&mut self, level: u32) {
        while let Some(&(v, l)) = self.selected.last() {
            if l <= level {
                break;
            }
            self.is_selected[v as usize] = false;
            self.selected.pop();
        }
        if let Some(&c) = self.saved.get(level as usize) {
            self.cursor = c;
        }
        self.saved.truncate(level as usize);
    }

    /// Advances the cursor to the next dependency needing a decision.
    fn next_step(&mut self) -> Step {
        loop {
            let problem = &self.engine.problem;
            let (si, di) = self.cursor;
            let Some(&(v, _)) = self.selected.get(si) else {
                return match self.unselected_true() {
                    Some(u) => {
                        self.select(u);
                        continue;
                    }
                    None => Step::Done,
                };
            };
            let g = self.engine.global[v as usize];
            let Some(&entry) = problem.index().owned(g).get(di) else {
                self.cursor = (si + 1, 0);
                continue;
            };
            self.cursor = (si, di + 1);
            let Some(e) = problem.entries().get(entry as usize) else {
                continue;
            };
            let Constraint::Dependency(cands) = &e.constraint else {
                continue; // a conflict: nothing to decide
            };
            let local = |c: &Var| self.engine.lookup(*c);
            if cands
                .iter()
                .any(|c| local(c).is_some_and(|l| self.is_selected(l)))
            {
                continue;
            }
            let Some(&c) = cands
                .iter()
                .find(|c| self.engine.value_of(**c) != Value::False)
            else {
                continue; // impossible after propagation: the clause would be in conflict
            };
            let c = self.engine.local(c);
            if self.engine.value(c) == Value::True {
                self.select(c);
                continue;
            }
            self.cursor = (si, di);
            return Step::Decide(c);
        }
    }

    /// A variable forced true that the breadth-first walk has not selected (defensive: the
    /// walk selects every forced variable, but the answer must hold every true one).
    fn unselected_true(&self) -> Option<u32> {
        self.engine
            .trail
            .iter()
            .filter(|l| *l & 1 == 0)
            .map(|l| super::engine::var_of(*l))
            .find(|v| !self.is_selected(*v))
    }

    /// The proof that no selection exists, or, when building it outruns the budget, a
    /// search that gave up knowing the answer.
    fn unsatisfiable(&mut self, conflict: usize, conflicts: u64, limits: &Limits) -> SolveError<L> {
        let root = self.engine.refute(conflict);
        match build_tree(&self.engine, root, limits) {
            Ok(tree) => SolveError::Unsatisfiable(tree),
            Err(exhausted) => SolveError::GaveUp {
                conflicts,
                exhausted,
                proven: true,
                partial: None,
            },
        }
    }

    /// A search that stopped: the derivation of the last learned clause, when it fits.
    fn gave_up(
        &self,
        conflicts: u64,
        exhausted: Exhausted,
        last_learned: Option<usize>,
        limits: &Limits,
    ) -> SolveError<L> {
        // The derivation is built under a budget of its own (the search's is spent): as much
        // memory again, and at most one second.
        let budget = Limits {
            max_conflicts: None,
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(1)),
            max_memory: limits.max_memory.map(|m| m.saturating_mul(2)),
        };
        let partial = last_learned.and_then(|ci| build_tree(&self.engine, ci, &budget).ok());
        SolveError::GaveUp {
            conflicts,
            exhausted,
            proven: false,
            partial,
        }
    }
}

/// How often (in nodes) building a derivation tree looks at the clock.
const NODES_PER_CLOCK: usize = 4096;

/// Turns the clause origins reachable from `root` into a derivation tree, within `limits`:
/// the tree's bytes count with the learned clauses' against the memory budget.
fn build_tree<L: Clone>(
    engine: &Engine<'_, L>,
    root: usize,
    limits: &Limits,
) -> Result<DerivationTree<L>, Exhausted> {
    let problem = &engine.problem;
    use super::engine::Origin;
    let mut node_of: rustc_hash::FxHashMap<usize, usize> = Default::default();
    let mut nodes: Vec<Incompatibility<L>> = Vec::new();
    let mut bytes = engine.learned_bytes;
    let node_bytes = |n: &Incompatibility<L>| {
        (std::mem::size_of::<Incompatibility<L>>() + n.terms.len() * std::mem::size_of::<Term>())
            as u64
    };
    let mut counted = 0;
    // Iterative post-order over clause indexes.
    let mut stack = vec![(root, false)];
    while let Some((ci, expanded)) = stack.pop() {
        for n in nodes.get(counted..).unwrap_or_default() {
            bytes += node_bytes(n);
        }
        if nodes.len() / NODES_PER_CLOCK > counted / NODES_PER_CLOCK && limits.late() {
            return Err(Exhausted::Time);
        }
        counted = nodes.len();
        if limits.over_memory(bytes) {
            return Err(Exhausted::Memory);
        }
        if node_of.contains_key(&ci) {
            continue;
        }
        let clause = &engine.clauses[ci];
        match &clause.origin {
            Origin::External(entry) => {
                let label = problem.entries()[*entry].label.clone();
                node_of.insert(ci, nodes.len());
                nodes.push(Incompatibility {
                    terms: terms_of(&clause.lits, &engine.global),
                    cause: Cause::External(label),
                });
            }
            Origin::Learned { start, steps } if expanded => {
                let mut acc = node_of[start];
                let mut terms = nodes[acc].terms.clone();
                for (r, pivot) in steps {
                    let right = node_of[r];
                    let pivot = engine.global[*pivot as usize];
                    terms = resolve(&terms, &nodes[right].terms, pivot);
                    nodes.push(Incompatibility {
                        terms: terms.clone(),
                        cause: Cause::Derived {
                            left: acc,
                            right,
                            pivot,
                        },
                    });
                    acc = nodes.len() - 1;
                }
                node_of.insert(ci, acc);
            }
            Origin::Learned { start, steps } => {
                stack.push((ci, true));
                stack.push((*start, false));
                stack.extend(steps.iter().map(|(r, _)| (*r, false)));
            }
        }
    }
    Ok(DerivationTree { nodes })
}

fn terms_of(lits: &[super::engine::Lit], global: &[Var]) -> Vec<Term> {
    let mut t: Vec<Term> = lits
        .iter()
        .map(|l| Term {
            var: global[super::engine::var_of(*l) as usize],
            // A clause literal "x" forbids "x not selected", and "!x" forbids "x selected".
            selected: l & 1 == 1,
        })
        .collect();
    t.sort();
    t.dedup();
    t
}

fn resolve(a: &[Term], b: &[Term], pivot: Var) -> Vec<Term> {
    let mut t: Vec<Term> = a
        .iter()
        .chain(b)
        .filter(|t| t.var != pivot)
        .copied()
        .collect();
    t.sort();
    t.dedup();
    t
}
