//! The data events carry, and its JSON form in traces. Source data (what producers emit)
//! is recorded in full so a replay needs no files; derived data is recorded as a summary
//! (counts, names) for reading.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::kind::DataKind;
use super::params::StaticVariable;
use crate::catalog::{CatalogSet, SourceFile};
use crate::request::{InstalledBundle, Requirement};
use crate::resolve::{Adjustments, Model, Outcome, reason::Reason};
use crate::solver::Entry;

/// One catalog's files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CatalogData {
    /// Catalog name.
    pub name: String,
    /// Where it was read from.
    pub path: String,
    /// Priority.
    pub priority: i32,
    /// Its files, in load order (none when `unread`).
    pub files: Vec<SourceFile>,
    /// True when the catalog was only found, not read: the `load-catalogs` node reads its
    /// files from `path` itself, one at a time, through the catalog cache when there is one
    /// (a run that records no trace and has no custom node emits catalogs so).
    #[serde(skip)]
    pub unread: bool,
}

/// The request's installed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstalledData {
    /// Installed bundles.
    pub installed: Vec<InstalledBundle>,
    /// `keepInstalled`.
    pub keep_installed: bool,
}

/// Variables from the derivation, with warnings gathered so far.
pub struct VariablesData {
    /// The model.
    pub model: Model,
    /// Loader and channel warnings.
    pub warnings: Vec<String>,
}

/// The solver's result.
pub struct OutcomeData {
    /// The variables it solved.
    pub variables: Arc<VariablesData>,
    /// The outcome.
    pub outcome: Outcome,
}

/// The payload of a data event.
#[derive(Clone)]
pub enum Data {
    /// See [`DataKind::Catalog`].
    Catalog(Arc<CatalogData>),
    /// See [`DataKind::CatalogSet`].
    CatalogSet(Arc<CatalogSet>),
    /// See [`DataKind::Requirements`].
    Requirements(Arc<Vec<Requirement>>),
    /// See [`DataKind::Installed`].
    Installed(Arc<InstalledData>),
    /// See [`DataKind::Cluster`]: the request's `cluster` value (null when none).
    Cluster(Arc<Value>),
    /// See [`DataKind::Constraints`]: the request's `constraints` list.
    Constraints(Arc<Vec<Value>>),
    /// See [`DataKind::StaticVariables`].
    StaticVariables(Arc<Vec<StaticVariable>>),
    /// See [`DataKind::Adjustments`].
    Adjustments(Arc<Adjustments>),
    /// See [`DataKind::Variables`].
    Variables(Arc<VariablesData>),
    /// See [`DataKind::GlobalConstraints`].
    GlobalConstraints(Arc<Vec<Entry<Reason>>>),
    /// See [`DataKind::Outcome`].
    Outcome(Arc<OutcomeData>),
}

impl Data {
    /// The one catalog set among `inputs` (`None` when none or several arrived): what a node
    /// taking the loaded catalogs reads, e.g. a [`super::CustomNodeType`]'s function.
    pub fn catalog_set_in(inputs: &[Data]) -> Option<&Arc<CatalogSet>> {
        let mut sets = inputs.iter().filter_map(|d| match d {
            Data::CatalogSet(s) => Some(s),
            _ => None,
        });
        match (sets.next(), sets.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// Its kind.
    pub fn kind(&self) -> DataKind {
        match self {
            Data::Catalog(_) => DataKind::Catalog,
            Data::CatalogSet(_) => DataKind::CatalogSet,
            Data::Requirements(_) => DataKind::Requirements,
            Data::Installed(_) => DataKind::Installed,
            Data::Cluster(_) => DataKind::Cluster,
            Data::Constraints(_) => DataKind::Constraints,
            Data::StaticVariables(_) => DataKind::StaticVariables,
            Data::Adjustments(_) => DataKind::Adjustments,
            Data::Variables(_) => DataKind::Variables,
            Data::GlobalConstraints(_) => DataKind::GlobalConstraints,
            Data::Outcome(_) => DataKind::Outcome,
        }
    }

    /// The JSON recorded in traces: `{"type": KIND, ...}`.
    pub(crate) fn to_json(&self) -> Value {
        let body = match self {
            Data::Catalog(c) => serde_json::to_value(&**c).unwrap_or(Value::Null),
            Data::Requirements(r) => json!({ "require": &**r }),
            Data::Installed(i) => serde_json::to_value(&**i).unwrap_or(Value::Null),
            Data::Cluster(c) => json!({ "cluster": &**c }),
            Data::Constraints(c) => json!({ "constraints": &**c }),
            Data::StaticVariables(v) => json!({ "variables": &**v }),
            Data::CatalogSet(s) => catalog_set_summary(s),
            Data::Adjustments(a) => json!({
                "rules": a.rules.iter().map(|r| json!({
                    "origin": r.origin.to_string(),
                    "description": r.effect.to_string(),
                })).collect::<Vec<_>>(),
                "warnings": a.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "removed": a.removed.len(),
                "required": a.required.len(),
                "preferred": a.preferred.len(),
            }),
            Data::Variables(v) => json!({
                "variables": v.model.problem().var_count(),
                "constraints": v.model.problem().entries().len(),
            }),
            Data::GlobalConstraints(g) => json!({ "constraints": g.len() }),
            Data::Outcome(o) => match &o.outcome {
                Outcome::Resolved(a) => json!({
                    "status": "resolved",
                    "selected": a.selected.iter().map(|s| &s.bundle).collect::<Vec<_>>(),
                }),
                Outcome::Unsatisfiable(_) => json!({ "status": "unsatisfiable" }),
            },
        };
        let mut out = serde_json::Map::new();
        out.insert("type".into(), Value::from(self.kind().name()));
        if let Value::Object(m) = body {
            out.extend(m);
        }
        Value::Object(out)
    }

    /// Source data back from its trace JSON (derived kinds are not replayable).
    pub(crate) fn from_json(v: &Value) -> Result<Data, String> {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |k: &str| v.get(k).cloned().unwrap_or(Value::Null);
        let err = |e: serde_json::Error| format!("{kind}: {e}");
        Ok(match kind {
            "catalog" => Data::Catalog(Arc::new(serde_json::from_value(v.clone()).map_err(err)?)),
            "requirements" => Data::Requirements(Arc::new(
                serde_json::from_value(field("require")).map_err(err)?,
            )),
            "installed" => {
                Data::Installed(Arc::new(serde_json::from_value(v.clone()).map_err(err)?))
            }
            "cluster" => Data::Cluster(Arc::new(field("cluster"))),
            "constraints" => Data::Constraints(Arc::new(
                serde_json::from_value(field("constraints")).map_err(err)?,
            )),
            "static-variables" => Data::StaticVariables(Arc::new(
                serde_json::from_value(field("variables")).map_err(err)?,
            )),
            other => return Err(format!("data of type {other:?} is not source data")),
        })
    }
}

fn catalog_set_summary(s: &CatalogSet) -> Value {
    json!({
        "catalogs": s.catalogs,
        "packages": s.package_count(),
        "bundles": s.bundles.len(),
        "warnings": s.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}
