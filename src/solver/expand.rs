//! Lazy clauses: a variable's dependencies and conflicts join the clause database when the
//! variable is first selected. A clause added mid-search may already be unit or false under
//! the current assignment; its watches are chosen so the engine's invariants still hold.
//!
//! Invariant for the indexing below: the same as the engine's (variables and entries come
//! from the problem the engine was built for).
#![allow(clippy::indexing_slicing)]

use super::engine::{Clause, Engine, Lit, Origin, Reason, Value, neg, negate, pos, var_of};
use super::problem::{Constraint, Var};

impl<L: Clone> Engine<'_, L> {
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
                if self.stopped.is_some() {
                    return None;
                }
                self.vars[v as usize].expanded = true;
            }
            self.expand_head += 1;
        }
        None
    }

    fn expand_var(&mut self, v: u32) -> Option<usize> {
        if !self.vars[v as usize].provided {
            self.vars[v as usize].provided = true;
            if let Some(c) = self.provide(v) {
                return Some(c);
            }
            if self.stopped.is_some() {
                return None;
            }
        }
        let owned = self.problem.index().owned(self.global[v as usize]).to_vec();
        for ei in owned {
            if let Some(c) = self.add_entry(ei) {
                return Some(c);
            }
        }
        None
    }

    /// Adds Dependency or Conflict entry `ei` to the clause database unless it is there;
    /// returns it when it is false.
    fn add_entry(&mut self, ei: u32) -> Option<usize> {
        if !self.entry_added.insert(ei) {
            return None;
        }
        let entry = &self.problem.entries()[ei as usize];
        let subject = entry.subject;
        let others: Vec<Var> = match &entry.constraint {
            Constraint::Dependency(c) => c.clone(),
            Constraint::Conflict(o) => vec![*o],
            _ => return None,
        };
        let conflict = matches!(entry.constraint, Constraint::Conflict(_));
        let s = self.local(subject);
        let mut lits = Vec::with_capacity(others.len() + 1);
        lits.push(neg(s));
        for g in others {
            let l = self.local(g);
            lits.push(if conflict { neg(l) } else { pos(l) });
        }
        self.add_clause(lits, ei as usize)
    }

    /// Asks the provider for `v`, then takes in what it added: unit entries and the
    /// constraints of variables already expanded as clauses, new and grown at-most sets
    /// into the counts. Returns a clause false under the assignment.
    fn provide(&mut self, v: u32) -> Option<usize> {
        let provider = self.provider.as_mut()?;
        let g = self.global[v as usize];
        if let Err(exhausted) = provider.provide(self.problem.to_mut(), g) {
            self.stopped = Some(exhausted);
            return None;
        }
        let fresh = self.entries_seen..self.problem.entries().len();
        self.entries_seen = fresh.end;
        let extended = self.problem.to_mut().take_extended();
        let mut conflict = None;
        for i in fresh {
            let c = self.take_in(i);
            conflict = conflict.or(c);
        }
        for (entry, vars) in extended {
            let c = self.grow_atmost(entry, &vars);
            conflict = conflict.or(c);
        }
        conflict
    }

    /// Takes in entry `i`, added by the provider. A Dependency or Conflict entry joins the
    /// clause database now when a variable it belongs to is expanded already (the variable
    /// being provided is expanded next, with its entries).
    fn take_in(&mut self, i: usize) -> Option<usize> {
        let expanded = |e: &Self, x: Var| e.lookup(x).is_some_and(|l| e.vars[l as usize].expanded);
        let entry = &self.problem.entries()[i];
        let owners_expanded = match &entry.constraint {
            Constraint::Mandatory | Constraint::Prohibited => return self.add_unit(i),
            Constraint::AtMost { .. } => return self.new_atmost(i as u32),
            Constraint::Dependency(_) => expanded(self, entry.subject),
            Constraint::Conflict(o) => expanded(self, entry.subject) || expanded(self, *o),
        };
        if owners_expanded {
            self.add_entry(i as u32)
        } else {
            None
        }
    }
}

impl<L: Clone> Engine<'_, L> {
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
