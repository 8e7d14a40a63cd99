//! Solver tests: Deppy's own table (docs/semantics.md §8). The brute-force property tests,
//! with a model that shares no code with the solver, are `tests/solver_proptest.rs` and
//! `tests/oracle_generic.rs`.

use super::*;

type P = Problem<String>;

fn vars(p: &mut P, n: usize) -> Vec<Var> {
    (0..n).map(|_| p.add_var()).collect()
}

fn names(sel: &[Var], all: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = sel.iter().map(|v| all[v.0 as usize].to_string()).collect();
    v.sort();
    v
}

/// Builds a problem from (name, constraints) rows like Deppy's test table.
fn table(rows: &[(&str, Vec<Constraint>)], all: &[&str]) -> P {
    let mut p = P::new();
    let vs = vars(&mut p, all.len());
    for (name, cs) in rows {
        let i = all.iter().position(|n| n == name).unwrap();
        for c in cs {
            p.add(vs[i], c.clone(), format!("{name}: {c:?}"));
        }
    }
    p
}

fn dep(ids: &[u32]) -> Constraint {
    Constraint::Dependency(ids.iter().map(|i| Var(*i)).collect())
}

const ALL: [&str; 6] = ["a", "b", "x", "y", "z", "m"];
const X: u32 = 2;
const Y: u32 = 3;
const Z: u32 = 4;
const M: u32 = 5;

fn run(rows: &[(&str, Vec<Constraint>)]) -> Result<Vec<String>, SolveError<String>> {
    let p = table(rows, &ALL);
    solve(&p, &SolveOptions::default()).map(|s| names(&s, &ALL))
}

#[test]
fn preference_beats_cardinality() {
    let got = run(&[
        ("a", vec![Constraint::Mandatory, dep(&[X, Y])]),
        ("b", vec![Constraint::Mandatory, dep(&[Y])]),
    ]);
    assert_eq!(got.unwrap(), ["a", "b", "x", "y"]);
}

#[test]
fn satisfied_dependency_pulls_nothing_new() {
    let got = run(&[
        ("a", vec![Constraint::Mandatory, dep(&[Y, Z, M])]),
        ("b", vec![Constraint::Mandatory, dep(&[X, Y])]),
    ]);
    assert_eq!(got.unwrap(), ["a", "b", "y"]);
}

#[test]
fn at_most_steers_to_shared_candidate() {
    let at_most = Constraint::AtMost {
        n: 1,
        vars: vec![Var(X), Var(Y)],
    };
    let got = run(&[
        ("a", vec![Constraint::Mandatory, dep(&[X, Y]), at_most]),
        ("b", vec![Constraint::Mandatory, dep(&[Y])]),
    ]);
    assert_eq!(got.unwrap(), ["a", "b", "y"]);
}

#[test]
fn unreached_variables_do_not_matter() {
    let got = run(&[
        ("a", vec![dep(&[X, Y])]),
        ("b", vec![Constraint::Mandatory, dep(&[Y, X])]),
    ]);
    assert_eq!(got.unwrap(), ["b", "y"]);
}

#[test]
fn mandatory_and_prohibited_names_both() {
    let got = run(&[("a", vec![Constraint::Mandatory, Constraint::Prohibited])]);
    let Err(SolveError::Unsatisfiable(tree)) = got else {
        panic!("expected unsatisfiable, got {got:?}");
    };
    let causes = tree.external_causes();
    assert_eq!(causes.len(), 2, "{causes:?}");
    assert!(tree.root().unwrap().terms.is_empty());
}

#[test]
fn conflict_forces_second_choice() {
    let got = run(&[
        ("a", vec![Constraint::Mandatory, dep(&[X, Y])]),
        (
            "b",
            vec![Constraint::Mandatory, Constraint::Conflict(Var(X))],
        ),
    ]);
    assert_eq!(got.unwrap(), ["a", "b", "y"]);
}

#[test]
fn deep_chain_does_not_overflow() {
    let mut p = P::new();
    let vs = vars(&mut p, 100_000);
    p.add(vs[0], Constraint::Mandatory, "root".into());
    for w in vs.windows(2) {
        p.add(w[0], Constraint::Dependency(vec![w[1]]), "next".into());
    }
    p.add(vs[99_999], Constraint::Prohibited, "end".into());
    let got = solve(&p, &SolveOptions::default());
    assert!(matches!(got, Err(SolveError::Unsatisfiable(_))));
}
