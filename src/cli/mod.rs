//! Argument definitions and dispatch for the `deppy` binary, and the conventions every
//! command follows (cargo's and rustc's):
//!
//! - results on stdout, or in `--output-file` ([`output`]); a closed pipe ends them quietly;
//! - `error: …`, `warning: …` and `note: …` on stderr ([`report`], [`diagnostic`]), `-q` for
//!   errors only, `-v` for notes;
//! - `-` for standard input wherever a file is read ([`deppy::advanced::input`]), every input within
//!   the size limit;
//! - one table of exit codes ([`EXIT_CODES`]), shown by `deppy --help`;
//! - a time and a memory budget on everything that resolves ([`budget`]).

pub mod budget;
mod catalog;
mod check;
mod cluster;
pub mod diagnostic;
mod graph;
pub mod output;
mod pipeline;
mod progress;
mod query;
pub mod report;
mod resolve;
mod test;

use clap::{ArgAction, Parser, Subcommand, ValueEnum};

/// Success: resolved, solved, valid, installable, no differences.
pub const EXIT_OK: u8 = 0;
/// The answer is no: unsatisfiable, not in the answer, invalid, not installable, differences.
pub const EXIT_FAILED: u8 = 1;
/// Bad input or usage.
pub const EXIT_BAD_INPUT: u8 = 2;
/// A budget (time, conflicts, memory) ran out before an answer.
pub const EXIT_GAVE_UP: u8 = 3;
/// The result could not be written.
pub const EXIT_OUTPUT: u8 = 4;

/// The exit codes of every command, as `deppy --help` prints them and docs/cli.md lists them
/// ("Exit codes"): one table, which the code follows.
pub const EXIT_CODES: [(u8, &str); 5] = [
    (
        EXIT_OK,
        "success: resolved, solved, valid, installable, no differences",
    ),
    (
        EXIT_FAILED,
        "the answer is no: unsatisfiable; `why` TARGET not in the answer; `why-not` TARGET in it; an invalid catalog; a bundle not installable or a channel head that cannot be checked; an InstallPlan OLM will refuse (`cluster resolve`); scenario differences",
    ),
    (
        EXIT_BAD_INPUT,
        "bad input or usage: a file that cannot be read or is invalid, a bad argument",
    ),
    (
        EXIT_GAVE_UP,
        "a budget ran out (time, conflicts, memory) before an answer; what was proven by then is printed, or, for a stage that proves nothing (reading a cluster state), the error names it",
    ),
    (
        EXIT_OUTPUT,
        "the result could not be written (`--output-file`, `--trace`, standard output)",
    ),
];

/// The `Exit codes:` section of `deppy --help`.
fn exit_codes_help() -> String {
    let mut out = String::from("Exit codes:\n");
    for (code, meaning) in EXIT_CODES {
        out.push_str(&format!("  {code} {meaning}\n"));
    }
    out
}

/// deppy: an explainable dependency resolver for OLM catalogs.
#[derive(Debug, Parser)]
#[command(name = "deppy", version, about, after_help = exit_codes_help())]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour diagnostics: auto (stderr is a terminal and NO_COLOR is unset or
    /// empty), always, never.
    #[arg(long, global = true, value_enum, default_value_t = diagnostic::ColorChoice::Auto)]
    color: diagnostic::ColorChoice,
    /// Keep each catalog file's parsed records, and the catalog set assembled from them, in
    /// DIR and reuse them while the files are unchanged (a file whose size, times, inode and
    /// device are as recorded is not read again; corrupt entries are rebuilt). Also
    /// DEPPY_CACHE_DIR. Off when not given.
    #[arg(long, global = true, value_name = "DIR", env = "DEPPY_CACHE_DIR")]
    cache_dir: Option<std::path::PathBuf>,
    /// With --cache-dir: read and hash every catalog file to tell whether it changed, instead
    /// of trusting unchanged metadata (size, modification and status-change times, inode,
    /// device). Also DEPPY_VERIFY_CACHE=1.
    #[arg(long, global = true, env = "DEPPY_VERIFY_CACHE")]
    verify_cache: bool,
    /// Print errors only: no warnings, no notes.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Say more: notes on what was skipped and why.
    #[arg(short, long, global = true, action = ArgAction::Count, conflicts_with = "quiet")]
    verbose: u8,
}

