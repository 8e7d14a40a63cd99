//! Admin constraints (a request's `constraints:` list, docs/semantics.md §6.2): a constraint
//! in the `olm.constraint` form plus `action: require | conflict`, or a convenience `prohibit`
//! form.
//!
//! ```yaml
//! constraints:
//!   - {action: require, failureMessage: "only certified", cel: {rule: 'properties.exists(p, p.type == "certified")'}}
//!   - {action: conflict, package: {packageName: legacy, versionRange: "<2.0.0"}}
//!   - {prohibit: {package: etcd}}
//!   - {prohibit: {bundle: etcdoperator.v0.9.2}}
//!   - {prohibit: {channel: {package: etcd, name: alpha}}}
//!   - {prohibit: {catalog: community}, failureMessage: "not vetted"}
//! ```
//!
//! `action` is a string or, as in the cluster ConfigMap form, `{id: require}`.

use std::fmt;

use serde_json::Value;

use super::error::{join_path, type_name};
use super::json::{MAX_VALUE_DEPTH, constraint_json_depth, value_depth_exceeds};
use super::parse::{Parser, object, only_keys, optional_string, required_string, unknown_key};
use super::{CelCache, Constraint, ConstraintError, Limits};

/// What an admin or cluster constraint does to candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintAction {
    /// Keep only candidates that match.
    Require,
    /// Drop candidates that match.
    Conflict,
}

impl fmt::Display for ConstraintAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConstraintAction::Require => "require",
            ConstraintAction::Conflict => "conflict",
        })
    }
}

/// A constraint with an action, applied to every candidate of every list.
#[derive(Clone, Debug, PartialEq)]
pub struct AdminConstraint {
    /// Require or conflict.
    pub action: ConstraintAction,
    /// The predicate (and its failure message).
    pub constraint: Constraint,
}

/// What a `prohibit` entry forbids. Channel and catalog membership are not bundle properties,
/// so the resolver applies these itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Prohibit {
    /// Every bundle of a package.
    Package(String),
    /// Bundles with this name (in any catalog).
    Bundle(String),
    /// The entries of one channel of one package.
    Channel {
        /// Package name.
        package: String,
        /// Channel name.
        channel: String,
    },
    /// Every bundle of a catalog.
    Catalog(String),
}

impl fmt::Display for Prohibit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prohibit::Package(p) => write!(f, "package {p}"),
            Prohibit::Bundle(b) => write!(f, "bundle {b}"),
            Prohibit::Channel { package, channel } => {
                write!(f, "channel {channel} of package {package}")
            }
            Prohibit::Catalog(c) => write!(f, "catalog {c}"),
        }
    }
}

/// One entry of a request's `constraints:` list.
#[derive(Clone, Debug, PartialEq)]
pub enum AdminEntry {
    /// `{action, failureMessage?, <predicate>}`.
    Constraint(AdminConstraint),
    /// `{prohibit: {...}, failureMessage?}`.
    Prohibit {
        /// What is forbidden.
        target: Prohibit,
        /// The admin's message.
        failure_message: Option<String>,
    },
}

