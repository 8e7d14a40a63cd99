//! The cluster node (docs/semantics.md §6.3): properties it carries (`olm.kubeversion`,
//! `olm.gvk` for built-in APIs, ...) and runtime constraints that apply to every candidate.
//!
//! Two spellings are accepted. The request's `cluster:` value:
//!
//! ```yaml
//! cluster:
//!   properties: [{type: olm.kubeversion, value: {version: 1.28.3}}]
//!   constraints: [{action: require, cel: {rule: '...'}}]
//! ```
//!
//! and the `olm-runtime-constraints` ConfigMap of the cluster-runtime-constraints proposal,
//! whose `data.properties` holds a JSON list (a string, as ConfigMap data is; a YAML list is
//! accepted too). Its `olm.constraint` entries are constraints, every other entry a property:
//!
//! ```yaml
//! apiVersion: v1
//! kind: ConfigMap
//! metadata: {name: olm-runtime-constraints, namespace: olm}
//! data:
//!   properties: |
//!     [{"type": "olm.constraint",
//!       "value": {"evaluator": {"id": "cel"},
//!                 "source": "properties.exists(p, p.type == \"certified\")",
//!                 "action": {"id": "require"},
//!                 "failureMessage": "only certified operators"}}]
//! ```
//!
//! An `olm.constraint` entry may also use the admin form (`{action, <predicate>}`).

use serde_json::{Map, Value};

use super::admin::action;
use super::error::{index_path, join_path};
use super::json::MAX_VALUE_DEPTH;
use super::matching::Subject;
use super::parse::{
    Parser, gvk, object, only_keys, optional_string, required_list, required_string,
};
use super::{AdminConstraint, CelCache, Constraint, ConstraintError, Limits, Predicate, Verdict};
use crate::gvk::Gvk;

/// The cluster as a virtual node that is always present.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cluster {
    /// Properties of the node, as (type, decoded value).
    pub properties: Vec<(String, Value)>,
    /// Runtime constraints, applied to every candidate like admin constraints.
    pub constraints: Vec<AdminConstraint>,
}

impl Cluster {
    /// Parses the request's `cluster:` value or a ConfigMap (recognised by `kind: ConfigMap`).
    /// Errors name paths relative to `value`.
    pub fn from_value(
        value: &Value,
        limits: &Limits,
        cache: &mut CelCache,
    ) -> Result<Cluster, ConstraintError> {
        // Property values are copied; refuse what could not be copied (or dropped) safely.
        if super::json::value_depth_exceeds(value, MAX_VALUE_DEPTH) {
            return Err(ConstraintError::TooDeep {
                path: String::new(),
                limit: MAX_VALUE_DEPTH,
                what: "JSON levels",
            });
        }
        let map = object(value, "")?;
        let mut parser = Parser::new(limits, cache);
        if map.get("kind").and_then(Value::as_str) == Some("ConfigMap") {
            return parser.config_map(map);
        }
        only_keys(map, "", &["properties", "constraints"])?;
        let properties = match map.get("properties") {
            None | Some(Value::Null) => Vec::new(),
            Some(_) => typed_entries(required_list(map, "properties", "")?, "properties")?,
        };
        let mut constraints = Vec::new();
        if !matches!(map.get("constraints"), None | Some(Value::Null)) {
            let items = required_list(map, "constraints", "")?;
            for (i, item) in items.iter().enumerate() {
                constraints.push(parser.admin_constraint(item, &index_path("constraints", i))?);
            }
        }
        let cluster = Cluster {
            properties,
            constraints,
        };
        cluster.check_gvks("properties")?;
        Ok(cluster)
    }

    /// The APIs the cluster serves: its `olm.gvk` properties (malformed ones are skipped;
    /// [`Cluster::from_value`] rejects them).
    pub fn provides(&self) -> Vec<Gvk> {
        self.properties
            .iter()
            .filter(|(kind, _)| kind == "olm.gvk")
            .filter_map(|(_, value)| gvk(value, "").ok())
            .collect()
    }

    /// Tests whether the cluster node itself satisfies `constraint`: a package predicate never
    /// matches, a GVK matches an `olm.gvk` property, CEL rules see the cluster's properties.
    pub fn satisfies(&self, constraint: &Constraint) -> Verdict {
        let gvks = self.provides();
        let provides: Vec<&Gvk> = gvks.iter().collect();
        let subject = Subject {
            package: None,
            provides: &provides,
            properties: &self.properties,
        };
        constraint.test_subject(&subject)
    }

