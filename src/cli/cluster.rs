//! `deppy cluster resolve`: OLM v0 cluster state in, one answer per Subscription out.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use deppy::advanced::cluster::{
    Binding, ClusterOptions, ClusterState, Meter, ReadOptions, StateError, Status, read_paths_with,
};
use deppy::advanced::explain::Detail;
use deppy::advanced::request::Request;

use super::budget::Budget;
use super::output::OutputFile;
use super::{EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, Format, report};

/// `deppy cluster ...`.
#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Resolve every namespace with a Subscription, as OLM would, from a dump of the
    /// cluster's objects (exit 0 all resolved, 1 any unsatisfiable or blocked or an
    /// InstallPlan OLM will refuse, 2 bad input, 3 a budget ran out, 4 the output could not be
    /// written).
    Resolve(ResolveArgs),
}

/// `deppy cluster resolve` arguments.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// Files or directories of Kubernetes objects (YAML or JSON; Lists; must-gather trees;
    /// `-` reads standard input).
    #[arg(required = true, value_name = "STATE")]
    pub state: Vec<PathBuf>,
    /// The contents of CatalogSource NAMESPACE/NAME, or of OLM v1 ClusterCatalog NAME: an FBC
    /// file or directory, or bundle directories (repeatable).
    #[arg(long = "catalog", value_name = "NAMESPACE/NAME=PATH|NAME=PATH")]
    pub catalogs: Vec<String>,
    /// OLM's global catalog namespace (default: olm, or openshift-marketplace when only it
    /// has catalogs).
    #[arg(long, value_name = "NS")]
    pub global_namespace: Option<String>,
    /// The namespace of namespaced objects that name none, in STATE and --apply files (as
    /// `kubectl apply -n NS -f`); without it such an object is an error.
    #[arg(short = 'n', long = "namespace", value_name = "NS")]
    pub namespace: Option<String>,
    /// What if: objects in FILE replace the objects of the same kind, namespace and name, or
    /// are added, as `kubectl apply -f FILE` would (repeatable; `-` reads standard input).
    #[arg(long = "apply", value_name = "FILE")]
    pub apply: Vec<PathBuf>,
    /// A request file whose `constraints` and `cluster` apply to every namespace.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// How much of an unsatisfiable namespace's proof to print.
    #[arg(long, value_enum, default_value_t = Detail::Summary)]
    pub explain: Detail,
    #[command(flatten)]
    pub file: OutputFile,
    #[command(flatten)]
    pub budget: Budget,
}

/// Reads a `--policy` file: a request with only `constraints` and `cluster`.
fn policy(path: &Path) -> anyhow::Result<Request> {
    let r = Request::from_file(path)?;
    let only = Request {
        constraints: r.constraints.clone(),
        cluster: r.cluster.clone(),
        api_version: r.api_version.clone(),
        kind: r.kind.clone(),
        ..Request::default()
    };
    if r != only {
        return Err(StateError::Policy {
            file: path.display().to_string(),
            message: "only `constraints` and `cluster` may be given".into(),
        }
        .into());
    }
    Ok(r)
}

/// Reads state files and directories, warning about entries it did not read.
fn dump(
    paths: &[PathBuf],
    opts: &ReadOptions,
    meter: &Meter,
) -> Result<deppy::advanced::cluster::Dump, StateError> {
    let dump = read_paths_with(paths, opts, meter)?;
    report::warnings(&dump.warnings);
    Ok(dump)
}

/// Runs a cluster subcommand and returns its exit code.
pub fn run(cmd: ClusterCommand) -> anyhow::Result<u8> {
    let ClusterCommand::Resolve(args) = cmd;
    let solve = args.budget.options();
    // Reading the state is within the time budget, and what it keeps within the memory one.
    let meter = Meter::new(solve.deadline, solve.max_memory);
    let read = ReadOptions {
        namespace: args.namespace.clone(),
    };
    let mut state = ClusterState::from_dump(dump(&args.state, &read, &meter)?)?;
    for f in &args.apply {
        let changes = dump(std::slice::from_ref(f), &read, &meter)?;
        state.apply(ClusterState::from_dump(changes)?);
    }
    let bindings = args
        .catalogs
        .iter()
        .map(|b| Binding::parse(b))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = ClusterOptions {
        global_namespace: args.global_namespace.clone(),
        policy: args.policy.as_deref().map(policy).transpose()?,
        load: super::load_options(),
        solve,
        detail: args.explain,
    };
    // The objects of other kinds that were skipped: notes, shown with `-v`.
    for s in &state.skipped {
        report::note(format!(
            "skipped {} {} {} ({})",
            s.api_version, s.kind, s.name, s.source
        ));
    }
    let answer = deppy::advanced::cluster::resolve_cluster(&state, &bindings, &opts)?;
    let text = super::catalog::render(&answer, args.output, || {
        deppy::advanced::explain::cluster::render(&answer)
    })?;
    args.file.emit(&text, args.output.content())?;
    // "Will this go through?" is no when OLM will refuse an InstallPlan.
    Ok(match answer.status {
        Status::Resolved if answer.install_would_fail() => EXIT_FAILED,
        Status::Resolved => EXIT_OK,
        Status::GaveUp => EXIT_GAVE_UP,
        Status::Unsatisfiable | Status::Blocked => EXIT_FAILED,
    })
}
