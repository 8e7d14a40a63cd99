//! A pipeline node written in Rust: `no-prereleases` takes the loaded catalog set and removes
//! every bundle whose version has a pre-release part, as adjustments the Datalog stage
//! applies. Asked for etcd's `beta` channel, whose head is `etcd.v1.0.0-beta`, the pipeline
//! without the node installs the head; with it, `etcd.v0.9.2`. Asked for the pre-release
//! bundle itself, it finds no answer, and the explanation names the node as the reason.
//!
//! `cargo run --example custom_node`, from the repository.

use std::sync::Arc;

use deppy::advanced::resolve::{Adjustments, Rule, RuleEffect, RuleOrigin};
use deppy::pipeline::{CustomNodeType, Data, DataKind, NodeContext};
use deppy::{
    CatalogSource, Outcome, Pipeline, PipelineConfig, Request, Requirement, Sources,
    explain_failure,
};

const CONFIG: &str = "
nodes:
  - {name: catalogs, type: catalogs}
  - {name: requirements, type: requirements}
  - {name: load, type: load-catalogs, inputs: [catalogs]}
  - {name: stable-only, type: no-prereleases, inputs: [load]}
  - {name: derive, type: datalog, inputs: [load, requirements, stable-only]}
  - {name: global, type: global-constraints, inputs: [derive]}
  - {name: solver, type: solver, inputs: [derive, global]}
  - {name: output, type: output, inputs: [solver]}
";

/// The node's function: one `adjustments` output removing every pre-release bundle.
fn no_prereleases(context: &NodeContext<'_>, inputs: &[Data]) -> Result<Vec<Data>, String> {
    let set = Data::catalog_set_in(inputs).ok_or("takes one catalog set")?;
    let removed = set
        .bundles
        .iter()
        .filter(|b| !b.version.semver().pre.is_empty())
        .map(|b| (b.id, 0))
        .collect();
    let adjustments = Adjustments {
        rules: vec![Rule {
            origin: RuleOrigin::PipelineNode(context.node.to_string()),
            effect: RuleEffect::Custom("drops pre-release versions".into()),
        }],
        removed,
        ..Adjustments::default()
    };
    Ok(vec![Data::Adjustments(Arc::new(adjustments))])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let node_type = CustomNodeType::processor(
        "no-prereleases",
        &[DataKind::CatalogSet],
        DataKind::Adjustments,
        no_prereleases,
    )
    .needing(&[DataKind::CatalogSet]);
    let mut pipeline = Pipeline::with_node_types(PipelineConfig::parse(CONFIG)?, vec![node_type])?;
    for require in [
        Requirement::from_spec("etcd/beta")?,
        Requirement {
            bundle: Some("etcd.v1.0.0-beta".into()),
            ..Requirement::from_spec("etcd")?
        },
    ] {
        let sources = Sources {
            catalogs: vec![CatalogSource {
                name: "catalog".into(),
                path: "tests/pipeline/catalog".into(),
                priority: 0,
            }],
            request: Request {
                require: vec![require],
                ..Request::default()
            },
        };
        let resolution = pipeline.run(&sources).result.map_err(|f| f.to_string())?;
        match &resolution.outcome {
            Outcome::Resolved(answer) => {
                for s in &answer.selected {
                    println!("install {} ({})", s.bundle, s.package);
                }
            }
            Outcome::Unsatisfiable(failure) => print!(
                "{}",
                explain_failure(
                    failure,
                    resolution.universe(),
                    resolution.request(),
                    Default::default()
                )
            ),
        }
    }
    Ok(())
}
