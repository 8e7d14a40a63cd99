//! The generic solver model of docs/semantics.md §5 and §8, written over bit masks and
//! sharing no code with `deppy::advanced::solver` beyond its data types: which selections satisfy the
//! constraints, the §5 breadth-first answer with perfect look-ahead, §5 justification, and a
//! step-by-step check of an unsatisfiability proof. Used by `tests/oracle_generic.rs`,
//! `tests/solver_proptest.rs` and the `generic` fuzz target.
#![allow(dead_code)]

use std::fmt::Debug;

use deppy::advanced::solver::{Cause, Constraint, DerivationTree, Problem, Term, Var};

pub fn bit(v: Var) -> u32 {
    1 << v.0
}

pub fn mask_of(vars: &[Var]) -> u32 {
    vars.iter().fold(0, |m, v| m | bit(*v))
}

/// Does selection `s` (a bit mask) satisfy constraint `c` on `subject`?
pub fn holds(subject: Var, c: &Constraint, s: u32) -> bool {
    let on = |v: Var| s & bit(v) != 0;
    match c {
        Constraint::Mandatory => on(subject),
        Constraint::Prohibited => !on(subject),
        Constraint::Dependency(list) => !on(subject) || s & mask_of(list) != 0,
        Constraint::Conflict(o) => !(on(subject) && on(*o)),
        Constraint::AtMost { n, vars } => (s & mask_of(vars)).count_ones() as usize <= *n,
    }
}

/// Every valid selection, as masks (at most 20 variables).
pub fn valid_masks<L>(p: &Problem<L>) -> Vec<u32> {
    assert!(
        p.var_count() <= 20,
        "too many variables to try every selection"
    );
    (0u32..(1 << p.var_count()))
        .filter(|&s| {
            p.entries()
                .iter()
                .all(|e| holds(e.subject, &e.constraint, s))
        })
        .collect()
}

/// §5: mandatory variables in entry order, then dependencies breadth-first; a dependency
/// already met pulls in nothing, else its first candidate some valid selection extends. The
/// selection in the order it is made; None when no valid selection exists.
pub fn greedy<L>(p: &Problem<L>, valid: &[u32]) -> Option<Vec<Var>> {
    let extendable = |m: u32| valid.iter().any(|s| s & m == m);
    let mut sel: Vec<Var> = Vec::new();
    for e in p.entries() {
        if e.constraint == Constraint::Mandatory && !sel.contains(&e.subject) {
            sel.push(e.subject);
        }
    }
    if !extendable(mask_of(&sel)) {
        return None;
    }
    let mut i = 0;
    while let Some(&v) = sel.get(i) {
        for e in p.entries().iter().filter(|e| e.subject == v) {
            let Constraint::Dependency(list) = &e.constraint else {
                continue;
            };
            if list.iter().any(|x| sel.contains(x)) {
                continue;
            }
            let base = mask_of(&sel);
            let pick = list
                .iter()
                .find(|x| extendable(base | bit(**x)))
                .expect("a valid selection extending sel meets this dependency");
            sel.push(*pick);
        }
        i += 1;
    }
    Some(sel)
}

/// Every selected variable is mandatory or a candidate of a dependency of a selected one.
pub fn justified<L>(p: &Problem<L>, sel: &[Var]) -> Result<(), String> {
    let s = mask_of(sel);
    for v in sel {
        let ok = p.entries().iter().any(|e| match &e.constraint {
            Constraint::Mandatory => e.subject == *v,
            Constraint::Dependency(list) => s & bit(e.subject) != 0 && list.contains(v),
            _ => false,
        });
        if !ok {
            return Err(format!("{v:?} is selected but nothing needs it"));
        }
    }
    Ok(())
}

/// The proof is sound step by step: every leaf is implied by the constraint it names (no
/// selection meeting the constraint meets all the leaf's terms), every inner node is the
/// resolvent of two earlier nodes on a pivot they hold with opposite signs, and the root is
/// the empty incompatibility.
pub fn check_proof<L: PartialEq + Debug>(
    p: &Problem<L>,
    tree: &DerivationTree<L>,
) -> Result<(), String> {
    let root = tree.root().ok_or("an empty proof")?;
    if !root.terms.is_empty() {
        return Err(format!("the root is not empty: {:?}", root.terms));
    }
    let n = p.var_count();
    for (i, node) in tree.nodes.iter().enumerate() {
        match &node.cause {
            Cause::External(label) => {
                let e = p
                    .entries()
                    .iter()
                    .find(|e| e.label == *label)
                    .ok_or(format!("node {i}: no entry labelled {label:?}"))?;
                for s in 0u32..(1 << n) {
                    let all_terms = node
                        .terms
                        .iter()
                        .all(|t| (s & bit(t.var) != 0) == t.selected);
                    if all_terms && holds(e.subject, &e.constraint, s) {
                        return Err(format!(
                            "node {i} ({:?}) is not implied by entry {label:?} ({:?})",
                            node.terms, e.constraint
                        ));
                    }
                }
            }
            Cause::Derived { left, right, pivot } => {
                if *left >= i || *right >= i {
                    return Err(format!("node {i} uses a later node"));
                }
                let l = &tree.nodes[*left].terms;
                let r = &tree.nodes[*right].terms;
                let sign = |ts: &[Term]| ts.iter().find(|t| t.var == *pivot).map(|t| t.selected);
                match (sign(l), sign(r)) {
                    (Some(a), Some(b)) if a != b => {}
                    other => {
                        return Err(format!(
                            "node {i}: pivot {pivot:?} has signs {other:?} in its premises"
                        ));
                    }
                }
                let mut want: Vec<_> = l.iter().chain(r).filter(|t| t.var != *pivot).collect();
                want.sort();
                want.dedup();
                let mut got: Vec<_> = node.terms.iter().collect();
                got.sort();
                if got != want {
                    return Err(format!(
                        "node {i} is not the resolvent: {got:?} vs {want:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The first entry a selection of any size breaks, if any.
pub fn first_broken<L>(p: &Problem<L>, sel: &[Var]) -> Option<usize> {
    let chosen: std::collections::HashSet<Var> = sel.iter().copied().collect();
    let on = |v: &Var| chosen.contains(v);
    p.entries().iter().position(|e| {
        let ok = match &e.constraint {
            Constraint::Mandatory => on(&e.subject),
            Constraint::Prohibited => !on(&e.subject),
            Constraint::Dependency(list) => !on(&e.subject) || list.iter().any(on),
            Constraint::Conflict(o) => !(on(&e.subject) && on(o)),
            Constraint::AtMost { n, vars } => {
                let mut hit: Vec<&Var> = vars.iter().filter(|v| on(v)).collect();
                hit.sort();
                hit.dedup();
                hit.len() <= *n
            }
        };
        !ok
    })
}
