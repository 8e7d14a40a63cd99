//! The CDCL engine: clauses with two watched literals, native at-most-n constraints, 1UIP
//! conflict learning that records every resolution step, and non-chronological backjumping.
//! Which variable to decide next is asked of a [`super::search::Search`].

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
fn negate(l: Lit) -> Lit {
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
enum Reason {
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

/// Truth value of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Unset,
    True,
    False,
}

/// The clause database and the assignment.
pub(crate) struct Engine {
    pub clauses: Vec<Clause>,
    watches: Vec<Vec<u32>>,
    value: Vec<Value>,
    level: Vec<u32>,
    reason: Vec<Reason>,
    trail_pos: Vec<u32>,
    pub trail: Vec<Lit>,
    trail_lim: Vec<usize>,
    qhead: usize,
    atmosts: Vec<AtMost>,
    atmost_of: Vec<Vec<u32>>,
    seen: Vec<bool>,
}

impl Engine {
    /// Builds the engine from a problem. Returns the index of a clause that is already
    /// false at level 0 when the input alone contradicts itself.
    pub fn new<L>(problem: &Problem<L>) -> (Engine, Option<usize>) {
        let n = problem.var_count();
        let mut e = Engine {
            clauses: Vec::new(),
            watches: vec![Vec::new(); 2 * n],
            value: vec![Value::Unset; n],
            level: vec![0; n],
            reason: vec![Reason::None; n],
            trail_pos: vec![0; n],
            trail: Vec::new(),
            trail_lim: Vec::new(),
            qhead: 0,
            atmosts: Vec::new(),
            atmost_of: vec![Vec::new(); n],
            seen: vec![false; n],
        };
        // At-most constraints first, so level-0 assignments below are counted in them.
        for (i, entry) in problem.entries().iter().enumerate() {
            if let Constraint::AtMost { n, vars } = &entry.constraint {
                e.add_atmost(*n, vars, i);
            }
        }
        let mut conflict = None;
        for (i, entry) in problem.entries().iter().enumerate() {
            let s = entry.subject;
            let lits = match &entry.constraint {
                Constraint::Mandatory => vec![pos(s)],
                Constraint::Prohibited => vec![neg(s)],
                Constraint::Dependency(c) => std::iter::once(neg(s))
                    .chain(c.iter().map(|v| pos(*v)))
                    .collect(),
                Constraint::Conflict(o) => vec![neg(s), neg(*o)],
                Constraint::AtMost { .. } => continue,
            };
            if let Some(c) = e.add_input_clause(lits, i)
                && conflict.is_none()
            {
                conflict = Some(c);
            }
        }
        (e, conflict)
    }

    fn add_atmost(&mut self, n: usize, vars: &[Var], entry: usize) {
        let mut vars = vars.to_vec();
        vars.sort_unstable();
        vars.dedup();
        if vars.len() <= n {
            return;
        }
        let k = self.atmosts.len() as u32;
        for v in &vars {
            self.atmost_of[v.index()].push(k);
        }
        self.atmosts.push(AtMost {
            n,
            vars,
            entry,
            count: 0,
        });
    }

    /// Adds an input clause at level 0; returns the clause index when it is false already.
    fn add_input_clause(&mut self, mut lits: Vec<Lit>, entry: usize) -> Option<usize> {
        lits.sort_unstable();
        lits.dedup();
        if lits
            .windows(2)
            .any(|w| w[0] == negate(w[1]) && var_of(w[0]) == var_of(w[1]))
        {
            return None; // tautology: always satisfied
        }
        let ci = self.clauses.len();
        self.clauses.push(Clause {
            lits,
            origin: Origin::External(entry),
        });
        self.attach(ci)
    }

    /// Watches a clause, or assigns it when unit at level 0. Returns `ci` when it is false.
    fn attach(&mut self, ci: usize) -> Option<usize> {
        let lits = &self.clauses[ci].lits;
        match lits.len() {
            0 => Some(ci),
            1 => {
                let l = lits[0];
                match self.lit_value(l) {
                    Value::True => None,
                    Value::False => Some(ci),
                    Value::Unset => {
                        self.assign(l, Reason::Clause(ci as u32));
                        None
                    }
                }
            }
            _ => {
                let (a, b) = (lits[0], lits[1]);
                self.watches[negate(a) as usize].push(ci as u32);
                self.watches[negate(b) as usize].push(ci as u32);
                None
            }
        }
    }

    pub fn value(&self, v: Var) -> Value {
        self.value[v.index()]
    }

    fn lit_value(&self, l: Lit) -> Value {
        match (self.value[var_of(l).index()], l & 1) {
            (Value::Unset, _) => Value::Unset,
            (Value::True, 0) | (Value::False, 1) => Value::True,
            _ => Value::False,
        }
    }

    pub fn decision_level(&self) -> u32 {
        self.trail_lim.len() as u32
    }

    fn assign(&mut self, l: Lit, reason: Reason) {
        let v = var_of(l).index();
        self.value[v] = if l & 1 == 0 {
            Value::True
        } else {
            Value::False
        };
        self.level[v] = self.decision_level();
        self.reason[v] = reason;
        self.trail_pos[v] = self.trail.len() as u32;
        self.trail.push(l);
        if l & 1 == 0 {
            for &k in &self.atmost_of[v] {
                self.atmosts[k as usize].count += 1;
            }
        }
    }

    /// Opens a new decision level and selects `v`.
    pub fn decide(&mut self, v: Var) {
        self.trail_lim.push(self.trail.len());
        self.assign(pos(v), Reason::None);
    }

    /// Unit propagation; returns a conflicting clause index.
    pub fn propagate(&mut self) -> Option<usize> {
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
        None
    }

    fn propagate_atmost(&mut self, v: Var) -> Option<usize> {
        for ki in 0..self.atmost_of[v.index()].len() {
            let k = self.atmost_of[v.index()][ki] as usize;
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
                for ui in 0..self.atmosts[k].vars.len() {
                    let u = self.atmosts[k].vars[ui];
                    if self.value(u) == Value::Unset {
                        self.assign(neg(u), Reason::AtMost(k as u32));
                    }
                }
            }
        }
        None
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
                let w = negate(lits[1]) as usize;
                self.watches[w].push(ci as u32);
                watchers.swap_remove(i);
                continue;
            }
            if self.lit_value(first) == Value::False {
                conflict = Some(ci);
                break;
            }
            self.assign(first, Reason::Clause(ci as u32));
            i += 1;
        }
        let rest = std::mem::take(&mut self.watches[p as usize]);
        watchers.extend(rest);
        self.watches[p as usize] = watchers;
        conflict
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
        match self.reason[v.index()] {
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
                self.reason[v.index()] = Reason::Clause(ci as u32);
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
        self.backjump(back);
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
            self.watches[negate(a) as usize].push(ci as u32);
            self.watches[negate(b) as usize].push(ci as u32);
        }
        self.assign(asserting, Reason::Clause(ci as u32));
        back
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

    /// Undoes every assignment above `level`.
    pub fn backjump(&mut self, level: u32) {
        let Some(&start) = self.trail_lim.get(level as usize) else {
            return;
        };
        for l in self.trail.drain(start..) {
            let v = var_of(l).index();
            if self.value[v] == Value::True {
                for &k in &self.atmost_of[v] {
                    self.atmosts[k as usize].count -= 1;
                }
            }
            self.value[v] = Value::Unset;
            self.reason[v] = Reason::None;
        }
        self.trail_lim.truncate(level as usize);
        self.qhead = self.trail.len();
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
