//! Traces: every event of an execution as JSON lines (a header line first, a result line
//! last), and reading one back for `deppy replay`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::data::Data;
use super::kind::{NodeType, Role};
use super::{Pipeline, PipelineConfig, Run};
use crate::atomic::{Output, WriteOptions};

/// Trace format version.
pub(crate) const FORMAT: u32 = 1;

/// A trace could not be written, read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// File system error.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Not a deppy trace, or a damaged one.
    #[error("{}: line {line}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The traced run failed in a producer node, which so recorded nothing to replay.
    #[error(
        "the traced run failed in pipeline node {node:?} before it recorded its data, so there is nothing to replay; it failed with: {error}"
    )]
    FailedProducer {
        /// The node.
        node: String,
        /// Its error, as recorded.
        error: String,
    },
    /// The trace is from another pipeline configuration.
    #[error(
        "trace was recorded by pipeline {recorded}, this pipeline is {current}; replay it with the configuration it was recorded with (it is stored in the trace: drop --pipeline)"
    )]
    OtherPipeline {
        /// Id in the trace.
        recorded: String,
        /// Id of the pipeline asked for.
        current: String,
    },
    /// The trace is from another deppy version.
    #[error(
        "trace was recorded by deppy {recorded}, this is deppy {current}; answers may differ, so it is not replayed"
    )]
    OtherVersion {
        /// Version in the trace.
        recorded: String,
        /// This version.
        current: String,
    },
}

/// Writes a pipeline's events to a file: to a temporary file next to it while running
/// ([`crate::atomic::Output`]), synced and renamed to `FILE` when [`TraceWriter::finish`] is
/// called, so an interrupted run leaves no truncated trace (and a run that never finishes
/// removes its temporary file). A device, a FIFO or `-` is written straight into.
pub struct TraceWriter {
    path: PathBuf,
    out: Arc<Mutex<Option<std::io::BufWriter<Output>>>>,
    error: Arc<Mutex<Option<std::io::Error>>>,
}

impl TraceWriter {
    /// Creates the file, writes the header line and subscribes to `pipeline`'s events.
    pub fn attach(pipeline: &mut Pipeline, path: &Path) -> Result<TraceWriter, TraceError> {
        Self::attach_with(pipeline, path, WriteOptions::default())
    }

    /// As [`TraceWriter::attach`]; `options` says whether a read-only file may be replaced.
    /// A device, a FIFO or `-` is written straight into (see [`crate::advanced::atomic`]).
    pub fn attach_with(
        pipeline: &mut Pipeline,
        path: &Path,
        options: WriteOptions,
    ) -> Result<TraceWriter, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = Output::open(path, options).map_err(|e| io(e.error))?;
        let mut w = std::io::BufWriter::new(file);
        let header = json!({
            "trace": {
                "format": FORMAT,
                "deppy": env!("CARGO_PKG_VERSION"),
                "pipeline": pipeline.id(),
                "config": pipeline.config().normalised(),
            }
        });
        writeln!(w, "{header}").map_err(io)?;
        let out = Arc::new(Mutex::new(Some(w)));
        let error = Arc::new(Mutex::new(None));
        let (o, e) = (out.clone(), error.clone());
        pipeline.subscribe(move |event| {
            if let (Ok(mut o), Ok(mut e)) = (o.lock(), e.lock())
                && let Some(w) = o.as_mut()
                && e.is_none()
                && let Err(err) = writeln!(w, "{}", event.to_json())
            {
                *e = Some(err);
            }
        });
        Ok(TraceWriter {
            path: path.to_path_buf(),
            out,
            error,
        })
    }

    /// Writes the result line (status and node states) and moves the file into place.
    pub fn finish(self, run: &Run) -> Result<(), TraceError> {
        let io = |source| TraceError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(e) = self.error.lock().ok().and_then(|mut e| e.take()) {
            return Err(io(e));
        }
        let Some(mut w) = self.out.lock().ok().and_then(|mut o| o.take()) else {
            return Err(io(std::io::Error::other("trace already finished")));
        };
        let states: serde_json::Map<String, Value> = run
            .states
            .iter()
            .map(|(n, s)| (n.clone(), Value::from(s.name())))
            .collect();
        let (status, failed) = match &run.result {
            Ok(r) => (
                match r.outcome {
                    crate::resolve::Outcome::Resolved(_) => "resolved",
                    crate::resolve::Outcome::Unsatisfiable(_) => "unsatisfiable",
                },
                Value::Null,
            ),
            Err(f) => (
                "failed",
                json!({"node": f.node, "error": f.error.to_string()}),
            ),
        };
        let result = json!({"result": {"execution": run.execution, "status": status, "nodes": states, "failed": failed}});
        writeln!(w, "{result}").map_err(io)?;
        let file = w.into_inner().map_err(|e| io(e.into_error()))?;
        file.commit().map_err(|e| io(e.error))
    }
}

