//! `deppy graph [request options] [--package PKG] --format dot|mermaid`.

use anyhow::bail;
use clap::{Args, ValueEnum};

use deppy::catalog::CatalogSet;
use deppy::graph::{Syntax, channels, resolution};

use super::EXIT_OK;
use super::resolve::RequestArgs;

/// Picture syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// Graphviz DOT (render with `dot -Tsvg`).
    Dot,
    /// Mermaid flowchart.
    Mermaid,
}

/// `deppy graph` arguments.
#[derive(Debug, Args)]
pub struct GraphArgs {
    #[command(flatten)]
    pub request: RequestArgs,
    /// Draw this package's channel graphs instead of a resolution.
    #[arg(long, value_name = "PKG")]
    pub package: Option<String>,
    /// Output syntax.
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
    #[command(flatten)]
    pub out_file: super::resolve::OutputFile,
}

/// Runs `deppy graph`.
pub fn run(args: GraphArgs) -> anyhow::Result<u8> {
    let syntax = match args.format {
        GraphFormat::Dot => Syntax::Dot,
        GraphFormat::Mermaid => Syntax::Mermaid,
    };
    let sources = args.request.sources()?;
    if let Some(p) = &args.package {
        let set = CatalogSet::load(&sources.catalogs, &super::load_options())?;
        match channels(&set, p, syntax) {
            Some(text) => args.out_file.emit(&text)?,
            None => bail!("no catalog has a package named {p:?}"),
        }
        return Ok(EXIT_OK);
    }
    let mut pipeline = args.request.pipeline()?;
    let run = pipeline.run(&sources);
    let r = run.result.map_err(super::diagnostic::node_failed)?;
    args.out_file
        .emit(&resolution(&r.variables.model, &r.outcome, syntax))?;
    Ok(EXIT_OK)
}
