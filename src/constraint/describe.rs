//! Constraints in words, for explanations when the author gave no `failureMessage`:
//!
//! * `a bundle of package foo >=1.0.0`
//! * `a bundle that provides Foo (foos.example.com/v1)`
//! * `a bundle matching CEL rule "..."`
//! * all of simple parts: `a bundle of package foo >=1.0.0 that provides Foo (foos.example.com/v1)`;
//!   otherwise `a bundle that is all of: (…), (…)`
//! * any: `one of: (…), (…)`
//! * not: `a bundle that does not provide Foo (…)`, `a bundle not of package foo`, or
//!   `a bundle that is none of: (…), (…)`

use super::error::short_rule;
use super::{Constraint, Predicate};

impl Constraint {
    /// This constraint in words (its `failureMessage` is not used; see
    /// [`Constraint::message`]).
    pub fn describe(&self) -> String {
        describe_predicate(&self.predicate)
    }
}

fn describe_predicate(p: &Predicate) -> String {
    match p {
        Predicate::Package { .. } => format!("a bundle {}", package_phrase(p).unwrap_or_default()),
        Predicate::Cel(rule) => format!("a bundle matching CEL rule {}", short_rule(rule.rule())),
        Predicate::Gvk(_) | Predicate::Label(_) => {
            format!("a bundle that {}", verb_phrase(p).unwrap_or_default())
        }
        Predicate::All(children) => describe_all(children),
        Predicate::Any(children) => format!("one of: {}", listed(children)),
        Predicate::Not(children) => describe_not(children),
    }
}

/// `of package foo >=1.0.0` (the range is left out when it is `*`).
fn package_phrase(p: &Predicate) -> Option<String> {
    match p {
        Predicate::Package { package, range } if range.raw().trim() == "*" => {
            Some(format!("of package {package}"))
        }
        Predicate::Package { package, range } => Some(format!("of package {package} {range}")),
        _ => None,
    }
}

/// What a bundle does to satisfy a leaf: `provides Foo (g/v)`, `has label "x"`,
/// `matches CEL rule "..."`, `is of package foo`.
fn verb_phrase(p: &Predicate) -> Option<String> {
    match p {
        Predicate::Gvk(gvk) => Some(format!("provides {gvk}")),
        Predicate::Label(label) => Some(format!("has label {label:?}")),
        Predicate::Cel(rule) => Some(format!("matches CEL rule {}", short_rule(rule.rule()))),
        Predicate::Package { .. } => package_phrase(p).map(|s| format!("is {s}")),
        _ => None,
    }
}

/// The negation of [`verb_phrase`].
fn negated_verb_phrase(p: &Predicate) -> Option<String> {
    match p {
        Predicate::Gvk(gvk) => Some(format!("does not provide {gvk}")),
        Predicate::Label(label) => Some(format!("does not have label {label:?}")),
        Predicate::Cel(rule) => Some(format!(
            "does not match CEL rule {}",
            short_rule(rule.rule())
        )),
        Predicate::Package { .. } => package_phrase(p).map(|s| format!("is not {s}")),
        Predicate::Not(children) => match children.as_slice() {
            [only] => verb_phrase(&only.predicate),
            _ => None,
        },
        _ => None,
    }
}

/// Leaves of an `all`, flattening nested `all`s; `None` when a part has no short form.
fn flat_parts<'c>(children: &'c [Constraint], out: &mut Vec<&'c Predicate>) -> bool {
    for c in children {
        if c.failure_message.is_some() {
            return false;
        }
        match &c.predicate {
            Predicate::All(inner) => {
                if !flat_parts(inner, out) {
                    return false;
                }
            }
            Predicate::Any(_) => return false,
            Predicate::Not(inner) if inner.len() != 1 => return false,
            p => out.push(p),
        }
    }
    true
}

fn describe_all(children: &[Constraint]) -> String {
    let mut parts = Vec::new();
    if flat_parts(children, &mut parts) {
        let package = parts
            .iter()
            .position(|p| matches!(p, Predicate::Package { .. }));
        let head = package.and_then(|i| parts.get(i).and_then(|p| package_phrase(p)));
        let verbs: Option<Vec<String>> = parts
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != package)
            .map(|(_, p)| match p {
                Predicate::Not(inner) => inner
                    .first()
                    .and_then(|c| negated_verb_phrase(&c.predicate)),
                _ => verb_phrase(p),
            })
            .collect();
        if let Some(verbs) = verbs {
            let mut text = "a bundle".to_string();
            if let Some(head) = head {
                text.push(' ');
                text.push_str(&head);
            }
            if !verbs.is_empty() {
                text.push_str(" that ");
                text.push_str(&verbs.join(" and "));
            }
            return text;
        }
    }
    format!("a bundle that is all of: {}", listed(children))
}

fn describe_not(children: &[Constraint]) -> String {
    match children {
        [only] => match &only.predicate {
            Predicate::Package { .. } => {
                format!(
                    "a bundle not {}",
                    package_phrase(&only.predicate).unwrap_or_default()
                )
            }
            Predicate::Cel(rule) => {
                format!("a bundle not matching CEL rule {}", short_rule(rule.rule()))
            }
            p => match negated_verb_phrase(p) {
                Some(verb) => format!("a bundle that {verb}"),
                None => format!("a bundle that is not ({})", describe_predicate(p)),
            },
        },
        _ => format!("a bundle that is none of: {}", listed(children)),
    }
}

/// Children in parentheses; a child's own `failureMessage` is quoted before its words.
fn listed(children: &[Constraint]) -> String {
    children
        .iter()
        .map(|c| match &c.failure_message {
            Some(m) => format!("({m:?}: {})", c.describe()),
            None => format!("({})", c.describe()),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
