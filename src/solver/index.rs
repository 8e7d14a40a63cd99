//! The problem's own index, kept up to date as constraints are added, so a solve looks up
//! what a variable is involved in without scanning the whole problem: a search that touches
//! ten variables of a 100k-variable problem costs ten lookups.

use rustc_hash::FxHashMap;

use super::problem::{Constraint, Var};

/// Per-variable lists of entry indexes, and the normalised at-most sets.
#[derive(Clone, Debug, Default)]
pub(crate) struct Index {
    /// Mandatory and Prohibited entries, in order added.
    units: Vec<u32>,
    /// Per variable: the Dependency entries it is the subject of and the Conflict entries it
    /// is either side of, in order added.
    owned: Vec<Vec<u32>>,
    /// Per variable: the binding AtMost entries that count it, in order added.
    atmost_of: Vec<Vec<u32>>,
    /// Per binding AtMost entry: its distinct variables, sorted.
    atmost_vars: FxHashMap<u32, Vec<Var>>,
}

fn push_row(rows: &mut Vec<Vec<u32>>, v: Var, entry: u32) {
    let i = v.index();
    if rows.len() <= i {
        rows.resize_with(i + 1, Vec::new);
    }
    if let Some(row) = rows.get_mut(i) {
        row.push(entry);
    }
}

/// Drops `entry` from the end of `list`, where the newest entry sits.
fn pop_if(list: &mut Vec<u32>, entry: u32) {
    if list.last() == Some(&entry) {
        list.pop();
    }
}

fn pop_row(rows: &mut [Vec<u32>], v: Var, entry: u32) {
    if let Some(row) = rows.get_mut(v.index()) {
        pop_if(row, entry);
    }
}

impl Index {
    /// Records entry number `entry`.
    pub fn add(&mut self, entry: u32, subject: Var, constraint: &Constraint) {
        match constraint {
            Constraint::Mandatory | Constraint::Prohibited => self.units.push(entry),
            Constraint::Dependency(_) => push_row(&mut self.owned, subject, entry),
            Constraint::Conflict(other) => {
                push_row(&mut self.owned, subject, entry);
                if *other != subject {
                    push_row(&mut self.owned, *other, entry);
                }
            }
            Constraint::AtMost { n, vars } => {
                let mut vars = vars.clone();
                vars.sort_unstable();
                vars.dedup();
                if vars.len() > *n {
                    for v in &vars {
                        push_row(&mut self.atmost_of, *v, entry);
                    }
                    self.atmost_vars.insert(entry, vars);
                }
            }
        }
    }

    /// Forgets entry number `entry`, the last one recorded ([`Index::add`] in reverse).
    pub fn remove_last(&mut self, entry: u32, subject: Var, constraint: &Constraint) {
        match constraint {
            Constraint::Mandatory | Constraint::Prohibited => pop_if(&mut self.units, entry),
            Constraint::Dependency(_) => pop_row(&mut self.owned, subject, entry),
            Constraint::Conflict(other) => {
                pop_row(&mut self.owned, subject, entry);
                if *other != subject {
                    pop_row(&mut self.owned, *other, entry);
                }
            }
            Constraint::AtMost { .. } => {
                if let Some(vars) = self.atmost_vars.remove(&entry) {
                    for v in vars {
                        pop_row(&mut self.atmost_of, v, entry);
                    }
                }
            }
        }
    }

    /// Records at-most entry number `entry` again after its variables changed: variables
    /// new to it join its rows; a set that becomes binding is recorded.
    pub fn reindex_at_most(&mut self, entry: u32, subject: Var, constraint: &Constraint) {
        let Constraint::AtMost { n, vars } = constraint else {
            return;
        };
        let Some(old) = self.atmost_vars.remove(&entry) else {
            return self.add(entry, subject, constraint);
        };
        let mut vars = vars.clone();
        vars.sort_unstable();
        vars.dedup();
        for v in vars.iter().filter(|v| old.binary_search(v).is_err()) {
            push_row(&mut self.atmost_of, *v, entry);
        }
        debug_assert!(vars.len() > *n, "a binding set stays binding as it grows");
        self.atmost_vars.insert(entry, vars);
    }

