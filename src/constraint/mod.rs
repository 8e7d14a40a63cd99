//! The `olm.constraint` language: parsing, CEL, and testing one predicate against one bundle.
//!
//! A [`Constraint`] is ONE predicate tested against a SINGLE candidate (docs/semantics.md §2.3):
//! `all{package foo >=1, gvk G}` needs one bundle that is in foo >=1 AND provides G; `not`
//! matches bundles that satisfy none of its children and never forbids anything globally.
//!
//! Sources of constraints:
//! * a bundle's `olm.constraint` property ([`Constraint::parse`]): exactly one of `gvk`,
//!   `package` {packageName, versionRange}, `cel` {rule}, `all` / `any` / `not`
//!   {constraints: [...]}, plus an optional `failureMessage`. OLM's deprecated `none` is read as
//!   `not`. Unknown keys are errors that name the key and its JSON path;
//! * the `olm.all.required` / `olm.any.required` / `olm.none.required` form proposed in the Deppy
//!   design, whose children are typed properties ([`Constraint::parse_typed`]);
//! * admin constraints of a request ([`AdminEntry`]) and the cluster ([`Cluster`]), including
//!   the `olm-runtime-constraints` ConfigMap form.
//!
//! Hostile input yields errors, never panics or stack overflows: the raw size, the nesting
//! depth (checked before any recursion), the CEL rule length, its bracket nesting, its syntax
//! tree depth and its estimated cost ([`Limits`]) are all bounded. CEL rules are compiled on a
//! dedicated thread with a stack sized for the rule, and evaluated under `catch_unwind`.
//!
//! Testing ([`Constraint::test`], [`Cluster::satisfies`]) returns a [`Verdict`]: whether the
//! subject matches, and the evaluation errors met. As in OLM, a CEL rule that fails to evaluate
//! is false for that bundle, and compounds combine the booleans (so `not` over a failing rule
//! matches); deppy keeps the error text for the explanation.
//!
//! Decisions that differ from OLM: an empty `constraints` list is an error (OLM treats
//! `all{}` as true and `any{}` as false); a CEL rule is not type-checked, so a rule that does not
//! yield a bool is an evaluation error rather than a compile error; an identifier other than
//! `properties` (and the variables of the macros) is a compile error, as in cel-go.

mod admin;
mod alias;
mod cel;
mod cel_eval;
mod cel_static;
mod cluster;
mod describe;
mod error;
mod json;
mod matching;
mod parse;

use std::fmt;

use crate::gvk::Gvk;
use crate::range::VersionRange;

pub use admin::{AdminConstraint, AdminEntry, ConstraintAction, Prohibit};
pub use cel::{CelCache, CelRule};
pub(crate) use cel_eval::within_deadline;
pub use cluster::Cluster;
pub use error::ConstraintError;
pub use matching::{CandidateView, Verdict};

/// Bounds applied while parsing constraints, so hostile catalogs cannot exhaust memory, stack
/// or time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Largest raw `olm.constraint` value, in bytes (OLM's documented 64 KiB).
    pub max_bytes: usize,
    /// Deepest nesting of constraints; a top-level constraint has depth 1.
    pub max_depth: usize,
    /// Largest estimated evaluation cost of one CEL rule (see [`CelRule::cost`]).
    pub max_cel_cost: u64,
    /// Longest CEL rule, in bytes.
    pub max_cel_bytes: usize,
    /// Deepest nesting of brackets (`(`, `[`, `{`) in a CEL rule's text.
    pub max_cel_nesting: usize,
    /// Deepest syntax tree of a compiled CEL rule (evaluation recurses this deep).
    pub max_cel_ast_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 65536,
            max_depth: 32,
            max_cel_cost: 1_000_000,
            max_cel_bytes: 16384,
            max_cel_nesting: 32,
            max_cel_ast_depth: 100,
        }
    }
}

/// One parsed constraint: a predicate over a single bundle and the author's message for when
/// no bundle satisfies it.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    /// What a bundle must satisfy.
    pub predicate: Predicate,
    /// `failureMessage` (or `description` in the alias form), when given.
    pub failure_message: Option<String>,
}

/// A predicate over one bundle.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// The bundle belongs to `package` and its version is in `range`.
    Package {
        /// Package name.
        package: String,
        /// Acceptable versions.
        range: VersionRange,
    },
    /// The bundle provides this API (`olm.gvk`).
    Gvk(Gvk),
    /// The bundle carries this label (`olm.label`); only from `olm.label.required` in the alias
    /// form.
    Label(String),
    /// A CEL rule over the bundle's properties is true.
    Cel(CelRule),
    /// Every child matches the same bundle.
    All(Vec<Constraint>),
    /// At least one child matches the bundle.
    Any(Vec<Constraint>),
    /// No child matches the bundle (OLM's `not` holds a list and means "none of them").
    Not(Vec<Constraint>),
}

impl Constraint {
    /// A constraint without a failure message.
    pub fn new(predicate: Predicate) -> Constraint {
        Constraint {
            predicate,
            failure_message: None,
        }
    }

    /// Parses the JSON value of an `olm.constraint` property. Enforces [`Limits::max_bytes`]
    /// first, then the nesting depth without recursing, then the grammar. CEL rules are
    /// compiled once per distinct text through `cache`.
    pub fn parse(
        raw: &str,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<Constraint, ConstraintError> {
        Constraint::parse_typed(parse::OLM_CONSTRAINT, raw, limits, cache)
    }

    /// Parses an already decoded `olm.constraint` value (from a YAML request file, say). The
    /// nesting depth is checked iteratively before anything recurses.
    pub fn from_value(
        value: &serde_json::Value,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<Constraint, ConstraintError> {
        Constraint::from_typed_value(parse::OLM_CONSTRAINT, value, limits, cache)
    }

    /// Parses the raw value of a property that states a requirement: `olm.constraint`, the
    /// alias forms `olm.all.required` / `olm.any.required` / `olm.none.required`, or the simple
    /// `olm.package.required` / `olm.gvk.required` / `olm.label.required`. Any other type is an
    /// error ([`ConstraintError::UnknownType`]).
    pub fn parse_typed(
        property_type: &str,
        raw: &str,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<Constraint, ConstraintError> {
        let value = json::parse_bounded(raw, limits)?;
        parse::Parser::new(limits, cache).typed(property_type, &value, "", 1)
    }

    /// Like [`Constraint::parse_typed`], for an already decoded value.
    pub fn from_typed_value(
        property_type: &str,
        value: &serde_json::Value,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<Constraint, ConstraintError> {
        json::check_depth(value, json::constraint_json_depth(limits), "", limits)?;
        parse::Parser::new(limits, cache).typed(property_type, value, "", 1)
    }

    /// True for the property types [`Constraint::parse_typed`] understands.
    pub(crate) fn is_constraint_type(property_type: &str) -> bool {
        alias::is_known_type(property_type)
    }

    /// The failure message if the author gave one, else [`Constraint::describe`].
    pub fn message(&self) -> String {
        match &self.failure_message {
            Some(m) => m.clone(),
            None => self.describe(),
        }
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests_admin;
#[cfg(test)]
mod tests_cel;
#[cfg(test)]
mod tests_parse;
