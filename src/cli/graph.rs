//! `deppy graph [request options] [--package PKG] --format dot|mermaid`.

use anyhow::bail;
use clap::{Args, ValueEnum};

use deppy::advanced::catalog::CatalogSet;
use deppy::advanced::graph::{Syntax, channels, resolution};

use super::EXIT_OK;
use super::output::Content;
use super::resolve::{RequestArgs, resolution_or_exit};

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
    pub out_file: super::output::OutputFile,
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
        super::report::warnings(&set.warnings);
        match channels(&set, p, syntax) {
            Some(text) => args.out_file.emit(&text, Content::Text)?,
            None => bail!("no catalog has a package named {p:?}"),
        }
        return Ok(EXIT_OK);
    }
    let mut pipeline = args.request.pipeline()?;
    let r = match resolution_or_exit(pipeline.run(&sources))? {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    args.out_file.emit(
        &resolution(&r.variables.model, &r.outcome, syntax),
        Content::Text,
    )?;
    Ok(EXIT_OK)
}
