//! Resolve a package on the catalog shipped in `catalogs/odf-dev` and print the answer.
//!
//! `cargo run --example resolve [PACKAGE]` (default `odf-dependencies`), from the repository.

use deppy::{CatalogSet, CatalogSource, LoadOptions, Outcome, Request, Requirement, Resolver};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let package = std::env::args().nth(1).unwrap_or("odf-dependencies".into());
    let source = CatalogSource {
        name: "odf-dev".into(),
        path: "catalogs/odf-dev".into(),
        priority: 0,
    };
    let set = CatalogSet::load(&[source], &LoadOptions::default())?;
    let request = Request {
        require: vec![Requirement::from_spec(&package)?],
        ..Request::default()
    };
    let resolver = Resolver::new(set);
    let (universe, outcome) = resolver.resolve(&request)?;
    match outcome {
        Outcome::Resolved(answer) => {
            for s in &answer.selected {
                let action = format!("{:?}", s.action).to_lowercase();
                println!("{:<36} {:<44} {action}", s.package, s.bundle);
            }
            Ok(())
        }
        Outcome::Unsatisfiable(failure) => {
            let why = deppy::explain_failure(&failure, &universe, &request, Default::default());
            Err(why.into())
        }
    }
}
