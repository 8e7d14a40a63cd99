//! The budgets of a command: `--timeout` (default 60 s, `DEPPY_TIMEOUT`) covers the whole
//! command from its start (loading, rule evaluation, search, wording the answer);
//! `--max-memory` (default 1024 MiB, `DEPPY_MAX_MEMORY`) bounds what the solver keeps (its
//! learned clauses and their proofs, and the proof it words); `--max-conflicts` bounds the
//! search. A command past one ends with "gave up after N conflicts (…)", what it had proven
//! by then, and exit code 3.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use clap::Args;

use deppy::advanced::solver::SolveOptions;

/// When this run began: the time budget counts from here.
static START: OnceLock<Instant> = OnceLock::new();

/// Marks the start of the run (called first thing in `main`).
pub fn start() {
    let _ = START.set(Instant::now());
}

fn started() -> Instant {
    *START.get_or_init(Instant::now)
}

/// The default of `--timeout`, in seconds.
pub const DEFAULT_TIMEOUT: &str = "60";
/// The default of `--max-memory`, in MiB.
pub const DEFAULT_MAX_MEMORY: &str = "1024";

/// `--timeout`, `--max-conflicts`, `--max-memory`.
#[derive(Debug, Args)]
pub struct Budget {
    /// Give up after this many seconds (decimals allowed), counted from the command's start.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds,
          env = "DEPPY_TIMEOUT", default_value = DEFAULT_TIMEOUT)]
    pub timeout: Duration,
    /// Give up after this many conflicts of the search (1 or more); no limit by default.
    #[arg(long = "max-conflicts", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_conflicts: Option<u64>,
    /// Give up when the solver's learned clauses and proofs take more than this many MiB.
    #[arg(long = "max-memory", value_name = "MIB", env = "DEPPY_MAX_MEMORY",
          default_value = DEFAULT_MAX_MEMORY, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: u64,
}

impl Budget {
    /// The solver options of these budgets, the time counted from the command's start.
    pub fn options(&self) -> SolveOptions {
        self.options_from(started())
    }

    /// The solver options of these budgets, the time counted from `start` (`deppy watch`
    /// gives each resolution its own).
    pub fn options_from(&self, start: Instant) -> SolveOptions {
        SolveOptions {
            max_conflicts: self.max_conflicts,
            timeout: None,
            deadline: start.checked_add(self.timeout),
            max_memory: Some(self.max_memory.saturating_mul(1 << 20)),
        }
    }
}

/// The deadline of a command without budget options: `DEPPY_TIMEOUT` seconds (60 by
/// default) from the command's start.
pub fn default_deadline() -> Option<Instant> {
    let secs = std::env::var("DEPPY_TIMEOUT")
        .ok()
        .and_then(|v| parse_seconds(&v).ok())
        .unwrap_or(Duration::from_secs(60));
    started().checked_add(secs)
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("{s:?} is not a duration (negative or too large)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        budget: Budget,
    }

    #[test]
    fn budgets_apply_by_default() {
        let cmd = Cmd::try_parse_from(["x"]).expect("parses");
        let options = cmd.budget.options();
        let left = options.deadline.expect("a deadline") - Instant::now();
        assert!(left <= Duration::from_secs(60) && left > Duration::from_secs(50));
        assert_eq!(options.max_memory, Some(1024 << 20));
        assert_eq!(options.max_conflicts, None);
        assert!(Cmd::try_parse_from(["x", "--max-conflicts", "0"]).is_err());
        assert!(Cmd::try_parse_from(["x", "--timeout", "-1"]).is_err());
    }
}
