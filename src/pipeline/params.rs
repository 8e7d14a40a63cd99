//! Type-specific node settings: an extra catalog, static variables, a filter's selector, a
//! mutation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::kind::NodeType;
use crate::range::VersionRange;

/// Which bundles a filter, mutation or static variable means: every field given must match.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    /// Package name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Channel the bundle is an entry of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Bundle name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    /// Catalog name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// Versions (OLM range syntax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_range: Option<VersionRange>,
}

impl Selector {
    /// In words, e.g. `package etcd, channel beta`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.package {
            parts.push(format!("package {p}"));
        }
        if let Some(c) = &self.channel {
            parts.push(format!("channel {c}"));
        }
        if let Some(b) = &self.bundle {
            parts.push(format!("bundle {b}"));
        }
        if let Some(c) = &self.catalog {
            parts.push(format!("catalog {c}"));
        }
        if let Some(r) = &self.version_range {
            parts.push(format!("versions {}", r.raw()));
        }
        parts.join(", ")
    }

    fn is_empty(&self) -> bool {
        *self == Selector::default()
    }
}

/// An extra catalog a `catalog` node produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraCatalog {
    /// Name.
    pub name: String,
    /// File or directory.
    pub path: String,
    /// Priority.
    #[serde(default)]
    pub priority: i32,
}

/// What a static variable does to the bundles it selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StaticAction {
    /// The bundle must be selected.
    Require,
    /// The bundle is never a candidate.
    Prohibit,
    /// The bundle comes first in every candidate list it is in.
    Prefer,
}

/// One static variable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StaticVariable {
    /// The bundles it is about.
    #[serde(flatten)]
    pub select: Selector,
    /// What it does.
    pub action: StaticAction,
}

/// A property to add.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropertySpec {
    /// Property type, e.g. `olm.deprecated` or `olm.gvk.required`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its value.
    #[serde(default)]
    pub value: serde_json::Value,
}

/// A mutation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Mutation {
    /// Sets a catalog's priority (on `catalog` data).
    SetPriority {
        /// Catalog name.
        catalog: String,
        /// New priority.
        priority: i32,
    },
    /// Adds a property to the selected bundles (on `catalog-set` data).
    AddProperty {
        /// Bundles.
        select: Selector,
        /// The property.
        property: PropertySpec,
    },
}

/// A node's parsed settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Params {
    /// No settings.
    None,
    /// `catalog` node.
    Catalog(ExtraCatalog),
    /// `static-variables` node.
    StaticVariables(Vec<StaticVariable>),
    /// `filter` node.
    Filter(Selector),
    /// `mutate` node: one or more mutations, applied in order.
    Mutate(Vec<Mutation>),
    /// A caller's node type: its settings as written, for its function to read.
    Custom(BTreeMap<String, serde_json::Value>),
    /// `datalog` node.
    Datalog {
        /// `onDemandFrom`: derive dependency lists on the search's demand when the request
        /// reaches at least this many bundles (0: always); `None`, the default (500).
        on_demand_from: Option<usize>,
    },
}

fn take<T: for<'de> Deserialize<'de>>(
    params: &BTreeMap<String, serde_json::Value>,
    key: &str,
) -> Result<T, String> {
    let v = params
        .get(key)
        .ok_or_else(|| format!("missing setting `{key}`"))?;
    serde_json::from_value(v.clone()).map_err(|e| format!("{key}: {e}"))
}

fn only(params: &BTreeMap<String, serde_json::Value>, allowed: &[&str]) -> Result<(), String> {
    match params.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) if allowed.is_empty() => {
            Err(format!("unknown setting `{k}`: this type takes none"))
        }
        Some(k) => Err(format!(
            "unknown setting `{k}` (this type takes: {})",
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// A number of bundles: a whole number, 0 or more.
fn bundles(v: &serde_json::Value) -> Result<usize, String> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| {
            format!("onDemandFrom: give a whole number of bundles, 0 or more (0: always derive on demand), not {v}")
        })
}

impl Params {
    /// Parses the settings of a node of type `t`.
    pub fn parse(
        t: NodeType,
        params: &BTreeMap<String, serde_json::Value>,
    ) -> Result<Params, String> {
        match t {
            NodeType::Custom => Ok(Params::Custom(params.clone())),
            NodeType::Catalog => {
                only(params, &["catalog"])?;
                Ok(Params::Catalog(take(params, "catalog")?))
            }
            NodeType::StaticVariables => {
                only(params, &["variables"])?;
                let vars: Vec<StaticVariable> = take(params, "variables")?;
                if let Some(i) = vars.iter().position(|v| v.select.is_empty()) {
                    return Err(format!(
                        "variables[{i}]: select at least a bundle or package"
                    ));
                }
                Ok(Params::StaticVariables(vars))
            }
            NodeType::Filter => {
                only(params, &["select"])?;
                let s: Selector = take(params, "select")?;
                if s.is_empty() {
                    return Err("select: give at least one of package, channel, bundle, catalog, versionRange".into());
                }
                Ok(Params::Filter(s))
            }
            NodeType::Mutate => {
                only(params, &["mutations"])?;
                let m: Vec<Mutation> = take(params, "mutations")?;
                if m.is_empty() {
                    return Err("mutations: give at least one".into());
                }
                Ok(Params::Mutate(m))
            }
            NodeType::Datalog => {
                only(params, &["onDemandFrom"])?;
                let on_demand_from = params.get("onDemandFrom").map(bundles).transpose()?;
                Ok(Params::Datalog { on_demand_from })
            }
            _ => {
                only(params, &[])?;
                Ok(Params::None)
            }
        }
    }
}
