//! Evaluating compiled CEL rules: the `properties` variable, `semver_compare`, and errors as
//! values.
//!
//! The environment is OLM's: `properties` is a list of `{type, value}` maps whose values are
//! the JSON-decoded property values (strings are borrowed, not copied); JSON integers become
//! CEL `int` (`uint` above `i64::MAX`), other numbers `double`. `semver_compare(a, b)` returns
//! -1, 0 or 1 by semver precedence after tolerant parsing (a leading `v`, missing minor or
//! patch); an operand that is not a version makes the evaluation fail. Evaluation runs under
//! `catch_unwind` as a last resort against a panic in the `cel` crate.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt,
};
use cel::common::value::Val;
use cel::{Context, ExecutionError, Value as CelValue};
use serde_json::Value;

use super::CelRule;
use super::json::MAX_VALUE_DEPTH;
use crate::version::Version;

/// Longest error text kept from an evaluation (messages can embed whole values).
const MAX_ERROR_CHARS: usize = 300;

/// A context for evaluating rules against one bundle's (or the cluster's) properties, with
/// the size those properties give to a rule's cost: their number, or the most elements of
/// any list or map in their values, whichever is larger.
pub(crate) struct EvalContext<'a> {
    context: Context<'a, 'a>,
    size: u64,
}

/// A context for evaluating rules against one bundle's (or the cluster's) properties.
pub(crate) fn context<'a>(properties: &'a [(String, Value)]) -> Result<EvalContext<'a>, String> {
    let mut items: Vec<Box<dyn Val + 'a>> = Vec::with_capacity(properties.len());
    let mut size = properties.len() as u64;
    for (kind, value) in properties {
        let mut map: std::collections::HashMap<CelMapKey<'a>, Box<dyn Val + 'a>> =
            std::collections::HashMap::with_capacity(2);
        map.insert(
            CelMapKey::from("type"),
            Box::new(CelString::from(kind.as_str())),
        );
        map.insert(CelMapKey::from("value"), to_val(value, 0, &mut size)?);
        items.push(Box::new(CelMap::from(map)));
    }
    let mut ctx = Context::with_env(super::cel::env());
    ctx.add_variable_as_val("properties", Box::new(CelList::from(items)));
    ctx.add_function("semver_compare", semver_compare)
        .map_err(|e| format!("cannot declare semver_compare: {e}"))?;
    Ok(EvalContext { context: ctx, size })
}

/// Borrowing conversion of a JSON value; nesting beyond serde_json's own limit is an error.
/// `size` grows to the most elements of any list or map met.
fn to_val<'a>(value: &'a Value, depth: usize, size: &mut u64) -> Result<Box<dyn Val + 'a>, String> {
    if depth > MAX_VALUE_DEPTH {
        return Err(format!(
            "a property value nests deeper than {MAX_VALUE_DEPTH} levels"
        ));
    }
    Ok(match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Box::new(CelInt::from(i)),
            (None, Some(u)) => Box::new(CelUInt::from(u)),
            _ => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Array(items) => {
            *size = (*size).max(items.len() as u64);
            let converted: Result<Vec<_>, String> =
                items.iter().map(|i| to_val(i, depth + 1, size)).collect();
            Box::new(CelList::from(converted?))
        }
        Value::Object(map) => {
            *size = (*size).max(map.len() as u64);
            let mut out = std::collections::HashMap::with_capacity(map.len());
            for (k, v) in map {
                out.insert(CelMapKey::from(k.as_str()), to_val(v, depth + 1, size)?);
            }
            Box::new(CelMap::from(out))
        }
    })
}

thread_local! {
    /// When rule evaluation on this thread must stop (see [`within_deadline`]).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Set when an evaluation was refused because the deadline had passed.
    static INTERRUPTED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with every CEL evaluation on this thread refused once `deadline` has passed,
/// and says whether one was: then what `f` computed is incomplete (a refused rule counts as
/// false) and must not be used. This is how a resolution's time budget covers the
/// evaluation of admin, cluster and bundle constraints.
pub(crate) fn within_deadline<R>(deadline: Option<Instant>, f: impl FnOnce() -> R) -> (R, bool) {
    let outer = DEADLINE.replace(deadline);
    let outer_interrupted = INTERRUPTED.replace(false);
    let result = f();
    let interrupted = INTERRUPTED.replace(outer_interrupted);
    DEADLINE.set(outer);
    if interrupted {
        INTERRUPTED.set(true);
    }
    (result, interrupted)
}

/// Evaluates `rule` in `ctx`: `Ok(bool)`, or the reason it could not be decided. Refused
/// when the deadline has passed, and when the subject's size makes the rule's estimated cost
/// exceed the limit it was compiled with.
pub(crate) fn evaluate(rule: &CelRule, ctx: &EvalContext<'_>) -> Result<bool, String> {
    if DEADLINE.get().is_some_and(|d| Instant::now() >= d) {
        INTERRUPTED.set(true);
        return Err("the time budget ran out before it was evaluated".to_string());
    }
    if ctx.size > rule.max_dynamic_size() {
        return Err(format!(
            "too costly here: {} properties or elements make its estimated cost {}, over the limit it was accepted under (it affords {})",
            ctx.size,
            rule.cost_at(ctx.size),
            rule.max_dynamic_size()
        ));
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        match rule.program().execute(&ctx.context) {
            Ok(CelValue::Bool(b)) => Ok(b),
            Ok(other) => Err(format!(
                "the rule evaluated to {}, not a bool",
                other.type_of()
            )),
            Err(e) => Err(e.to_string()),
        }
    }));
    match outcome {
        Ok(result) => result.map_err(|e| truncate(&e)),
        Err(_) => Err("the CEL evaluator panicked".to_string()),
    }
}

fn truncate(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(MAX_ERROR_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// `semver_compare(a, b)`: -1, 0 or 1. Operands are read as text, like OLM's `fmt.Sprint`.
fn semver_compare(a: CelValue, b: CelValue) -> Result<CelValue, ExecutionError> {
    let a = as_version(&a)?;
    let b = as_version(&b)?;
    Ok(CelValue::Int(match a.cmp_precedence(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }))
}

fn as_version(v: &CelValue) -> Result<Version, ExecutionError> {
    let text = match v {
        CelValue::String(s) => s.to_string(),
        CelValue::Int(i) => i.to_string(),
        CelValue::UInt(u) => u.to_string(),
        CelValue::Float(f) => f.to_string(),
        other => {
            return Err(ExecutionError::function_error(
                "semver_compare",
                format!("expected a version string, got {}", other.type_of()),
            ));
        }
    };
    Version::parse(&text).map_err(|_| {
        ExecutionError::function_error(
            "semver_compare",
            format!("unable to parse {text:?} to semver format"),
        )
    })
}
