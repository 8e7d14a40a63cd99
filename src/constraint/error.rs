//! Errors raised while parsing constraints. Each names the JSON path of the offending field
//! relative to the value that was parsed; [`ConstraintError::prefixed`] adds the caller's
//! prefix (e.g. `constraints[2]`).

/// Why a constraint, an admin constraint or a cluster description was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintError {
    /// A key the grammar does not know.
    #[error("unknown field {key:?} at {path}{}", hint_text(.hint))]
    UnknownKey {
        /// JSON path of the key, the key included.
        path: String,
        /// The key.
        key: String,
        /// A suggestion, e.g. `did you mean "packageName"?`.
        hint: Option<String>,
    },
    /// A constraint object without any predicate key.
    #[error(
        "{}: no constraint given; expected exactly one of gvk, package, cel, all, any, not",
        at(.path)
    )]
    NoPredicate {
        /// JSON path of the constraint object.
        path: String,
    },
    /// A constraint object with more than one predicate key.
    #[error("{}: several constraints in one ({}); expected exactly one", at(.path), .keys.join(", "))]
    SeveralPredicates {
        /// JSON path of the constraint object.
        path: String,
        /// The predicate keys found.
        keys: Vec<String>,
    },
    /// The raw value exceeds [`super::Limits::max_bytes`].
    #[error("constraint value is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// Size of the raw value.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Constraints (or JSON values) nest deeper than allowed.
    #[error("{}: nested deeper than the limit of {limit} {what}", at(.path))]
    TooDeep {
        /// JSON path where the limit was crossed (may be empty when found before decoding).
        path: String,
        /// The limit.
        limit: usize,
        /// What is counted: `constraint levels` or `JSON levels`.
        what: &'static str,
    },
    /// An invalid `versionRange`.
    #[error("{}: invalid versionRange {range:?}: {reason}", at(.path))]
    BadRange {
        /// JSON path of the field.
        path: String,
        /// The range text.
        range: String,
        /// Why it does not parse.
        reason: String,
    },
    /// A required field is absent.
    #[error("missing field {path}")]
    MissingField {
        /// JSON path of the missing field, its name included.
        path: String,
    },
    /// A field has the wrong JSON type.
    #[error("{}: expected {expected}, found {found}", at(.path))]
    WrongType {
        /// JSON path of the field.
        path: String,
        /// What was expected.
        expected: &'static str,
        /// What was found.
        found: &'static str,
    },
    /// `all`, `any` or `not` with no children.
    #[error("{}: empty list of constraints", at(.path))]
    EmptyCompound {
        /// JSON path of the `constraints` list.
        path: String,
    },
    /// A CEL rule that does not compile.
    #[error(
        "{}: CEL rule {} does not compile: line {line}, column {column}: {message}",
        at(.path),
        short_rule(.rule)
    )]
    CelCompile {
        /// JSON path of the rule.
        path: String,
        /// The rule text.
        rule: String,
        /// 1-based line of the first error in the rule.
        line: usize,
        /// 1-based column of the first error in the rule.
        column: usize,
        /// The compiler's message.
        message: String,
    },
    /// A CEL rule whose estimated cost exceeds [`super::Limits::max_cel_cost`].
    #[error(
        "{}: CEL rule {} is too costly: estimated cost {cost}, limit {limit}",
        at(.path),
        short_rule(.rule)
    )]
    CelTooCostly {
        /// JSON path of the rule.
        path: String,
        /// The rule text.
        rule: String,
        /// Estimated cost.
        cost: u64,
        /// The limit.
        limit: u64,
    },
    /// A CEL rule longer than [`super::Limits::max_cel_bytes`].
    #[error("{}: CEL rule is {len} bytes, more than the limit of {limit} bytes", at(.path))]
    CelTooLong {
        /// JSON path of the rule.
        path: String,
        /// Length of the rule.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// A CEL rule nested too deeply (brackets in its text, or its syntax tree).
    #[error(
        "{}: CEL rule {} nests {what} deeper than the limit of {limit}",
        at(.path),
        short_rule(.rule)
    )]
    CelTooDeep {
        /// JSON path of the rule.
        path: String,
        /// The rule text.
        rule: String,
        /// What is counted: `brackets` or `expressions`.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// An admin or cluster constraint with an action other than require / conflict.
    #[error("{}: unknown action {value:?}; expected require or conflict", at(.path))]
    BadAction {
        /// JSON path of the action.
        path: String,
        /// The action given.
        value: String,
    },
    /// A ConfigMap constraint with an evaluator other than `cel`.
    #[error("{}: unsupported evaluator {id:?}; only cel is supported", at(.path))]
    BadEvaluator {
        /// JSON path of the evaluator id.
        path: String,
        /// The evaluator given.
        id: String,
    },
    /// A property type that does not state a constraint.
    #[error(
        "{}: property type {kind:?} is not a constraint (expected olm.constraint, \
         olm.all.required, olm.any.required, olm.none.required, olm.package.required, \
         olm.gvk.required or olm.label.required)",
        at(.path)
    )]
    UnknownType {
        /// JSON path of the typed property.
        path: String,
        /// The type given.
        kind: String,
    },
    /// Invalid JSON.
    #[error("{}invalid JSON: {message}", prefix(.path))]
    Json {
        /// JSON path of the text that does not decode (empty for the whole input).
        path: String,
        /// The decoder's message, with line and column.
        message: String,
    },
}

