//! Property test of the generic solver (docs/semantics.md §5, §8) with shrinking: random
//! problems of up to 8 variables against the brute-force model of
//! `tests/support/generic_model.rs`, which shares no code with the solver. An answer must
//! be valid in the model (not `Problem::check`, the solver's own checker), justified, and
//! exactly the §5 selection in the solver's order; an unsatisfiable problem's proof is
//! checked step by step (each leaf implied by its constraint, each inner node a resolvent on
//! an opposite-sign pivot, an empty root).

use deppy::advanced::solver::{
    Cause, Constraint, DerivationTree, Exhausted, Incompatibility, Problem, Provider, SolveError,
    SolveOptions, Term, Var, solve, solve_with,
};
use proptest::prelude::*;

#[path = "support/generic_model.rs"]
mod generic_model;
use generic_model::{check_proof, greedy, justified, mask_of, valid_masks};

type P = Problem<String>;

fn arb_problem() -> impl Strategy<Value = P> {
    let n = 2usize..9;
    n.prop_flat_map(|n| {
        let var = 0..n as u32;
        let constraint = prop_oneof![
            2 => Just(Constraint::Mandatory),
            1 => Just(Constraint::Prohibited),
            6 => prop::collection::vec(var.clone(), 0..4)
                .prop_map(|v| Constraint::Dependency(v.into_iter().map(Var).collect())),
            2 => var.clone().prop_map(|v| Constraint::Conflict(Var(v))),
            2 => (1usize..3, prop::collection::vec(var.clone(), 2..5)).prop_map(|(n, v)| {
                Constraint::AtMost { n, vars: v.into_iter().map(Var).collect() }
            }),
        ];
        prop::collection::vec((var, constraint), 1..14).prop_map(move |rows| {
            let mut p = P::new();
            for _ in 0..n {
                p.add_var();
            }
            for (i, (s, c)) in rows.into_iter().enumerate() {
                p.add(Var(s), c, format!("c{i}"));
            }
            p
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn matches_the_model(p in arb_problem()) {
        let valid = valid_masks(&p);
        match (greedy(&p, &valid), solve(&p, &SolveOptions::default())) {
            (Some(want), Ok(sel)) => {
                prop_assert!(valid.contains(&mask_of(&sel)), "{:?} breaks a constraint", sel);
                prop_assert_eq!(sel.len(), mask_of(&sel).count_ones() as usize);
                prop_assert_eq!(justified(&p, &sel), Ok(()));
                prop_assert_eq!(sel, want, "the §5 selection, in breadth-first order");
            }
            (None, Err(SolveError::Unsatisfiable(tree))) => {
                prop_assert_eq!(check_proof(&p, &tree), Ok(()));
            }
            (want, got) => prop_assert!(false, "model {:?} solver {:?}", want, got),
        }
    }
}

/// A provider that holds back each variable's Dependency and Conflict entries, and its
/// place in every at-most set, until the search first selects it.
struct Reveal {
    /// Entries not given yet: (owner, subject, constraint, label).
    held: Vec<(Var, Var, Constraint, String)>,
    /// At-most entries of the grown problem with the variables they do not count yet.
    sets: Vec<(usize, Vec<Var>)>,
}

impl Reveal {
    /// Splits `p` into what a search starts from and what this provider gives.
    fn split(p: &P) -> (P, Reveal) {
        let mut start = P::new();
        for _ in 0..p.var_count() {
            start.add_var();
        }
        let mut reveal = Reveal {
            held: Vec::new(),
            sets: Vec::new(),
        };
        for e in p.entries() {
            let (s, l) = (e.subject, e.label.clone());
            match &e.constraint {
                Constraint::Dependency(_) => reveal.held.push((s, s, e.constraint.clone(), l)),
                Constraint::Conflict(o) => {
                    reveal.held.push((s, s, e.constraint.clone(), l.clone()));
                    reveal.held.push((*o, s, e.constraint.clone(), l));
                }
                Constraint::AtMost { n, vars } => {
                    reveal.sets.push((start.entries().len(), vars.clone()));
                    let c = Constraint::AtMost {
                        n: *n,
                        vars: Vec::new(),
                    };
                    start.add(s, c, l);
                }
                _ => start.add(s, e.constraint.clone(), l),
            }
        }
        (start, reveal)
    }
}

impl Provider<String> for Reveal {
    fn provide(&mut self, p: &mut P, v: Var) -> Result<(), Exhausted> {
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.0 == v);
        self.held = rest;
        for (_, s, c, l) in mine {
            // A conflict held twice (once per side) is given once.
            if !p.entries().iter().any(|e| e.label == l) {
                p.add(s, c, l);
            }
        }
        for (entry, pending) in &mut self.sets {
            if pending.contains(&v) {
                pending.retain(|x| *x != v);
                assert!(p.extend_at_most(*entry, &[v]));
            }
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// A problem given as the search asks for it has the whole problem's answer, or a
    /// sound proof over the whole problem's constraints.
    #[test]
    fn a_provided_problem_gives_the_whole_answer(p in arb_problem()) {
        let (mut start, mut reveal) = Reveal::split(&p);
        let whole = solve(&p, &SolveOptions::default());
        match (whole, solve_with(&mut start, &mut reveal, &SolveOptions::default())) {
            (Ok(want), Ok(got)) => prop_assert_eq!(got, want),
            (Err(SolveError::Unsatisfiable(_)), Err(SolveError::Unsatisfiable(tree))) => {
                prop_assert_eq!(check_proof(&p, &tree), Ok(()));
            }
            (want, got) => prop_assert!(false, "whole {:?} provided {:?}", want, got),
        }
    }
}

/// The proof check is not a label check: a leaf whose terms its constraint does not imply,
/// a step on a pivot with equal signs, and a non-empty root are each rejected.
#[test]
fn proof_check_rejects_unsound_steps() {
    let mut p = P::new();
    let (a, b) = (p.add_var(), p.add_var());
    p.add(a, Constraint::Mandatory, "a".into());
    p.add(a, Constraint::Dependency(vec![b]), "a needs b".into());
    p.add(b, Constraint::Prohibited, "no b".into());
    let t = |v: Var, selected: bool| Term { var: v, selected };
    let leaf = |terms: Vec<Term>, l: &str| Incompatibility {
        terms,
        cause: Cause::External(l.to_string()),
    };
    let step = |terms: Vec<Term>, left: usize, right: usize, pivot: Var| Incompatibility {
        terms,
        cause: Cause::Derived { left, right, pivot },
    };
    let sound = DerivationTree {
        nodes: vec![
            leaf(vec![t(a, false)], "a"),
            leaf(vec![t(a, true), t(b, false)], "a needs b"),
            leaf(vec![t(b, true)], "no b"),
            step(vec![t(a, true)], 1, 2, b),
            step(vec![], 0, 3, a),
        ],
    };
    assert_eq!(check_proof(&p, &sound), Ok(()));
    let mut wrong_leaf = sound.clone();
    wrong_leaf.nodes[2].terms = vec![t(b, false)];
    assert!(
        check_proof(&p, &wrong_leaf).is_err(),
        "a leaf its constraint does not imply"
    );
    let mut same_sign = sound.clone();
    same_sign.nodes[3] = step(vec![t(a, true)], 1, 1, b);
    assert!(
        check_proof(&p, &same_sign).is_err(),
        "a pivot with equal signs"
    );
    let mut open_root = sound;
    open_root.nodes.truncate(4);
    assert!(
        check_proof(&p, &open_root).is_err(),
        "a root that is not empty"
    );
}
