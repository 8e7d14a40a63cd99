//! The budgets of a cluster resolution outside the solver's search: the time budget, which
//! every stage checks (reading the state, planning the namespaces, the CRD checks, OLM v1's
//! choice), and the memory budget, which bounds what the state reader keeps. A stage past
//! one ends the run with [`StateError::Budget`] (exit 3 in the CLI); the solver's own budget
//! ends a namespace with `gaveUp` instead (docs/cluster.md, "Budgets").

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::error::StateError;

/// A stage of `deppy cluster resolve`, for the message of a budget that ran out in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading the state files.
    Reading,
    /// Planning each namespace (catalogs, Subscriptions, CSVs).
    Planning,
    /// Checking the CRDs of the bundles installed or upgraded.
    CrdChecks,
    /// Choosing the bundle of each ClusterExtension.
    Extensions,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Reading => "reading the state",
            Stage::Planning => "planning the namespaces",
            Stage::CrdChecks => "checking CRDs",
            Stage::Extensions => "choosing the ClusterExtensions' bundles",
        })
    }
}

/// Which budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// The time budget (`--timeout`).
    Time,
    /// The memory budget (`--max-memory`), in bytes.
    Memory(u64),
}

/// The message a parser is stopped with when the time budget runs out mid-document.
pub(crate) const OUT_OF_TIME: &str = "the time budget ran out";

/// `1048576` as `1 MiB`.
pub(crate) fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

/// The time budget and the memory the state reader has taken against its budget.
#[derive(Debug, Default)]
pub struct Meter {
    deadline: Option<Instant>,
    max_memory: Option<u64>,
    used: AtomicU64,
}

impl Meter {
    /// A meter that stops at `deadline` and at `max_memory` bytes (None: no limit).
    pub fn new(deadline: Option<Instant>, max_memory: Option<u64>) -> Meter {
        Meter {
            deadline,
            max_memory,
            used: AtomicU64::new(0),
        }
    }

    /// No budget at all.
    pub fn unlimited() -> Meter {
        Meter::default()
    }

    /// When the time budget ends, if it does.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True once the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// An error when the deadline has passed during `stage`.
    pub fn check_time(&self, stage: Stage) -> Result<(), StateError> {
        if self.out_of_time() {
            return Err(StateError::Budget {
                stage,
                exhausted: Exhausted::Time,
                detail: String::new(),
            });
        }
        Ok(())
    }

    /// Counts `bytes` more held during `stage`: an error past the memory budget.
    pub fn take(&self, stage: Stage, bytes: u64) -> Result<(), StateError> {
        let used = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        match self.max_memory {
            Some(max) if used > max => Err(StateError::Budget {
                stage,
                exhausted: Exhausted::Memory(max),
                detail: format!("the objects read take about {}", mib(used)),
            }),
            _ => Ok(()),
        }
    }

    /// The bytes counted so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_stop_their_stage() {
        let m = Meter::new(Some(Instant::now()), Some(100));
        let e = m.check_time(Stage::CrdChecks).unwrap_err().to_string();
        assert_eq!(e, "the time budget ran out while checking CRDs");
        assert!(m.take(Stage::Reading, 60).is_ok());
        let e = m.take(Stage::Reading, 60).unwrap_err().to_string();
        assert!(
            e.starts_with("the memory budget (0 MiB) ran out while reading the state"),
            "{e}"
        );
        assert!(Meter::unlimited().check_time(Stage::Reading).is_ok());
    }
}
