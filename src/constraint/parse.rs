//! The `olm.constraint` grammar over decoded JSON. Recursion is bounded by
//! [`Limits::max_depth`], checked on entry to every level, and the callers check the JSON
//! depth without recursion before calling in.

use serde_json::{Map, Value};

use super::error::{index_path, join_path, type_name};
use super::{CelCache, Constraint, ConstraintError, Limits, Predicate};
use crate::gvk::Gvk;
use crate::range::VersionRange;

/// Property type of a generic constraint.
pub(crate) const OLM_CONSTRAINT: &str = "olm.constraint";

/// Keys that select the predicate of an `olm.constraint` object. `none` is OLM's deprecated
/// spelling of `not`.
const PREDICATE_KEYS: [&str; 7] = ["gvk", "package", "cel", "all", "any", "not", "none"];

/// Parses constraints with one set of limits and one CEL cache.
pub(crate) struct Parser<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) cache: &'a mut CelCache,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(limits: &'a Limits, cache: &'a mut CelCache) -> Parser<'a> {
        Parser { limits, cache }
    }

    /// Errors when `depth` (1 for a top-level constraint) exceeds the limit.
    pub(crate) fn check_level(&self, path: &str, depth: usize) -> Result<(), ConstraintError> {
        if depth > self.limits.max_depth {
            Err(super::json::too_deep_levels(path.to_string(), self.limits))
        } else {
            Ok(())
        }
    }

    /// An `olm.constraint` object. Keys in `extra` are allowed and left to the caller (the
    /// admin form's `action`).
    pub(crate) fn constraint(
        &mut self,
        value: &Value,
        path: &str,
        depth: usize,
        extra: &[&str],
    ) -> Result<Constraint, ConstraintError> {
        self.check_level(path, depth)?;
        let map = object(value, path)?;
        let mut found: Vec<&str> = Vec::new();
        for key in map.keys() {
            if PREDICATE_KEYS.contains(&key.as_str()) {
                found.push(key);
            } else if key != "failureMessage" && !extra.contains(&key.as_str()) {
                return Err(unknown_key(path, key, constraint_hint(key)));
            }
        }
        let key = match found.as_slice() {
            [] => {
                return Err(ConstraintError::NoPredicate {
                    path: path.to_string(),
                });
            }
            [one] => *one,
            several => {
                return Err(ConstraintError::SeveralPredicates {
                    path: path.to_string(),
                    keys: several.iter().map(|k| k.to_string()).collect(),
                });
            }
        };
        let failure_message = optional_string(map, "failureMessage", path)?;
        let body = map.get(key).unwrap_or(&Value::Null);
        let body_path = join_path(path, key);
        let predicate = match key {
            "gvk" => Predicate::Gvk(gvk(body, &body_path)?),
            "package" => package(body, &body_path)?,
            "cel" => self.cel(body, &body_path)?,
            _ => self.compound(key, body, &body_path, depth)?,
        };
        Ok(Constraint {
            predicate,
            failure_message,
        })
    }

    /// `{rule: "..."}`.
    fn cel(&mut self, body: &Value, path: &str) -> Result<Predicate, ConstraintError> {
        let map = object(body, path)?;
        only_keys(map, path, &["rule"])?;
        let rule = required_string(map, "rule", path)?;
        let rule_path = join_path(path, "rule");
        let compiled = self.cache.compile(rule, self.limits, &rule_path)?;
        Ok(Predicate::Cel(compiled))
    }

    /// `{constraints: [...]}` for `all`, `any`, `not` (and `none`).
    fn compound(
        &mut self,
        key: &str,
        body: &Value,
        path: &str,
        depth: usize,
    ) -> Result<Predicate, ConstraintError> {
        let map = object(body, path)?;
        only_keys(map, path, &["constraints"])?;
        let list_path = join_path(path, "constraints");
        let items = required_list(map, "constraints", path)?;
        let mut children = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            children.push(self.constraint(item, &index_path(&list_path, i), depth + 1, &[])?);
        }
        compound_of(key, children, &list_path)
    }
}

