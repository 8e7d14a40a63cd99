//! A JSON value read within a size budget: the parts of an object deppy keeps whole (a
//! custom resource, a CRD, a body read before its kind was known). Its size is counted as it
//! is built (about its JSON text: the bytes of every string and key, and 16 a node), so an
//! object over the limit is refused having held the limit, not the whole object.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::cluster::budget::{self, Meter};

/// What one node costs besides its text.
const NODE: u64 = 16;

/// The budget of one object's kept parts: at most `limit` counted bytes, and the run's time
/// budget (checked every few thousand nodes).
pub(super) struct Counter<'m> {
    used: Cell<u64>,
    limit: u64,
    meter: &'m Meter,
    nodes: Cell<u64>,
}

impl<'m> Counter<'m> {
    pub(super) fn new(limit: u64, meter: &'m Meter) -> Counter<'m> {
        Counter {
            used: Cell::new(0),
            limit,
            meter,
            nodes: Cell::new(0),
        }
    }

    /// The bytes counted so far.
    pub(super) fn used(&self) -> u64 {
        self.used.get()
    }

    fn add<E: de::Error>(&self, bytes: u64) -> Result<(), E> {
        let used = self.used.get().saturating_add(bytes).saturating_add(NODE);
        self.used.set(used);
        if used > self.limit {
            return Err(E::custom(format!(
                "the object is larger than {} (about {} bytes of JSON read so far), more than any object the API server stores",
                budget::mib(self.limit),
                crate::yaml::thousands(used)
            )));
        }
        let nodes = self.nodes.get() + 1;
        self.nodes.set(nodes);
        if nodes.is_multiple_of(4096) && self.meter.out_of_time() {
            return Err(E::custom(budget::OUT_OF_TIME));
        }
        Ok(())
    }
}

/// Reads one value within `counter`'s budget.
pub(super) struct Counted<'c, 'm>(pub(super) &'c Counter<'m>);

impl<'de> DeserializeSeed<'de> for Counted<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.0.add(4)?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.0.add(8)?;
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.0.add(8)?;
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.0.add(8)?;
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.0.add(v.len() as u64)?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.add(v.len() as u64)?;
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.0.add(4)?;
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.0.add(4)?;
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.0.add(2)?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Counted(self.0))? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.0.add(2)?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.0.add(key.len() as u64)?;
            // A key given twice would silently replace the first; YAML refuses it too.
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            let v = map.next_value_seed(Counted(self.0))?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, limit: u64) -> Result<(Value, u64), String> {
        let meter = Meter::unlimited();
        let c = Counter::new(limit, &meter);
        let mut de = serde_json::Deserializer::from_str(text);
        let v = Counted(&c)
            .deserialize(&mut de)
            .map_err(|e| e.to_string())?;
        Ok((v, c.used()))
    }

    #[test]
    fn values_are_read_and_counted() {
        let (v, used) = read(r#"{"a": [1, "xyz", null, true, 1.5]}"#, 1 << 20).unwrap();
        assert_eq!(v["a"][1], "xyz");
        assert!(used > 3 && used < 200, "{used}");
    }

    #[test]
    fn a_value_over_the_limit_and_a_key_given_twice_are_refused() {
        let big = format!("[{}1]", "1,".repeat(10_000));
        let e = read(&big, 10_000).unwrap_err();
        assert!(e.contains("larger than"), "{e}");
        let e = read(r#"{"a": 1, "b": {"c": 1, "c": 2}}"#, 1 << 20).unwrap_err();
        assert!(e.contains("duplicate key `c`"), "{e}");
    }
}
