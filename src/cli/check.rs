//! `deppy catalog check PATH[:PRIORITY]... [--all] [-o text|json|yaml]`.

use clap::Args;

use deppy::catalog::CatalogSource;
use deppy::installability::{Scope, check_with_progress, to_text};
use deppy::resolve::Resolver;

use super::catalog::{load_sources, parse_source, render};
use super::{EXIT_FAILED, EXIT_OK, Format};

/// `deppy catalog check` arguments.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Catalog file or directory, with an optional priority.
    #[arg(required = true, value_name = "PATH[:PRIORITY]")]
    paths: Vec<String>,
    /// Check every bundle, not only channel heads.
    #[arg(long)]
    all: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    output: Format,
}

/// Runs `deppy catalog check`: exit 1 when a checked bundle is not installable.
pub fn run(args: CheckArgs) -> anyhow::Result<u8> {
    let sources = args
        .paths
        .iter()
        .map(|p| parse_source(p))
        .collect::<anyhow::Result<Vec<CatalogSource>>>()?;
    let set = load_sources(&sources)?;
    let resolver = Resolver::new(set);
    let scope = if args.all { Scope::All } else { Scope::Heads };
    let rows = {
        let bar = super::progress::Bar::new("checking installability");
        check_with_progress(&resolver, scope, &bar)
    };
    print!("{}", render(&rows, args.output, || to_text(&rows))?);
    Ok(if rows.iter().all(|r| r.installable) {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}
