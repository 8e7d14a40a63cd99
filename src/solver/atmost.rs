//! Native at-most-n sets. A set joins the engine, in local variables, when one of its
//! variables is first selected; each selected variable keeps the list of its sets so
//! counting and uncounting it costs one pass over that list.
//!
//! Invariant for the indexing below: the same as the engine's (local variables and at-most
//! indexes are only created by pushing onto their vectors, and a selected variable's list is
//! computed before it is counted).
#![allow(clippy::indexing_slicing)]

use super::engine::{AtMost, Engine, Lit, NOT_YET, Reason, TRUE, Value, neg};
use super::problem::Constraint;

impl<L> Engine<'_, L> {
    /// Counts (`up`) or uncounts a selected variable in each of its at-most sets.
    pub(super) fn count_selected(&mut self, v: u32, up: bool) {
        let (at, len) = self.atmost_list(v);
        for i in at..at + len {
            let k = self.counted[i] as usize;
            if up {
                self.atmosts[k].count += 1;
            } else {
                self.atmosts[k].count -= 1;
            }
        }
    }

    /// The range of `counted` listing `v`'s at-most sets, computed on first use.
    fn atmost_list(&mut self, v: u32) -> (usize, usize) {
        let s = self.vars[v as usize];
        if s.counted_at != NOT_YET {
            return (s.counted_at as usize, s.counted_len as usize);
        }
        let problem = self.problem;
        let g = self.global[v as usize];
        let start = self.counted.len();
        for &entry in problem.index().atmost_of(g) {
            let k = self.atmost_set(entry);
            self.counted.push(k);
        }
        let len = self.counted.len() - start;
        let s = &mut self.vars[v as usize];
        s.counted_at = start as u32;
        s.counted_len = len as u32;
        (start, len)
    }

    /// The local at-most set of a binding at-most entry, built on first use. It starts at
    /// count 0: a set is built when its first variable is selected, before that one counts.
    fn atmost_set(&mut self, entry: u32) -> u32 {
        if let Some(&k) = self.atmost_local.get(&entry) {
            return k;
        }
        let problem = self.problem;
        let n = match problem.entries().get(entry as usize).map(|e| &e.constraint) {
            Some(Constraint::AtMost { n, .. }) => *n,
            _ => 0,
        };
        let vars = problem
            .index()
            .atmost_vars(entry)
            .iter()
            .map(|g| self.local(*g))
            .collect();
        let k = self.atmosts.len() as u32;
        self.atmosts.push(AtMost {
            n,
            vars,
            entry: entry as usize,
            count: 0,
        });
        self.atmost_local.insert(entry, k);
        k
    }

    /// After `v` is selected: reports a set over its bound (as a clause over its first
    /// `n + 1` selected variables in trail order) or rules out the rest of a full set.
    pub(super) fn propagate_atmost(&mut self, v: u32) -> Option<usize> {
        let (at, len) = self.atmost_list(v);
        for i in at..at + len {
            let k = self.counted[i] as usize;
            let (n, count) = (self.atmosts[k].n, self.atmosts[k].count);
            if count > n {
                let mut on: Vec<u32> = self.atmosts[k]
                    .vars
                    .iter()
                    .copied()
                    .filter(|u| self.vars[*u as usize].value == TRUE)
                    .collect();
                on.sort_by_key(|u| self.vars[*u as usize].trail_pos);
                on.truncate(n + 1);
                let entry = self.atmosts[k].entry;
                let lits: Vec<Lit> = on.iter().map(|u| neg(*u)).collect();
                return Some(self.push_external(lits, entry));
            }
            if count == n {
                let level = self.atmosts[k]
                    .vars
                    .iter()
                    .filter(|u| self.vars[**u as usize].value == TRUE)
                    .map(|u| self.level_of(*u))
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

    /// The clause behind "`v` is ruled out by full set `k`": `v` or one of the set's
    /// variables selected before it is not selected.
    pub(super) fn atmost_reason(&mut self, v: u32, k: usize) -> usize {
        let at = self.vars[v as usize].trail_pos;
        let mut lits = vec![neg(v)];
        lits.extend(
            self.atmosts[k]
                .vars
                .iter()
                .filter(|u| {
                    let s = &self.vars[**u as usize];
                    s.value == TRUE && s.trail_pos < at
                })
                .map(|u| neg(*u)),
        );
        let entry = self.atmosts[k].entry;
        self.push_external(lits, entry)
    }
}
