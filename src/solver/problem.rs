//! The generic solver model of the Deppy design (docs/semantics.md §8): variables carrying
//! Mandatory, Prohibited, Dependency, Conflict and AtMost constraints, each with a label the
//! caller uses to explain it.

use super::index::Index;

/// A solver variable (for the OLM layer: a bundle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub u32);

impl Var {
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// A constraint on a subject variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Constraint {
    /// The subject must be selected.
    Mandatory,
    /// The subject must not be selected.
    Prohibited,
    /// When the subject is selected, at least one of these is; earlier ones are preferred.
    Dependency(Vec<Var>),
    /// The subject and this variable are never both selected.
    Conflict(Var),
    /// At most `n` of these (counted once each) are selected, whether or not the subject is.
    AtMost {
        /// The bound.
        n: usize,
        /// The variables counted.
        vars: Vec<Var>,
    },
}

/// One constraint with its subject and the caller's label for explanations.
#[derive(Clone, Debug)]
pub struct Entry<L> {
    /// The variable carrying the constraint.
    pub subject: Var,
    /// What it demands.
    pub constraint: Constraint,
    /// Why it exists, in the caller's terms.
    pub label: L,
}

/// A problem: a number of variables and the constraints on them, in the order added.
#[derive(Clone, Debug)]
pub struct Problem<L> {
    var_count: u32,
    entries: Vec<Entry<L>>,
    /// What each variable is involved in, kept as entries are added.
    index: Index,
    /// At-most entries extended since a search last looked, with the variables added: a
    /// search that lets a [`super::Provider`] grow the problem takes them after each call.
    extended: Vec<(u32, Vec<Var>)>,
}

impl<L> Default for Problem<L> {
    fn default() -> Self {
        Problem {
            var_count: 0,
            entries: Vec::new(),
            index: Index::default(),
            extended: Vec::new(),
        }
    }
}

impl<L> Problem<L> {
    /// An empty problem.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a variable.
    pub fn add_var(&mut self) -> Var {
        let v = Var(self.var_count);
        self.var_count += 1;
        v
    }

    /// Adds a constraint on `subject`. Variables named must come from [`Problem::add_var`].
    pub fn add(&mut self, subject: Var, constraint: Constraint, label: L) {
        self.index
            .add(self.entries.len() as u32, subject, &constraint);
        self.entries.push(Entry {
            subject,
            constraint,
            label,
        });
    }

    /// Adds `vars` to the variables at-most entry number `entry` counts (while a search
    /// runs, a [`super::Provider`] adds the variables it creates to the sets they belong
    /// to). Returns `false`, changing nothing, when that entry is not an at-most one.
    pub fn extend_at_most(&mut self, entry: usize, vars: &[Var]) -> bool {
        let Some(Entry {
            subject,
            constraint: Constraint::AtMost { n, vars: all },
            ..
        }) = self.entries.get_mut(entry)
        else {
            return false;
        };
        let at = entry as u32;
        let (subject, n) = (*subject, *n);
        all.extend_from_slice(vars);
        let constraint = Constraint::AtMost {
            n,
            vars: all.clone(),
        };
        self.index.reindex_at_most(at, subject, &constraint);
        self.extended.push((at, vars.to_vec()));
        true
    }

    /// The at-most extensions since the last call.
    pub(crate) fn take_extended(&mut self) -> Vec<(u32, Vec<Var>)> {
        std::mem::take(&mut self.extended)
    }

    /// The problem without its at-most entries: the same variables and the other entries
    /// in their order.
    pub fn without_at_most(self) -> Problem<L> {
        let mut out = Problem {
            var_count: self.var_count,
            ..Problem::default()
        };
        for e in self.entries {
            if !matches!(e.constraint, Constraint::AtMost { .. }) {
                out.add(e.subject, e.constraint, e.label);
            }
        }
        out
    }

    /// Removes the entries added after the first `len` (the newest first), as if they had
    /// never been added: a caller adds constraints for one solve, then takes them back
    /// instead of solving a copy.
    pub fn truncate(&mut self, len: usize) {
        while self.entries.len() > len {
            let Some(e) = self.entries.pop() else { break };
            self.index
                .remove_last(self.entries.len() as u32, e.subject, &e.constraint);
        }
    }

    /// Number of variables.
    pub fn var_count(&self) -> usize {
        self.var_count as usize
    }

    /// The constraints in the order added.
    pub fn entries(&self) -> &[Entry<L>] {
        &self.entries
    }

    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    /// Checks that a selection satisfies every constraint; returns the index of the first
    /// violated entry. Independent of the solver: used by tests and debug builds.
    pub fn check(&self, selected: &[Var]) -> Result<(), usize> {
        let mut on = vec![false; self.var_count()];
        for v in selected {
            if let Some(slot) = on.get_mut(v.index()) {
                *slot = true;
            }
        }
        let is_on = |v: &Var| on.get(v.index()).copied().unwrap_or(false);
        for (i, e) in self.entries.iter().enumerate() {
            let ok = match &e.constraint {
                Constraint::Mandatory => is_on(&e.subject),
                Constraint::Prohibited => !is_on(&e.subject),
                Constraint::Dependency(c) => !is_on(&e.subject) || c.iter().any(is_on),
                Constraint::Conflict(o) => !(is_on(&e.subject) && is_on(o)),
                Constraint::AtMost { n, vars } => {
                    let mut on: Vec<&Var> = vars.iter().filter(|v| is_on(v)).collect();
                    on.sort();
                    on.dedup();
                    on.len() <= *n
                }
            };
            if !ok {
                return Err(i);
            }
        }
        Ok(())
    }
}
