//! `deppy test DIR... [--update]`: regression suites of scenario folders.

use std::path::PathBuf;

use clap::Args;

use deppy::advanced::scenario::{EXPECTED, diff, find, run_dir};

use super::output::line;
use super::{EXIT_FAILED, EXIT_OK};

/// `deppy test` arguments.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Scenario folders, or folders holding them.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Rewrite every `expected.txt` with the current answer.
    #[arg(long)]
    pub update: bool,
}

/// Runs `deppy test`: prints each difference, exits 1 on any.
pub fn run(args: TestArgs) -> anyhow::Result<u8> {
    let all = find(&args.dirs);
    if all.is_empty() {
        anyhow::bail!("no scenario folder (with request.yaml or problem.yaml) found");
    }
    let (mut failed, mut updated) = (0, 0);
    for dir in &all {
        let file = dir.join(EXPECTED);
        // Only a regular file is read: a FIFO would block the run for ever.
        let special = std::fs::metadata(&file).is_ok_and(|m| !m.is_file());
        if special {
            failed += 1;
            line(format!(
                "FAIL    {}: {EXPECTED} is not a regular file",
                dir.display()
            ))?;
            continue;
        }
        let actual = run_dir(dir).render();
        let expected = deppy::advanced::input::read_text(&file).ok();
        if expected.as_deref() == Some(actual.as_str()) {
            line(format!("ok      {}", dir.display()))?;
            continue;
        }
        if args.update {
            deppy::advanced::atomic::write_atomic(&file, actual.as_bytes())
                .map_err(super::output::OutputError::from)?;
            line(format!("updated {}", dir.display()))?;
            updated += 1;
            continue;
        }
        failed += 1;
        match expected {
            Some(e) => line(format!("FAIL    {}\n{}", dir.display(), diff(&e, &actual)))?,
            None => line(format!(
                "FAIL    {}: no {EXPECTED}; run with --update to write it",
                dir.display()
            ))?,
        }
    }
    line(format!(
        "{} scenarios: {} passed, {failed} failed, {updated} updated",
        all.len(),
        all.len() - failed - updated
    ))?;
    Ok(if failed == 0 { EXIT_OK } else { EXIT_FAILED })
}
