//! The CDCL engine: clauses with two watched literals, native at-most-n constraints, 1UIP
//! conflict learning that records every resolution step, and non-chronological backjumping.
//! Which variable to decide next is asked of a [`super::search::Search`].
//!
//! Clauses are added lazily (see [`super::expand`]): a variable's dependencies and conflicts
//! enter the clause database only once it is selected, so a search touches only the part of
//! a large problem its requirements reach. Unselected variables satisfy those clauses anyway.
//!
//! Variables are numbered locally, on first touch (see [`Engine::local`]), so the cost of a
//! solve follows what it touches, not the size of the problem.
//!
//! Invariant for the indexing below: every local variable and `Lit` is created by
//! [`Engine::local`], which grows every per-variable vector (`vars`, `global`; `watches` by
//! two literals) in step; clause and at-most indexes are only created by pushing onto their
//! vectors.
#![allow(clippy::indexing_slicing)]

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use super::problem::{Constraint, Problem, Var};

/// A literal: `var << 1` for "selected", `var << 1 | 1` for "not selected".
pub(crate) type Lit = u32;

pub(crate) fn pos(v: u32) -> Lit {
    v << 1
}
pub(crate) fn neg(v: u32) -> Lit {
    (v << 1) | 1
}
/// The local variable of a literal.
pub(crate) fn var_of(l: Lit) -> u32 {
    l >> 1
}
pub(super) fn negate(l: Lit) -> Lit {
    l ^ 1
}

/// Where a clause comes from.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    /// A problem entry (by index).
    External(usize),
    /// Learned: `start` resolved in turn with each `(reason, pivot)`.
    Learned {
        start: usize,
        steps: Vec<(usize, u32)>,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Clause {
    pub lits: Vec<Lit>,
    pub origin: Origin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reason {
    None,
    Clause(u32),
    AtMost(u32),
}

/// A binding at-most set in local variables, with how many of them are selected.
#[derive(Clone, Debug)]
pub(super) struct AtMost {
    pub n: usize,
    pub vars: Vec<u32>,
    pub entry: usize,
    pub count: usize,
}

const UNSET: u8 = 0;
pub(super) const TRUE: u8 = 1;
const FALSE: u8 = 2;

fn decode_value(v: u8) -> Value {
    match v {
        TRUE => Value::True,
        FALSE => Value::False,
        _ => Value::Unset,
    }
}

/// At-most reasons carry this bit; clause reasons are stored plus one (0 is "none").
const ATMOST_BIT: u32 = 1 << 31;

fn encode(r: Reason) -> u32 {
    match r {
        Reason::None => 0,
        Reason::Clause(c) => c + 1,
        Reason::AtMost(k) => k | ATMOST_BIT,
    }
}

fn decode(r: u32) -> Reason {
    match r {
        0 => Reason::None,
        r if r & ATMOST_BIT != 0 => Reason::AtMost(r & !ATMOST_BIT),
        r => Reason::Clause(r - 1),
    }
}

/// Truth value of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Unset,
    True,
    False,
}

/// Backjumps longer than this many levels become chronological (one level).
const CHRONO_JUMP: u32 = 50;

/// Per-variable state, one slot per local variable.
#[derive(Clone, Copy, Debug)]
pub(super) struct VarState {
    pub value: u8,
    pub level: u32,
    /// Encoded [`Reason`] (0 is "no reason"); see [`encode`].
    pub reason: u32,
    pub trail_pos: u32,
    pub seen: bool,
    /// Whether its owned entries are all in the clause database.
    pub expanded: bool,
    /// Whether the provider has been asked for it (see [`super::Provider`]).
    pub provided: bool,
    /// Its at-most sets: a range of `Engine::counted` (`NOT_YET` until first selected).
    pub counted_at: u32,
    pub counted_len: u32,
}

pub(super) const NOT_YET: u32 = u32::MAX;

impl VarState {
    const NEW: VarState = VarState {
        value: UNSET,
        level: 0,
        reason: 0,
        trail_pos: 0,
        seen: false,
        expanded: false,
        provided: false,
        counted_at: NOT_YET,
        counted_len: 0,
    };
}

/// The clause database and the assignment, over local variables: a problem variable gets a
/// local number when a clause or an at-most set first names it, so every vector here grows
/// with what the search touches, never with the size of the problem.
pub(crate) struct Engine<'p, L: Clone> {
    /// Borrowed for a plain solve; owned, and growing, when a provider is asked.
    pub problem: Cow<'p, Problem<L>>,
    /// Asked once for each variable the search selects (see [`super::Provider`]).
    pub(super) provider: Option<&'p mut dyn super::Provider<L>>,
    /// Entries of the problem the engine has looked at (grows with a provider).
    pub(super) entries_seen: usize,
    /// The budget a provider ran out of: the search gives up.
    pub(super) stopped: Option<super::Exhausted>,
    pub clauses: Vec<Clause>,
    /// Watchers by local literal.
    watches: Vec<Vec<u32>>,
    /// Local variable → problem variable.
    pub global: Vec<Var>,
    /// Problem variable → local variable.
    local_of: FxHashMap<u32, u32>,
    pub(super) vars: Vec<VarState>,
    pub trail: Vec<Lit>,
    trail_lim: Vec<usize>,
    pub(super) qhead: usize,
    pub(super) atmosts: Vec<AtMost>,
    /// At-most entry → its local at-most set.
    pub(super) atmost_local: FxHashMap<u32, u32>,
    /// Flat storage of the variables' at-most lists (see [`VarState::counted_at`]).
    pub(super) counted: Vec<u32>,
    /// Entries already in the clause database (a conflict is owned by both its variables).
    pub(super) entry_added: FxHashSet<u32>,
    /// Trail position up to which selected variables have been expanded.
    pub(super) expand_head: usize,
    /// Bytes the learned clauses and their resolution steps take, about (see
    /// [`learned_bytes`]): what the memory budget counts.
    pub(super) learned_bytes: u64,
}