    fn check_gvks(&self, list: &str) -> Result<(), ConstraintError> {
        for (i, (kind, value)) in self.properties.iter().enumerate() {
            if kind == "olm.gvk" {
                gvk(value, &join_path(&index_path(list, i), "value"))?;
            }
        }
        Ok(())
    }
}

/// `[{type, value}]` entries.
fn typed_entries(items: &[Value], list: &str) -> Result<Vec<(String, Value)>, ConstraintError> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = index_path(list, i);
        let entry = object(item, &path)?;
        only_keys(entry, &path, &["type", "value"])?;
        let kind = required_string(entry, "type", &path)?.to_string();
        out.push((kind, entry.get("value").cloned().unwrap_or(Value::Null)));
    }
    Ok(out)
}

impl Parser<'_> {
    /// `{apiVersion, kind: ConfigMap, metadata, data: {properties}}`.
    fn config_map(&mut self, map: &Map<String, Value>) -> Result<Cluster, ConstraintError> {
        only_keys(map, "", &["apiVersion", "kind", "metadata", "data"])?;
        let data = object(map.get("data").unwrap_or(&Value::Null), "data")?;
        only_keys(data, "data", &["properties"])?;
        let decoded;
        let list: &[Value] = match data.get("properties") {
            None | Some(Value::Null) => &[],
            Some(Value::String(text)) => {
                // The whole list, not one constraint: allow more bytes.
                let list_limits = Limits {
                    max_bytes: self.limits.max_bytes.saturating_mul(16),
                    ..self.limits.clone()
                };
                decoded = super::json::parse_bounded(text, &list_limits)
                    .map_err(|e| e.prefixed("data.properties"))?;
                match &decoded {
                    Value::Array(items) => items,
                    _ => return Err(not_a_list(&decoded)),
                }
            }
            Some(Value::Array(items)) => items,
            Some(other) => return Err(not_a_list(other)),
        };
        let mut cluster = Cluster::default();
        for (i, (kind, value)) in typed_entries(list, "data.properties")?
            .into_iter()
            .enumerate()
        {
            if kind == super::parse::OLM_CONSTRAINT {
                let path = join_path(&index_path("data.properties", i), "value");
                cluster
                    .constraints
                    .push(self.runtime_constraint(&value, &path)?);
            } else {
                cluster.properties.push((kind, value));
            }
        }
        cluster.check_gvks("data.properties")?;
        Ok(cluster)
    }

    /// `{evaluator: {id: cel}, source, action: {id}, failureMessage?}` (`rule` and `message`
    /// are read as `source` and `failureMessage`, as in the Deppy design's example), or the
    /// admin form.
    fn runtime_constraint(
        &mut self,
        value: &Value,
        path: &str,
    ) -> Result<AdminConstraint, ConstraintError> {
        let map = object(value, path)?;
        if !map.contains_key("evaluator") {
            return self.admin_constraint(value, path);
        }
        only_keys(
            map,
            path,
            &[
                "evaluator",
                "source",
                "rule",
                "action",
                "failureMessage",
                "message",
            ],
        )?;
        let evaluator_path = join_path(path, "evaluator");
        let evaluator = object(
            map.get("evaluator").unwrap_or(&Value::Null),
            &evaluator_path,
        )?;
        only_keys(evaluator, &evaluator_path, &["id"])?;
        let id = required_string(evaluator, "id", &evaluator_path)?;
        if id != "cel" {
            return Err(ConstraintError::BadEvaluator {
                path: join_path(&evaluator_path, "id"),
                id: id.to_string(),
            });
        }
        let source_key = if map.contains_key("rule") {
            "rule"
        } else {
            "source"
        };
        let source = required_string(map, source_key, path)?;
        let rule = self
            .cache
            .compile(source, self.limits, &join_path(path, source_key))?;
        let action = match map.get("action") {
            None | Some(Value::Null) => {
                return Err(ConstraintError::MissingField {
                    path: join_path(path, "action"),
                });
            }
            Some(v) => action(v, &join_path(path, "action"))?,
        };
        let failure_message = match optional_string(map, "failureMessage", path)? {
            Some(m) => Some(m),
            None => optional_string(map, "message", path)?,
        };
        Ok(AdminConstraint {
            action,
            constraint: Constraint {
                predicate: Predicate::Cel(rule),
                failure_message,
            },
        })
    }
}

fn not_a_list(found: &Value) -> ConstraintError {
    ConstraintError::WrongType {
        path: "data.properties".to_string(),
        expected: "a JSON list of {type, value} entries",
        found: super::error::type_name(found),
    }
}
