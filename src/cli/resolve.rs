//! `deppy resolve` (the default pipeline, or `--pipeline FILE`) and `deppy solve`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use deppy::catalog::CatalogSource;
use deppy::explain::Detail;
use deppy::generic::GenericFile;
use deppy::pipeline::trace::TraceWriter;
use deppy::pipeline::{Pipeline, PipelineConfig, Run, Sources};
use deppy::report::Report;
use deppy::request::{Request, Requirement};
use deppy::resolve::hints::hints;
use deppy::solver::SolveOptions;

use super::catalog::{parse_source, render};
use super::{EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, Format, diagnostic};
use deppy::pipeline::NodeError;
use deppy::resolve::ResolveError;

/// Options shared by every command that resolves a request.
#[derive(Debug, Args)]
pub struct RequestArgs {
    /// Request file (YAML or JSON).
    pub request: Option<PathBuf>,
    /// Catalog to load: PATH[:PRIORITY] (repeatable; adds to the request's catalogs).
    #[arg(long = "catalog", value_name = "PATH[:PRIORITY]")]
    pub catalogs: Vec<String>,
    /// Required package: PKG[/CHANNEL][@RANGE] (repeatable; adds to the request's).
    #[arg(long = "require", value_name = "SPEC")]
    pub require: Vec<String>,
    /// Cluster node file (YAML or JSON): `{properties, constraints}` or the
    /// `olm-runtime-constraints` ConfigMap; replaces the request's `cluster`.
    #[arg(long, value_name = "FILE")]
    pub cluster: Option<PathBuf>,
    /// Pipeline configuration (YAML); default: the built-in resolver pipeline.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
}

/// How to print an answer.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// How much of a failure's proof to print.
    #[arg(long, value_enum, default_value_t = Detail::Summary)]
    pub explain: Detail,
    #[command(flatten)]
    pub file: OutputFile,
}

/// `--output-file FILE`: where a command's result goes instead of stdout.
#[derive(Debug, Args)]
pub struct OutputFile {
    /// Write the result to FILE instead of stdout: through a temporary file in the same
    /// directory, synced and renamed into place, so FILE is never left half-written.
    #[arg(long = "output-file", value_name = "FILE")]
    pub output_file: Option<PathBuf>,
}

impl OutputFile {
    /// Prints `text`, or writes it to the output file atomically.
    pub fn emit(&self, text: &str) -> anyhow::Result<()> {
        match &self.output_file {
            Some(path) => Ok(deppy::atomic::write_atomic(path, text.as_bytes())?),
            None => {
                print!("{text}");
                Ok(())
            }
        }
    }
}

/// `deppy resolve` arguments.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    #[command(flatten)]
    pub request: RequestArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Write every pipeline event to FILE as JSON lines (replay it with `deppy replay`).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// After a failure, also try adding this catalog (PATH[:PRIORITY]) as a hint (repeatable).
    #[arg(long = "hint-catalog", value_name = "PATH[:PRIORITY]")]
    pub hint_catalogs: Vec<String>,
    #[command(flatten)]
    pub budget: Budget,
}

/// Limits on the solver's search (`--timeout`, `--max-conflicts`). A search that runs out
/// ends with "gave up after N conflicts", what it had proven by then, and exit code 3.
#[derive(Debug, Args)]
pub struct Budget {
    /// Give up after this many seconds of search (decimals allowed).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<std::time::Duration>,
    /// Give up after this many conflicts.
    #[arg(long = "max-conflicts", value_name = "N")]
    pub max_conflicts: Option<u64>,
}

impl Budget {
    /// The solver options these limits give.
    pub fn options(&self) -> SolveOptions {
        SolveOptions {
            max_conflicts: self.max_conflicts,
            timeout: self.timeout,
        }
    }
}

fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("{s:?} is not a duration (negative or too large)"))
}

/// `deppy solve` arguments.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// File of variables and constraints (YAML or JSON).
    pub file: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    #[command(flatten)]
    pub out_file: OutputFile,
    #[command(flatten)]
    pub budget: Budget,
}

impl RequestArgs {
    /// The request with command-line additions, and the catalogs to read.
    pub fn sources(&self) -> anyhow::Result<Sources> {
        let mut request = match &self.request {
            Some(path) => Request::from_file(path)?,
            None => Request::default(),
        };
        for spec in &self.require {
            request.require.push(Requirement::from_spec(spec)?);
        }
        if let Some(path) = &self.cluster {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read", path.display()))?;
            let value: serde_json::Value = serde_saphyr::from_str(&text)
                .map_err(|e| diagnostic::yaml_syntax(path, &text, "YAML or JSON", &e))?;
            request.cluster = Some(value);
            request.cluster_node().map_err(|e| {
                // The file is the request's `cluster`: its paths start there.
                let field = e
                    .path()
                    .map(|p| p.trim_start_matches("cluster").trim_start_matches('.'));
                diagnostic::field_error(path, &text, field.filter(|f| !f.is_empty()), e.to_string())
            })?;
        }
        let mut catalogs: Vec<CatalogSource> = Vec::new();
        for c in &request.catalogs {
            let mut s = parse_source(&c.path.display().to_string())
                .with_context(|| format!("catalog {}", c.path.display()))?;
            s.path = c.path.clone();
            s.priority = c.priority;
            if let Some(n) = &c.name {
                s.name = n.clone();
            }
            catalogs.push(s);
        }
        for arg in &self.catalogs {
            catalogs.push(parse_source(arg)?);
        }
        Ok(Sources { catalogs, request })
    }

