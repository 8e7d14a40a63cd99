//! Argument definitions and dispatch for the `deppy` binary.

mod catalog;
mod check;
mod cluster;
pub mod diagnostic;
mod graph;
mod pipeline;
mod progress;
mod query;
mod resolve;
mod test;

use clap::{Parser, Subcommand, ValueEnum};

/// Success: resolved, or a catalog without errors.
pub const EXIT_OK: u8 = 0;
/// Unsatisfiable request, or a catalog with errors.
pub const EXIT_FAILED: u8 = 1;
/// Bad input or usage.
pub const EXIT_BAD_INPUT: u8 = 2;
/// The solver's budget (`--timeout`, `--max-conflicts`) ran out before an answer.
pub const EXIT_GAVE_UP: u8 = 3;

/// deppy: an explainable dependency resolver for OLM catalogs.
#[derive(Debug, Parser)]
#[command(name = "deppy", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour diagnostics: auto (stderr is a terminal and NO_COLOR is unset or
    /// empty), always, never.
    #[arg(long, global = true, value_enum, default_value_t = diagnostic::ColorChoice::Auto)]
    color: diagnostic::ColorChoice,
    /// Keep each catalog file's parsed records in DIR and reuse them while the file is
    /// unchanged (keyed by a hash of its contents; corrupt entries are rebuilt). Also
    /// DEPPY_CACHE_DIR. Off when not given.
    #[arg(long, global = true, value_name = "DIR", env = "DEPPY_CACHE_DIR")]
    cache_dir: Option<std::path::PathBuf>,
}

/// The catalog cache directory of this run, set once from `--cache-dir`.
static CACHE_DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();

/// How this run loads catalogs (the catalog cache of `--cache-dir`).
pub(crate) fn load_options() -> deppy::catalog::LoadOptions {
    deppy::catalog::LoadOptions {
        cache_dir: CACHE_DIR.get().cloned().flatten(),
        ..Default::default()
    }
}

impl Cli {
    /// The `--color` choice.
    pub fn color(&self) -> diagnostic::ColorChoice {
        self.color
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect and validate catalogs.
    #[command(subcommand)]
    Catalog(catalog::CatalogCommand),
    /// Resolve a request against catalogs (exit 0 resolved, 1 unsatisfiable, 2 bad input).
    Resolve(resolve::ResolveArgs),
    /// Resolve a cluster from a dump of its objects (Subscriptions, CSVs, CatalogSources).
    #[command(subcommand)]
    Cluster(cluster::ClusterCommand),
    /// Solve a generic problem of variables and constraints (exit 0, 1 or 2 as resolve).
    Solve(resolve::SolveArgs),
    /// Why a bundle (or a package's bundle) is in the answer: the chain from a requirement.
    Why(query::QueryArgs),
    /// Why a bundle is not in the answer: excluded, less preferred, or impossible.
    #[command(name = "why-not")]
    WhyNot(query::QueryArgs),
    /// Run scenario folders (request.yaml + catalogs + expected.txt); exit 1 on any
    /// difference; --update rewrites the expectations.
    Test(test::TestArgs),
    /// Draw a package's channel graphs or a resolution as Graphviz DOT or Mermaid.
    Graph(graph::GraphArgs),
    /// The answer as an ordered plan: installs and upgrades after what they depend on, then
    /// removals (text, JSON or YAML).
    Plan(query::PlanArgs),
    /// Print shell completions.
    Completions {
        /// Shell.
        shell: clap_complete::Shell,
    },
    /// Re-run an execution from a trace's recorded source events (no catalog files needed).
    Replay(pipeline::ReplayArgs),
    /// Resolve, then re-resolve and print what changed whenever a catalog file changes.
    Watch(pipeline::WatchArgs),
    /// Show or validate pipeline configurations.
    #[command(subcommand)]
    Pipeline(pipeline::PipelineCommand),
}

/// Output format of a command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Plain text for people.
    #[default]
    Text,
    /// JSON.
    Json,
    /// YAML.
    Yaml,
}

/// Runs a parsed command and returns its exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    let _ = CACHE_DIR.set(cli.cache_dir.clone());
    match cli.command {
        Command::Catalog(cmd) => catalog::run(cmd),
        Command::Resolve(args) => resolve::resolve(args),
        Command::Cluster(cmd) => cluster::run(cmd),
        Command::Solve(args) => resolve::solve(args),
        Command::Why(args) => query::why(args),
        Command::WhyNot(args) => query::why_not(args),
        Command::Graph(args) => graph::run(args),
        Command::Plan(args) => query::plan(args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "deppy", &mut std::io::stdout());
            Ok(EXIT_OK)
        }
        Command::Test(args) => test::run(args),
        Command::Replay(args) => pipeline::replay(args),
        Command::Watch(args) => pipeline::watch(args),
        Command::Pipeline(cmd) => pipeline::pipeline(cmd),
    }
}
