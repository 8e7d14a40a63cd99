//! Cluster scenarios: a folder with `cluster.yaml` (the state paths, the catalog bindings,
//! what-if files, a policy, all relative to the folder) and `expected.txt`, run as `deppy
//! cluster resolve` would run them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Answer;
use crate::cluster::{
    Binding, ClusterOptions, ClusterState, Meter, ReadOptions, StateError, Status, read_paths_with,
};
use crate::request::Request;

/// The name of a cluster scenario's file.
pub(crate) const CLUSTER_FILE: &str = "cluster.yaml";

/// `cluster.yaml`: what `deppy cluster resolve` is given.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ClusterScenario {
    /// State files or directories (default: `state`).
    #[serde(default)]
    pub state: Vec<PathBuf>,
    /// `NAMESPACE/NAME: PATH` bindings.
    #[serde(default)]
    pub catalogs: BTreeMap<String, PathBuf>,
    /// What-if files (`--apply`).
    #[serde(default)]
    pub apply: Vec<PathBuf>,
    /// `--global-namespace`.
    #[serde(default)]
    pub global_namespace: Option<String>,
    /// `--policy`.
    #[serde(default)]
    pub policy: Option<PathBuf>,
    /// `-n/--namespace`.
    #[serde(default)]
    pub namespace: Option<String>,
}

/// Runs the cluster scenario in `dir` (absolute); `strip` is removed from messages.
pub fn run(dir: &Path, strip: &str) -> Answer {
    let rel = |s: String| s.replace(strip, "");
    match answer(dir) {
        Ok((status, json, text)) => Answer {
            exit: match status {
                Status::Resolved => 0,
                Status::GaveUp => 3,
                Status::Unsatisfiable | Status::Blocked => 1,
            },
            json: rel(json),
            text: rel(text),
            full: None,
            warnings: 0,
        },
        Err(e) => Answer::bad_input(rel(e)),
    }
}

/// What `deppy cluster resolve` is given by the scenario in `dir`: the state (what-if files
/// applied), the catalog bindings and the options.
pub fn inputs(dir: &Path) -> Result<(ClusterState, Vec<Binding>, ClusterOptions), String> {
    let text = std::fs::read_to_string(dir.join(CLUSTER_FILE)).map_err(|e| e.to_string())?;
    let s: ClusterScenario = serde_saphyr::from_str(&text)
        .map_err(|e| format!("{CLUSTER_FILE}: {}", e.without_snippet()))?;
    let at = |p: &PathBuf| dir.join(p);
    let paths: Vec<PathBuf> = match s.state.is_empty() {
        true => vec![dir.join("state")],
        false => s.state.iter().map(at).collect(),
    };
    let err = |e: StateError| e.to_string();
    let read = ReadOptions {
        namespace: s.namespace.clone(),
    };
    let meter = Meter::unlimited();
    let read_all = |p: &[PathBuf]| read_paths_with(p, &read, &meter).map_err(err);
    let mut state = ClusterState::from_dump(read_all(&paths)?).map_err(err)?;
    for f in &s.apply {
        state.apply(ClusterState::from_dump(read_all(&[at(f)])?).map_err(err)?);
    }
    let bindings = s
        .catalogs
        .iter()
        .map(|(name, path)| Binding::parse(&format!("{name}={}", at(path).display())))
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let policy = match &s.policy {
        Some(p) => Some(Request::from_file(&at(p)).map_err(|e| e.to_string())?),
        None => None,
    };
    let opts = ClusterOptions {
        global_namespace: s.global_namespace.clone(),
        policy,
        ..ClusterOptions::default()
    };
    Ok((state, bindings, opts))
}

/// The answer's status, as the exit code reads it: an InstallPlan OLM will refuse makes
/// a resolved answer a no, as `deppy cluster resolve` exits.
fn answer(dir: &Path) -> Result<(Status, String, String), String> {
    let (state, bindings, opts) = inputs(dir)?;
    let answer =
        crate::cluster::resolve_cluster(&state, &bindings, &opts).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&answer).map_err(|e| e.to_string())?;
    let status = match answer.status {
        Status::Resolved if answer.install_would_fail() => Status::Unsatisfiable,
        s => s,
    };
    Ok((status, json, crate::explain::cluster::render(&answer)))
}
