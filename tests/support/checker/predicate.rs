//! Dependencies and constraints as predicates over one subject (a bundle or the cluster node),
//! from docs/semantics.md §2: `olm.constraint` (`gvk`, `package`, `cel`, `all`/`any`/`not`,
//! `none` as `not`), the simple `olm.package.required` / `olm.gvk.required` /
//! `olm.label.required` types and the `olm.all/any/none.required` alias forms. CEL rules run
//! in the `cel` crate's standard environment with OLM's `properties` variable and
//! `semver_compare`; a rule that fails to evaluate is false.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::range::Range;
use super::version::Version;

/// Group, version, kind (`group` may be empty).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

pub fn gvk_of(v: &Value) -> Result<Gvk, String> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(Gvk {
        group: s("group").unwrap_or_default(),
        version: s("version").ok_or("a gvk without version")?,
        kind: s("kind").ok_or("a gvk without kind")?,
    })
}

pub enum Pred {
    Package(String, Range),
    Gvk(Gvk),
    Label(String),
    Cel(Arc<cel::Program>),
    All(Vec<Pred>),
    Any(Vec<Pred>),
    Not(Vec<Pred>),
}

/// What a predicate is tested against.
pub struct Subject<'a> {
    /// Package and version (None for the cluster node).
    pub package: Option<(&'a str, &'a Version)>,
    pub gvks: &'a [Gvk],
    /// Properties as (type, value), in the order the source lists them.
    pub properties: &'a [(String, Value)],
}

fn string_field<'v>(v: &'v Value, key: &str) -> Result<&'v str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{key} must be a string"))
}

fn package_pred(v: &Value) -> Result<Pred, String> {
    let name = string_field(v, "packageName")?;
    let text = string_field(v, "versionRange")?;
    let range = Range::parse(text).ok_or_else(|| format!("bad range {text:?}"))?;
    Ok(Pred::Package(name.to_string(), range))
}

fn children(
    v: &Value,
    parse: &dyn Fn(&Value) -> Result<Pred, String>,
) -> Result<Vec<Pred>, String> {
    let list = v
        .get("constraints")
        .and_then(Value::as_array)
        .ok_or("a compound without constraints")?;
    list.iter().map(parse).collect()
}

/// An `olm.constraint` value (also the predicate part of an admin constraint).
pub fn constraint(v: &Value) -> Result<Pred, String> {
    let keys = ["gvk", "package", "cel", "all", "any", "not", "none"];
    let found: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| v.get(*k).is_some())
        .collect();
    let [key] = found.as_slice() else {
        return Err(format!("a constraint with predicates {found:?}"));
    };
    let body = &v[*key];
    Ok(match *key {
        "gvk" => Pred::Gvk(gvk_of(body)?),
        "package" => package_pred(body)?,
        "cel" => {
            let rule = string_field(body, "rule")?;
            let program = cel::Program::compile(rule).map_err(|e| format!("CEL: {e}"))?;
            Pred::Cel(Arc::new(program))
        }
        "all" => Pred::All(children(body, &constraint)?),
        "any" => Pred::Any(children(body, &constraint)?),
        _ => Pred::Not(children(body, &constraint)?),
    })
}

/// A `{type, value}` entry of an alias form's list.
fn typed_entry(v: &Value) -> Result<Pred, String> {
    let kind = string_field(v, "type")?;
    typed(kind, v.get("value").unwrap_or(&Value::Null))?
        .ok_or_else(|| format!("{kind} is not a requirement type"))
}

/// The requirement a bundle property of type `kind` states, if it is one.
pub fn typed(kind: &str, value: &Value) -> Result<Option<Pred>, String> {
    Ok(Some(match kind {
        "olm.constraint" => constraint(value)?,
        "olm.package.required" => package_pred(value)?,
        "olm.gvk.required" => Pred::Gvk(gvk_of(value)?),
        "olm.label.required" => Pred::Label(string_field(value, "label")?.to_string()),
        "olm.all.required" => Pred::All(children(value, &typed_entry)?),
        "olm.any.required" => Pred::Any(children(value, &typed_entry)?),
        "olm.none.required" => Pred::Not(children(value, &typed_entry)?),
        _ => return Ok(None),
    }))
}

fn to_cel(v: &Value) -> cel::Value {
    match v {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => cel::Value::Int(i),
            (None, Some(u)) => cel::Value::UInt(u),
            _ => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        Value::Array(items) => cel::Value::List(Arc::new(items.iter().map(to_cel).collect())),
        Value::Object(map) => {
            let m: HashMap<String, cel::Value> =
                map.iter().map(|(k, v)| (k.clone(), to_cel(v))).collect();
            cel::Value::from(m)
        }
    }
}

fn cel_version(v: &cel::Value) -> Result<Version, cel::ExecutionError> {
    let text = match v {
        cel::Value::String(s) => s.to_string(),
        cel::Value::Int(i) => i.to_string(),
        cel::Value::UInt(u) => u.to_string(),
        cel::Value::Float(f) => f.to_string(),
        _ => {
            return Err(cel::ExecutionError::function_error(
                "semver_compare",
                "not a version",
            ));
        }
    };
    Version::parse(&text)
        .ok_or_else(|| cel::ExecutionError::function_error("semver_compare", "not a version"))
}

fn semver_compare(a: cel::Value, b: cel::Value) -> Result<cel::Value, cel::ExecutionError> {
    let o = cel_version(&a)?.precedence(&cel_version(&b)?);
    Ok(cel::Value::Int(o as i64))
}

/// Evaluates a CEL rule on a property list; an error or a non-boolean result is false.
pub fn cel_true(program: &cel::Program, properties: &[(String, Value)]) -> bool {
    let list: Vec<cel::Value> = properties
        .iter()
        .map(|(t, v)| {
            let mut m: HashMap<String, cel::Value> = HashMap::new();
            m.insert("type".into(), cel::Value::String(Arc::new(t.clone())));
            m.insert("value".into(), to_cel(v));
            cel::Value::from(m)
        })
        .collect();
    static ENV: std::sync::OnceLock<Arc<cel::Env>> = std::sync::OnceLock::new();
    let env = ENV.get_or_init(|| Arc::new(cel::Env::stdlib()));
    let mut ctx = cel::Context::with_env(Arc::clone(env));
    ctx.add_variable_from_value("properties", cel::Value::List(Arc::new(list)));
    if ctx.add_function("semver_compare", semver_compare).is_err() {
        return false;
    }
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| program.execute(&ctx)));
    matches!(run, Ok(Ok(cel::Value::Bool(true))))
}

impl Pred {
    pub fn matches(&self, s: &Subject<'_>) -> bool {
        match self {
            Pred::Package(name, range) => s
                .package
                .is_some_and(|(p, v)| p == name && range.matches(v)),
            Pred::Gvk(g) => s.gvks.contains(g),
            Pred::Label(l) => s.properties.iter().any(|(t, v)| {
                t == "olm.label" && v.get("label").and_then(Value::as_str) == Some(l)
            }),
            Pred::Cel(p) => cel_true(p, s.properties),
            Pred::All(cs) => cs.iter().all(|c| c.matches(s)),
            Pred::Any(cs) => cs.iter().any(|c| c.matches(s)),
            Pred::Not(cs) => !cs.iter().any(|c| c.matches(s)),
        }
    }
}
