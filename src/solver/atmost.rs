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

impl<L: Clone> Engine<'_, L> {
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
        let g = self.global[v as usize];
        let start = self.counted.len();
        let sets = self.problem.index().atmost_of(g).to_vec();
        for entry in sets {
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
        let n = match self
            .problem
            .entries()
            .get(entry as usize)
            .map(|e| &e.constraint)
        {
            Some(Constraint::AtMost { n, .. }) => *n,
            _ => 0,
        };
        let members = self.problem.index().atmost_vars(entry).to_vec();
        let vars = members.into_iter().map(|g| self.local(g)).collect();
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
            if let Some(c) = self.check_atmost(k) {
                return Some(c);
            }
        }
        None
    }

    /// Set `k` over its bound: the clause over its first `n + 1` selected variables in
    /// trail order. Set `k` full: its unset variables ruled out, at the level of the
    /// latest selected one.
    fn check_atmost(&mut self, k: usize) -> Option<usize> {
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
        None
    }

    /// A binding at-most entry the provider added mid-search. Its variables whose at-most
    /// lists are computed already join it now, counted when selected; the others find it
    /// in the index when first selected.
    pub(super) fn new_atmost(&mut self, entry: u32) -> Option<usize> {
        let members = self.problem.index().atmost_vars(entry).to_vec();
        let listed: Vec<u32> = members
            .iter()
            .filter_map(|g| self.lookup(*g))
            .filter(|l| self.vars[*l as usize].counted_at != NOT_YET)
            .collect();
        if listed.is_empty() {
            return None;
        }
        let k = self.atmost_set(entry);
        for l in listed {
            self.join_set(l, k);
        }
        self.check_joined(k as usize)
    }

    /// At-most entry `entry` extended by `added`: when its set is built, they join it.
    pub(super) fn grow_atmost(
        &mut self,
        entry: u32,
        added: &[super::problem::Var],
    ) -> Option<usize> {
        let Some(&k) = self.atmost_local.get(&entry) else {
            // Not built: no variable of it has been selected since it became binding.
            return self.new_atmost(entry);
        };
        for g in added {
            let l = self.local(*g);
            if self.atmosts[k as usize].vars.contains(&l) {
                continue;
            }
            self.atmosts[k as usize].vars.push(l);
            if self.vars[l as usize].counted_at != NOT_YET {
                self.join_set(l, k);
            }
        }
        self.check_joined(k as usize)
    }

    /// Checks set `k` after variables joined it, unless one of its selected variables is
    /// still to be propagated: that propagation checks it, at the point of the search where
    /// it would have on the whole problem.
    fn check_joined(&mut self, k: usize) -> Option<usize> {
        let queued = self.atmosts[k].vars.iter().any(|u| {
            let s = &self.vars[*u as usize];
            s.value == TRUE && s.trail_pos as usize >= self.qhead
        });
        if queued { None } else { self.check_atmost(k) }
    }

    /// Adds set `k` to `v`'s computed at-most list (moved to the end of `counted`), and
    /// counts `v` in it when it is selected.
    fn join_set(&mut self, v: u32, k: u32) {
        let s = self.vars[v as usize];
        let (at, len) = (s.counted_at as usize, s.counted_len as usize);
        if self.counted[at..at + len].contains(&k) {
            return;
        }
        let start = self.counted.len();
        self.counted.extend_from_within(at..at + len);
        self.counted.push(k);
        let s = &mut self.vars[v as usize];
        s.counted_at = start as u32;
        s.counted_len = len as u32 + 1;
        if s.value == TRUE {
            self.atmosts[k as usize].count += 1;
        }
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
