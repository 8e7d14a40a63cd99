//! Words for the generic model (`deppy solve`): ids stand for themselves.

use rustc_hash::FxHashMap;

use crate::generic::{GenericAnswer, GenericError, GenericFile, Label, RawConstraint};
use crate::solver::{Cause, DerivationTree, SolveOptions, Term};

use super::Detail;
use super::words::list;

/// Solving a model file and wording its outcome: the `deppy solve` answer.
impl GenericFile {
    /// Solves the file; a failure is explained with every derivation step.
    pub fn solve(&self, options: &SolveOptions) -> Result<GenericAnswer, GenericError> {
        self.solve_explained(options, Detail::Full)
    }

    /// Solves the file; a failure is explained in `detail` (the summary: the constraints
    /// the proof uses; full: every step as well).
    pub fn solve_explained(
        &self,
        options: &SolveOptions,
        detail: Detail,
    ) -> Result<GenericAnswer, GenericError> {
        let p = self.problem()?;
        Ok(match crate::solver::solve(&p, options) {
            Ok(sel) => {
                let mut idx: Vec<usize> = sel.iter().map(|v| v.0 as usize).collect();
                idx.sort_unstable();
                GenericAnswer {
                    status: "resolved",
                    selected: idx
                        .iter()
                        .filter_map(|i| self.variables.get(*i))
                        .map(|v| v.id.clone())
                        .collect(),
                    explanation: String::new(),
                }
            }
            Err(crate::solver::SolveError::Unsatisfiable(tree)) => GenericAnswer {
                status: "unsatisfiable",
                selected: Vec::new(),
                explanation: explain_generic(&tree, self, detail),
            },
            Err(crate::solver::SolveError::GaveUp {
                conflicts,
                exhausted,
                proven,
                partial,
            }) => GenericAnswer {
                status: "gaveUp",
                selected: Vec::new(),
                explanation: format!(
                    "{}\n{}",
                    crate::solver::GaveUpLine {
                        conflicts,
                        exhausted,
                        proven
                    },
                    match partial {
                        Some(t) => explain_generic_partial(&t, self),
                        None if conflicts > 0 && !proven => {
                            super::PARTIAL_TOO_LARGE.to_string()
                        }
                        None => String::new(),
                    }
                ),
            },
        })
    }
}

fn constraint(file: &GenericFile, l: &Label) -> String {
    let s = &l.subject;
    match &l.constraint {
        RawConstraint::Mandatory(_) => format!("{s} is mandatory"),
        RawConstraint::Prohibited(_) => format!("{s} is prohibited"),
        RawConstraint::Dependency(d) if d.is_empty() => {
            format!("{s} depends on nothing that exists")
        }
        RawConstraint::Dependency(d) => format!("{s} depends on {}", list(d, "or")),
        RawConstraint::Conflict(o) => format!("{s} conflicts with {o}"),
        RawConstraint::AtMost(a) => {
            let _ = file;
            format!(
                "at most {} of {} may be selected ({s})",
                a.n,
                list(&a.ids, "and")
            )
        }
    }
}

fn terms(file: &GenericFile, t: &[Term]) -> String {
    let on: Vec<String> = t
        .iter()
        .filter(|t| t.selected)
        .map(|t| file.id(t.var).to_string())
        .collect();
    let off: Vec<String> = t
        .iter()
        .filter(|t| !t.selected)
        .map(|t| file.id(t.var).to_string())
        .collect();
    match (on.is_empty(), off.is_empty()) {
        (true, true) => "no selection exists".to_string(),
        (false, true) if on.len() == 1 => format!("{} cannot be selected", list(&on, "and")),
        (false, true) => format!("{} cannot all be selected", list(&on, "and")),
        (true, false) => format!("one of {} must be selected", list(&off, "or")),
        (false, false) => format!("{} needs {}", list(&on, "and"), list(&off, "or")),
    }
}

/// Words a generic failure: the constraints the proof uses, then, with [`Detail::Full`],
/// each derivation step (a proof can run to millions of steps: the summary is the default
/// of `deppy solve`).
pub fn explain_generic(tree: &DerivationTree<Label>, file: &GenericFile, detail: Detail) -> String {
    let mut out = String::from("No selection exists. Because:\n");
    facts(&mut out, tree, file);
    if detail == Detail::Full {
        steps(&mut out, tree, file);
    }
    out
}

/// Words what a search that gave up had proven: the same form as a failure, ending in the
/// last incompatibility it learned rather than "no selection".
pub fn explain_generic_partial(tree: &DerivationTree<Label>, file: &GenericFile) -> String {
    let mut out = derivation("What deppy had proven when it stopped:\n", tree, file);
    if let Some(root) = tree.root() {
        out.push_str(&format!("So {}.\n", terms(file, &root.terms)));
    }
    out
}

fn derivation(head: &str, tree: &DerivationTree<Label>, file: &GenericFile) -> String {
    let mut out = String::from(head);
    facts(&mut out, tree, file);
    steps(&mut out, tree, file);
    out
}

/// The constraints a proof uses, one line each.
fn facts(out: &mut String, tree: &DerivationTree<Label>, file: &GenericFile) {
    // Each constraint once; bucketed by subject, so a long proof stays linear.
    let mut seen: FxHashMap<&str, Vec<&Label>> = FxHashMap::default();
    for l in tree.external_causes() {
        let bucket = seen.entry(l.subject.as_str()).or_default();
        if !bucket.contains(&l) {
            bucket.push(l);
            out.push_str(&format!("  - {}\n", constraint(file, l)));
        }
    }
}

/// Every derivation step, numbered.
fn steps(out: &mut String, tree: &DerivationTree<Label>, file: &GenericFile) {
    let say = |i: usize| match tree.nodes.get(i) {
        Some(n) => match &n.cause {
            Cause::External(l) => constraint(file, l),
            Cause::Derived { .. } => format!("({}) {}", i + 1, terms(file, &n.terms)),
        },
        None => String::new(),
    };
    if tree
        .nodes
        .iter()
        .any(|n| matches!(n.cause, Cause::Derived { .. }))
    {
        out.push_str("Derivation:\n");
    }
    for (i, n) in tree.nodes.iter().enumerate() {
        if let Cause::Derived { left, right, .. } = n.cause {
            out.push_str(&format!(
                "  ({}) Because {} and {}, {}.\n",
                i + 1,
                say(left),
                say(right),
                terms(file, &n.terms)
            ));
        }
    }
}
