//! `deppy resolve` (the default pipeline, or `--pipeline FILE`) and `deppy solve`, and the
//! request options every resolving command shares.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use super::Explain;
use deppy::advanced::catalog::CatalogSource;
use deppy::advanced::generic::{GenericError, GenericFile};
use deppy::advanced::image::ImageRef;
use deppy::advanced::report::Report;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::ResolveError;
use deppy::advanced::resolve::hints::hints;
use deppy::pipeline::trace::TraceWriter;
use deppy::pipeline::{NodeError, Pipeline, PipelineConfig, Run, Sources};

use super::budget::Budget;
use super::catalog::{parse_source, render};
use super::diagnostic::{self, Diagnosed};
use super::output::{Content, OutputError, OutputFile};
use super::{EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, Format, report};

/// Options shared by every command that resolves a request.
#[derive(Debug, Args)]
pub struct RequestArgs {
    /// Request file (YAML or JSON; `-` reads standard input).
    pub request: Option<PathBuf>,
    /// Catalog to load: [NAME=]PATH[:PRIORITY] (repeatable; adds to the request's catalogs;
    /// `-` reads one file from standard input).
    #[arg(long = "catalog", value_name = "[NAME=]PATH[:PRIORITY]")]
    pub catalogs: Vec<String>,
    /// Required package: PKG[/CHANNEL][@RANGE] (repeatable; adds to the request's).
    #[arg(long = "require", value_name = "SPEC")]
    pub require: Vec<String>,
    /// Cluster node file (YAML or JSON; `-` reads standard input): `{properties,
    /// constraints}` or the `olm-runtime-constraints` ConfigMap; replaces the request's
    /// `cluster`.
    #[arg(long, value_name = "FILE")]
    pub cluster: Option<PathBuf>,
    /// Pipeline configuration (YAML; `-` reads standard input); default: the built-in
    /// resolver pipeline.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    #[command(flatten)]
    pub budget: Budget,
}

/// How to print an answer.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// How much of a failure's proof to print.
    #[arg(long, value_enum, default_value_t = Explain::Summary)]
    pub explain: Explain,
    #[command(flatten)]
    pub file: OutputFile,
}

/// `deppy resolve` arguments.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    #[command(flatten)]
    pub request: RequestArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Write every pipeline event to FILE as JSON lines (replay it with `deppy replay`);
    /// written as `--output-file` is.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// After a failure, also try adding this catalog ([NAME=]PATH[:PRIORITY]) as a hint
    /// (repeatable).
    #[arg(long = "hint-catalog", value_name = "[NAME=]PATH[:PRIORITY]")]
    pub hint_catalogs: Vec<String>,
}

/// `deppy solve` arguments.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// File of variables and constraints (YAML or JSON; `-` reads standard input).
    pub file: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// How much of a failure's proof to print: the constraints it uses, or every step.
    #[arg(long, value_enum, default_value_t = Explain::Summary)]
    pub explain: Explain,
    #[command(flatten)]
    pub out_file: OutputFile,
    #[command(flatten)]
    pub budget: Budget,
}

/// Reads a YAML or JSON input file (`-`: standard input) within the size limit; a key given
/// twice in a JSON object is an error, as in YAML.
pub fn read_yaml_value(path: &Path, what: &str) -> anyhow::Result<(String, serde_json::Value)> {
    let text = deppy::advanced::input::read_text(path)?;
    let value = if text.trim_start().starts_with('{') {
        deppy::advanced::input::check_json_keys(&text)
            .and_then(|()| serde_json::from_str(&text))
            .map_err(|e| json_syntax(path, &text, what, &e))?
    } else {
        serde_saphyr::from_str_with_options(&text, deppy::advanced::input::yaml_options(text.len()))
            .map_err(|e| diagnostic::yaml_syntax(path, &text, what, &e))?
    };
    Ok((text, value))
}

