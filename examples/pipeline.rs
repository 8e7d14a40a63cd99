//! Run a resolution through a configured pipeline: the configuration in
//! `tests/pipeline/configs/filter.yaml` drops one bundle before the rules run, and a
//! subscriber sees every event the nodes exchange.
//!
//! `cargo run --example pipeline`, from the repository.

use std::sync::{Arc, Mutex};

use deppy::{CatalogSource, Outcome, Pipeline, PipelineConfig, Request, Requirement, Sources};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string("tests/pipeline/configs/filter.yaml")?;
    let mut pipeline = Pipeline::new(PipelineConfig::parse(&text)?)?;
    let events = Arc::new(Mutex::new(Vec::new()));
    let log = events.clone();
    pipeline.subscribe(move |e| {
        if let Ok(mut l) = log.lock() {
            l.push(format!(
                "{} -> {} ({})",
                e.header.sender,
                e.header.receiver,
                e.kind()
            ));
        }
    });
    let sources = Sources {
        catalogs: vec![CatalogSource {
            name: "catalog".into(),
            path: "tests/pipeline/catalog".into(),
            priority: 0,
        }],
        request: Request {
            require: vec![Requirement::from_spec("vault")?],
            ..Request::default()
        },
    };
    let run = pipeline.run(&sources);
    for e in events.lock().map_err(|e| e.to_string())?.iter() {
        println!("{e}");
    }
    let resolution = run.result.map_err(|f| f.to_string())?;
    if let Outcome::Resolved(answer) = &resolution.outcome {
        for s in &answer.selected {
            println!("selected {}", s.bundle);
        }
    }
    Ok(())
}
