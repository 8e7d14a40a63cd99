//! Testing one constraint against one bundle (or the cluster node).
//!
//! Errors are values: a CEL rule that fails to evaluate (no such key, wrong types, a version
//! `semver_compare` cannot read) is false for that bundle, as in OLM, and its message is kept
//! in [`Verdict::errors`]. Compounds combine the booleans (so `not` over a failing rule
//! matches, again as in OLM) and short-circuit: `all` stops at the first child that does not
//! match, `any` at the first that does.

use serde_json::Value;

use super::cel_eval;
use super::error::short_rule;
use super::{Constraint, Predicate};
use crate::gvk::Gvk;
use crate::version::Version;

/// What a constraint is tested against: one bundle.
#[derive(Clone, Debug)]
pub struct CandidateView<'a> {
    /// The bundle's package.
    pub package: &'a str,
    /// The bundle's version.
    pub version: &'a Version,
    /// APIs the bundle provides.
    pub provides: Vec<&'a Gvk>,
    /// Every property of the bundle as (type, decoded value), typed ones included: see
    /// [`crate::catalog::bundle_properties`].
    pub properties: &'a [(String, Value)],
}

/// The outcome of [`Constraint::test`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Verdict {
    /// The subject satisfies the constraint.
    pub matched: bool,
    /// Evaluation errors met on the way (each made its CEL rule false), in evaluation order.
    pub errors: Vec<String>,
}

impl Verdict {
    /// True when the subject satisfies the constraint.
    pub(crate) fn is_match(&self) -> bool {
        self.matched
    }
}

/// A bundle, or the cluster node (no package, provides what its `olm.gvk` properties say).
pub(crate) struct Subject<'s, 'a> {
    pub(crate) package: Option<(&'a str, &'a Version)>,
    pub(crate) provides: &'s [&'a Gvk],
    pub(crate) properties: &'a [(String, Value)],
}

impl Constraint {
    /// Tests this constraint against one candidate bundle.
    pub fn test(&self, candidate: &CandidateView<'_>) -> Verdict {
        let subject = Subject {
            package: Some((candidate.package, candidate.version)),
            provides: &candidate.provides,
            properties: candidate.properties,
        };
        self.test_subject(&subject)
    }

    pub(crate) fn test_subject(&self, subject: &Subject<'_, '_>) -> Verdict {
        let mut eval = Evaluator {
            subject,
            context: None,
            errors: Vec::new(),
        };
        let matched = eval.matches(self);
        Verdict {
            matched,
            errors: eval.errors,
        }
    }
}

/// Tests one tree; the CEL context is built at most once, on the first rule met.
struct Evaluator<'s, 'a> {
    subject: &'s Subject<'s, 'a>,
    context: Option<Result<cel_eval::EvalContext<'a>, String>>,
    errors: Vec<String>,
}

impl Evaluator<'_, '_> {
    fn matches(&mut self, c: &Constraint) -> bool {
        match &c.predicate {
            Predicate::Package { package, range } => self
                .subject
                .package
                .is_some_and(|(name, version)| name == package && range.matches(version)),
            Predicate::Gvk(gvk) => self.subject.provides.contains(&gvk),
            Predicate::Label(label) => has_label(self.subject.properties, label),
            Predicate::Cel(rule) => {
                let properties = self.subject.properties;
                let context = self
                    .context
                    .get_or_insert_with(|| cel_eval::context(properties));
                let result = match context {
                    Ok(ctx) => cel_eval::evaluate(rule, ctx),
                    Err(e) => Err(e.clone()),
                };
                result.unwrap_or_else(|e| {
                    let text = format!("CEL rule {} failed: {e}", short_rule(rule.rule()));
                    self.errors.push(text);
                    false
                })
            }
            Predicate::All(children) => children.iter().all(|c| self.matches(c)),
            Predicate::Any(children) => children.iter().any(|c| self.matches(c)),
            Predicate::Not(children) => !children.iter().any(|c| self.matches(c)),
        }
    }
}

fn has_label(properties: &[(String, Value)], label: &str) -> bool {
    properties.iter().any(|(kind, value)| {
        kind == "olm.label" && value.get("label").and_then(Value::as_str) == Some(label)
    })
}