/// The diagnostic of JSON text that does not parse.
fn json_syntax(path: &Path, text: &str, what: &str, e: &serde_json::Error) -> Diagnosed {
    let name = path.display().to_string();
    let message = e.to_string();
    let reason = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(head, _)| head);
    let range = line_column_offset(text, e.line(), e.column());
    Diagnosed::new(format!("{name}: not {what}: {reason}")).at(&name, text, range, reason)
}

/// The byte range of the character at 1-based `line` and `column`.
fn line_column_offset(text: &str, line: usize, column: usize) -> Option<std::ops::Range<usize>> {
    let start = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    let line_text = text.get(start..)?.split('\n').next()?;
    let at = line_text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line_text.len(), |(b, _)| b);
    let len = line_text
        .get(at..)?
        .chars()
        .next()
        .map_or(0, char::len_utf8);
    Some(start + at..start + at + len)
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
            let (text, value) = read_yaml_value(path, "YAML or JSON")?;
            request.cluster = Some(value);
            request.cluster_node().map_err(|e| {
                // The file is the request's `cluster`: its paths start there.
                let field = e
                    .path()
                    .map(|p| p.trim_start_matches("cluster").trim_start_matches('.'));
                diagnostic::field_error(path, &text, field.filter(|f| !f.is_empty()), e.to_string())
            })?;
        }
        super::images::set_budget(super::images::PullBudget::of(&self.budget));
        let mut catalogs: Vec<CatalogSource> = Vec::new();
        for c in &request.catalogs {
            if let Some(image) = &c.image {
                let image = ImageRef::parse(image)?;
                let name = c.name.clone().unwrap_or_else(|| image.default_name());
                catalogs.push(super::images::image_source(name, &image, c.priority)?);
                continue;
            }
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

    /// The pipeline to run: `--pipeline FILE`, or the default one, limited by the budget.
    pub fn pipeline(&self) -> anyhow::Result<Pipeline> {
        let mut pipeline = pipeline_from(self.pipeline.as_deref())?;
        pipeline.set_options(self.budget.options());
        Ok(pipeline)
    }

    /// [`RequestArgs::pipeline`], but the default pipeline's `datalog` node derives the
    /// whole program at any reach (`onDemandFrom` above it): `deppy why` and `why-not` read
    /// the exclusions and lists of bundles an answer does not select.
    pub fn whole_program_pipeline(&self) -> anyhow::Result<Pipeline> {
        if self.pipeline.is_some() {
            return self.pipeline();
        }
        let mut config = PipelineConfig::default_config();
        for n in config.nodes.iter_mut().filter(|n| n.node_type == "datalog") {
            n.params
                .insert("onDemandFrom".into(), serde_json::Value::from(u64::MAX));
        }
        let mut pipeline = Pipeline::new(config).context("default pipeline")?;
        pipeline.set_load_options(super::load_options());
        pipeline.set_options(self.budget.options());
        Ok(pipeline)
    }
}

/// Loads and validates a pipeline configuration file (`-`: standard input), or takes the
/// default one.
pub fn pipeline_from(path: Option<&Path>) -> anyhow::Result<Pipeline> {
    let mut pipeline = configured_pipeline(path)?;
    pipeline.set_load_options(super::load_options());
    Ok(pipeline)
}

