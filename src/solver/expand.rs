//! Lazy clauses: a variable's dependencies and conflicts join the clause database when the
//! variable is first selected. A clause added mid-search may already be unit or false under
//! the current assignment; its watches are chosen so the engine's invariants still hold.
//!
//! Invariant for the indexing below: the same as the engine's (variables and entries come
//! from the problem the engine was built for).
#![allow(clippy::indexing_slicing)]

use super::engine::{Clause, Engine, Lit, Origin, Reason, Value, neg, negate, pos, var_of};
use super::problem::Constraint;

impl<L> Engine<'_, L> {
    /// Adds the owned clauses of every selected variable on the trail not yet expanded.
    /// Stops at the first clause that is false under the assignment and returns it; the
    /// variable's other entries are added when the walk comes back to it.
    pub(super) fn expand_selected(&mut self) -> Option<usize> {
        while self.expand_head < self.trail.len() {
            let l = self.trail[self.expand_head];
            let v = var_of(l);
            if l & 1 == 0 && !self.vars[v as usize].expanded {
                if let Some(c) = self.expand_var(v) {
                    return Some(c);
                }
                self.vars[v as usize].expanded = true;
            }
            self.expand_head += 1;
        }
        None
    }

    fn expand_var(&mut self, v: u32) -> Option<usize> {
        let problem = self.problem;
        for &ei in problem.index().owned(self.global[v as usize]) {
            if !self.entry_added.insert(ei) {
                continue;
            }
            let entry = &problem.entries()[ei as usize];
            let s = self.local(entry.subject);
            let lits = match &entry.constraint {
                Constraint::Dependency(c) => {
                    let mut lits = Vec::with_capacity(c.len() + 1);
                    lits.push(neg(s));
                    for g in c {
                        lits.push(pos(self.local(*g)));
                    }
                    lits
                }
                Constraint::Conflict(o) => vec![neg(s), neg(self.local(*o))],
                _ => continue,
            };
            if let Some(c) = self.add_clause(lits, ei as usize) {
                return Some(c);
            }
        }
        None
    }

    /// Adds a clause from problem entry `entry` under the current assignment: watches its
    /// two best literals (true or unset first, then false ones latest-assigned first),
    /// assigns its last free literal when it is unit, and returns its index when it is false.
    pub(super) fn add_clause(&mut self, mut lits: Vec<Lit>, entry: usize) -> Option<usize> {
        lits.sort_unstable();
        lits.dedup();
        if lits
            .windows(2)
            .any(|w| w[0] == negate(w[1]) && var_of(w[0]) == var_of(w[1]))
        {
            return None; // tautology: always satisfied
        }
        lits.sort_by_key(|l| match self.lit_value(*l) {
            Value::True => (0, 0),
            Value::Unset => (1, 0),
            Value::False => (2, u32::MAX - self.level_of(var_of(*l))),
        });
        let ci = self.clauses.len();
        let first = lits.first().map(|l| (*l, self.lit_value(*l)));
        let second = lits.get(1).map(|l| self.lit_value(*l));
        if let [a, b, ..] = lits[..] {
            self.watch(negate(a), ci);
            self.watch(negate(b), ci);
        }
        self.clauses.push(Clause {
            lits,
            origin: Origin::External(entry),
        });
        match (first, second) {
            (None, _) | (Some((_, Value::False)), _) => Some(ci),
            (Some((l, Value::Unset)), None | Some(Value::False)) => {
                let level = self.false_level(&self.clauses[ci].lits[1..]);
                self.assign(l, Reason::Clause(ci as u32), level);
                None
            }
            _ => None,
        }
    }
}
