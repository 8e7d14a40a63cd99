//! The generic solver model as a file format (`deppy solve FILE`): variables with
//! `mandatory`, `prohibited`, `dependency`, `conflict` and `atMost` constraints.
//!
//! ```yaml
//! variables:
//!   - id: a
//!     constraints: [{mandatory: {}}, {dependency: [x, y]}]
//!   - id: x
//!     constraints: [{prohibited: {}}]
//!   - id: y
//! ```

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::solver::{Constraint, DerivationTree, Problem, Var};

/// One constraint as written in the file.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum RawConstraint {
    /// `mandatory: {}`.
    Mandatory(serde_json::Value),
    /// `prohibited: {}`.
    Prohibited(serde_json::Value),
    /// `dependency: [ids]`, earlier preferred.
    Dependency(Vec<String>),
    /// `conflict: id`.
    Conflict(String),
    /// `atMost: {n, ids}`.
    AtMost(AtMostValue),
}

/// The value of `atMost`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AtMostValue {
    /// The bound.
    pub n: usize,
    /// The variables counted.
    pub ids: Vec<String>,
}

/// A variable as written in the file.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    /// Unique id.
    pub id: String,
    /// Its constraints.
    #[serde(default)]
    pub constraints: Vec<RawConstraint>,
}

/// The file.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GenericFile {
    /// The variables, in order.
    pub variables: Vec<RawVariable>,
}

/// A constraint's label: which variable carries it and what it says, with ids for words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The subject's id.
    pub subject: String,
    /// The constraint with ids.
    pub constraint: RawConstraint,
}

/// Input errors of the generic format.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GenericError {
    /// Not valid YAML/JSON for the format: what is wrong and, when the parser knows, the
    /// 1-based line and column.
    #[error("{}", match location {
        Some((line, column)) => format!("line {line}, column {column}: {message}"),
        None => message.clone(),
    })]
    Parse {
        /// What is wrong (no position in it).
        message: String,
        /// 1-based line and column.
        location: Option<(usize, usize)>,
    },
    /// A constraint's value is not one it takes.
    #[error("variables[{index}] ({subject}): {message}")]
    Invalid {
        /// Position of the variable.
        index: usize,
        /// Its id.
        subject: String,
        /// What is wrong.
        message: String,
    },
    /// Two variables share an id.
    #[error("variables[{index}]: duplicate id {id:?}")]
    DuplicateId {
        /// Position of the second one.
        index: usize,
        /// The id.
        id: String,
    },
    /// A constraint names an id no variable has.
    #[error("variables[{index}] ({subject}): constraint names unknown id {id:?}")]
    UnknownId {
        /// Position of the subject.
        index: usize,
        /// The subject id.
        subject: String,
        /// The unknown id.
        id: String,
    },
}

/// The answer in the file's terms.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GenericAnswer {
    /// `resolved`, `unsatisfiable` or `gaveUp`.
    pub status: &'static str,
    /// Selected ids, in input order.
    pub selected: Vec<String>,
    /// Why, when unsatisfiable.
    pub explanation: String,
}

impl GenericFile {
    /// Parses YAML or JSON text. YAML is read with budgets scaled to the text (see
    /// [`crate::input::yaml_options`]), so a YAML model is as large as a JSON one may be; a
    /// key given twice in one mapping is an error in both.
    pub fn parse(text: &str) -> Result<GenericFile, GenericError> {
        if text.trim_start().starts_with('{') {
            crate::input::check_json_keys(text)
                .and_then(|()| serde_json::from_str(text))
                .map_err(|e| {
                    let message = e.to_string();
                    GenericError::Parse {
                        message: match message.rsplit_once(" at line ") {
                            Some((head, _)) => head.to_string(),
                            None => message,
                        },
                        location: (e.line() > 0).then(|| (e.line(), e.column())),
                    }
                })
        } else {
            let options = crate::input::yaml_options(text.len());
            serde_saphyr::from_str_with_options(text, options).map_err(|e| GenericError::Parse {
                message: crate::input::yaml_reason(&e),
                location: e.location().and_then(|l| {
                    let line = usize::try_from(l.line()).ok()?;
                    let column = usize::try_from(l.column()).ok()?;
                    (line > 0).then_some((line, column))
                }),
            })
        }
    }

