//! The CDCL engine: clauses with two watched literals, native at-most-n constraints, 1UIP
//! conflict learning that records every resolution step, and non-chronological backjumping.
//! Which variable to decide next is asked of a [`super::search::Search`].
//!
//! Clauses are added lazily (see [`super::expand`]): a variable's dependencies and conflicts
//! enter the clause database only once it is selected, so a search touches only the part of
//! a large problem its requirements reach. Unselected variables satisfy those clauses anyway.
//!
//! Invariant for the indexing below: every `Var` and `Lit` comes from the problem the engine
//! was built for, and every per-variable vector has `var_count` (per-literal: twice that)
//! slots; clause and at-most indexes are only created by pushing onto their vectors.
#![allow(clippy::indexing_slicing)]

use super::index::{Rows, Watches};
use super::problem::{Constraint, Problem, Var};

/// A literal: `var << 1` for "selected", `var << 1 | 1` for "not selected".
pub(crate) type Lit = u32;

pub(crate) fn pos(v: Var) -> Lit {
    v.0 << 1
}
pub(crate) fn neg(v: Var) -> Lit {
    (v.0 << 1) | 1
}
pub(crate) fn var_of(l: Lit) -> Var {
    Var(l >> 1)
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
        steps: Vec<(usize, Var)>,
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

#[derive(Clone, Debug)]
struct AtMost {
    n: usize,
    vars: Vec<Var>,
    entry: usize,
    count: usize,
}

const UNSET: u8 = 0;
const TRUE: u8 = 1;
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

/// The clause database and the assignment.
pub(crate) struct Engine {
    pub clauses: Vec<Clause>,
    pub(super) watches: Watches,
    /// 0 unset, 1 true, 2 false (zeroed memory is "all unset").
    value: Vec<u8>,
    pub(super) level: Vec<u32>,
    /// Encoded [`Reason`]s (zeroed memory is "no reason"); see [`encode`].
    reason: Vec<u32>,
    trail_pos: Vec<u32>,
    pub trail: Vec<Lit>,
    trail_lim: Vec<usize>,
    qhead: usize,
    atmosts: Vec<AtMost>,
    atmost_of: Rows,
    seen: Vec<bool>,
    /// Entries (dependencies and conflicts) whose clause joins when a variable is selected.
    pub(super) owned: Rows,
    /// Variables whose owned entries are all in the clause database.
    pub(super) expanded: Vec<bool>,
    /// Entries already in the clause database (a conflict is owned by both its variables).
    pub(super) entry_added: Vec<bool>,
    /// Trail position up to which selected variables have been expanded.
    pub(super) expand_head: usize,
}

impl Engine {
    /// Builds the engine from a problem. Returns the index of a clause that is already
    /// false at level 0 when the input alone contradicts itself.
    pub fn new<L>(problem: &Problem<L>) -> (Engine, Option<usize>) {
        let n = problem.var_count();
        let entries = problem.entries();
        let mut member = Vec::new();
        let mut owned = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let (i, s) = (i as u32, entry.subject.0);
            match &entry.constraint {
                Constraint::Dependency(_) => owned.push((s, i)),
                Constraint::Conflict(o) => owned.extend([(s, i), (o.0, i)]),
                Constraint::AtMost { .. } | Constraint::Mandatory | Constraint::Prohibited => {}
            }
        }
        let mut atmosts = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            if let Constraint::AtMost { n: bound, vars } = &entry.constraint {
                let mut vars = vars.clone();
                vars.sort_unstable();
                vars.dedup();
                if vars.len() > *bound {
                    let k = atmosts.len() as u32;
                    member.extend(vars.iter().map(|v| (v.0, k)));
                    atmosts.push(AtMost {
                        n: *bound,
                        vars,
                        entry: i,
                        count: 0,
                    });
                }
            }
        }
        let mut e = Engine {
            clauses: Vec::new(),
            watches: Watches::new(2 * n),
            value: vec![0; n],
            level: vec![0; n],
            reason: vec![0; n],
            trail_pos: vec![0; n],
            trail: Vec::new(),
            trail_lim: Vec::new(),
            qhead: 0,
            atmosts,
            atmost_of: Rows::build(n, &member),
            seen: vec![false; n],
            owned: Rows::build(n, &owned),
            expanded: vec![false; n],
            entry_added: vec![false; entries.len()],
            expand_head: 0,
        };
        let mut conflict = None;
        for (i, entry) in entries.iter().enumerate() {
            let s = entry.subject;
            let lits = match &entry.constraint {
                Constraint::Mandatory => vec![pos(s)],
                Constraint::Prohibited => vec![neg(s)],
                _ => continue,
            };
            if let Some(c) = e.add_clause(lits, i)
                && conflict.is_none()
            {
                conflict = Some(c);
            }
        }
        (e, conflict)
    }

    pub fn value(&self, v: Var) -> Value {
        decode_value(self.value[v.index()])
    }

    pub(super) fn lit_value(&self, l: Lit) -> Value {
        match (decode_value(self.value[var_of(l).index()]), l & 1) {
            (Value::Unset, _) => Value::Unset,
            (Value::True, 0) | (Value::False, 1) => Value::True,
            _ => Value::False,
        }
    }

    pub fn decision_level(&self) -> u32 {
        self.trail_lim.len() as u32
    }

    /// Assigns `l` at `level`: the decision level for a decision, else the highest level
    /// among its reason's other literals, which may be below the current level (the trail
    /// is then out of level order; see [`Engine::backjump`]).
    pub(super) fn assign(&mut self, l: Lit, reason: Reason, level: u32) {
        let v = var_of(l).index();
        self.value[v] = if l & 1 == 0 { TRUE } else { FALSE };
        self.level[v] = level;
        self.reason[v] = encode(reason);
        self.trail_pos[v] = self.trail.len() as u32;
        self.trail.push(l);
        if l & 1 == 0 {
            for &k in self.atmost_of.row(v) {
                self.atmosts[k as usize].count += 1;
            }
        }
    }

    /// Opens a new decision level and selects `v`.
    pub fn decide(&mut self, v: Var) {
        self.trail_lim.push(self.trail.len());
        self.assign(pos(v), Reason::None, self.decision_level());
    }

    /// Unit propagation to a fixpoint, adding the clauses of newly selected variables on
    /// the way; returns a conflicting clause index.
    pub fn propagate<L>(&mut self, problem: &Problem<L>) -> Option<usize> {
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
            if let Some(c) = self.expand_selected(problem) {
                return Some(c);
            }
            if self.qhead == self.trail.len() {
                return None;
            }
        }
    }

    fn propagate_atmost(&mut self, v: Var) -> Option<usize> {
        for ki in 0..self.atmost_of.row(v.index()).len() {
            let k = self.atmost_of.row(v.index())[ki] as usize;
            let (n, count) = (self.atmosts[k].n, self.atmosts[k].count);
            if count > n {
                let mut on: Vec<Var> = self.atmosts[k]
                    .vars
                    .iter()
                    .copied()
                    .filter(|u| self.value(*u) == Value::True)
                    .collect();
                on.sort_by_key(|u| self.trail_pos[u.index()]);
                on.truncate(n + 1);
                let entry = self.atmosts[k].entry;
                return Some(self.push_external(on.iter().map(|u| neg(*u)).collect(), entry));
            }
            if count == n {
                let level = self.atmosts[k]
                    .vars
                    .iter()
                    .filter(|u| self.value(**u) == Value::True)
                    .map(|u| self.level[u.index()])
                    .max()
                    .unwrap_or(0);
                for ui in 0..self.atmosts[k].vars.len() {
                    let u = self.atmosts[k].vars[ui];
                    if self.value(u) == Value::Unset {
                        self.assign(neg(u), Reason::AtMost(k as u32), level);
                    }
                }
            }
        }
        None
    }

    fn propagate_clauses(&mut self, p: Lit) -> Option<usize> {
        let false_lit = negate(p);
        let mut watchers = self.watches.take(p);
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
                let w = negate(lits[1]) as usize;
                self.watches.push(w as u32, ci as u32);
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
        self.watches.put(p, watchers);
        conflict
    }

    /// The highest level among literals (all assigned).
    pub(super) fn false_level(&self, lits: &[Lit]) -> u32 {
        lits.iter()
            .map(|l| self.level[var_of(*l).index()])
            .max()
            .unwrap_or(0)
    }

    fn push_external(&mut self, lits: Vec<Lit>, entry: usize) -> usize {
        self.clauses.push(Clause {
            lits,
            origin: Origin::External(entry),
        });
        self.clauses.len() - 1
    }

    /// The clause that forced `v`, materialising at-most reasons as clauses.
    fn reason_clause(&mut self, v: Var) -> Option<usize> {
        match decode(self.reason[v.index()]) {
            Reason::None => None,
            Reason::Clause(c) => Some(c as usize),
            Reason::AtMost(k) => {
                let k = k as usize;
                let at = self.trail_pos[v.index()];
                let mut lits = vec![neg(v)];
                lits.extend(
                    self.atmosts[k]
                        .vars
                        .iter()
                        .filter(|u| {
                            self.value(**u) == Value::True && self.trail_pos[u.index()] < at
                        })
                        .map(|u| neg(*u)),
                );
                let entry = self.atmosts[k].entry;
                let ci = self.push_external(lits, entry);
                self.reason[v.index()] = encode(Reason::Clause(ci as u32));
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
        let mut pivot: Option<Var> = None;
        loop {
            let lits = self.clauses[clause].lits.clone();
            for l in lits {
                let v = var_of(l);
                if Some(v) == pivot || self.seen[v.index()] {
                    continue;
                }
                self.seen[v.index()] = true;
                if self.level[v.index()] == current {
                    pending += 1;
                } else {
                    learnt.push(l);
                }
            }
            // Next current-level literal on the trail.
            let p = loop {
                idx -= 1;
                let v = var_of(self.trail[idx]);
                if self.seen[v.index()] && self.level[v.index()] == current {
                    break v;
                }
            };
            self.seen[p.index()] = false;
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
            self.seen[var_of(*l).index()] = false;
        }
        // Second watch: the highest level among the rest.
        let mut back = 0;
        if learnt.len() > 1 {
            let mut best = 1;
            for i in 1..learnt.len() {
                if self.level[var_of(learnt[i]).index()] > self.level[var_of(learnt[best]).index()]
                {
                    best = i;
                }
            }
            learnt.swap(1, best);
            back = self.level[var_of(learnt[1]).index()];
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
        self.clauses.push(Clause {
            lits: learnt,
            origin: Origin::Learned {
                start: conflict,
                steps,
            },
        });
        if self.clauses[ci].lits.len() > 1 {
            let (a, b) = (self.clauses[ci].lits[0], self.clauses[ci].lits[1]);
            self.watches.push(negate(a), ci as u32);
            self.watches.push(negate(b), ci as u32);
        }
        self.assign(asserting, Reason::Clause(ci as u32), back);
        target
    }

    /// The literal currently true for an assigned variable.
    fn lit_of(&self, v: Var) -> Lit {
        if self.value(v) == Value::True {
            pos(v)
        } else {
            neg(v)
        }
    }

    /// Resolves a level-0 conflict down to the empty clause; returns its index.
    pub fn refute(&mut self, conflict: usize) -> usize {
        let mut steps = Vec::new();
        for &l in &self.clauses[conflict].lits {
            self.seen[var_of(l).index()] = true;
        }
        for idx in (0..self.trail.len()).rev() {
            let v = var_of(self.trail[idx]);
            if !self.seen[v.index()] {
                continue;
            }
            self.seen[v.index()] = false;
            if let Some(r) = self.reason_clause(v) {
                for &l in &self.clauses[r].lits {
                    let u = var_of(l);
                    if u != v {
                        self.seen[u.index()] = true;
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
        for l in self.trail.drain(start..) {
            let v = var_of(l).index();
            if self.level[v] <= level {
                kept.push(l);
                continue;
            }
            if self.value[v] == TRUE {
                for &k in self.atmost_of.row(v) {
                    self.atmosts[k as usize].count -= 1;
                }
            }
            self.value[v] = UNSET;
            self.reason[v] = 0;
        }
        self.trail_lim.truncate(level as usize);
        for l in kept {
            self.trail_pos[var_of(l).index()] = self.trail.len() as u32;
            self.trail.push(l);
        }
        self.qhead = self.qhead.min(start);
        self.expand_head = self.expand_head.min(start);
    }

    /// The highest level among a clause's literals (all false in a conflict).
    pub fn clause_level(&self, ci: usize) -> u32 {
        self.clauses[ci]
            .lits
            .iter()
            .map(|l| self.level[var_of(*l).index()])
            .max()
            .unwrap_or(0)
    }
}
