//! The in-process engines, each run in a child process (`deppy-compare child ...`) so that its
//! peak memory can be read from the child's rusage. A child prints one JSON line:
//! `{"status": "sat"|"unsat"|"error", "selected": [bundle indices], "phases": {name: [ms...]},
//! "note": "..."}`.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::generic::Label;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::{Outcome, Resolver};
use deppy::advanced::solver::{DerivationTree, Problem, SolveError, SolveOptions, Var};
use serde_json::json;

use crate::emit::{self, TypedModel};
use crate::model::Model;
use crate::resolvo_engine;

pub struct Run {
    pub status: &'static str,
    pub selected: Vec<usize>,
    pub phases: Vec<(&'static str, Vec<f64>)>,
    pub note: String,
}

impl Run {
    pub fn new() -> Run {
        Run {
            status: "error",
            selected: Vec::new(),
            phases: Vec::new(),
            note: String::new(),
        }
    }
    fn add(&mut self, phase: &'static str, ms: f64) {
        match self.phases.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, v)) => v.push(ms),
            None => self.phases.push((phase, vec![ms])),
        }
    }
    pub fn to_json(&self) -> String {
        let phases: serde_json::Map<String, serde_json::Value> = self
            .phases
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        json!({"status": self.status, "selected": self.selected, "phases": phases, "note": self.note})
            .to_string()
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn first_line(s: &str) -> String {
    s.lines()
        .nth(1)
        .or(s.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Solves `problem` and records the answer in `run` ("solve"); when it is unsatisfiable, the
/// explanation `explain` words is part of "solve" and is timed as "explain" too. Variables
/// below `roots` are the root requirements, not bundles.
fn solve_into<L: Clone>(
    run: &mut Run,
    roots: usize,
    problem: &Problem<L>,
    explain: impl FnOnce(DerivationTree<L>) -> String,
) {
    let t = Instant::now();
    let answer = deppy::advanced::solver::solve(problem, &SolveOptions::default());
    record_answer(run, roots, t, answer, explain);
}

/// Records a solve begun at `t`: the selection, or the explanation `explain` words ("solve",
/// "explain" as in [`solve_into`]).
fn record_answer<L: Clone>(
    run: &mut Run,
    roots: usize,
    t: Instant,
    answer: Result<Vec<Var>, SolveError<L>>,
    explain: impl FnOnce(DerivationTree<L>) -> String,
) {
    match answer {
        Ok(sel) => {
            run.add("solve", ms(t));
            run.status = "sat";
            run.selected = sel
                .iter()
                .map(|v| v.0 as usize)
                .filter(|i| *i >= roots)
                .map(|i| i - roots)
                .collect();
        }
        Err(SolveError::Unsatisfiable(tree)) => {
            let solved = ms(t);
            let text = explain(tree);
            run.add("solve", ms(t));
            run.add("explain", ms(t) - solved);
            run.status = "unsat";
            run.note = first_line(&text);
        }
        Err(SolveError::GaveUp { conflicts, .. }) => {
            run.add("solve", ms(t));
            run.status = "error";
            run.note = format!("gave up after {conflicts} conflicts");
        }
    }
}

/// deppy's generic model built in memory (`deppy solve`'s model); timed, per repeat and from
/// the same in-memory model every engine starts from: building the `GenericFile` and its
/// `Problem` ("build"), then `solver::solve` plus, on failure, the rendering of the
/// derivation tree through `explain_generic` ("solve"); "total" is both.
pub fn deppy_generic(m: &Model, repeats: usize) -> Run {
    let mut run = Run::new();
    for _ in 0..repeats {
        let t0 = Instant::now();
        let file = emit::generic_file(m);
        let problem = file.problem().expect("generated model is well-formed");
        run.add("build", ms(t0));
        solve_into(&mut run, m.roots.len(), &problem, |tree| {
            deppy::advanced::explain::explain_generic(&tree, &file, Default::default())
        });
        run.add("total", ms(t0));
        drop((problem, file));
    }
    run
}

/// deppy's solver fed as resolvo is fed: a typed `Problem` built from the model's indices
/// (`emit::TypedModel`: the same variables and constraints as the generic model, without
/// names), each constraint labelled (variable, its number on that variable). Timed per repeat
/// from the same in-memory model: building the problem ("build"), then `solver::solve` plus, on
/// failure, the explanation: the variables' names and the constraints the proof uses
/// (`TypedModel::named_file`), worded by `explain_generic` as for the generic model ("solve").
pub fn deppy_problem(m: &Model, repeats: usize) -> Run {
    let mut run = Run::new();
    for _ in 0..repeats {
        let t0 = Instant::now();
        let typed = TypedModel::new(m);
        let problem = typed_problem(&typed);
        run.add("build", ms(t0));
        solve_into(&mut run, m.roots.len(), &problem, |tree| {
            typed_explanation(&typed, tree)
        });
        run.add("total", ms(t0));
        drop(problem);
    }
    run
}

/// The typed model given to deppy's solver as its search asks for it
/// (`solver::solve_with`), as resolvo lazy is given its dependencies: the problem starts with
/// every variable and the roots' constraints; a bundle's constraints, and the at-most sets
/// counting it, are added when the search first selects it. Timed as [`deppy_problem`]:
/// "build" is the model's index and the roots, "solve" the search with everything it asked.
pub fn deppy_provided(m: &Model, repeats: usize) -> Run {
    let mut run = Run::new();
    for _ in 0..repeats {
        let t0 = Instant::now();
        let typed = TypedModel::new(m);
        let mut problem = Problem::new();
        for _ in 0..typed.var_count() {
            problem.add_var();
        }
        let mut provider = Provided {
            typed: &typed,
            given: Default::default(),
        };
        for r in 0..typed.roots() {
            provider.own(&mut problem, r);
        }
        run.add("build", ms(t0));
        let t = Instant::now();
        let answer =
            deppy::advanced::solver::solve_with(&mut problem, &mut provider, &Default::default());
        record_answer(&mut run, m.roots.len(), t, answer, |tree| {
            typed_explanation(&typed, tree)
        });
        run.add("total", ms(t0));
    }
    run
}

/// The provider of [`deppy_provided`]: constraints labelled as in [`typed_problem`].
struct Provided<'t, 'm> {
    typed: &'t TypedModel<'m>,
    /// The at-most constraints added, by label.
    given: std::collections::HashSet<(u32, u32)>,
}

impl Provided<'_, '_> {
    /// Adds variable `v`'s own constraints (its at-most ones unless given already).
    fn own(&mut self, problem: &mut Problem<(u32, u32)>, v: u32) {
        let mut k = 0;
        self.typed.constraints(v, |c| {
            let label = (v, k);
            k += 1;
            if !matches!(c, emit::Typed::AtMost(_)) || self.given.insert(label) {
                problem.add(Var(v), c.into_constraint(), label);
            }
        });
    }
}

impl deppy::advanced::solver::Provider<(u32, u32)> for Provided<'_, '_> {
    fn provide(
        &mut self,
        problem: &mut Problem<(u32, u32)>,
        var: Var,
    ) -> Result<(), deppy::advanced::solver::Exhausted> {
        if var.0 < self.typed.roots() {
            return Ok(());
        }
        self.own(problem, var.0);
        for carrier in self.typed.at_most_carriers(var.0) {
            let mut k = 0;
            self.typed.constraints(carrier, |c| {
                let label = (carrier, k);
                k += 1;
                if matches!(c, emit::Typed::AtMost(_)) && self.given.insert(label) {
                    problem.add(Var(carrier), c.into_constraint(), label);
                }
            });
        }
        Ok(())
    }
}

/// The typed model as a `Problem`, each constraint labelled (variable, its number on it).
pub fn typed_problem(typed: &TypedModel<'_>) -> Problem<(u32, u32)> {
    let mut problem = Problem::new();
    for _ in 0..typed.var_count() {
        problem.add_var();
    }
    for v in 0..typed.var_count() {
        let mut k = 0;
        typed.constraints(v, |c| {
            problem.add(Var(v), c.into_constraint(), (v, k));
            k += 1;
        });
    }
    problem
}

/// The explanation of a typed problem's failure, worded as for the generic model: the file
/// of the variables whose constraints the proof uses, the labels as generic labels.
pub fn typed_explanation(typed: &TypedModel<'_>, tree: DerivationTree<(u32, u32)>) -> String {
    let mut used: Vec<u32> = tree.external_causes().iter().map(|l| l.0).collect();
    used.sort_unstable();
    used.dedup();
    let file = typed.named_file(&used);
    let tree = tree.map(|(v, k)| {
        let var = &file.variables[v as usize];
        Label {
            subject: var.id.clone(),
            constraint: var.constraints[k as usize].clone(),
        }
    });
    deppy::advanced::explain::explain_generic(&tree, &file, Default::default())
}

/// `deppy resolve` through the library on `dir/catalog` (the conflict-free variant), stage by
/// stage: load (CatalogSet::load), prepare (`Resolver::new`), resolve
/// (`Resolver::resolve`: the requirement lists, dependency lists derived as the search asks
/// for them, the search and the answer; on failure the proof of the search that found no
/// answer, and explain_failure). "request" = prepare + resolve: from the catalog in memory to the
/// answer, as the peers go from the model in memory to theirs (a new `Resolver` each repeat,
/// as the peers build a new provider); "total" = load + request.
pub fn deppy_resolve(m: &Model, dir: &Path, repeats: usize) -> Run {
    let mut run = Run::new();
    let request = Request {
        require: m
            .roots
            .iter()
            .map(|p| Requirement::from_spec(&m.names[*p as usize]).expect("valid package name"))
            .collect(),
        ..Request::default()
    };
    let request = Arc::new(request);
    let source = CatalogSource {
        name: "synthetic".into(),
        path: dir.join("catalog"),
        priority: 0,
    };
    for _ in 0..repeats {
        let t0 = Instant::now();
        let set = match CatalogSet::load(std::slice::from_ref(&source), &LoadOptions::default()) {
            Ok(s) => Arc::new(s),
            Err(e) => {
                run.note = format!("load: {e}");
                return run;
            }
        };
        let load = ms(t0);
        let t = Instant::now();
        let resolver = Resolver::new(set);
        let prepare = ms(t);
        let t1 = Instant::now();
        let outcome = resolver.resolve(&request);
        match outcome {
            Ok((_, Outcome::Resolved(answer))) => {
                run.status = "sat";
                run.selected = answer
                    .selected
                    .iter()
                    .map(|s| m.parse_bundle(&s.bundle).expect("bundle name of the model"))
                    .collect();
            }
            Ok((universe, Outcome::Unsatisfiable(failure))) => {
                let text = deppy::advanced::explain::explain_failure(
                    &failure,
                    &universe,
                    &request,
                    Default::default(),
                );
                run.status = "unsat";
                run.note = first_line(&text);
            }
            Err(e) => {
                run.status = "error";
                run.note = e.to_string();
            }
        }
        let resolve = ms(t1);
        let total = ms(t0);
        run.add("load", load);
        run.add("prepare", prepare);
        run.add("resolve", resolve);
        run.add("request", prepare + resolve);
        run.add("total", total);
    }
    run
}

/// resolvo, eager or lazy; timed per repeat from the model in memory: building the provider
/// ("build"), then `Solver::new` + `solve` (+ on failure the user-friendly explanation)
/// ("solve"); "total" is both. A new provider each repeat, so no cache is shared between
/// repeats.
pub fn resolvo(m: &Model, eager: bool, repeats: usize) -> Run {
    let mut run = Run::new();
    for _ in 0..repeats {
        let t0 = Instant::now();
        let provider = resolvo_engine::Provider::new(m, eager);
        run.add("build", ms(t0));
        let t = Instant::now();
        let (result, solver) = resolvo_engine::solve(provider);
        run.add("solve", ms(t));
        run.add("total", ms(t0));
        drop(solver);
        match result {
            Ok(sel) => {
                run.status = "sat";
                run.selected = sel;
            }
            Err(text) => {
                run.status = "unsat";
                run.note = first_line(&text);
            }
        }
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Shape;

    #[test]
    fn typed_explanation_is_the_generic_one() {
        for seed in 1..6 {
            let m = Model::generate(Shape::U, 300, seed, true);
            let file = emit::generic_file(&m);
            let generic = file.problem().expect("well-formed");
            let solve = |p| deppy::advanced::solver::solve(p, &SolveOptions::default());
            let Err(SolveError::Unsatisfiable(tree)) = solve(&generic) else {
                panic!("shape u resolved")
            };
            let want = deppy::advanced::explain::explain_generic(&tree, &file, Default::default());
            let typed = TypedModel::new(&m);
            let Err(SolveError::Unsatisfiable(tree)) =
                deppy::advanced::solver::solve(&typed_problem(&typed), &SolveOptions::default())
            else {
                panic!("the typed problem resolved")
            };
            assert_eq!(typed_explanation(&typed, tree), want, "seed {seed}");
        }
    }

    /// The provider row gives the typed row's answers: the same selection, or both no
    /// answer, on every shape with and without conflicts.
    #[test]
    fn provided_answers_are_the_typed_ones() {
        for shape in [Shape::N, Shape::U, Shape::C, Shape::Real] {
            for conflicts in [true, false] {
                for seed in 1..4 {
                    let m = Model::generate(shape, 300, seed, conflicts);
                    let (typed, provided) = (deppy_problem(&m, 1), deppy_provided(&m, 1));
                    let what = format!("{shape:?} conflicts {conflicts} seed {seed}");
                    assert_eq!(provided.status, typed.status, "{what}");
                    assert_eq!(provided.selected, typed.selected, "{what}");
                    assert!(typed.status == "sat" || typed.status == "unsat", "{what}");
                }
            }
        }
    }
}