fn configured_pipeline(path: Option<&Path>) -> anyhow::Result<Pipeline> {
    let config = match path {
        Some(p) => {
            let text = deppy::advanced::input::read_text(p)?;
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

/// Prints a run's answer and returns the exit code, or the failed node as an error. A run
/// that gave up prints what it had proven (on stderr as text, on stdout as JSON or YAML)
/// and returns exit code 3.
pub fn print_run(run: Run, out: &OutputArgs, hint: &HintInput<'_>) -> anyhow::Result<u8> {
    let states = run.states;
    let resolution = match run.result {
        Ok(r) => r,
        Err(f) => {
            if let NodeError::Resolve(e) = &f.error
                && let ResolveError::GaveUp { .. } = **e
            {
                return print_gave_up(&e.to_string(), out);
            }
            return Err(diagnostic::NodeFailed::new(f, &states).into());
        }
    };
    report::warnings(resolution.warnings());
    let mut report = Report::of(&resolution, out.explain.into());
    if !report.is_resolved() {
        let u = resolution.universe();
        let found = hints(&u.set, hint.catalogs, hint.request, hint.extra);
        report = report.with_hints(u, hint.request, found);
    }
    out.file.emit(
        &render(&report, out.output, || report.to_text())?,
        out.output.content(),
    )?;
    Ok(if report.is_resolved() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// The resolution of a run; a run that gave up has what it had proven printed on stderr
/// and gives exit code 3 instead; a failed node is an error.
pub fn resolution_or_exit(run: Run) -> anyhow::Result<Result<deppy::pipeline::Resolution, u8>> {
    match run.result {
        Ok(r) => Ok(Ok(r)),
        Err(f) => {
            if let NodeError::Resolve(e) = &f.error
                && let ResolveError::GaveUp { .. } = **e
            {
                eprint!("{}", report::escape(&e.to_string()));
                return Ok(Err(EXIT_GAVE_UP));
            }
            Err(diagnostic::NodeFailed::new(f, &run.states).into())
        }
    }
}

/// Prints what a run that gave up had proven and returns exit code 3.
pub fn print_gave_up(explanation: &str, out: &OutputArgs) -> anyhow::Result<u8> {
    match out.output {
        Format::Text => {
            let text = report::escape(explanation);
            eprint!("{text}");
        }
        format => {
            let report = Report::gave_up(explanation.to_string(), Vec::new());
            out.file
                .emit(&render(&report, format, String::new)?, Content::Data)?;
        }
    }
    Ok(EXIT_GAVE_UP)
}

/// Runs `deppy resolve`.
pub fn resolve(args: ResolveArgs) -> anyhow::Result<u8> {
    let sources = args.request.sources()?;
    let mut pipeline = args.request.pipeline()?;
    let writer = match &args.trace {
        Some(path) => Some(
            TraceWriter::attach_with(&mut pipeline, path, args.out.file.options())
                .map_err(OutputError::from)?,
        ),
        None => None,
    };
    let run = {
        let _spinner = super::progress::Bar::spinner("loading catalogs and resolving");
        pipeline.run(&sources)
    };
    if let Some(w) = writer {
        w.finish(&run).map_err(OutputError::from)?;
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

/// Reads and parses a generic-model file; errors show the offending line.
fn generic_file(path: &Path) -> anyhow::Result<GenericFile> {
    let text = deppy::advanced::input::read_text(path)?;
    let name = path.display().to_string();
    GenericFile::parse(&text).map_err(|e| match &e {
        GenericError::Parse {
            message,
            location: Some((line, column)),
        } => {
            let range = line_column_offset(&text, *line, *column);
            Diagnosed::new(format!("{name}:{line}:{column}: {message}"))
                .at(&name, &text, range, message)
                .into()
        }
        _ => anyhow::anyhow!("{name}: {e}"),
    })
}

/// Runs `deppy solve`.
pub fn solve(args: SolveArgs) -> anyhow::Result<u8> {
    let file = generic_file(&args.file)?;
    let answer = file
        .solve_explained(&args.budget.options(), args.explain.into())
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let text_view = || match answer.status {
        "resolved" => format!("Selected: {}\n", answer.selected.join(", ")),
        _ => answer.explanation.clone(),
    };
    args.out_file.emit(
        &render(&answer, args.output, text_view)?,
        args.output.content(),
    )?;
    Ok(match answer.status {
        "resolved" => EXIT_OK,
        "gaveUp" => EXIT_GAVE_UP,
        _ => EXIT_FAILED,
    })
}
