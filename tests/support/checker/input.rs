//! The request (docs/semantics.md §5–§7: requirements, installed bundles, `keepInstalled`,
//! admin constraints, the cluster node) and a pipeline configuration's filters, static
//! variables and mutations, read from plain JSON values.

use serde_json::Value;

use super::predicate::{self, Gvk, Pred};
use super::range::Range;

/// A scalar field as text (YAML reads `1.1` or `16` as numbers; a catalog means the name).
fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn list<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn range(v: &Value, key: &str) -> Result<Option<Range>, String> {
    match text(v, key) {
        None => Ok(None),
        Some(t) => Range::parse(&t)
            .map(Some)
            .ok_or_else(|| format!("bad range {t:?}")),
    }
}

pub struct Requirement {
    pub package: String,
    pub channel: Option<String>,
    pub range: Option<Range>,
    pub bundle: Option<String>,
    pub catalog: Option<String>,
}

pub struct Installed {
    pub bundle: String,
    pub package: Option<String>,
    pub version: Option<String>,
    pub catalog: Option<String>,
    pub properties: Vec<(String, Value)>,
    /// Stays exactly as it is.
    pub keep: bool,
}

/// What an admin or cluster rule does to candidates.
pub enum Rule {
    Require(Pred),
    Conflict(Pred),
    ProhibitPackage(String),
    ProhibitBundle(String),
    ProhibitChannel(String, String),
    ProhibitCatalog(String),
}

pub struct Cluster {
    pub properties: Vec<(String, Value)>,
    pub gvks: Vec<Gvk>,
    pub rules: Vec<Rule>,
}

pub struct Request {
    /// Catalogs of the namespace being resolved, preferred at equal priority.
    pub local_catalogs: Vec<String>,
    pub require: Vec<Requirement>,
    pub installed: Vec<Installed>,
    pub keep_installed: bool,
    pub admin: Vec<Rule>,
    pub cluster: Option<Cluster>,
}

fn typed_list(items: &[Value]) -> Vec<(String, Value)> {
    items
        .iter()
        .filter_map(|p| {
            Some((
                text(p, "type")?,
                p.get("value").cloned().unwrap_or(Value::Null),
            ))
        })
        .collect()
}

fn action_of(v: &Value) -> Option<String> {
    match v.get("action")? {
        Value::String(s) => Some(s.clone()),
        other => text(other, "id"),
    }
}

/// `{action, <predicate>}` or `{prohibit: {...}}`.
fn rule(v: &Value) -> Result<Rule, String> {
    if let Some(p) = v.get("prohibit") {
        return Ok(if let Some(x) = text(p, "package") {
            Rule::ProhibitPackage(x)
        } else if let Some(x) = text(p, "bundle") {
            Rule::ProhibitBundle(x)
        } else if let Some(x) = text(p, "catalog") {
            Rule::ProhibitCatalog(x)
        } else if let Some(c) = p.get("channel") {
            Rule::ProhibitChannel(
                text(c, "package").ok_or("prohibit channel without package")?,
                text(c, "name").ok_or("prohibit channel without name")?,
            )
        } else {
            return Err(format!("unknown prohibit form {p}"));
        });
    }
    let pred = predicate::constraint(v)?;
    match action_of(v).as_deref() {
        Some("require") => Ok(Rule::Require(pred)),
        Some("conflict") => Ok(Rule::Conflict(pred)),
        other => Err(format!("bad action {other:?}")),
    }
}

/// A ConfigMap's runtime constraint: `{evaluator: {id: cel}, source|rule, action: {id}}` or
/// the admin form.
fn runtime_rule(v: &Value) -> Result<Rule, String> {
    if v.get("evaluator").is_none() {
        return rule(v);
    }
    let source = text(v, "rule")
        .or_else(|| text(v, "source"))
        .ok_or("a runtime constraint without source")?;
    let pred = predicate::constraint(&serde_json::json!({"cel": {"rule": source}}))?;
    match action_of(v).as_deref() {
        Some("require") => Ok(Rule::Require(pred)),
        Some("conflict") => Ok(Rule::Conflict(pred)),
        other => Err(format!("bad action {other:?}")),
    }
}

fn cluster(v: &Value) -> Result<Cluster, String> {
    let mut properties = Vec::new();
    let mut rules = Vec::new();
    if v.get("kind").and_then(Value::as_str) == Some("ConfigMap") {
        let raw = v.get("data").and_then(|d| d.get("properties"));
        let decoded: Value = match raw {
            Some(Value::String(s)) => serde_json::from_str(s).map_err(|e| e.to_string())?,
            Some(other) => other.clone(),
            None => Value::Array(Vec::new()),
        };
        for (t, value) in typed_list(decoded.as_array().map(Vec::as_slice).unwrap_or_default()) {
            if t == "olm.constraint" {
                rules.push(runtime_rule(&value)?);
            } else {
                properties.push((t, value));
            }
        }
    } else {
        properties = typed_list(list(v, "properties"));
        for c in list(v, "constraints") {
            rules.push(rule(c)?);
        }
    }
    let gvks = properties
        .iter()
        .filter(|(t, _)| t == "olm.gvk")
        .map(|(_, v)| predicate::gvk_of(v))
        .collect::<Result<_, _>>()?;
    Ok(Cluster {
        properties,
        gvks,
        rules,
    })
}

