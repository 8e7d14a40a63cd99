//! The reporter: turns a resolution failure (a derivation tree whose leaves are
//! [`crate::resolve::reason::Reason`]s) into plain words, summary first. Simplification runs
//! in named passes before wording; `DEPPY_RAW_TREE=1` prints the raw tree as well.

pub mod cluster;
pub mod crd;
mod generic;
mod group;
pub(crate) mod olmv1;
pub mod why;
mod words;

pub use generic::{explain_generic, explain_generic_partial};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::request::Request;
use crate::resolve::reason::Reason;
use crate::resolve::{Failure, Universe};
use crate::solver::{Cause, Incompatibility, Term};

use words::Words;

/// How much of the proof to print.
///
/// The example on [`crate::Failure`] uses the default, [`Detail::Summary`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// The facts that matter and the conclusion.
    #[default]
    Summary,
    /// The summary, then every step of the derivation.
    Full,
}

/// Words a failure.
///
/// The example on [`crate::Failure`] calls it.
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
    let mut out = String::from("No resolution exists. Because:\n");
    out.push_str(&facts_text(&w, nodes));
    match pass_conclusion(nodes).and_then(|i| nodes.get(i)) {
        Some(n) => out.push_str(&format!(
            "So {}; therefore no resolution exists.\n",
            w.terms(&n.terms)
        )),
        None => out.push_str("So no resolution exists.\n"),
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

/// What a search that gave up says when the derivation of what it had proven does not fit
/// the budget either.
pub const PARTIAL_TOO_LARGE: &str =
    "What deppy had proven when it stopped is too large to word within the budget.\n";

/// A warning of an admin or cluster constraint, in one line.
/// The budget in words: `the time budget`.
impl std::fmt::Display for crate::solver::Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            crate::solver::Exhausted::Conflicts => "the conflict budget",
            crate::solver::Exhausted::Time => "the time budget",
            crate::solver::Exhausted::Memory => "the memory budget",
        })
    }
}

/// `gave up after 20 conflicts (the conflict budget)`, `gave up after 7 conflicts (the time
/// budget ran out)`, or with `proven`, `(… ran out while it built the proof that no answer
/// exists)`.
impl std::fmt::Display for crate::solver::GaveUpLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::solver::Exhausted;
        let conflicts = self.conflicts;
        let plural = if conflicts == 1 { "" } else { "s" };
        let budget = self.exhausted;
        match (budget, self.proven) {
            (Exhausted::Conflicts, _) => {
                write!(f, "gave up after {conflicts} conflict{plural} ({budget})")
            }
            (_, false) => write!(
                f,
                "gave up after {conflicts} conflict{plural} ({budget} ran out)"
            ),
            (_, true) => write!(
                f,
                "gave up after {conflicts} conflict{plural} ({budget} ran out while it built the proof that no answer exists)"
            ),
        }
    }
}

impl std::fmt::Display for crate::resolve::AdjustmentWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::resolve::AdjustmentWarning as W;
        match self {
            W::EvaluationError {
                origin,
                bundle,
                error,
            } => write!(
                f,
                "{origin}: evaluation error, the rule is false for {bundle}: {error}"
            ),
            W::StaticSelectsNothing { node, index, what } => write!(
                f,
                "pipeline node {node}: variables[{index}] ({what}) selects no bundle"
            ),
            W::MoreEvaluationErrors { origin, count } => {
                write!(f, "{origin}: {count} more evaluation errors")
            }
            W::InstalledViolates {
                bundle,
                origin,
                effect,
            } => write!(
                f,
                "installed bundle {bundle} violates {origin} ({effect}); installed bundles are exempt, so it is kept"
            ),
        }
    }
}

/// Where a rule comes from, e.g. `admin constraint constraints[0]`.
impl std::fmt::Display for crate::resolve::RuleOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::resolve::RuleOrigin as O;
        match self {
            O::PipelineNode(node) => write!(f, "pipeline node {node}"),
            O::AdminConstraint(i) => write!(f, "admin constraint constraints[{i}]"),
            O::ClusterConstraint(i) => write!(f, "cluster constraint constraints[{i}]"),
            O::Cluster => f.write_str("the cluster"),
            O::Question => f.write_str("your question"),
        }
    }
}