    /// The pipeline to run: `--pipeline FILE`, or the default one.
    pub fn pipeline(&self) -> anyhow::Result<Pipeline> {
        pipeline_from(self.pipeline.as_deref())
    }
}

/// Loads and validates a pipeline configuration file, or takes the default one.
pub fn pipeline_from(path: Option<&std::path::Path>) -> anyhow::Result<Pipeline> {
    let mut pipeline = configured_pipeline(path)?;
    pipeline.set_load_options(super::load_options());
    Ok(pipeline)
}

fn configured_pipeline(path: Option<&std::path::Path>) -> anyhow::Result<Pipeline> {
    let config = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("{}: cannot read", p.display()))?;
            let config =
                PipelineConfig::parse(&text).map_err(|e| diagnostic::config_error(p, &text, &e))?;
            return Pipeline::new(config)
                .map_err(|e| diagnostic::config_error(p, &text, &e).into());
        }
        None => PipelineConfig::default_config(),
    };
    Pipeline::new(config).context("default pipeline")
}

/// What hints after a failure may change: the full request, the catalogs it was resolved
/// against, and catalogs to try adding.
pub struct HintInput<'a> {
    /// The request as given (admin and cluster constraints included).
    pub request: &'a Request,
    /// Its catalogs.
    pub catalogs: &'a [CatalogSource],
    /// Extra catalogs to try (`--hint-catalog`).
    pub extra: &'a [CatalogSource],
}

/// Prints a run's answer and returns the exit code, or the failed node as an error.
pub fn print_run(run: Run, out: &OutputArgs, hint: &HintInput<'_>) -> anyhow::Result<u8> {
    let states = run.states;
    let resolution = match run.result {
        Ok(r) => r,
        Err(f) => {
            if let NodeError::Resolve(e) = &f.error
                && let ResolveError::GaveUp { .. } = **e
            {
                eprint!("{e}");
                return Ok(EXIT_GAVE_UP);
            }
            return Err(super::diagnostic::NodeFailed::new(f, &states).into());
        }
    };
    for w in resolution.warnings() {
        log::warn!("{w}");
    }
    let mut report = Report::of(&resolution, out.explain);
    if !report.is_resolved() {
        let u = resolution.universe();
        let found = hints(&u.set, hint.catalogs, hint.request, hint.extra);
        report = report.with_hints(u, hint.request, found);
    }
    out.file
        .emit(&render(&report, out.output, || report.to_text())?)?;
    Ok(if report.is_resolved() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// Runs `deppy resolve`.
pub fn resolve(args: ResolveArgs) -> anyhow::Result<u8> {
    let sources = args.request.sources()?;
    let mut pipeline = args.request.pipeline()?;
    pipeline.set_options(args.budget.options());
    let writer = match &args.trace {
        Some(path) => Some(TraceWriter::attach(&mut pipeline, path)?),
        None => None,
    };
    let run = {
        let _spinner = super::progress::Bar::spinner("loading catalogs and resolving");
        pipeline.run(&sources)
    };
    if let Some(w) = writer {
        w.finish(&run)?;
    }
    let extra = args
        .hint_catalogs
        .iter()
        .map(|a| parse_source(a))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let hint = HintInput {
        request: &sources.request,
        catalogs: &sources.catalogs,
        extra: &extra,
    };
    print_run(run, &args.out, &hint)
}

/// Runs `deppy solve`.
pub fn solve(args: SolveArgs) -> anyhow::Result<u8> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("{}: cannot read", args.file.display()))?;
    let file = GenericFile::parse(&text).with_context(|| args.file.display().to_string())?;
    let answer = file
        .solve(&args.budget.options())
        .with_context(|| args.file.display().to_string())?;
    let text_view = || match answer.status {
        "resolved" => format!("Selected: {}\n", answer.selected.join(", ")),
        _ => answer.explanation.clone(),
    };
    args.out_file
        .emit(&render(&answer, args.output, text_view)?)?;
    Ok(match answer.status {
        "resolved" => EXIT_OK,
        "gaveUp" => EXIT_GAVE_UP,
        _ => EXIT_FAILED,
    })
}