impl AdminConstraint {
    /// Parses `{action: require|conflict, failureMessage?, <one predicate key>}`. Paths in
    /// errors are relative to `value`.
    pub fn from_value(
        value: &Value,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<AdminConstraint, ConstraintError> {
        if value_depth_exceeds(value, constraint_json_depth(limits)) {
            return Err(super::json::too_deep_levels(String::new(), limits));
        }
        Parser::new(limits, cache).admin_constraint(value, "")
    }
}

impl AdminEntry {
    /// Parses one entry: the `prohibit` form when the object has a `prohibit` key, else
    /// [`AdminConstraint::from_value`].
    pub fn from_value(
        value: &Value,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<AdminEntry, ConstraintError> {
        if value_depth_exceeds(value, constraint_json_depth(limits).max(MAX_VALUE_DEPTH)) {
            return Err(super::json::too_deep_levels(String::new(), limits));
        }
        let map = object(value, "")?;
        if map.contains_key("prohibit") {
            only_keys(map, "", &["prohibit", "failureMessage"])?;
            let target = prohibit(map.get("prohibit").unwrap_or(&Value::Null), "prohibit")?;
            let failure_message = optional_string(map, "failureMessage", "")?;
            return Ok(AdminEntry::Prohibit {
                target,
                failure_message,
            });
        }
        AdminConstraint::from_value(value, limits, cache).map(AdminEntry::Constraint)
    }

    /// Parses a whole `constraints:` list; errors name `[i]...` (prefix them with
    /// [`ConstraintError::prefixed`]).
    pub fn list_from_values(
        values: &[Value],
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<Vec<AdminEntry>, ConstraintError> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                AdminEntry::from_value(v, limits, cache).map_err(|e| e.prefixed(&format!("[{i}]")))
            })
            .collect()
    }
}

impl Parser<'_> {
    /// `{action, failureMessage?, <predicate>}` at `path`.
    pub(crate) fn admin_constraint(
        &mut self,
        value: &Value,
        path: &str,
    ) -> Result<AdminConstraint, ConstraintError> {
        let constraint = self.constraint(value, path, 1, &["action"])?;
        let action = match value.get("action") {
            None | Some(Value::Null) => {
                return Err(ConstraintError::MissingField {
                    path: join_path(path, "action"),
                });
            }
            Some(v) => action(v, &join_path(path, "action"))?,
        };
        Ok(AdminConstraint { action, constraint })
    }
}

/// `require` / `conflict`, or `{id: require}`.
pub(crate) fn action(value: &Value, path: &str) -> Result<ConstraintAction, ConstraintError> {
    let (text, text_path) = match value {
        Value::String(s) => (s.as_str(), path.to_string()),
        Value::Object(map) => {
            only_keys(map, path, &["id"])?;
            (required_string(map, "id", path)?, join_path(path, "id"))
        }
        other => {
            return Err(ConstraintError::WrongType {
                path: path.to_string(),
                expected: "require or conflict",
                found: type_name(other),
            });
        }
    };
    match text {
        "require" => Ok(ConstraintAction::Require),
        "conflict" => Ok(ConstraintAction::Conflict),
        other => Err(ConstraintError::BadAction {
            path: text_path,
            value: other.to_string(),
        }),
    }
}

/// `{package: P}`, `{bundle: B}`, `{channel: {package, name}}` or `{catalog: C}`.
fn prohibit(value: &Value, path: &str) -> Result<Prohibit, ConstraintError> {
    let map = object(value, path)?;
    const KEYS: [&str; 4] = ["package", "bundle", "channel", "catalog"];
    if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(unknown_key(path, key, None));
    }
    let keys: Vec<&String> = map.keys().collect();
    let key = match keys.as_slice() {
        [one] => one.as_str(),
        [] => {
            return Err(ConstraintError::MissingField {
                path: join_path(path, "package"),
            });
        }
        several => {
            return Err(ConstraintError::SeveralPredicates {
                path: path.to_string(),
                keys: several.iter().map(|k| k.to_string()).collect(),
            });
        }
    };
    Ok(match key {
        "package" => Prohibit::Package(required_string(map, key, path)?.to_string()),
        "bundle" => Prohibit::Bundle(required_string(map, key, path)?.to_string()),
        "catalog" => Prohibit::Catalog(required_string(map, key, path)?.to_string()),
        _ => {
            let channel_path = join_path(path, "channel");
            let channel = object(map.get(key).unwrap_or(&Value::Null), &channel_path)?;
            only_keys(channel, &channel_path, &["package", "name"])?;
            Prohibit::Channel {
                package: required_string(channel, "package", &channel_path)?.to_string(),
                channel: required_string(channel, "name", &channel_path)?.to_string(),
            }
        }
    })
}