/// What a rule does, e.g. `filter drops channel beta` or `"message": requires …`.
impl std::fmt::Display for crate::resolve::RuleEffect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::resolve::{RuleEffect as E, StaticEffect as S};
        let with = |f: &mut std::fmt::Formatter<'_>, message: &Option<String>| match message {
            Some(m) => write!(f, "{m}: "),
            None => Ok(()),
        };
        match self {
            E::FilterDrops { selection } => write!(f, "filter drops {selection}"),
            E::StaticVariable {
                index,
                action,
                selection,
            } => {
                let verb = match action {
                    S::Require => "requires",
                    S::Prohibit => "prohibits",
                    S::Prefer => "prefers",
                };
                write!(f, "static variable {index} {verb} {selection}")
            }
            E::Prohibits { target, message } => {
                with(f, message)?;
                write!(f, "prohibits {target}")
            }
            E::Requires {
                constraint,
                message,
            } => {
                with(f, message)?;
                write!(f, "requires {constraint}")
            }
            E::ConflictsWith {
                constraint,
                message,
            } => {
                with(f, message)?;
                write!(f, "conflicts with {constraint}")
            }
            E::ServesApi(api) => {
                write!(f, "already serves API {api}, so no bundle may provide it")
            }
            E::WhatIfInstalled(bundle) => write!(f, "what if {bundle} were installed"),
            E::Custom(words) => f.write_str(words),
        }
    }
}

/// A rule a selection breaks, in one line.
impl std::fmt::Display for crate::resolve::Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::resolve::Violation as V;
        match self {
            V::SharePackage(a, b) => write!(f, "{a} and {b} share a package"),
            V::ShareApi(a, b) => write!(f, "{a} and {b} provide the same API"),
            V::RequirementNotMet { index, package } => {
                write!(f, "requirement {index} ({package}) is not met")
            }
            V::Excluded(b) => write!(f, "{b} is excluded"),
            V::ClusterServes(b) => write!(f, "{b} provides an API the cluster serves"),
            V::Kept(b) => write!(f, "{b} is kept and must stay installed"),
            V::KeepInstalled(b) => write!(f, "keepInstalled: {b} must stay installed"),
            V::NeedsPackage {
                bundle,
                package,
                range,
            } => write!(f, "{bundle} needs package {package} {range}"),
            V::NeedsApi(b) => write!(f, "{b} needs an API nobody selected provides"),
            V::NeedsLabel { bundle, label } => write!(f, "{bundle} needs label {label}"),
            V::NeedsConstraint { bundle, constraint } => write!(f, "{bundle} needs {constraint}"),
        }
    }
}

/// `etcdoperator.v0.9.2 is deprecated by catalog olm/ops: MESSAGE`.
impl std::fmt::Display for crate::catalog::Deprecated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is deprecated by catalog {}: {}",
            self.bundle, self.catalog, self.message
        )
    }
}

/// A deprecation notice serializes as its words (the `warnings` of an answer).
impl serde::Serialize for crate::catalog::Deprecated {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What a search that gave up had proven, in words: nothing, [`PARTIAL_TOO_LARGE`], or
/// [`explain_partial`] of its proof.
impl std::fmt::Display for crate::resolve::Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            crate::resolve::Partial::Nothing => Ok(()),
            crate::resolve::Partial::TooLarge => f.write_str(PARTIAL_TOO_LARGE),
            crate::resolve::Partial::Proof(p) => {
                f.write_str(&explain_partial(&p.failure, &p.universe, &p.request))
            }
        }
    }
}

/// Words what a search that gave up had proven: the facts its last learned incompatibility
/// rests on and that incompatibility itself.
pub fn explain_partial(failure: &Failure, u: &Universe, request: &Request) -> String {
    let w = Words {
        u,
        request,
        subjects: &failure.subjects,
    };
    let nodes = &failure.tree.nodes;
    let mut out = String::from("What deppy had proven when it stopped:\n");
    out.push_str(&facts_text(&w, nodes));
    if let Some(root) = nodes.last() {
        out.push_str(&format!("So {}.\n", w.terms(&root.terms)));
    }
    out
}

/// The facts a proof uses, one line each.
fn facts_text(w: &Words<'_>, nodes: &[Incompatibility<Reason>]) -> String {
    let mut out = String::new();
    for line in group::group(nodes, &pass_facts(nodes)) {
        let (i, grouped) = match line {
            group::Line::Fact(i) => (i, None),
            group::Line::OnlyOne { first, hub, others } => (first, Some((hub, others))),
        };
        if let Some(n) = nodes.get(i)
            && let Cause::External(reason) = &n.cause
        {
            let text = match grouped {
                None => w.reason(reason, &n.terms),
                Some((hub, others)) => w.only_one(reason, hub, &others),
            };
            out.push_str(&format!("  - {text}\n"));
        }
    }
    out
}

