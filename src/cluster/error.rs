//! What can be wrong with a cluster dump or with how its catalogs are bound.

use std::path::PathBuf;

use super::object::Source;

/// A cluster state that cannot be used: every variant names the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A state path could not be read.
    #[error("{path}: cannot read: {message}")]
    Read {
        /// The path.
        path: PathBuf,
        /// The I/O error, in words.
        message: String,
    },
    /// A state file could not be read: too large, not UTF-8, unreadable.
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// A document is not valid YAML or JSON, or does not have the shape of its kind.
    #[error("{at}: {}{message}", object.as_deref().map(|o| format!("{o}: ")).unwrap_or_default())]
    Parse {
        /// Where.
        at: Box<Source>,
        /// `Kind namespace/name`, when known.
        object: Option<String>,
        /// What is wrong (with the field, when one is to blame).
        message: String,
    },
    /// An object is missing a field or holds an invalid value.
    #[error("{at}: {object}: field `{field}`: {message}")]
    Invalid {
        /// Where.
        at: Box<Source>,
        /// `Kind namespace/name`.
        object: String,
        /// The field, e.g. `spec.version`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Two different objects of the same kind, namespace and name.
    #[error("{object} is defined twice: in {first} and in {second}")]
    Duplicate {
        /// `Kind namespace/name`.
        object: String,
        /// The first place.
        first: Box<Source>,
        /// The second place.
        second: Box<Source>,
    },
    /// A `--catalog NAMESPACE/NAME=PATH` binding is malformed or its catalog cannot be read.
    #[error("--catalog {binding}: {message}")]
    Binding {
        /// The binding as given.
        binding: String,
        /// What is wrong.
        message: String,
    },
    /// A budget ran out outside the solver's search (the time budget in any stage, the
    /// memory budget while the state is read).
    #[error("{}", budget_message(*stage, *exhausted, detail))]
    Budget {
        /// The stage it ran out in.
        stage: super::budget::Stage,
        /// Which budget.
        exhausted: super::budget::Exhausted,
        /// Where, or what took the memory (may be empty).
        detail: String,
    },
    /// A `--policy` file cannot be used.
    #[error("--policy {file}: {message}")]
    Policy {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

fn budget_message(
    stage: super::budget::Stage,
    exhausted: super::budget::Exhausted,
    detail: &str,
) -> String {
    use super::budget::Exhausted;
    let what = match exhausted {
        Exhausted::Time => "the time budget".to_string(),
        Exhausted::Memory(max) => format!("the memory budget ({})", super::budget::mib(max)),
    };
    match detail {
        "" => format!("{what} ran out while {stage}"),
        d => format!("{what} ran out while {stage}: {d}"),
    }
}