    /// Mandatory and Prohibited entries, in order added.
    pub fn units(&self) -> &[u32] {
        &self.units
    }

    /// Dependencies of `v` and conflicts it is part of, in order added.
    pub fn owned(&self, v: Var) -> &[u32] {
        self.owned.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// Binding at-most entries counting `v`.
    pub fn atmost_of(&self, v: Var) -> &[u32] {
        self.atmost_of.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// The distinct variables of binding at-most entry `entry`, sorted.
    pub fn atmost_vars(&self, entry: u32) -> &[Var] {
        self.atmost_vars.get(&entry).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::Index;
    use crate::solver::{Constraint, Var};

    #[test]
    fn rows_keep_order_and_skip_loose_bounds() {
        let mut ix = Index::default();
        ix.add(0, Var(2), &Constraint::Dependency(vec![Var(0)]));
        ix.add(1, Var(0), &Constraint::Mandatory);
        ix.add(2, Var(1), &Constraint::Conflict(Var(2)));
        let at = Constraint::AtMost {
            n: 1,
            vars: vec![Var(3), Var(1), Var(3)],
        };
        ix.add(3, Var(1), &at);
        let loose = Constraint::AtMost {
            n: 2,
            vars: vec![Var(0), Var(1)],
        };
        ix.add(4, Var(0), &loose);
        assert_eq!(ix.units(), &[1]);
        assert_eq!(ix.owned(Var(2)), &[0, 2]);
        assert_eq!(ix.owned(Var(1)), &[2]);
        assert_eq!(ix.owned(Var(9)), &[] as &[u32]);
        assert_eq!(ix.atmost_of(Var(3)), &[3]);
        assert_eq!(ix.atmost_of(Var(0)), &[] as &[u32]);
        assert_eq!(ix.atmost_vars(3), &[Var(1), Var(3)]);
        assert_eq!(ix.atmost_vars(4), &[] as &[Var]);
    }

    /// Every lookup of an index over `vars` variables and `entries` entries.
    fn lookups(ix: &Index, vars: u32, entries: u32) -> String {
        let rows: Vec<_> = (0..vars)
            .map(|v| (ix.owned(Var(v)).to_vec(), ix.atmost_of(Var(v)).to_vec()))
            .collect();
        let sets: Vec<_> = (0..entries).map(|e| ix.atmost_vars(e).to_vec()).collect();
        format!("{:?} {rows:?} {sets:?}", ix.units())
    }

    #[test]
    fn removing_the_newest_entries_gives_the_index_without_them() {
        let kept = [
            (Var(2), Constraint::Dependency(vec![Var(0)])),
            (Var(0), Constraint::Mandatory),
            (
                Var(1),
                Constraint::AtMost {
                    n: 1,
                    vars: vec![Var(1), Var(2)],
                },
            ),
        ];
        let added = [
            (Var(1), Constraint::Conflict(Var(2))),
            (
                Var(3),
                Constraint::AtMost {
                    n: 1,
                    vars: vec![Var(3), Var(1), Var(5)],
                },
            ),
            (Var(3), Constraint::Prohibited),
            (Var(2), Constraint::Dependency(vec![Var(3)])),
        ];
        let mut before = Index::default();
        for (i, (v, c)) in kept.iter().enumerate() {
            before.add(i as u32, *v, c);
        }
        let mut ix = before.clone();
        for (i, (v, c)) in added.iter().enumerate() {
            ix.add((kept.len() + i) as u32, *v, c);
        }
        assert_ne!(lookups(&ix, 6, 7), lookups(&before, 6, 7));
        for (i, (v, c)) in added.iter().enumerate().rev() {
            ix.remove_last((kept.len() + i) as u32, *v, c);
        }
        assert_eq!(lookups(&ix, 6, 7), lookups(&before, 6, 7));
    }
}
