//! How much work evaluating a CEL rule really does, for the `cel` target's property "evaluation
//! never exceeds the cost estimate": the rule runs in the `cel` crate's standard environment
//! (as OLM's `properties` variable, with a `semver_compare`), every list of the input is a
//! list that counts the elements its iterations yield, and the count must stay within
//! `CelRule::cost`, which assumes lists of at most 100 elements. Lists a rule builds itself
//! (literals, `map`, `+`) are not counted, so the count is a lower bound of the work.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cel::common::traits::{self, Adder, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt, Type,
};
use cel::common::value::Val;
use serde_json::Value;

/// The longest list the cost estimate assumes.
pub const ASSUMED_LIST: usize = 100;

/// A list that counts the elements its iterations yield.
#[derive(Debug)]
struct CountingList<'v> {
    inner: CelList<'v>,
    seen: Arc<AtomicU64>,
}

struct CountingIter<'b, 'v> {
    list: &'b [Box<dyn Val + 'v>],
    pos: usize,
    seen: &'b AtomicU64,
}

impl<'b, 'v: 'w, 'w> traits::Iterator<'b, 'w> for CountingIter<'b, 'v> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'w)> {
        let item = self.list.get(self.pos)?;
        self.pos += 1;
        self.seen.fetch_add(1, Ordering::Relaxed);
        Some(item.as_ref())
    }
}

impl Iterable for CountingList<'_> {
    fn iter<'b, 'w>(&'b self) -> Box<dyn traits::Iterator<'b, 'w> + 'b>
    where
        Self: 'w,
    {
        Box::new(CountingIter {
            list: self.inner.inner(),
            pos: 0,
            seen: &self.seen,
        })
    }
}

impl Val for CountingList<'_> {
    fn get_type(&self) -> &Type {
        self.inner.get_type()
    }

    fn cel_type() -> &'static Type {
        &cel::common::types::LIST_TYPE
    }

    fn as_adder<'b, 'w>(&'b self) -> Option<&'b (dyn Adder + 'w)>
    where
        Self: 'w,
    {
        self.inner.as_adder()
    }

    fn as_container(&self) -> Option<&dyn Container> {
        self.inner.as_container()
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        self.inner.as_indexer()
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        self.inner.as_sizer()
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        self.inner.as_zeroer()
    }

    fn equals(&self, other: &dyn Val) -> bool {
        self.inner.equals(other)
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(CountingList {
            inner: self.inner.clone(),
            seen: Arc::clone(&self.seen),
        })
    }
}

fn counted(items: Vec<Box<dyn Val + 'static>>, seen: &Arc<AtomicU64>) -> Box<dyn Val> {
    Box::new(CountingList {
        inner: CelList::from(items),
        seen: Arc::clone(seen),
    })
}

fn to_val(v: &Value, seen: &Arc<AtomicU64>) -> Box<dyn Val> {
    match v {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Box::new(CelInt::from(i)),
            (None, Some(u)) => Box::new(CelUInt::from(u)),
            _ => Box::new(CelDouble::from(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => Box::new(CelString::from(s.clone())),
        Value::Array(items) => counted(items.iter().map(|i| to_val(i, seen)).collect(), seen),
        Value::Object(map) => {
            let m: HashMap<CelMapKey, Box<dyn Val>> = map
                .iter()
                .map(|(k, v)| (CelMapKey::from(k.clone()), to_val(v, seen)))
                .collect();
            Box::new(CelMap::from(m))
        }
    }
}

/// The longest list in `v`, nested ones included.
pub fn longest_list(v: &Value) -> usize {
    match v {
        Value::Array(items) => items
            .iter()
            .map(longest_list)
            .max()
            .unwrap_or(0)
            .max(items.len()),
        Value::Object(map) => map.values().map(longest_list).max().unwrap_or(0),
        _ => 0,
    }
}

fn semver_compare(a: cel::Value, b: cel::Value) -> Result<cel::Value, cel::ExecutionError> {
    let version = |v: &cel::Value| match v {
        cel::Value::String(s) => deppy::advanced::version::Version::parse(s).ok(),
        _ => None,
    };
    match (version(&a), version(&b)) {
        (Some(x), Some(y)) => Ok(cel::Value::Int(x.cmp_precedence(&y) as i64)),
        _ => Err(cel::ExecutionError::function_error(
            "semver_compare",
            "not a version",
        )),
    }
}

/// The elements iterations over input lists yielded while evaluating `rule` on `properties`
/// (`{type, value}` pairs); None when the rule does not compile here.
pub fn iterations(rule: &str, properties: &[(String, Value)]) -> Option<u64> {
    let program = cel::Program::compile(rule).ok()?;
    let seen = Arc::new(AtomicU64::new(0));
    let items = properties
        .iter()
        .map(|(t, v)| {
            let m: HashMap<CelMapKey, Box<dyn Val>> = [
                (
                    CelMapKey::from("type".to_string()),
                    Box::new(CelString::from(t.clone())) as Box<dyn Val>,
                ),
                (CelMapKey::from("value".to_string()), to_val(v, &seen)),
            ]
            .into_iter()
            .collect();
            Box::new(CelMap::from(m)) as Box<dyn Val>
        })
        .collect();
    let mut ctx = cel::Context::default();
    ctx.add_variable_as_val("properties", counted(items, &seen));
    ctx.add_function("semver_compare", semver_compare).ok()?;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| program.execute(&ctx)));
    drop(run);
    Some(seen.load(Ordering::Relaxed))
}