/// The catalog cache directory of this run, set once from `--cache-dir`, and
/// `--verify-cache`.
static CACHE_DIR: std::sync::OnceLock<(Option<std::path::PathBuf>, bool)> =
    std::sync::OnceLock::new();

/// How this run loads catalogs (the catalog cache of `--cache-dir`).
pub(crate) fn load_options() -> deppy::advanced::catalog::LoadOptions {
    let (cache_dir, verify_cache) = CACHE_DIR.get().cloned().unwrap_or_default();
    deppy::advanced::catalog::LoadOptions {
        cache_dir,
        verify_cache,
        ..Default::default()
    }
}

impl Cli {
    /// The `--color` choice.
    pub fn color(&self) -> diagnostic::ColorChoice {
        self.color
    }

    /// How much to say on stderr (`-q`, `-v`).
    pub fn verbosity(&self) -> report::Verbosity {
        report::Verbosity::from_flags(self.quiet, self.verbose)
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect and validate catalogs.
    #[command(subcommand)]
    Catalog(catalog::CatalogCommand),
    /// Resolve a request against catalogs (exit 0 resolved, 1 unsatisfiable, 2 bad input,
    /// 3 a budget ran out, 4 the output could not be written).
    Resolve(resolve::ResolveArgs),
    /// Resolve a cluster from a dump of its objects (Subscriptions, CSVs, CatalogSources).
    #[command(subcommand)]
    Cluster(cluster::ClusterCommand),
    /// Solve a generic problem of variables and constraints (exit 0, 1, 2, 3 and 4 as
    /// resolve).
    Solve(resolve::SolveArgs),
    /// Why a bundle (or a package's bundle) is in the answer: the chain from a requirement
    /// (exit 1 when it is not in the answer, or there is none).
    Why(query::QueryArgs),
    /// Why a bundle is not in the answer: excluded, less preferred, or impossible (exit 1
    /// when it is in the answer).
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

impl Format {
    /// How its text is printed (control characters escaped in plain text only).
    pub fn content(self) -> output::Content {
        match self {
            Format::Text => output::Content::Text,
            Format::Json | Format::Yaml => output::Content::Data,
        }
    }
}

/// Runs a parsed command and returns its exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    let _ = CACHE_DIR.set((cli.cache_dir.clone(), cli.verify_cache));
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
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "deppy", &mut text);
            output::print(&String::from_utf8_lossy(&text), output::Content::Data)?;
            Ok(EXIT_OK)
        }
        Command::Test(args) => test::run(args),
        Command::Replay(args) => pipeline::replay(args),
        Command::Watch(args) => pipeline::watch(args),
        Command::Pipeline(cmd) => pipeline::pipeline(cmd),
    }
}

/// The exit code of an error: [`EXIT_OUTPUT`] when the result could not be written,
/// [`EXIT_GAVE_UP`] when a budget ran out before there was an answer to print, else
/// [`EXIT_BAD_INPUT`].
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    let output = err.chain().any(|c| {
        c.downcast_ref::<output::OutputError>().is_some()
            || c.downcast_ref::<deppy::advanced::atomic::WriteError>()
                .is_some()
    });
    let budget = err.chain().any(|c| {
        matches!(
            c.downcast_ref::<deppy::advanced::cluster::StateError>(),
            Some(deppy::advanced::cluster::StateError::Budget { .. })
        )
    });
    if output {
        EXIT_OUTPUT
    } else if budget {
        EXIT_GAVE_UP
    } else {
        EXIT_BAD_INPUT
    }
}
