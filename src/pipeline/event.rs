//! Events between nodes: a header that lets an execution be reconstructed, and a body
//! (data or an error). Node states.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Value, json};

use super::data::Data;

/// Who sent what to whom, when, in which pipeline and execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Header {
    /// Unique event id (`<execution id>-<sequence>`).
    pub id: String,
    /// Creation time, RFC 3339 UTC.
    pub time: String,
    /// The node that created the data.
    pub creator: String,
    /// The node that sent the event.
    pub sender: String,
    /// The node it is for (`*` for an error broadcast to every node).
    pub receiver: String,
    /// Pipeline id (hash of the configuration).
    pub pipeline: String,
    /// Execution id.
    pub execution: String,
    /// Free metadata.
    pub metadata: BTreeMap<String, String>,
}

/// What an event carries.
#[derive(Clone)]
pub enum Body {
    /// Data for the receiver; `output` numbers the sender's outputs.
    Data {
        /// The sender's output number (0-based).
        output: usize,
        /// The payload.
        data: Data,
    },
    /// A node failed; every node aborts.
    Error(String),
}

/// One event.
#[derive(Clone)]
pub struct Event {
    /// Header.
    pub header: Header,
    /// Body.
    pub body: Body,
}

impl Event {
    /// `data` or `error`.
    pub fn kind(&self) -> &'static str {
        match self.body {
            Body::Data { .. } => "data",
            Body::Error(_) => "error",
        }
    }

    /// One trace line.
    pub(crate) fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.header).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("kind".into(), Value::from(self.kind()));
            match &self.body {
                Body::Data { output, data } => {
                    m.insert("output".into(), json!(output));
                    m.insert("data".into(), data.to_json());
                }
                Body::Error(e) => {
                    m.insert("error".into(), Value::from(e.as_str()));
                }
            }
        }
        v
    }
}

/// A node's state in an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeState {
    /// Not started.
    Inactive,
    /// Running.
    Active,
    /// Done without error.
    Successful,
    /// Done with an error.
    Failed,
    /// Stopped because another node failed.
    Aborted,
}

impl NodeState {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            NodeState::Inactive => "inactive",
            NodeState::Active => "active",
            NodeState::Successful => "successful",
            NodeState::Failed => "failed",
            NodeState::Aborted => "aborted",
        }
    }
}

/// A fresh execution id: `e-` and 16 hex digits from the clock, the process id and a
/// counter (unique per process and, in practice, across processes).
pub(crate) fn new_execution_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let seed = format!("{nanos}/{}/{n}", std::process::id());
    format!("e-{:016x}", super::config::fnv1a(seed.as_bytes()))
}

/// Now, as RFC 3339 UTC with microseconds.
pub(crate) fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, dd) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}

/// Days since 1970-01-01 to (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_779), (2026, 11, 22));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn execution_ids_differ() {
        assert_ne!(new_execution_id(), new_execution_id());
    }
}
