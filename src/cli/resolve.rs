//! `deppy resolve` and `deppy solve`.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::explain::Detail;
use deppy::generic::GenericFile;
use deppy::report::Report;
use deppy::request::{Request, Requirement};
use deppy::resolve::Resolver;
use deppy::solver::SolveOptions;

use super::catalog::{parse_source, render};
use super::{EXIT_FAILED, EXIT_OK, Format};

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
}

/// `deppy resolve` arguments.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    #[command(flatten)]
    pub request: RequestArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// How much of a failure's proof to print.
    #[arg(long, value_enum, default_value_t = Detail::Summary)]
    pub explain: Detail,
}

/// `deppy solve` arguments.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// File of variables and constraints (YAML or JSON).
    pub file: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

impl RequestArgs {
    /// The request with command-line additions, and its catalogs loaded.
    pub fn load(&self) -> anyhow::Result<(Request, CatalogSet)> {
        let mut request = match &self.request {
            Some(path) => Request::from_file(path)?,
            None => Request::default(),
        };
        for spec in &self.require {
            request.require.push(Requirement::from_spec(spec)?);
        }
        let mut sources: Vec<CatalogSource> = Vec::new();
        for c in &request.catalogs {
            let mut s = parse_source(&c.path.display().to_string())
                .with_context(|| format!("catalog {}", c.path.display()))?;
            s.path = c.path.clone();
            s.priority = c.priority;
            if let Some(n) = &c.name {
                s.name = n.clone();
            }
            sources.push(s);
        }
        for arg in &self.catalogs {
            sources.push(parse_source(arg)?);
        }
        if sources.is_empty() {
            bail!("no catalog given: name one with --catalog PATH or in the request's catalogs");
        }
        for (i, s) in sources.iter().enumerate() {
            if sources[..i].iter().any(|o| o.name == s.name) {
                bail!(
                    "two catalogs are named {:?}; give one a name in the request file",
                    s.name
                );
            }
        }
        let set = CatalogSet::load(&sources, &LoadOptions::default())?;
        Ok((request, set))
    }
}

/// Runs `deppy resolve`.
pub fn resolve(args: ResolveArgs) -> anyhow::Result<u8> {
    let (request, set) = args.request.load()?;
    if request.require.is_empty() && request.installed.is_empty() {
        bail!("nothing to resolve: give --require PKG or a request file with require:");
    }
    let resolver = Resolver::new(set.clone());
    let (u, outcome) = resolver.resolve(&request)?;
    let mut warnings: Vec<String> = set.warnings.iter().map(|w| w.to_string()).collect();
    warnings.extend(resolver.channel_warnings());
    for w in &warnings {
        log::warn!("{w}");
    }
    let report = Report::new(&u, &request, &outcome, args.explain, warnings);
    print!("{}", render(&report, args.output, || report.to_text())?);
    Ok(if report.is_resolved() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// Runs `deppy solve`.
pub fn solve(args: SolveArgs) -> anyhow::Result<u8> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("{}: cannot read", args.file.display()))?;
    let file = GenericFile::parse(&text).with_context(|| args.file.display().to_string())?;
    let answer = file
        .solve(&SolveOptions::default())
        .with_context(|| args.file.display().to_string())?;
    let text_view = || match answer.status {
        "resolved" => format!("Selected: {}\n", answer.selected.join(", ")),
        _ => answer.explanation.clone(),
    };
    print!("{}", render(&answer, args.output, text_view)?);
    Ok(if answer.status == "resolved" {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}
