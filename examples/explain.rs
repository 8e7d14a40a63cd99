//! Explain a failure: a request file whose only API provider is deprecated. The proof is data
//! (`failure.tree`, leaves of `Reason`); `explain_failure` words it.
//!
//! `cargo run --example explain`, from the repository.

use std::path::Path;

use deppy::{CatalogSet, CatalogSource, Detail, LoadOptions, Outcome, Request, Resolver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = Path::new("tests/scenarios/deprecated-only-provider-etcd/request.yaml");
    let request = Request::from_file(file)?;
    let sources: Vec<CatalogSource> = request
        .catalogs
        .iter()
        .map(|c| CatalogSource {
            name: c.name.clone().unwrap_or_else(|| "catalog".into()),
            path: c.path.clone(),
            priority: c.priority,
        })
        .collect();
    let set = CatalogSet::load(&sources, &LoadOptions::default())?;
    let (universe, outcome) = Resolver::new(set).resolve(&request)?;
    let Outcome::Unsatisfiable(failure) = outcome else {
        return Err("expected no resolution".into());
    };
    println!(
        "The proof has {} steps. In words:\n",
        failure.tree.nodes.len()
    );
    print!(
        "{}",
        deppy::explain_failure(&failure, &universe, &request, Detail::Summary)
    );
    Ok(())
}