impl ConstraintError {
    /// Prepends `prefix` to the JSON path this error names, e.g. `cluster` + `constraints[0]`
    /// gives `cluster.constraints[0]`.
    pub fn prefixed(mut self, prefix: &str) -> ConstraintError {
        if prefix.is_empty() {
            return self;
        }
        if let Some(path) = self.path_mut() {
            *path = join_path(prefix, path);
        }
        self
    }

    /// The JSON path this error names, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            ConstraintError::UnknownKey { path, .. }
            | ConstraintError::NoPredicate { path }
            | ConstraintError::SeveralPredicates { path, .. }
            | ConstraintError::TooDeep { path, .. }
            | ConstraintError::BadRange { path, .. }
            | ConstraintError::MissingField { path }
            | ConstraintError::WrongType { path, .. }
            | ConstraintError::EmptyCompound { path }
            | ConstraintError::CelCompile { path, .. }
            | ConstraintError::CelTooCostly { path, .. }
            | ConstraintError::CelTooLong { path, .. }
            | ConstraintError::CelTooDeep { path, .. }
            | ConstraintError::BadAction { path, .. }
            | ConstraintError::BadEvaluator { path, .. }
            | ConstraintError::UnknownType { path, .. }
            | ConstraintError::Json { path, .. } => Some(path),
            ConstraintError::TooLarge { .. } => None,
        }
    }

    fn path_mut(&mut self) -> Option<&mut String> {
        match self {
            ConstraintError::UnknownKey { path, .. }
            | ConstraintError::NoPredicate { path }
            | ConstraintError::SeveralPredicates { path, .. }
            | ConstraintError::TooDeep { path, .. }
            | ConstraintError::BadRange { path, .. }
            | ConstraintError::MissingField { path }
            | ConstraintError::WrongType { path, .. }
            | ConstraintError::EmptyCompound { path }
            | ConstraintError::CelCompile { path, .. }
            | ConstraintError::CelTooCostly { path, .. }
            | ConstraintError::CelTooLong { path, .. }
            | ConstraintError::CelTooDeep { path, .. }
            | ConstraintError::BadAction { path, .. }
            | ConstraintError::BadEvaluator { path, .. }
            | ConstraintError::UnknownType { path, .. }
            | ConstraintError::Json { path, .. } => Some(path),
            ConstraintError::TooLarge { .. } => None,
        }
    }
}

/// `a` + `b` as a JSON path: `a.b`, or `a[1]` when `b` is an index.
pub(crate) fn join_path(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else if b.is_empty() {
        a.to_string()
    } else if b.starts_with('[') {
        format!("{a}{b}")
    } else {
        format!("{a}.{b}")
    }
}

/// `path[i]`.
pub(crate) fn index_path(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

fn at(path: &str) -> &str {
    if path.is_empty() { "(top level)" } else { path }
}

fn prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

fn hint_text(hint: &Option<String>) -> String {
    match hint {
        Some(h) => format!(" ({h})"),
        None => String::new(),
    }
}

/// A rule as quoted in messages: one line, at most 80 characters.
pub(crate) fn short_rule(rule: &str) -> String {
    let one_line: String = rule.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut chars = one_line.chars();
    let head: String = chars.by_ref().take(160).collect();
    if chars.next().is_some() {
        format!("{:?}", format!("{head}…"))
    } else {
        format!("{head:?}")
    }
}

/// The JSON type name of a value, for [`ConstraintError::WrongType`].
pub(crate) fn type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_joins_paths() {
        let e = ConstraintError::MissingField {
            path: "all.constraints[0].package.packageName".into(),
        };
        assert_eq!(
            e.prefixed("constraints[2]").to_string(),
            "missing field constraints[2].all.constraints[0].package.packageName"
        );
        let root = ConstraintError::NoPredicate {
            path: String::new(),
        };
        assert!(
            root.to_string()
                .starts_with("(top level): no constraint given")
        );
        assert_eq!(
            ConstraintError::NoPredicate {
                path: String::new()
            }
            .prefixed("x")
            .path(),
            Some("x")
        );
    }

    #[test]
    fn long_rules_are_shortened() {
        let rule = "a ".repeat(200);
        let s = short_rule(&rule);
        assert!(s.chars().count() < 170, "{s}");
        assert!(s.ends_with("…\""));
    }
}