    /// Builds the solver problem; variable `i` is `variables[i]`.
    pub fn problem(&self) -> Result<Problem<Label>, GenericError> {
        let mut p = Problem::new();
        let mut ids: FxHashMap<&str, Var> = FxHashMap::default();
        for (index, v) in self.variables.iter().enumerate() {
            if ids.insert(&v.id, p.add_var()).is_some() {
                return Err(GenericError::DuplicateId {
                    index,
                    id: v.id.clone(),
                });
            }
        }
        for (index, v) in self.variables.iter().enumerate() {
            let lookup = |id: &String| {
                ids.get(id.as_str())
                    .copied()
                    .ok_or_else(|| GenericError::UnknownId {
                        index,
                        subject: v.id.clone(),
                        id: id.clone(),
                    })
            };
            let subject = lookup(&v.id)?;
            for c in &v.constraints {
                let constraint = match c {
                    RawConstraint::Mandatory(on) => match switch(index, v, "mandatory", on)? {
                        true => Constraint::Mandatory,
                        false => continue,
                    },
                    RawConstraint::Prohibited(on) => match switch(index, v, "prohibited", on)? {
                        true => Constraint::Prohibited,
                        false => continue,
                    },
                    RawConstraint::Dependency(d) => {
                        Constraint::Dependency(d.iter().map(lookup).collect::<Result<_, _>>()?)
                    }
                    RawConstraint::Conflict(o) => Constraint::Conflict(lookup(o)?),
                    RawConstraint::AtMost(a) => Constraint::AtMost {
                        n: a.n,
                        vars: a.ids.iter().map(lookup).collect::<Result<_, _>>()?,
                    },
                };
                let label = Label {
                    subject: v.id.clone(),
                    constraint: c.clone(),
                };
                p.add(subject, constraint, label);
            }
        }
        Ok(p)
    }

    /// The id of a solver variable.
    pub fn id(&self, v: Var) -> &str {
        self.variables
            .get(v.0 as usize)
            .map_or("?", |x| x.id.as_str())
    }
}

/// Whether `mandatory:` or `prohibited:` (`what`) is on: `{}`, `true` or nothing say yes,
/// `false` says no; any other value is an error naming the variable.
fn switch(
    index: usize,
    v: &RawVariable,
    what: &str,
    value: &serde_json::Value,
) -> Result<bool, GenericError> {
    match value {
        serde_json::Value::Null | serde_json::Value::Bool(true) => Ok(true),
        serde_json::Value::Object(m) if m.is_empty() => Ok(true),
        serde_json::Value::Bool(false) => Ok(false),
        other => Err(GenericError::Invalid {
            index,
            subject: v.id.clone(),
            message: format!("`{what}` takes {{}}, true or false, not {other}"),
        }),
    }
}

/// Keeps the tree type in the public signature tidy.
pub type GenericTree = DerivationTree<Label>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::SolveOptions;

    fn solve(text: &str) -> GenericAnswer {
        GenericFile::parse(text)
            .unwrap()
            .solve(&SolveOptions::default())
            .unwrap()
    }

    #[test]
    fn preference_beats_cardinality() {
        let a = solve(
            "variables:\n- {id: a, constraints: [{mandatory: {}}, {dependency: [x, y]}]}\n- {id: b, constraints: [{mandatory: {}}, {dependency: [y]}]}\n- {id: x}\n- {id: y}\n",
        );
        assert_eq!(a.selected, ["a", "b", "x", "y"]);
    }

    #[test]
    fn mandatory_and_prohibited() {
        let a = solve("variables:\n- {id: a, constraints: [{mandatory: {}}, {prohibited: {}}]}\n");
        assert_eq!(a.status, "unsatisfiable");
        assert!(
            a.explanation.contains("a is mandatory"),
            "{}",
            a.explanation
        );
        assert!(
            a.explanation.contains("a is prohibited"),
            "{}",
            a.explanation
        );
    }

    #[test]
    fn duplicate_and_unknown_ids() {
        let f = GenericFile::parse("variables:\n- {id: a}\n- {id: a}\n").unwrap();
        assert!(matches!(
            f.problem(),
            Err(GenericError::DuplicateId { index: 1, .. })
        ));
        let f =
            GenericFile::parse("variables:\n- {id: a, constraints: [{conflict: b}]}\n").unwrap();
        assert!(matches!(f.problem(), Err(GenericError::UnknownId { .. })));
        assert!(GenericFile::parse("variables:\n- {id: a, constraints: [{bogus: 1}]}\n").is_err());
    }
}
