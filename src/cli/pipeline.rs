//! `deppy replay`, `deppy watch` and `deppy pipeline show|validate`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};

use deppy::pipeline::trace::Trace;
use deppy::pipeline::watch::changes;
use deppy::pipeline::{Pipeline, Resolution};

use super::budget::Budget;
use super::output::{self, Content, line};
use super::resolve::{HintInput, OutputArgs, RequestArgs, pipeline_from, print_run};
use super::{EXIT_OK, Format, report};

/// `deppy replay` arguments.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Trace written by `deppy resolve --trace` (`-` reads standard input).
    pub trace: PathBuf,
    /// Replay on this configuration (refused unless it is the one the trace recorded).
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub budget: Budget,
}

/// `deppy watch` arguments.
#[derive(Debug, Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub request: RequestArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// How often to look for changed catalog files, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS")]
    pub interval: u64,
    /// Stop after this many resolutions (the first included; 1 or more); default: never.
    /// Each resolution has the time budget of its own.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_runs: Option<u64>,
}

/// `deppy pipeline` subcommands.
#[derive(Debug, Subcommand)]
pub enum PipelineCommand {
    /// Print a configuration (default: the built-in one) in normalised form with its id.
    Show {
        /// Configuration file.
        #[arg(long, value_name = "FILE")]
        pipeline: Option<PathBuf>,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = Format::Yaml)]
        output: Format,
    },
    /// Validate a configuration file; exit 2 with the offending node named when invalid.
    Validate {
        /// Configuration file (`-` reads standard input).
        file: PathBuf,
    },
}

/// Runs `deppy replay`.
pub fn replay(args: ReplayArgs) -> anyhow::Result<u8> {
    let trace = Trace::read(&args.trace)?;
    let mut pipeline = match &args.pipeline {
        Some(p) => pipeline_from(Some(p))?,
        None => Pipeline::new(trace.config.clone())
            .with_context(|| format!("{}: recorded configuration", args.trace.display()))?,
    };
    trace.check(&pipeline)?;
    pipeline.set_options(args.budget.options());
    let run = pipeline.replay(&trace.sources);
    let request = trace.request();
    let hint = HintInput {
        request: &request,
        catalogs: &[],
        extra: &[],
    };
    print_run(run, &args.out, &hint)
}

/// Runs `deppy pipeline ...`.
pub fn pipeline(cmd: PipelineCommand) -> anyhow::Result<u8> {
    match cmd {
        PipelineCommand::Show { pipeline, output } => {
            let p = pipeline_from(pipeline.as_deref())?;
            let doc = serde_json::json!({"id": p.id(), "config": p.config().normalised()});
            let text = match output {
                Format::Json => format!("{}\n", serde_json::to_string_pretty(&doc)?),
                _ => format!(
                    "# pipeline {}\n{}",
                    p.id(),
                    serde_saphyr::to_string(&p.config().normalised())?
                ),
            };
            output::print(&text, Content::Data)?;
        }
        PipelineCommand::Validate { file } => {
            let p = pipeline_from(Some(&file))?;
            line(format!(
                "{}: valid, pipeline {} ({} nodes)",
                file.display(),
                p.id(),
                p.nodes().len()
            ))?;
        }
    }
    Ok(EXIT_OK)
}

/// Size and modification time of every file under the catalog paths (links are followed
/// to files, never into directories: a link to `..` cannot make the walk endless).
fn fingerprint(paths: &[PathBuf]) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, bool)> = paths.iter().map(|p| (p.clone(), true)).collect();
    while let Some((p, root)) = stack.pop() {
        let link = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
        let Ok(meta) = std::fs::metadata(&p) else {
            out.push((p, u64::MAX, None));
            continue;
        };
        if meta.is_dir() && (root || !link) {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.filter_map(|e| e.ok().map(|e| (e.path(), false))));
            }
        } else {
            out.push((p, meta.len(), meta.modified().ok()));
        }
    }
    out.sort();
    out
}

fn print_changes(run: u64, last: &Resolution, new: &Resolution) -> anyhow::Result<()> {
    let lines = changes(&last.outcome, &new.outcome, new.request());
    if lines.is_empty() {
        line(format!("[run {run}] catalogs changed; the answer did not"))?;
    }
    for l in lines {
        line(format!("[run {run}] {l}"))?;
    }
    Ok(())
}

/// Runs `deppy watch`: resolves, then re-resolves whenever a catalog file changes.
pub fn watch(args: WatchArgs) -> anyhow::Result<u8> {
    if args.out.file.output_file.is_some() {
        anyhow::bail!("--output-file is not supported by `deppy watch`: it prints each change");
    }
    let sources = args.request.sources()?;
    let mut pipeline = args.request.pipeline()?;
    pipeline.keep_parsed_files(true);
    let paths: Vec<PathBuf> = sources.catalogs.iter().map(|c| c.path.clone()).collect();
    let mut seen = fingerprint(&paths);
    let first = pipeline.run(&sources);
    let mut last = match first.result {
        Ok(r) => {
            report::warnings(r.warnings());
            let report = deppy::advanced::report::Report::of(&r, args.out.explain.into());
            output::print(
                &super::catalog::render(&report, args.out.output, || report.to_text())?,
                args.out.output.content(),
            )?;
            Some(r)
        }
        Err(f) => {
            line(format!(
                "[run 1] error: pipeline node {:?} failed: {}",
                f.node, f.error
            ))?;
            None
        }
    };
    let mut runs = 1;
    while args.max_runs.is_none_or(|m| runs < m) {
        std::thread::sleep(Duration::from_millis(args.interval.max(10)));
        let now = fingerprint(&paths);
        if now == seen {
            continue;
        }
        // Let a write in progress finish: wait until two looks agree.
        let mut settled = now;
        loop {
            std::thread::sleep(Duration::from_millis(args.interval.max(10)));
            let again = fingerprint(&paths);
            if again == settled {
                break;
            }
            settled = again;
        }
        seen = settled;
        runs += 1;
        pipeline.set_options(args.request.budget.options_from(std::time::Instant::now()));
        match (pipeline.run(&sources).result, &last) {
            (Ok(new), Some(old)) => {
                print_changes(runs, old, &new)?;
                last = Some(new);
            }
            (Ok(new), None) => {
                let report = deppy::advanced::report::Report::of(&new, args.out.explain.into());
                line(format!("[run {runs}] resolved again"))?;
                output::print(&report.to_text(), Content::Text)?;
                last = Some(new);
            }
            (Err(f), _) => line(format!(
                "[run {runs}] error: pipeline node {:?} failed: {}; keeping the last good answer",
                f.node, f.error
            ))?,
        }
    }
    Ok(EXIT_OK)
}