/// Builds the compound predicate named `key` (`all`, `any`, `not`/`none`), rejecting an empty
/// list.
pub(crate) fn compound_of(
    key: &str,
    children: Vec<Constraint>,
    list_path: &str,
) -> Result<Predicate, ConstraintError> {
    if children.is_empty() {
        return Err(ConstraintError::EmptyCompound {
            path: list_path.to_string(),
        });
    }
    Ok(match key {
        "all" => Predicate::All(children),
        "any" => Predicate::Any(children),
        _ => Predicate::Not(children),
    })
}

/// `{group, version, kind}`; `group` may be absent or empty (the core API group).
pub(crate) fn gvk(body: &Value, path: &str) -> Result<Gvk, ConstraintError> {
    let map = object(body, path)?;
    only_keys(map, path, &["group", "version", "kind"])?;
    Ok(Gvk {
        group: optional_string(map, "group", path)?.unwrap_or_default(),
        version: required_string(map, "version", path)?.to_string(),
        kind: required_string(map, "kind", path)?.to_string(),
    })
}

/// `{packageName, versionRange}`.
pub(crate) fn package(body: &Value, path: &str) -> Result<Predicate, ConstraintError> {
    let map = object(body, path)?;
    for key in map.keys() {
        if key != "packageName" && key != "versionRange" {
            let hint = (key == "name").then(|| "did you mean \"packageName\"?".to_string());
            return Err(unknown_key(path, key, hint));
        }
    }
    let package = required_string(map, "packageName", path)?.to_string();
    let text = required_string(map, "versionRange", path)?;
    let range = VersionRange::parse(text).map_err(|e| ConstraintError::BadRange {
        path: join_path(path, "versionRange"),
        range: text.to_string(),
        reason: e.reason,
    })?;
    Ok(Predicate::Package { package, range })
}

fn constraint_hint(key: &str) -> Option<String> {
    match key {
        "message" | "description" => Some("did you mean \"failureMessage\"?".to_string()),
        "rule" => Some("a CEL rule goes in cel: {rule: ...}".to_string()),
        "and" => Some("did you mean \"all\"?".to_string()),
        "or" => Some("did you mean \"any\"?".to_string()),
        "prohibit" => Some("prohibit is only accepted in a request's constraints list".to_string()),
        _ => None,
    }
}

pub(crate) fn unknown_key(path: &str, key: &str, hint: Option<String>) -> ConstraintError {
    ConstraintError::UnknownKey {
        path: join_path(path, key),
        key: key.to_string(),
        hint,
    }
}

/// `value` as an object, or a [`ConstraintError::WrongType`] naming `path`.
pub(crate) fn object<'v>(
    value: &'v Value,
    path: &str,
) -> Result<&'v Map<String, Value>, ConstraintError> {
    value.as_object().ok_or_else(|| ConstraintError::WrongType {
        path: path.to_string(),
        expected: "an object",
        found: type_name(value),
    })
}

/// Errors on the first key of `map` not in `allowed`.
pub(crate) fn only_keys(
    map: &Map<String, Value>,
    path: &str,
    allowed: &[&str],
) -> Result<(), ConstraintError> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(unknown_key(path, key, None)),
        None => Ok(()),
    }
}

/// A string field that must be present.
pub(crate) fn required_string<'v>(
    map: &'v Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'v str, ConstraintError> {
    match map.get(key) {
        None | Some(Value::Null) => Err(ConstraintError::MissingField {
            path: join_path(path, key),
        }),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ConstraintError::WrongType {
            path: join_path(path, key),
            expected: "a string",
            found: type_name(other),
        }),
    }
}

/// A string field that may be absent (or null).
pub(crate) fn optional_string(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<String>, ConstraintError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ConstraintError::WrongType {
            path: join_path(path, key),
            expected: "a string",
            found: type_name(other),
        }),
    }
}

/// A list field that must be present.
pub(crate) fn required_list<'v>(
    map: &'v Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'v Vec<Value>, ConstraintError> {
    match map.get(key) {
        None | Some(Value::Null) => Err(ConstraintError::MissingField {
            path: join_path(path, key),
        }),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(ConstraintError::WrongType {
            path: join_path(path, key),
            expected: "a list",
            found: type_name(other),
        }),
    }
}