impl Request {
    /// The request as its file format writes it (JSON value).
    pub fn read(v: &Value) -> Result<Request, String> {
        let require = list(v, "require")
            .iter()
            .map(|r| {
                Ok(Requirement {
                    package: text(r, "package").ok_or("a requirement without package")?,
                    channel: text(r, "channel"),
                    range: range(r, "versionRange")?,
                    bundle: text(r, "bundle"),
                    catalog: text(r, "catalog"),
                })
            })
            .collect::<Result<_, String>>()?;
        let installed = list(v, "installed")
            .iter()
            .map(|i| {
                Ok(Installed {
                    bundle: text(i, "bundle").ok_or("an installed entry without bundle")?,
                    package: text(i, "package"),
                    version: i.get("version").and_then(|x| match x {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    }),
                    catalog: text(i, "catalog"),
                    properties: typed_list(list(i, "properties")),
                    keep: i.get("keep").and_then(Value::as_bool).unwrap_or(false),
                })
            })
            .collect::<Result<_, String>>()?;
        let admin = list(v, "constraints")
            .iter()
            .map(rule)
            .collect::<Result<_, _>>()?;
        let cluster = match v.get("cluster") {
            None | Some(Value::Null) => None,
            Some(c) => Some(cluster(c)?),
        };
        Ok(Request {
            local_catalogs: list(v, "localCatalogs")
                .iter()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect(),
            require,
            installed,
            keep_installed: v
                .get("keepInstalled")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            admin,
            cluster,
        })
    }
}

/// Which bundles a pipeline selector means: every field given must match.
pub struct Selector {
    pub package: Option<String>,
    pub channel: Option<String>,
    pub bundle: Option<String>,
    pub catalog: Option<String>,
    pub range: Option<Range>,
}

impl Selector {
    fn read(v: &Value) -> Result<Selector, String> {
        Ok(Selector {
            package: text(v, "package"),
            channel: text(v, "channel"),
            bundle: text(v, "bundle"),
            catalog: text(v, "catalog"),
            range: range(v, "versionRange")?,
        })
    }
}

/// What the nodes that feed a pipeline's `datalog` node do to the candidates.
#[derive(Default)]
pub struct Pipeline {
    /// Filters and static `prohibit` variables.
    pub removed: Vec<Selector>,
    /// Static `require` variables (each must select exactly one bundle).
    pub required: Vec<Selector>,
    /// Static `prefer` variables.
    pub preferred: Vec<Selector>,
    /// `addProperty` mutations.
    pub added: Vec<(Selector, String, Value)>,
    /// `setPriority` mutations.
    pub priorities: Vec<(String, i32)>,
}

impl Pipeline {
    /// The effects of a pipeline configuration `{nodes: [...]}`.
    pub fn read(config: &Value) -> Result<Pipeline, String> {
        let nodes = list(config, "nodes");
        let name = |n: &Value| text(n, "name").unwrap_or_default();
        // Nodes the datalog node depends on.
        let mut todo: Vec<String> = nodes
            .iter()
            .filter(|n| text(n, "type").as_deref() == Some("datalog"))
            .map(name)
            .collect();
        let mut feeding: Vec<String> = Vec::new();
        while let Some(n) = todo.pop() {
            if feeding.contains(&n) {
                continue;
            }
            if let Some(node) = nodes.iter().find(|x| name(x) == n) {
                todo.extend(
                    list(node, "inputs")
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_string)),
                );
            }
            feeding.push(n);
        }
        let mut p = Pipeline::default();
        for node in nodes.iter().filter(|n| feeding.contains(&name(n))) {
            match text(node, "type").as_deref() {
                Some("filter") => p
                    .removed
                    .push(Selector::read(node.get("select").unwrap_or(&Value::Null))?),
                Some("static-variables") => {
                    for v in list(node, "variables") {
                        let s = Selector::read(v)?;
                        match text(v, "action").as_deref() {
                            Some("prohibit") => p.removed.push(s),
                            Some("require") => p.required.push(s),
                            Some("prefer") => p.preferred.push(s),
                            other => return Err(format!("bad static action {other:?}")),
                        }
                    }
                }
                Some("mutate") => {
                    for m in list(node, "mutations") {
                        if let Some(sp) = m.get("setPriority") {
                            let prio = sp
                                .get("priority")
                                .and_then(Value::as_i64)
                                .ok_or("bad priority")?;
                            p.priorities.push((
                                text(sp, "catalog").ok_or("setPriority without catalog")?,
                                prio as i32,
                            ));
                        } else if let Some(ap) = m.get("addProperty") {
                            let prop = ap.get("property").unwrap_or(&Value::Null);
                            p.added.push((
                                Selector::read(ap.get("select").unwrap_or(&Value::Null))?,
                                text(prop, "type").ok_or("addProperty without type")?,
                                prop.get("value").cloned().unwrap_or(Value::Null),
                            ));
                        } else {
                            return Err(format!("unknown mutation {m}"));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(p)
    }
}
