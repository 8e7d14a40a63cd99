//! Solver tests: Deppy's own table (docs/semantics.md §8) and a brute-force oracle.

use super::*;
use proptest::prelude::*;

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

// ---- brute-force oracle -------------------------------------------------------------

/// Is there a model containing every variable of `must`? (Exhaustive; n ≤ 12.)
fn extendable(p: &P, must: &[Var]) -> bool {
    let n = p.var_count();
    let must_mask: u32 = must.iter().fold(0, |m, v| m | (1 << v.0));
    (0u32..(1 << n)).any(|mask| {
        mask & must_mask == must_mask && {
            let sel: Vec<Var> = (0..n as u32)
                .filter(|i| mask & (1 << i) != 0)
                .map(Var)
                .collect();
            p.check(&sel).is_ok()
        }
    })
}

/// The answer docs/semantics.md §5.3 defines: breadth-first greedy choice with perfect look-ahead.
fn oracle(p: &P) -> Option<Vec<Var>> {
    let mut sel: Vec<Var> = Vec::new();
    for e in p.entries() {
        if e.constraint == Constraint::Mandatory && !sel.contains(&e.subject) {
            sel.push(e.subject);
        }
    }
    if !extendable(p, &sel) {
        return None;
    }
    let mut i = 0;
    while i < sel.len() {
        let v = sel[i];
        for e in p.entries().iter().filter(|e| e.subject == v) {
            let Constraint::Dependency(c) = &e.constraint else {
                continue;
            };
            if c.iter().any(|x| sel.contains(x)) {
                continue;
            }
            let pick = c.iter().find(|x| {
                let mut t = sel.clone();
                t.push(**x);
                extendable(p, &t)
            });
            sel.push(*pick.expect("an extendable selection satisfies this dependency"));
        }
        i += 1;
    }
    Some(sel)
}

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
            vars(&mut p, n);
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
    fn matches_the_oracle(p in arb_problem()) {
        let got = solve(&p, &SolveOptions::default());
        match (oracle(&p), got) {
            (Some(want), Ok(sel)) => {
                prop_assert!(p.check(&sel).is_ok());
                let mut w = want.clone();
                w.sort();
                let mut s = sel.clone();
                s.sort();
                prop_assert_eq!(s, w);
                prop_assert_eq!(sel, want, "selection order is breadth-first");
            }
            (None, Err(SolveError::Unsatisfiable(tree))) => {
                let root = tree.root().expect("a proof has a root");
                prop_assert!(root.terms.is_empty());
                check_proof(&p, &tree)?;
            }
            (want, got) => prop_assert!(false, "oracle {:?} solver {:?}", want, got),
        }
    }
}

/// Every derived node is the resolvent of its premises; every leaf is a real constraint.
fn check_proof(p: &P, tree: &DerivationTree<String>) -> Result<(), TestCaseError> {
    for (i, node) in tree.nodes.iter().enumerate() {
        match &node.cause {
            Cause::External(label) => {
                prop_assert!(p.entries().iter().any(|e| &e.label == label));
            }
            Cause::Derived { left, right, pivot } => {
                prop_assert!(*left < i && *right < i);
                let (l, r) = (&tree.nodes[*left].terms, &tree.nodes[*right].terms);
                prop_assert!(l.iter().chain(r).any(|t| t.var == *pivot));
                let mut want: Vec<Term> = l
                    .iter()
                    .chain(r)
                    .filter(|t| t.var != *pivot)
                    .copied()
                    .collect();
                want.sort();
                want.dedup();
                prop_assert_eq!(&node.terms, &want);
            }
        }
    }
    Ok(())
}
