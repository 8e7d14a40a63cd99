//! Bounded JSON decoding: size and nesting are checked before anything recurses.

use serde_json::Value;

use super::{ConstraintError, Limits};

/// Deepest JSON nesting a constraint tree of [`Limits::max_depth`] levels can need: each level
/// adds an object, a `constraints` list and the child object, plus a leaf object such as
/// `package: {...}`, plus slack so that the precise constraint-level check (which names the
/// path) is the one that usually fires.
pub(crate) fn constraint_json_depth(limits: &Limits) -> usize {
    limits.max_depth.saturating_mul(3).saturating_add(2)
}

/// Deepest JSON value deppy copies from cluster and request input (serde_json's own limit).
pub(crate) const MAX_VALUE_DEPTH: usize = 128;

/// Decodes `raw` after checking its size against [`Limits::max_bytes`] and, with a scan that
/// does not recurse, its nesting depth; a key given twice in one object is refused. A document that passes the scan but is deeper than
/// serde_json's recursion limit is reported as too deep as well.
pub(crate) fn parse_bounded(raw: &str, limits: &Limits) -> Result<Value, ConstraintError> {
    if raw.len() > limits.max_bytes {
        return Err(ConstraintError::TooLarge {
            size: raw.len(),
            limit: limits.max_bytes,
        });
    }
    if text_depth(raw) > constraint_json_depth(limits) {
        return Err(too_deep_levels(String::new(), limits));
    }
    // A key given twice is an error here too (serde_json would keep the last silently).
    crate::input::check_json_keys(raw)
        .and_then(|()| serde_json::from_str(raw))
        .map_err(|e| {
            if e.to_string().contains("recursion limit exceeded") {
                too_deep_levels(String::new(), limits)
            } else {
                ConstraintError::Json {
                    path: String::new(),
                    message: e.to_string(),
                }
            }
        })
}

pub(crate) fn too_deep_levels(path: String, limits: &Limits) -> ConstraintError {
    ConstraintError::TooDeep {
        path,
        limit: limits.max_depth,
        what: "constraint levels",
    }
}

/// Maximum nesting of `[`/`{` in JSON text, outside strings. Never recurses.
pub(crate) fn text_depth(raw: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in raw.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Errors when `value` nests deeper than `json_limit`, found with an explicit stack (no
/// recursion), so a value built 100k levels deep is rejected safely.
pub(crate) fn check_depth(
    value: &Value,
    json_limit: usize,
    path: &str,
    limits: &Limits,
) -> Result<(), ConstraintError> {
    if value_depth_exceeds(value, json_limit) {
        Err(too_deep_levels(path.to_string(), limits))
    } else {
        Ok(())
    }
}

/// True when `value` nests deeper than `limit` (a scalar has depth 0, `[]` depth 1).
pub(crate) fn value_depth_exceeds(value: &Value, limit: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        let depth = depth + 1;
        if depth > limit {
            return true;
        }
        stack.extend(children.map(|c| (c, depth)));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a value `depth` arrays deep without recursion, and leaks it: dropping it would
    /// recurse (serde_json's `Drop` is recursive), which is the caller's concern, not ours.
    pub(crate) fn deep_array(depth: usize) -> &'static Value {
        let mut v = Value::Null;
        for _ in 0..depth {
            v = Value::Array(vec![v]);
        }
        Box::leak(Box::new(v))
    }

    #[test]
    fn text_depth_ignores_strings() {
        assert_eq!(text_depth(r#"{"a": "[[[{{{", "b": [1, {"c": "\"["}]}"#), 3);
        assert_eq!(text_depth("[[[]]]"), 3);
    }

    #[test]
    fn deep_values_are_detected_without_recursion() {
        let v = deep_array(100_000);
        assert!(value_depth_exceeds(v, 128));
        assert!(!value_depth_exceeds(deep_array(5), 5));
        assert!(value_depth_exceeds(deep_array(6), 5));
    }

    #[test]
    fn oversized_and_overdeep_text() {
        let limits = Limits::default();
        let big = format!(r#"{{"cel": {{"rule": "{}"}}}}"#, "a".repeat(70_000));
        assert!(matches!(
            parse_bounded(&big, &limits),
            Err(ConstraintError::TooLarge { limit: 65536, .. })
        ));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let generous = Limits {
            max_bytes: 1 << 20,
            ..Limits::default()
        };
        assert!(matches!(
            parse_bounded(&deep, &generous),
            Err(ConstraintError::TooDeep { .. })
        ));
        // A limit above serde_json's recursion limit still gives a clean depth error.
        let very_generous = Limits {
            max_bytes: 1 << 20,
            max_depth: 1000,
            ..Limits::default()
        };
        assert!(matches!(
            parse_bounded(&deep, &very_generous),
            Err(ConstraintError::TooDeep { .. })
        ));
    }
}
