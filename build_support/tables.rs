//! How each table derived forward stays a set. A table whose tuples can only repeat within
//! one step of the evaluation needs no hash set of everything it holds: it appends to its log
//! and removes the step's repeats once, at the end of the step, by sorting the step's tuples
//! (a step already in order is only checked).
//!
//! - *Scoped* (keyed by the expanded binding): every rule deriving the relation fires from the
//!   expanded relation as the driver expands a tuple, or from a scoped relation, and puts the
//!   expanded tuple's values at the same head positions. Each tuple is expanded once, so no two
//!   expansions derive one tuple: the repeats of an expansion are removed when it ends.
//! - *Fired* (keyed by the delta): every rule deriving the relation fires from one relation
//!   whose log holds no repeats when it is fired (a hashed or fired table), and puts every
//!   argument of that tuple in its head, at the same positions. Two firings derive different
//!   tuples: the repeats of one firing are removed when it ends.
//! - Every other table keeps a hash set of its tuples.

use std::collections::BTreeMap;

use super::analyze::Analysis;
use super::parse::{Arg, Clause, Program, Rule};

/// How a table derived forward stays a set (module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// A hash set of every tuple.
    Hashed,
    /// Repeats removed at the end of each expansion; the head positions of the expanded
    /// tuple's values.
    Scoped(Vec<usize>),
    /// Repeats removed at the end of each firing of this delta relation.
    Fired(String),
}

/// The head position of each argument of `rule`'s delta atom, when every argument is a
/// variable the head holds as it is.
fn delta_positions(rule: &Rule, delta: usize) -> Option<Vec<usize>> {
    let Clause::Atom(d) = &rule.body[delta] else {
        return None;
    };
    (d.args.iter())
        .map(|arg| match arg {
            Arg::Var(v) => rule.head_position(v),
            _ => None,
        })
        .collect()
}

fn delta_rel(rule: &Rule, delta: usize) -> &str {
    match &rule.body[delta] {
        Clause::Atom(a) => &a.rel,
        _ => "",
    }
}

/// The one value every item of `it` gives, if it gives one and no item gives none.
fn same<T: PartialEq>(mut it: impl Iterator<Item = Option<T>>) -> Option<T> {
    let first = it.next()??;
    for x in it {
        if x? != first {
            return None;
        }
    }
    Some(first)
}

/// The scope of `rel` given the scopes found so far: the head positions of the expanded
/// tuple's values, the same in every rule deriving it.
fn scope(
    p: &Program,
    a: &Analysis,
    rel: &str,
    scoped: &BTreeMap<String, Vec<usize>>,
) -> Option<Vec<usize>> {
    let rules = p.rules.iter().filter(|r| r.head.rel == rel);
    same(rules.map(|rule| {
        let d = a.delta(rule)?;
        let at = delta_positions(rule, d);
        if a.deferred(rule) {
            return at;
        }
        let outer = scoped.get(delta_rel(rule, d))?;
        let Clause::Atom(atom) = &rule.body[d] else {
            return None;
        };
        (outer.iter())
            .map(|&i| match &atom.args[i] {
                Arg::Var(v) => rule.head_position(v),
                _ => None,
            })
            .collect()
    }))
}

/// The delta relation of `rel` when it may be fired (module documentation), the fired
/// tables found so far aside.
fn fired_from(p: &Program, a: &Analysis, rel: &str) -> Option<(String, Vec<usize>)> {
    let rules = p.rules.iter().filter(|r| r.head.rel == rel);
    same(rules.map(|rule| {
        let d = a.delta(rule)?;
        if a.deferred(rule) || delta_rel(rule, d) == rel {
            return None;
        }
        Some((delta_rel(rule, d).to_string(), delta_positions(rule, d)?))
    }))
}

/// How each relation derived forward stays a set (module documentation).
pub fn classify(p: &Program, a: &Analysis) -> BTreeMap<String, Keep> {
    let expanded = a.expanded.as_deref();
    let mut scoped: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    loop {
        let before = scoped.len();
        for rel in &a.propagated {
            if Some(rel.as_str()) == expanded || scoped.contains_key(rel) {
                continue;
            }
            if let Some(s) = scope(p, a, rel, &scoped) {
                scoped.insert(rel.clone(), s);
            }
        }
        if scoped.len() == before {
            break;
        }
    }
    // A delta holds no repeats when it is hashed or fired: hashed for certain when it is
    // neither scoped nor could be fired at all.
    let candidates: BTreeMap<&String, String> = (a.propagated.iter())
        .filter(|r| !scoped.contains_key(*r) && Some(r.as_str()) != expanded)
        .filter_map(|r| fired_from(p, a, r).map(|(d, _)| (r, d)))
        .collect();
    let mut fired: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let before = fired.len();
        for (rel, d) in &candidates {
            let hashed = !scoped.contains_key(d) && !candidates.contains_key(d);
            if !fired.contains_key(*rel) && (hashed || fired.contains_key(d)) {
                fired.insert(rel.to_string(), d.clone());
            }
        }
        if fired.len() == before {
            break;
        }
    }
    (a.propagated.iter())
        .map(|r| {
            let keep = match (scoped.get(r), fired.get(r)) {
                (Some(s), _) => Keep::Scoped(s.clone()),
                (None, Some(d)) => Keep::Fired(d.clone()),
                (None, None) => Keep::Hashed,
            };
            (r.clone(), keep)
        })
        .collect()
}