/// A trace read back: its configuration and the source data each producer emitted.
pub struct Trace {
    /// deppy version that wrote it.
    pub deppy: String,
    /// Pipeline id.
    pub pipeline: String,
    /// The configuration it ran.
    pub config: PipelineConfig,
    /// Source data by producer node, in output order.
    pub sources: BTreeMap<String, Vec<Data>>,
}

impl Trace {
    /// Reads a trace file.
    pub fn read(path: &Path) -> Result<Trace, TraceError> {
        let text = crate::input::read_text(path).map_err(|e| match e {
            crate::input::InputError::Io { error, .. } => TraceError::Io {
                path: path.to_path_buf(),
                source: error,
            },
            other => TraceError::Malformed {
                path: path.to_path_buf(),
                line: 0,
                message: other.to_string(),
            },
        })?;
        let bad = |line: usize, message: String| TraceError::Malformed {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut lines = text.lines().enumerate();
        let (_, first) = lines.next().ok_or_else(|| bad(1, "empty file".into()))?;
        let header: Value = serde_json::from_str(first).map_err(|e| bad(1, e.to_string()))?;
        let h = header
            .get("trace")
            .ok_or_else(|| bad(1, "not a deppy trace (no `trace` header)".into()))?;
        let text_field = |k: &str| {
            h.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(1, format!("header has no `{k}`")))
        };
        let config: PipelineConfig =
            serde_json::from_value(h.get("config").cloned().unwrap_or(Value::Null))
                .map_err(|e| bad(1, format!("config: {e}")))?;
        let producers: Vec<String> = config
            .nodes
            .iter()
            .filter(|n| NodeType::parse(&n.node_type).is_some_and(|t| t.role() == Role::Producer))
            .map(|n| n.name.clone())
            .collect();
        let mut sources: BTreeMap<String, BTreeMap<u64, Data>> = BTreeMap::new();
        let mut last = 1;
        let mut finished = false;
        let mut failed = None;
        for (i, line) in lines {
            last = i + 1;
            let v: Value = serde_json::from_str(line).map_err(|e| bad(i + 1, e.to_string()))?;
            finished = v.get("result").is_some();
            if let Some(f) = v.pointer("/result/failed").filter(|f| !f.is_null()) {
                let text = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                failed = Some((text("node"), text("error")));
            }
            if v.get("kind").and_then(Value::as_str) != Some("data") {
                continue;
            }
            let sender = v.get("sender").and_then(Value::as_str).unwrap_or("");
            if !producers.iter().any(|p| p == sender) {
                continue;
            }
            let output = v.get("output").and_then(Value::as_u64).unwrap_or(0);
            let entry = sources.entry(sender.to_string()).or_default();
            if let std::collections::btree_map::Entry::Vacant(slot) = entry.entry(output) {
                let data = v
                    .get("data")
                    .ok_or_else(|| bad(i + 1, "data event without data".into()))?;
                slot.insert(Data::from_json(data).map_err(|e| bad(i + 1, e))?);
            }
        }
        if !finished {
            // A trace is renamed into place only once its result line is written; without
            // one it was cut short (copied while written, or truncated): never trusted.
            return Err(bad(
                last,
                "no result line after it: the trace is incomplete (cut short), so it is not replayed"
                    .into(),
            ));
        }
        // A run that failed in a producer (a catalog that could not be read) recorded no
        // data there: replaying it would fail for another reason, so the recorded one is
        // the answer.
        if let Some((node, error)) = failed.filter(|(n, _)| producers.contains(n)) {
            return Err(TraceError::FailedProducer { node, error });
        }
        Ok(Trace {
            deppy: text_field("deppy")?,
            pipeline: text_field("pipeline")?,
            config,
            sources: sources
                .into_iter()
                .map(|(k, v)| (k, v.into_values().collect()))
                .collect(),
        })
    }

    /// The request as the recorded producers gave it (requirements, installed state, admin
    /// constraints, cluster).
    pub fn request(&self) -> crate::request::Request {
        let mut r = crate::request::Request::default();
        for d in self.sources.values().flatten() {
            match d {
                Data::Requirements(q) => r.require.extend(q.iter().cloned()),
                Data::Installed(i) => {
                    r.installed.extend(i.installed.iter().cloned());
                    r.keep_installed |= i.keep_installed;
                }
                Data::Constraints(c) => r.constraints.extend(c.iter().cloned()),
                Data::Cluster(c) if !c.is_null() => r.cluster = Some((**c).clone()),
                _ => {}
            }
        }
        r
    }

    /// Refuses a replay on another pipeline or deppy version.
    pub fn check(&self, pipeline: &Pipeline) -> Result<(), TraceError> {
        if self.pipeline != pipeline.id() {
            return Err(TraceError::OtherPipeline {
                recorded: self.pipeline.clone(),
                current: pipeline.id().to_string(),
            });
        }
        if self.deppy != env!("CARGO_PKG_VERSION") {
            return Err(TraceError::OtherVersion {
                recorded: self.deppy.clone(),
                current: env!("CARGO_PKG_VERSION").to_string(),
            });
        }
        Ok(())
    }
}
