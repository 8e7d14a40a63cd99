//! `deppy catalog check [NAME=]PATH[:PRIORITY]... [--all] [-o text|json|yaml]`: every
//! bundle's resolution shares the command's budget; bundles not reached before it ran out
//! are reported as not checked, with exit code 3.

use clap::Args;

use std::collections::BTreeMap;

use deppy::advanced::catalog::{CatalogSet, CatalogSource};
use deppy::advanced::crd::{BundleCrds, EdgeProblem, check_edges};
use deppy::advanced::installability::{Scope, check_with_progress, to_text};
use deppy::advanced::resolve::Resolver;

use super::budget::Budget;
use super::catalog::{load_sources, parse_source, render};
use super::{EXIT_FAILED, EXIT_GAVE_UP, EXIT_OK, Format, output};

/// `deppy catalog check` arguments.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Catalog file or directory, with an optional name and priority.
    #[arg(required = true, value_name = "[NAME=]PATH[:PRIORITY]")]
    paths: Vec<String>,
    /// Check every bundle, not only channel heads.
    #[arg(long)]
    all: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    output: Format,
    #[command(flatten)]
    budget: Budget,
}

/// Runs `deppy catalog check`: exit 3 when a budget ran out before every bundle was checked,
/// else 1 when a bundle is not installable or a channel head cannot be checked.
pub fn run(args: CheckArgs) -> anyhow::Result<u8> {
    super::images::set_budget(super::images::PullBudget::of(&args.budget));
    let sources = args
        .paths
        .iter()
        .map(|p| parse_source(p))
        .collect::<anyhow::Result<Vec<CatalogSource>>>()?;
    let set = load_sources(&sources)?;
    let edges = crd_edges(&sources, &set)?;
    let resolver = Resolver::new(set).with_options(args.budget.options());
    let scope = if args.all { Scope::All } else { Scope::Heads };
    let rows = {
        let bar = super::progress::Bar::new("checking installability");
        check_with_progress(&resolver, scope, &bar)
    };
    let text = || {
        let mut t = to_text(&rows);
        if !edges.is_empty() {
            t.push_str(&format!("CRD upgrade problems ({}):\n", edges.len()));
        }
        for e in &edges {
            t.push_str(&deppy::advanced::explain::crd::edge_line(e));
            t.push('\n');
        }
        t
    };
    output::print(&render(&rows, args.output, text)?, args.output.content())?;
    Ok(if rows.iter().any(|r| r.gave_up) {
        EXIT_GAVE_UP
    } else if rows.iter().all(|r| r.installable) && !edges.iter().any(|e| e.problem.refuses()) {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// The CRD problems of every upgrade edge of the catalogs that are bundle directories
/// (`deppy::advanced::crd::edges`); a CRD manifest that cannot be read is an error naming its file.
fn crd_edges(sources: &[CatalogSource], set: &CatalogSet) -> anyhow::Result<Vec<EdgeProblem>> {
    let mut out = Vec::new();
    for s in sources {
        let Some(bundles) = deppy::advanced::catalog::bundle_manifests(&s.path)? else {
            continue;
        };
        let Some(catalog) = set.catalog_id(&s.name) else {
            continue;
        };
        let mut by_name = BTreeMap::new();
        for b in bundles {
            let mut crds = BTreeMap::new();
            for (file, value) in &b.crds {
                let crd = deppy::advanced::crd::parse(value)
                    .map_err(|e| anyhow::anyhow!("{file}: CustomResourceDefinition: {e}"))?;
                crds.insert(crd.name.clone(), crd);
            }
            let alm_examples = b.alm_examples;
            by_name.insert(b.bundle, BundleCrds { crds, alm_examples });
        }
        out.extend(check_edges(set, catalog, &by_name));
    }
    out.sort();
    Ok(out)
}