/// Pass 1: the external facts the proof uses, each once, requirements first, then the
/// order the proof meets them.
/// Linear: facts are bucketed by their terms, and reasons compared within a bucket only.
fn pass_facts(nodes: &[Incompatibility<Reason>]) -> Vec<usize> {
    let mut seen: FxHashMap<&[Term], Vec<&Reason>> = FxHashMap::default();
    let mut facts = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Cause::External(r) = &n.cause {
            let bucket = seen.entry(n.terms.as_slice()).or_default();
            if !bucket.contains(&r) {
                bucket.push(r);
                facts.push(i);
            }
        }
    }
    facts.sort_by_key(|i| (fact_rank(nodes, *i), *i));
    facts
}

/// Facts about the request come first in words: what you require, what can satisfy it,
/// what is kept installed; then everything else.
fn fact_rank(nodes: &[Incompatibility<Reason>], i: usize) -> (u8, usize) {
    match nodes.get(i).map(|n| &n.cause) {
        Some(Cause::External(Reason::Required(r))) => (0, *r),
        Some(Cause::External(Reason::RequirementCandidates { requirement, .. })) => {
            (1, *requirement)
        }
        Some(Cause::External(Reason::KeepInstalled(_) | Reason::Kept(_))) => (2, 0),
        _ => (3, 0),
    }
}

/// Pass 2: the one conclusion the summary ends with: the widest set of things the request
/// forces (requirements, bundles it pins or a question injects) that the proof shows cannot
/// all hold, i.e. the step before "no resolution exists"; failing that, the last derived set
/// of bundles that cannot be installed together. Intermediate steps are for `--explain full`.
fn pass_conclusion(nodes: &[Incompatibility<Reason>]) -> Option<usize> {
    // What must hold: the subject of every one-term fact "X must be installed".
    let forced: FxHashSet<crate::solver::Var> = nodes
        .iter()
        .filter(|n| matches!(n.cause, Cause::External(_)))
        .filter_map(|n| match n.terms.as_slice() {
            [t] if !t.selected => Some(t.var),
            _ => None,
        })
        .collect();
    let derived_all_on = |n: &Incompatibility<Reason>| {
        matches!(n.cause, Cause::Derived { .. })
            && !n.terms.is_empty()
            && n.terms.iter().all(|t| t.selected)
    };
    let widest = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| derived_all_on(n) && n.terms.iter().all(|t| forced.contains(&t.var)))
        .max_by_key(|(i, n)| (n.terms.len(), *i))
        .map(|(i, _)| i);
    widest.or_else(|| nodes.iter().rposition(derived_all_on))
}

/// Every derivation step, numbered in order: "(n) Because A and B, C."
fn full(w: &Words<'_>, nodes: &[Incompatibility<Reason>]) -> String {
    let mut number = vec![0usize; nodes.len()];
    let mut next = 0;
    for (i, n) in nodes.iter().enumerate() {
        if matches!(n.cause, Cause::Derived { .. }) {
            next += 1;
            if let Some(slot) = number.get_mut(i) {
                *slot = next;
            }
        }
    }
    let say = |i: usize| -> String {
        match nodes.get(i) {
            Some(Incompatibility {
                cause: Cause::External(r),
                terms,
            }) => w.reason(r, terms),
            Some(n) => format!(
                "{} (step {})",
                w.terms(&n.terms),
                number.get(i).copied().unwrap_or(0)
            ),
            None => String::new(),
        }
    };
    let mut out = String::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Cause::Derived { left, right, .. } = n.cause {
            // Two facts read top-down: the request's side first.
            let external =
                |i: usize| matches!(nodes.get(i), Some(m) if matches!(m.cause, Cause::External(_)));
            let (left, right) = if external(left)
                && external(right)
                && fact_rank(nodes, right) < fact_rank(nodes, left)
            {
                (right, left)
            } else {
                (left, right)
            };
            out.push_str(&format!(
                "  ({}) Because {}, and {}: {}.\n",
                number.get(i).copied().unwrap_or(0),
                say(left),
                say(right),
                w.terms(&n.terms)
            ));
        }
    }
    out
}
