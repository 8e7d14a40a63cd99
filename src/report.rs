//! The answer of `deppy resolve` as a document: the JSON/YAML contract and the text view.

use serde::Serialize;

use crate::explain::{Detail, explain_failure};
use crate::request::Request;
use crate::resolve::{Outcome, Selected, Universe, Unneeded};

/// `deppy resolve -o json` (field names are a contract: add, never rename).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Report {
    /// `resolved`, `unsatisfiable`, or `gaveUp` when a budget ran out.
    pub status: &'static str,
    /// Selected bundles, sorted by package.
    pub selected: Vec<Selected>,
    /// Installed bundles no longer needed.
    pub unneeded: Vec<Unneeded>,
    /// Why, in words (empty when resolved).
    pub explanation: String,
    /// Non-fatal problems met on the way (loading, malformed channels, deprecations).
    pub warnings: Vec<String>,
    /// The warnings about the answer itself (deprecations), shown in the text view.
    #[serde(skip)]
    pub notices: Vec<String>,
    /// After a failure: changes to the request that deppy verified would make it resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<crate::resolve::hints::Hint>,
    /// The hints in words, shown after the explanation in the text view.
    #[serde(skip)]
    pub hints_text: String,
}

impl Report {
    /// Builds the report of one resolution.
    pub fn new(
        u: &Universe,
        request: &Request,
        outcome: &Outcome,
        detail: Detail,
        warnings: Vec<String>,
    ) -> Report {
        let warnings: Vec<String> = warnings
            .into_iter()
            .chain(u.notes.iter().map(ToString::to_string))
            .collect();
        match outcome {
            Outcome::Resolved(a) => Report {
                status: "resolved",
                selected: a.selected.clone(),
                unneeded: a.unneeded.clone(),
                explanation: String::new(),
                warnings: warnings
                    .into_iter()
                    .chain(a.warnings.iter().map(ToString::to_string))
                    .collect(),
                notices: a.warnings.iter().map(ToString::to_string).collect(),
                hints: Vec::new(),
                hints_text: String::new(),
            },
            Outcome::Unsatisfiable(f) => Report {
                status: "unsatisfiable",
                selected: Vec::new(),
                unneeded: Vec::new(),
                explanation: explain_failure(f, u, request, detail),
                warnings,
                notices: Vec::new(),
                hints: Vec::new(),
                hints_text: String::new(),
            },
        }
    }

    /// The report of a pipeline's resolution.
    pub fn of(r: &crate::pipeline::Resolution, detail: Detail) -> Report {
        Report::new(
            r.universe(),
            r.request(),
            &r.outcome,
            detail,
            r.warnings().to_vec(),
        )
    }

    /// The report of a resolution that gave up (a budget ran out): status `gaveUp`, the
    /// explanation says which budget and what was proven by then.
    pub fn gave_up(explanation: String, warnings: Vec<String>) -> Report {
        Report {
            status: "gaveUp",
            selected: Vec::new(),
            unneeded: Vec::new(),
            explanation,
            warnings,
            notices: Vec::new(),
            hints: Vec::new(),
            hints_text: String::new(),
        }
    }

    /// Adds the verified hints of a failed request.
    pub fn with_hints(
        mut self,
        u: &Universe,
        request: &Request,
        hints: Vec<crate::resolve::hints::Hint>,
    ) -> Report {
        self.hints_text = crate::explain::why::hints(u, request, &hints);
        self.hints = hints;
        self
    }

    /// True when resolved.
    pub fn is_resolved(&self) -> bool {
        self.status == "resolved"
    }

    /// The text view: a table of actions, or the explanation.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for w in &self.notices {
            out.push_str(&format!("warning: {w}\n"));
        }
        if !self.is_resolved() {
            out.push_str(&self.explanation);
            out.push_str(&self.hints_text);
            return out;
        }
        out.push_str("Resolved:\n");
        let rows: Vec<[String; 5]> = self
            .selected
            .iter()
            .map(|s| {
                let place = match &s.channel {
                    Some(ch) => format!("{}/{ch}", s.catalog),
                    None => s.catalog.clone(),
                };
                let action = match (&s.from, s.via) {
                    (Some(from), Some(via)) => format!("upgrade from {from} ({})", via_word(via)),
                    _ => format!("{:?}", s.action).to_lowercase(),
                };
                [
                    s.package.clone(),
                    s.bundle.clone(),
                    s.version.clone(),
                    place,
                    action,
                ]
            })
            .chain(self.unneeded.iter().map(|u| {
                [
                    u.package.clone(),
                    u.bundle.clone(),
                    String::new(),
                    String::new(),
                    "no longer needed".into(),
                ]
            }))
            .collect();
        let mut width = [0usize; 4];
        for r in &rows {
            for (w, cell) in width.iter_mut().zip(r.iter()) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for [p, b, v, place, action] in &rows {
            let line = format!(
                "  {p:<w0$}  {b:<w1$}  {v:<w2$}  {place:<w3$}  {action}",
                w0 = width[0],
                w1 = width[1],
                w2 = width[2],
                w3 = width[3]
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

fn via_word(v: crate::resolve::Via) -> &'static str {
    use crate::resolve::Via;
    match v {
        Via::Replaces => "replaces",
        Via::Skips => "skips",
        Via::SkipRange => "skipRange",
        Via::Requested => "requested",
        Via::Dependency => "needed by a dependency",
    }
}

/// A plan in words, one step a line: `1. install csi-addons.v0.14.0 (needed by ...)`.
pub fn plan_to_text(steps: &[crate::resolve::plan::Step]) -> String {
    let mut out = String::from("Plan:\n");
    for s in steps {
        let mut line = format!("  {}. {} {}", s.step, s.action, s.bundle);
        if let (Some(from), Some(via)) = (&s.from, s.via) {
            line.push_str(&format!(" from {from} ({})", via_word(via)));
        }
        if !s.needed_by.is_empty() {
            line.push_str(&format!(" (needed by {})", s.needed_by.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}
