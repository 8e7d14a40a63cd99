//! `deppy test DIR... [--update]`: regression suites of scenario folders.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use deppy::scenario::{EXPECTED, diff, find, run_dir};

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
        let actual = run_dir(dir).render();
        let file = dir.join(EXPECTED);
        let expected = std::fs::read_to_string(&file).ok();
        if expected.as_deref() == Some(actual.as_str()) {
            println!("ok      {}", dir.display());
            continue;
        }
        if args.update {
            std::fs::write(&file, &actual).with_context(|| file.display().to_string())?;
            println!("updated {}", dir.display());
            updated += 1;
            continue;
        }
        failed += 1;
        match expected {
            Some(e) => println!("FAIL    {}\n{}", dir.display(), diff(&e, &actual)),
            None => println!(
                "FAIL    {}: no {EXPECTED}; run with --update to write it",
                dir.display()
            ),
        }
    }
    println!(
        "{} scenarios: {} passed, {failed} failed, {updated} updated",
        all.len(),
        all.len() - failed - updated
    );
    Ok(if failed == 0 { EXIT_OK } else { EXIT_FAILED })
}
