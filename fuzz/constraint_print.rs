//! Prints a parsed constraint back as a property (type and JSON value), for the `constraint`
//! target's property "printing and re-parsing gives the same tree". A tree without labels is
//! printed as `olm.constraint`; one with a label (which only the alias forms can state) in
//! the `olm.*.required` alias form, its label-free subtrees as `olm.constraint` entries.

use deppy::advanced::constraint::{OlmConstraint as Constraint, Predicate};
use serde_json::{Value, json};

fn has_label(c: &Constraint) -> bool {
    match &c.predicate {
        Predicate::Label(_) => true,
        Predicate::All(cs) | Predicate::Any(cs) | Predicate::Not(cs) => cs.iter().any(has_label),
        _ => false,
    }
}

fn with_message(mut v: Value, c: &Constraint) -> Value {
    if let Some(m) = &c.failure_message {
        v["failureMessage"] = json!(m);
    }
    v
}

/// An `olm.constraint` value (None for a label, which has no `olm.constraint` form).
fn olm(c: &Constraint) -> Option<Value> {
    let list = |cs: &[Constraint]| -> Option<Value> {
        Some(json!({"constraints": cs.iter().map(olm).collect::<Option<Vec<_>>>()?}))
    };
    let v = match &c.predicate {
        Predicate::Package { package, range } => {
            json!({"package": {"packageName": package, "versionRange": range.raw()}})
        }
        Predicate::Gvk(g) => {
            json!({"gvk": {"group": g.group, "version": g.version, "kind": g.kind}})
        }
        Predicate::Cel(rule) => json!({"cel": {"rule": rule.rule()}}),
        Predicate::All(cs) => json!({"all": list(cs)?}),
        Predicate::Any(cs) => json!({"any": list(cs)?}),
        Predicate::Not(cs) => json!({"not": list(cs)?}),
        Predicate::Label(_) => return None,
    };
    Some(with_message(v, c))
}

/// The property (type, value) stating `c`.
pub fn printed(c: &Constraint) -> (String, Value) {
    if !has_label(c)
        && let Some(v) = olm(c)
    {
        return ("olm.constraint".into(), v);
    }
    let entries = |cs: &[Constraint]| -> Value {
        cs.iter()
            .map(|c| {
                let (kind, value) = printed(c);
                json!({"type": kind, "value": value})
            })
            .collect()
    };
    let (kind, value) = match &c.predicate {
        Predicate::Label(l) => ("olm.label.required", json!({"label": l})),
        Predicate::All(cs) => ("olm.all.required", json!({"constraints": entries(cs)})),
        Predicate::Any(cs) => ("olm.any.required", json!({"constraints": entries(cs)})),
        Predicate::Not(cs) => ("olm.none.required", json!({"constraints": entries(cs)})),
        // Leaves without labels were printed above.
        _ => ("olm.constraint", olm(c).unwrap_or(Value::Null)),
    };
    let value = match &c.predicate {
        Predicate::Label(_) => value,
        _ => with_message(value, c),
    };
    (kind.into(), value)
}
