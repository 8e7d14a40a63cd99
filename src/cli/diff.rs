//! `deppy catalog diff OLD NEW [--channel PKG[/CH]]... [--state STATE...] [--source NS/NAME]
//! [-o text|json|yaml] [--output-file F] [budget options]`: what NEW strands or breaks for the
//! users of OLD. Exit 0 when nothing is, 1 when something is, 2 bad input, 3 a budget ran
//! out before every head was checked, 4 the output could not be written.

use std::path::PathBuf;

use clap::Args;

use deppy::advanced::cluster::{ClusterState, Meter, ReadOptions, read_paths_with};
use deppy::advanced::diff::{
    ChannelFilter, DiffOptions, DiffStatus, Subscribed, diff, subscriptions_of,
};

use super::budget::Budget;
use super::catalog::{load_sources, parse_source, render};
use super::output::OutputFile;
use super::{EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, Format, report};

/// `deppy catalog diff` arguments.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The catalog in use: a file or directory (`-`: one file from standard input), with an
    /// optional name.
    #[arg(value_name = "OLD")]
    old: String,
    /// The catalog about to replace it (a new version, or a mirror of OLD).
    #[arg(value_name = "NEW")]
    new: String,
    /// Judge only this package, or this channel of it (repeatable).
    #[arg(long = "channel", value_name = "PKG[/CHANNEL]")]
    channels: Vec<String>,
    /// A cluster's objects, as `deppy cluster resolve` reads them: judge only the channels
    /// its Subscriptions follow and the CSVs they installed, and name the Subscriptions NEW
    /// would strand or leave stuck.
    #[arg(long = "state", value_name = "STATE", num_args = 1..)]
    state: Vec<PathBuf>,
    /// With --state: only the Subscriptions of this CatalogSource (`NAMESPACE/NAME`).
    #[arg(long, value_name = "NAMESPACE/NAME", requires = "state")]
    source: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    output: Format,
    #[command(flatten)]
    file: OutputFile,
    #[command(flatten)]
    budget: Budget,
}

/// Runs `deppy catalog diff`.
pub fn run(args: DiffArgs) -> anyhow::Result<u8> {
    let channels = (args.channels.iter())
        .map(|c| ChannelFilter::parse(c).map_err(|e| anyhow::anyhow!("--channel {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let solve = args.budget.options();
    super::images::set_budget(super::images::PullBudget::of(&args.budget));
    let subscriptions = if args.state.is_empty() {
        None
    } else {
        // Reading the state is within the time budget, and what it keeps within the memory one.
        let meter = Meter::new(solve.deadline, solve.max_memory);
        let dump = read_paths_with(&args.state, &ReadOptions::default(), &meter)?;
        report::warnings(&dump.warnings);
        let state = ClusterState::from_dump(dump)?;
        let all = subscriptions_of(&state, None)?;
        if let Some(source) = &args.source {
            check_source(source, &all)?;
        }
        Some(subscriptions_of(&state, args.source.as_deref())?)
    };
    let old = load_sources(&[parse_source(&args.old)?])?;
    report::warnings(&old.warnings);
    ChannelFilter::check_all(&channels, &old).map_err(|e| anyhow::anyhow!("--channel: {e}"))?;
    let new = load_sources(&[parse_source(&args.new)?])?;
    report::warnings(&new.warnings);
    let options = DiffOptions {
        channels,
        subscriptions,
        solve,
        skip_installability: false,
    };
    let answer = diff(old, new, &options);
    let text = render(&answer, args.output, || {
        deppy::advanced::diff::to_text(&answer)
    })?;
    args.file.emit(&text, args.output.content())?;
    Ok(match answer.status {
        DiffStatus::Ok => EXIT_OK,
        DiffStatus::Broken => EXIT_FAILED,
        DiffStatus::GaveUp => EXIT_GAVE_UP,
    })
}

/// `--source` must be `NAMESPACE/NAME` and name the CatalogSource of some Subscription of the
/// state: anything else is a mistake, not a cluster with nothing to judge.
fn check_source(source: &str, subscriptions: &[Subscribed]) -> anyhow::Result<()> {
    let well_formed = (source.split_once('/'))
        .is_some_and(|(ns, name)| !ns.is_empty() && !name.is_empty() && !name.contains('/'));
    if !well_formed {
        anyhow::bail!("--source {source:?}: expected NAMESPACE/NAME (a CatalogSource)");
    }
    if subscriptions.iter().any(|s| s.catalog == source) {
        return Ok(());
    }
    let mut used: Vec<&str> = subscriptions.iter().map(|s| s.catalog.as_str()).collect();
    used.sort_unstable();
    used.dedup();
    anyhow::bail!(
        "--source {source}: no Subscription of the state uses this CatalogSource (they use: {})",
        if used.is_empty() {
            "none; the state has no Subscriptions".to_string()
        } else {
            used.join(", ")
        }
    )
}
