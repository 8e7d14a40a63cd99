//! The reporter: turns a resolution failure (a derivation tree whose leaves are
//! [`crate::resolve::reason::Reason`]s) into plain words, summary first. Simplification runs
//! in named passes before wording; `DEPPY_RAW_TREE=1` prints the raw tree as well.

mod generic;
mod words;

pub use generic::explain_generic;

use crate::request::Request;
use crate::resolve::reason::Reason;
use crate::resolve::{Failure, Universe};
use crate::solver::{Cause, Incompatibility, Term};

use words::Words;

/// How much of the proof to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Detail {
    /// The facts that matter and the conclusion.
    #[default]
    Summary,
    /// The summary, then every step of the derivation.
    Full,
}

/// Words a failure.
pub fn explain_failure(failure: &Failure, u: &Universe<'_>, request: &Request, detail: Detail) -> String {
    let w = Words { u, request, subjects: &failure.subjects };
    let nodes = &failure.tree.nodes;
    let facts = pass_facts(nodes);
    let conclusions = pass_conclusions(nodes);
    let mut out = String::from("No resolution exists. Because:\n");
    for i in &facts {
        if let Some(n) = nodes.get(*i)
            && let Cause::External(reason) = &n.cause
        {
            out.push_str(&format!("  - {}\n", w.reason(reason, &n.terms)));
        }
    }
    let mut steps: Vec<String> = conclusions
        .iter()
        .filter_map(|i| nodes.get(*i))
        .map(|n| w.terms(&n.terms))
        .collect();
    steps.push("no resolution exists".to_string());
    out.push_str(&format!("So {}.\n", words::list(&steps, "and")));
    if detail == Detail::Full {
        out.push_str("\nDerivation:\n");
        out.push_str(&full(&w, nodes));
    }
    if std::env::var_os("DEPPY_RAW_TREE").is_some() {
        out.push_str(&format!("\nRaw tree:\n{:#?}\n", failure.tree));
    }
    out
}

/// Pass 1: the external facts the proof uses, each once, requirements first, then the
/// order the proof meets them.
fn pass_facts(nodes: &[Incompatibility<Reason>]) -> Vec<usize> {
    let mut seen: Vec<(&Reason, &[Term])> = Vec::new();
    let mut facts = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Cause::External(r) = &n.cause
            && !seen.contains(&(r, n.terms.as_slice()))
        {
            seen.push((r, &n.terms));
            facts.push(i);
        }
    }
    let rank = |i: &usize| match nodes.get(*i).map(|n| &n.cause) {
        Some(Cause::External(Reason::Required(r))) => (0, *r),
        Some(Cause::External(Reason::RequirementCandidates { requirement, .. })) => (1, *requirement),
        Some(Cause::External(Reason::KeepInstalled(_))) => (2, 0),
        _ => (3, 0),
    };
    facts.sort_by_key(|i| (rank(i), *i));
    facts
}

/// Pass 2: intermediate conclusions worth saying: a single bundle or requirement ruled out,
/// each once, in proof order.
fn pass_conclusions(nodes: &[Incompatibility<Reason>]) -> Vec<usize> {
    let mut seen: Vec<&[Term]> = Vec::new();
    let mut out = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let single = matches!(n.terms.as_slice(), [t] if t.selected);
        if matches!(n.cause, Cause::Derived { .. }) && single && !seen.contains(&n.terms.as_slice()) {
            seen.push(&n.terms);
            out.push(i);
        }
    }
    out
}

/// Every derivation step: "(n) Because A and B, C."
fn full(w: &Words<'_>, nodes: &[Incompatibility<Reason>]) -> String {
    let mut out = String::new();
    let say = |i: usize| -> String {
        match nodes.get(i) {
            Some(Incompatibility { cause: Cause::External(r), terms }) => w.reason(r, terms),
            Some(n) => format!("({}) {}", i + 1, w.terms(&n.terms)),
            None => String::new(),
        }
    };
    for (i, n) in nodes.iter().enumerate() {
        if let Cause::Derived { left, right, .. } = n.cause {
            out.push_str(&format!(
                "  ({}) Because {} and {}, {}.\n",
                i + 1,
                say(left),
                say(right),
                w.terms(&n.terms)
            ));
        }
    }
    out
}