/// What a learned clause of `lits` literals and `steps` resolution steps costs in memory:
/// its literals, its steps, the clause itself and its two watches.
pub(super) fn learned_bytes(lits: usize, steps: usize) -> u64 {
    (lits * std::mem::size_of::<Lit>()
        + steps * std::mem::size_of::<(usize, u32)>()
        + std::mem::size_of::<Clause>()
        + 2 * std::mem::size_of::<u32>()) as u64
}

impl<'p, L: Clone> Engine<'p, L> {
    /// Builds the engine from a problem, and the provider that may grow it. Returns the
    /// index of a clause that is already false at level 0 when the input alone contradicts
    /// itself.
    pub fn new(
        problem: Cow<'p, Problem<L>>,
        provider: Option<&'p mut dyn super::Provider<L>>,
    ) -> (Engine<'p, L>, Option<usize>) {
        let entries_seen = problem.entries().len();
        let units = problem.index().units().to_vec();
        let mut e = Engine {
            problem,
            provider,
            entries_seen,
            stopped: None,
            clauses: Vec::new(),
            watches: Vec::new(),
            global: Vec::new(),
            local_of: FxHashMap::default(),
            vars: Vec::new(),
            trail: Vec::new(),
            trail_lim: Vec::new(),
            qhead: 0,
            atmosts: Vec::new(),
            atmost_local: FxHashMap::default(),
            counted: Vec::new(),
            entry_added: FxHashSet::default(),
            expand_head: 0,
            learned_bytes: 0,
        };
        let mut conflict = None;
        for i in units {
            if let Some(c) = e.add_unit(i as usize)
                && conflict.is_none()
            {
                conflict = Some(c);
            }
        }
        (e, conflict)
    }

    /// Adds Mandatory or Prohibited entry `i` as a clause; returns it when it is false.
    pub(super) fn add_unit(&mut self, i: usize) -> Option<usize> {
        let entry = self.problem.entries().get(i)?;
        let (subject, selected) = match entry.constraint {
            Constraint::Mandatory => (entry.subject, true),
            Constraint::Prohibited => (entry.subject, false),
            _ => return None,
        };
        let s = self.local(subject);
        self.add_clause(vec![if selected { pos(s) } else { neg(s) }], i)
    }

    /// The local number of a problem variable, given one on first use.
    pub fn local(&mut self, g: Var) -> u32 {
        let next = self.global.len() as u32;
        let l = *self.local_of.entry(g.0).or_insert(next);
        if l == next {
            self.global.push(g);
            self.vars.push(VarState::NEW);
            self.watches.push(Vec::new());
            self.watches.push(Vec::new());
        }
        l
    }

    /// The local number of a problem variable the search has touched.
    pub fn lookup(&self, g: Var) -> Option<u32> {
        self.local_of.get(&g.0).copied()
    }

    pub fn value(&self, v: u32) -> Value {
        decode_value(self.vars[v as usize].value)
    }

    /// The value of a problem variable (unset when the search never touched it).
    pub fn value_of(&self, g: Var) -> Value {
        self.lookup(g).map_or(Value::Unset, |v| self.value(v))
    }

    pub(super) fn lit_value(&self, l: Lit) -> Value {
        match (self.value(var_of(l)), l & 1) {
            (Value::Unset, _) => Value::Unset,
            (Value::True, 0) | (Value::False, 1) => Value::True,
            _ => Value::False,
        }
    }

    pub(super) fn level_of(&self, v: u32) -> u32 {
        self.vars[v as usize].level
    }

