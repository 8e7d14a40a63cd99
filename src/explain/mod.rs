//! The reporter: turns a resolution failure (a derivation tree whose leaves are
//! [`crate::resolve::reason::Reason`]s) into plain words, summary first. Simplification runs
//! in named passes before wording; `DEPPY_RAW_TREE=1` prints the raw tree as well.

mod generic;
pub mod why;
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
pub fn explain_failure(
    failure: &Failure,
    u: &Universe,
    request: &Request,
    detail: Detail,
) -> String {
    let w = Words {
        u,
        request,
        subjects: &failure.subjects,
    };
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
    let steps: Vec<String> = conclusions
        .iter()
        .filter_map(|i| nodes.get(*i))
        .map(|n| w.terms(&n.terms))
        .collect();
    if steps.is_empty() {
        out.push_str("So no resolution exists.\n");
    } else {
        out.push_str(&format!(
            "So {}; therefore no resolution exists.\n",
            words::list(&steps, "and")
        ));
    }
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
        Some(Cause::External(Reason::RequirementCandidates { requirement, .. })) => {
            (1, *requirement)
        }
        Some(Cause::External(Reason::KeepInstalled(_))) => (2, 0),
        _ => (3, 0),
    };
    facts.sort_by_key(|i| (rank(i), *i));
    facts
}

/// Pass 2: intermediate conclusions worth saying, each once, in proof order: a bundle whose
/// dependency nothing can meet, then every derived "these cannot be installed (together)".
fn pass_conclusions(nodes: &[Incompatibility<Reason>]) -> Vec<usize> {
    let mut seen: Vec<&[Term]> = Vec::new();
    let mut out = Vec::new();
    let dead_end = |n: &Incompatibility<Reason>| {
        matches!(n.cause, Cause::External(Reason::Dependency { .. }))
            && n.terms.iter().all(|t| t.selected)
    };
    let all_on = |n: &Incompatibility<Reason>| {
        matches!(n.cause, Cause::Derived { .. })
            && !n.terms.is_empty()
            && n.terms.iter().all(|t| t.selected)
    };
    for pass in [
        &dead_end as &dyn Fn(&Incompatibility<Reason>) -> bool,
        &all_on,
    ] {
        for (i, n) in nodes.iter().enumerate() {
            if pass(n) && !seen.contains(&n.terms.as_slice()) {
                seen.push(&n.terms);
                out.push(i);
            }
        }
    }
    out
}

/// Every derivation step, numbered in order: "(n) Because A and B, C."
fn full(w: &Words<'_>, nodes: &[Incompatibility<Reason>]) -> String {
    let mut number = vec![0usize; nodes.len()];
    let mut next = 0;
    for (i, n) in nodes.iter().enumerate() {
        if matches!(n.cause, Cause::Derived { .. }) {
            next += 1;
            number[i] = next;
        }
    }
    let say = |i: usize| -> String {
        match nodes.get(i) {
            Some(Incompatibility {
                cause: Cause::External(r),
                terms,
            }) => w.reason(r, terms),
            Some(n) => format!("{} (step {})", w.terms(&n.terms), number[i]),
            None => String::new(),
        }
    };
    let mut out = String::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Cause::Derived { left, right, .. } = n.cause {
            out.push_str(&format!(
                "  ({}) Because {}, and {}: {}.\n",
                number[i],
                say(left),
                say(right),
                w.terms(&n.terms)
            ));
        }
    }
    out
}
