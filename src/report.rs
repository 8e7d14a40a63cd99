//! The answer of `deppy resolve` as a document: the JSON/YAML contract and the text view.

use serde::Serialize;

use crate::explain::{Detail, explain_failure};
use crate::request::Request;
use crate::resolve::{Outcome, Selected, Unneeded, Universe};

/// `deppy resolve -o json` (field names are a contract: add, never rename).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Report {
    /// `resolved` or `unsatisfiable`.
    pub status: &'static str,
    /// Selected bundles, sorted by package.
    pub selected: Vec<Selected>,
    /// Installed bundles no longer needed.
    pub unneeded: Vec<Unneeded>,
    /// Why, in words (empty when resolved).
    pub explanation: String,
    /// Non-fatal problems met on the way.
    pub warnings: Vec<String>,
}

impl Report {
    /// Builds the report of one resolution.
    pub fn new(u: &Universe<'_>, request: &Request, outcome: &Outcome, detail: Detail, warnings: Vec<String>) -> Report {
        match outcome {
            Outcome::Resolved(a) => Report {
                status: "resolved",
                selected: a.selected.clone(),
                unneeded: a.unneeded.clone(),
                explanation: String::new(),
                warnings,
            },
            Outcome::Unsatisfiable(f) => Report {
                status: "unsatisfiable",
                selected: Vec::new(),
                unneeded: Vec::new(),
                explanation: explain_failure(f, u, request, detail),
                warnings,
            },
        }
    }

    /// True when resolved.
    pub fn is_resolved(&self) -> bool {
        self.status == "resolved"
    }

    /// The text view: a table of actions, or the explanation.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for w in &self.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        if !self.is_resolved() {
            out.push_str(&self.explanation);
            return out;
        }
        out.push_str("Resolved:\n");
        for s in &self.selected {
            let place = match &s.channel {
                Some(ch) => format!("{}/{ch}", s.catalog),
                None => s.catalog.clone(),
            };
            let action = match (&s.from, s.via) {
                (Some(from), Some(via)) => format!("upgrade from {from} ({})", via_word(via)),
                _ => format!("{:?}", s.action).to_lowercase(),
            };
            out.push_str(&format!("  {:<28} {:<40} {:<12} {:<32} {action}\n", s.package, s.bundle, s.version, place));
        }
        for u in &self.unneeded {
            out.push_str(&format!("  {:<28} {:<40} no longer needed\n", u.package, u.bundle));
        }
        out
    }
}

fn via_word(v: crate::resolve::Via) -> &'static str {
    use crate::resolve::{Edge, Via};
    match v {
        Via::Edge(Edge::Replaces) => "replaces",
        Via::Edge(Edge::Skips) => "skips",
        Via::Edge(Edge::SkipRange) => "skipRange",
        Via::Requested => "requested",
    }
}