    pub fn decision_level(&self) -> u32 {
        self.trail_lim.len() as u32
    }

    /// Assigns `l` at `level`: the decision level for a decision, else the highest level
    /// among its reason's other literals, which may be below the current level (the trail
    /// is then out of level order; see [`Engine::backjump`]).
    pub(super) fn assign(&mut self, l: Lit, reason: Reason, level: u32) {
        let v = var_of(l);
        let at = self.trail.len() as u32;
        let s = &mut self.vars[v as usize];
        s.value = if l & 1 == 0 { TRUE } else { FALSE };
        s.level = level;
        s.reason = encode(reason);
        s.trail_pos = at;
        self.trail.push(l);
        if l & 1 == 0 {
            self.count_selected(v, true);
        }
    }

    /// Opens a new decision level and selects `v`.
    pub fn decide(&mut self, v: u32) {
        self.trail_lim.push(self.trail.len());
        self.assign(pos(v), Reason::None, self.decision_level());
    }

    /// Unit propagation to a fixpoint, adding the clauses of newly selected variables on
    /// the way; returns a conflicting clause index.
    pub fn propagate(&mut self) -> Option<usize> {
        loop {
            while self.qhead < self.trail.len() {
                let p = self.trail[self.qhead];
                self.qhead += 1;
                if p & 1 == 0
                    && let Some(c) = self.propagate_atmost(var_of(p))
                {
                    return Some(c);
                }
                if let Some(c) = self.propagate_clauses(p) {
                    return Some(c);
                }
            }
            if let Some(c) = self.expand_selected() {
                return Some(c);
            }
            if self.qhead == self.trail.len() || self.stopped.is_some() {
                return None;
            }
        }
    }

    /// Adds clause `ci` to the watchers of literal `lit`.
    pub(super) fn watch(&mut self, lit: Lit, ci: usize) {
        self.watches[lit as usize].push(ci as u32);
    }

    fn propagate_clauses(&mut self, p: Lit) -> Option<usize> {
        let false_lit = negate(p);
        let mut watchers = std::mem::take(&mut self.watches[p as usize]);
        let mut i = 0;
        let mut conflict = None;
        while i < watchers.len() {
            let ci = watchers[i] as usize;
            let lits = &mut self.clauses[ci].lits;
            if lits[0] == false_lit {
                lits.swap(0, 1);
            }
            let first = lits[0];
            if self.lit_value(first) == Value::True {
                i += 1;
                continue;
            }
            let lits = &self.clauses[ci].lits;
            let found = (2..lits.len()).find(|&j| self.lit_value(lits[j]) != Value::False);
            if let Some(j) = found {
                let lits = &mut self.clauses[ci].lits;
                lits.swap(1, j);
                let w = negate(lits[1]);
                self.watch(w, ci);
                watchers.swap_remove(i);
                continue;
            }
            if self.lit_value(first) == Value::False {
                conflict = Some(ci);
                break;
            }
            let level = self.false_level(&self.clauses[ci].lits[1..]);
            self.assign(first, Reason::Clause(ci as u32), level);
            i += 1;
        }
        // Watchers added to `p` meanwhile (a clause may re-watch the same literal) stay.
        let added = std::mem::replace(&mut self.watches[p as usize], watchers);
        self.watches[p as usize].extend(added);
        conflict
    }

    /// The highest level among literals (all assigned).
    pub(super) fn false_level(&self, lits: &[Lit]) -> u32 {
        lits.iter()
            .map(|l| self.level_of(var_of(*l)))
            .max()
            .unwrap_or(0)
    }

    pub(super) fn push_external(&mut self, lits: Vec<Lit>, entry: usize) -> usize {
        self.clauses.push(Clause {
            lits,
            origin: Origin::External(entry),
        });
        self.clauses.len() - 1
    }

    /// The clause that forced `v`, materialising at-most reasons as clauses.
    fn reason_clause(&mut self, v: u32) -> Option<usize> {
        match decode(self.vars[v as usize].reason) {
            Reason::None => None,
            Reason::Clause(c) => Some(c as usize),
            Reason::AtMost(k) => {
                let ci = self.atmost_reason(v, k as usize);
                self.vars[v as usize].reason = encode(Reason::Clause(ci as u32));
                Some(ci)
            }
        }
    }

    /// 1UIP analysis of a conflict above level 0: learns a clause (kept with its resolution
    /// steps), backjumps and asserts it. Level-0 literals are kept so the clause is exactly
    /// the resolvent of its steps.
    pub fn learn(&mut self, conflict: usize) -> u32 {
        let current = self.decision_level();
        let mut learnt: Vec<Lit> = Vec::new();
        let mut steps = Vec::new();
        let mut pending = 0usize;
        let mut clause = conflict;
        let mut idx = self.trail.len();
        let mut pivot: Option<u32> = None;
        loop {
            for j in 0..self.clauses[clause].lits.len() {
                let l = self.clauses[clause].lits[j];
                let v = var_of(l);
                if Some(v) == pivot || self.vars[v as usize].seen {
                    continue;
                }
                self.vars[v as usize].seen = true;
                if self.level_of(v) == current {
                    pending += 1;
                } else {
                    learnt.push(l);
                }
            }
            // Next current-level literal on the trail.
            let p = loop {
                idx -= 1;
                let v = var_of(self.trail[idx]);
                if self.vars[v as usize].seen && self.level_of(v) == current {
                    break v;
                }
            };
            self.vars[p as usize].seen = false;
            pending -= 1;
            if pending == 0 {
                learnt.insert(0, negate(self.lit_of(p)));
                break;
            }
            clause = self.reason_clause(p).unwrap_or(conflict);
            steps.push((clause, p));
            pivot = Some(p);
        }
        for l in &learnt {
            self.vars[var_of(*l) as usize].seen = false;
        }
        // Second watch: the highest level among the rest.
        let mut back = 0;
        if learnt.len() > 1 {
            let mut best = 1;
            for i in 1..learnt.len() {
                if self.level_of(var_of(learnt[i])) > self.level_of(var_of(learnt[best])) {
                    best = i;
                }
            }
            learnt.swap(1, best);
            back = self.level_of(var_of(learnt[1]));
        }
        // Chronological backtracking: a long jump would undo (and the breadth-first walk
        // redo) hundreds of levels the clause does not touch, so only the conflict level is
        // undone; the asserted literal still gets its true level `back`.
        let target = if current - back > CHRONO_JUMP {
            current - 1
        } else {
            back
        };
        self.backjump(target);
        let ci = self.clauses.len();
        let asserting = learnt[0];
        if let [a, b, ..] = learnt[..] {
            self.watch(negate(a), ci);
            self.watch(negate(b), ci);
        }
        self.learned_bytes += learned_bytes(learnt.len(), steps.len());
        self.clauses.push(Clause {
            lits: learnt,
            origin: Origin::Learned {
                start: conflict,
                steps,
            },
        });
        self.assign(asserting, Reason::Clause(ci as u32), back);
        target
    }

    /// The literal currently true for an assigned variable.
    fn lit_of(&self, v: u32) -> Lit {
        if self.value(v) == Value::True {
            pos(v)
        } else {
            neg(v)
        }
    }

    /// Resolves a level-0 conflict down to the empty clause; returns its index.
    pub fn refute(&mut self, conflict: usize) -> usize {
        let mut steps = Vec::new();
        for i in 0..self.clauses[conflict].lits.len() {
            let v = var_of(self.clauses[conflict].lits[i]);
            self.vars[v as usize].seen = true;
        }
        for idx in (0..self.trail.len()).rev() {
            let v = var_of(self.trail[idx]);
            if !self.vars[v as usize].seen {
                continue;
            }
            self.vars[v as usize].seen = false;
            if let Some(r) = self.reason_clause(v) {
                for i in 0..self.clauses[r].lits.len() {
                    let u = var_of(self.clauses[r].lits[i]);
                    if u != v {
                        self.vars[u as usize].seen = true;
                    }
                }
                steps.push((r, v));
            }
        }
        self.clauses.push(Clause {
            lits: Vec::new(),
            origin: Origin::Learned {
                start: conflict,
                steps,
            },
        });
        self.clauses.len() - 1
    }

    /// Undoes every assignment above `level`. Literals of `level` or below that sit later on
    /// the trail (implied out of order) stay, moved down in their order, and are propagated
    /// again.
    pub fn backjump(&mut self, level: u32) {
        let Some(&start) = self.trail_lim.get(level as usize) else {
            return;
        };
        let mut kept = Vec::new();
        for i in start..self.trail.len() {
            let l = self.trail[i];
            let v = var_of(l);
            if self.level_of(v) <= level {
                kept.push(l);
                continue;
            }
            if self.vars[v as usize].value == TRUE {
                self.count_selected(v, false);
            }
            let s = &mut self.vars[v as usize];
            s.value = UNSET;
            s.reason = 0;
        }
        self.trail.truncate(start);
        self.trail_lim.truncate(level as usize);
        for l in kept {
            self.vars[var_of(l) as usize].trail_pos = self.trail.len() as u32;
            self.trail.push(l);
        }
        self.qhead = self.qhead.min(start);
        self.expand_head = self.expand_head.min(start);
    }

    /// The highest level among a clause's literals (all false in a conflict).
    pub fn clause_level(&self, ci: usize) -> u32 {
        self.false_level(&self.clauses[ci].lits)
    }
}
