//! Node types written by the caller (`Pipeline::with_node_types`): validated like built-in
//! types, run in order, their data reaching the nodes downstream, their rules named in
//! explanations, their failures reported at the node.

use std::sync::{Arc, Mutex};

use deppy::advanced::resolve::{Adjustments, Rule, RuleEffect, RuleOrigin};
use deppy::pipeline::{Body, ConfigError, CustomNodeType, Data, DataKind, NodeContext, NodeError};
use deppy::{
    CatalogSource, Outcome, Pipeline, PipelineConfig, Request, Requirement, Sources,
    explain_failure,
};

/// The pipeline of `tests/pipeline/configs/filter.yaml` with `middle` between `load` and
/// `derive` (no node when empty).
fn config(middle: &str) -> PipelineConfig {
    let (node, input) = if middle.is_empty() {
        (String::new(), "")
    } else {
        (format!("  - {middle}\n"), ", middle")
    };
    let text = format!(
        "nodes:
  - {{name: catalogs, type: catalogs}}
  - {{name: requirements, type: requirements}}
  - {{name: load, type: load-catalogs, inputs: [catalogs]}}
{node}  - {{name: derive, type: datalog, inputs: [load, requirements{input}]}}
  - {{name: global, type: global-constraints, inputs: [derive]}}
  - {{name: solver, type: solver, inputs: [derive, global]}}
  - {{name: output, type: output, inputs: [solver]}}
"
    );
    PipelineConfig::parse(&text).expect("the test's configuration parses")
}

fn sources(require: Requirement) -> Sources {
    Sources {
        catalogs: vec![CatalogSource {
            name: "catalog".into(),
            path: "tests/pipeline/catalog".into(),
            priority: 0,
        }],
        request: Request {
            require: vec![require],
            ..Request::default()
        },
    }
}

/// Removes the bundle named by the node's `drop` setting.
fn drop_named() -> CustomNodeType {
    CustomNodeType::processor(
        "drop-named",
        &[DataKind::CatalogSet],
        DataKind::Adjustments,
        |context: &NodeContext<'_>, inputs: &[Data]| {
            let name = context
                .params
                .get("drop")
                .and_then(|v| v.as_str())
                .ok_or("setting `drop` (a bundle name) is missing")?;
            let set = Data::catalog_set_in(inputs).ok_or("takes one catalog set")?;
            let removed = set
                .bundles
                .iter()
                .filter(|b| b.name == name)
                .map(|b| (b.id, 0))
                .collect();
            Ok(vec![Data::Adjustments(Arc::new(Adjustments {
                rules: vec![Rule {
                    origin: RuleOrigin::PipelineNode(context.node.to_string()),
                    effect: RuleEffect::Custom(format!("drops {name} by name")),
                }],
                removed,
                ..Adjustments::default()
            }))])
        },
    )
    .needing(&[DataKind::CatalogSet])
}

fn selected(pipeline: &mut Pipeline, require: Requirement) -> Vec<String> {
    let resolution = pipeline
        .run(&sources(require))
        .result
        .expect("the pipeline runs");
    match &resolution.outcome {
        Outcome::Resolved(a) => a.selected.iter().map(|s| s.bundle.clone()).collect(),
        Outcome::Unsatisfiable(_) => panic!("expected an answer"),
    }
}

#[test]
fn a_custom_node_changes_the_answer_and_is_named_in_the_explanation() {
    let beta = || Requirement::from_spec("etcd/beta").unwrap();
    let mut plain = Pipeline::new(config("")).unwrap();
    assert_eq!(selected(&mut plain, beta()), ["etcd.v1.0.0-beta"]);

    let node = "{name: middle, type: drop-named, inputs: [load], drop: etcd.v1.0.0-beta}";
    let mut custom = Pipeline::with_node_types(config(node), vec![drop_named()]).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let log = events.clone();
    custom.subscribe(move |e| {
        let what = match &e.body {
            Body::Data { data, .. } => data.kind().to_string(),
            Body::Error(m) => m.clone(),
        };
        log.lock()
            .unwrap()
            .push(format!("{}->{} {what}", e.header.sender, e.header.receiver))
    });
    assert_eq!(selected(&mut custom, beta()), ["etcd.v0.9.2"]);
    assert!(
        events
            .lock()
            .unwrap()
            .contains(&"middle->derive adjustments".to_string()),
        "{:?}",
        events.lock().unwrap()
    );

    let pinned = Requirement {
        bundle: Some("etcd.v1.0.0-beta".into()),
        ..Requirement::from_spec("etcd").unwrap()
    };
    let resolution = custom.run(&sources(pinned)).result.unwrap();
    let Outcome::Unsatisfiable(failure) = &resolution.outcome else {
        panic!("the pinned bundle is removed");
    };
    let words = explain_failure(
        failure,
        resolution.universe(),
        resolution.request(),
        Default::default(),
    );
    assert!(
        words.contains("removed by pipeline node middle (drops etcd.v1.0.0-beta by name)"),
        "{words}"
    );
}

#[test]
fn custom_types_are_validated_like_built_in_ones() {
    let filter_named = CustomNodeType::processor(
        "filter",
        &[DataKind::CatalogSet],
        DataKind::Adjustments,
        |_, _| Ok(Vec::new()),
    );
    assert_eq!(
        Pipeline::with_node_types(config(""), vec![filter_named]).err(),
        Some(ConfigError::TypeNameTaken("filter".into()))
    );
    assert_eq!(
        Pipeline::with_node_types(config(""), vec![drop_named(), drop_named()]).err(),
        Some(ConfigError::TypeNameTaken("drop-named".into()))
    );

    let unknown = "{name: middle, type: drop-nameless, inputs: [load]}";
    match Pipeline::with_node_types(config(unknown), vec![drop_named()]).err() {
        Some(ConfigError::UnknownType { known, .. }) => {
            assert!(known.ends_with(", drop-named"), "{known}")
        }
        other => panic!("expected an unknown type, got {other:?}"),
    }
    // Without the type, its name is unknown.
    let node = "{name: middle, type: drop-named, inputs: [load]}";
    assert!(matches!(
        Pipeline::new(config(node)).err(),
        Some(ConfigError::UnknownType { .. })
    ));

    // It takes a catalog set, not the requirements.
    let wrong_input = "{name: middle, type: drop-named, inputs: [requirements]}";
    assert!(matches!(
        Pipeline::with_node_types(config(wrong_input), vec![drop_named()]).err(),
        Some(ConfigError::Mismatch {
            kind: DataKind::Requirements,
            ..
        })
    ));
    // A processor declared to need requirements, fed none.
    let needy = CustomNodeType::processor(
        "needy",
        &[DataKind::CatalogSet, DataKind::Requirements],
        DataKind::Adjustments,
        |_, _| Ok(Vec::new()),
    )
    .needing(&[DataKind::Requirements]);
    let node = "{name: middle, type: needy, inputs: [load]}";
    assert_eq!(
        Pipeline::with_node_types(config(node), vec![needy]).err(),
        Some(ConfigError::Missing {
            node: "middle".into(),
            kind: DataKind::Requirements
        })
    );
}

#[test]
fn a_failing_custom_node_fails_the_run_at_that_node() {
    let node = "{name: middle, type: drop-named, inputs: [load]}";
    let mut p = Pipeline::with_node_types(config(node), vec![drop_named()]).unwrap();
    let run = p.run(&sources(Requirement::from_spec("etcd").unwrap()));
    let failure = run.result.err().expect("the node has no `drop` setting");
    assert_eq!(failure.node, "middle");
    assert!(matches!(&failure.error, NodeError::Custom(m) if m.contains("`drop`")));

    // Data of another kind than declared is refused at the node.
    let liar = CustomNodeType::processor(
        "liar",
        &[DataKind::CatalogSet],
        DataKind::Adjustments,
        |_, inputs: &[Data]| Ok(inputs.to_vec()),
    );
    let node = "{name: middle, type: liar, inputs: [load]}";
    let mut p = Pipeline::with_node_types(config(node), vec![liar]).unwrap();
    let failure = p
        .run(&sources(Requirement::from_spec("etcd").unwrap()))
        .result
        .err()
        .expect("catalog-set data where adjustments were declared");
    assert_eq!(failure.node, "middle");
    assert!(
        failure.to_string().contains("emitted catalog-set data"),
        "{failure}"
    );
}

/// A trace of a pipeline with custom nodes replays through the library with the same types:
/// the built-in producers emit their recorded data, the custom nodes run again.
#[test]
fn a_traced_run_with_custom_nodes_replays_with_the_same_types() {
    use deppy::pipeline::trace::{Trace, TraceWriter};

    let want_beta = CustomNodeType::producer("want-etcd-beta", DataKind::Requirements, |_, _| {
        let r = Requirement::from_spec("etcd/beta").map_err(|e| e.to_string())?;
        Ok(vec![Data::Requirements(Arc::new(vec![r]))])
    });
    let types = || vec![drop_named(), want_beta.clone()];
    let node = "{name: middle, type: drop-named, inputs: [load], drop: etcd.v1.0.0-beta}";
    let text = serde_json::to_string(&config(node))
        .unwrap()
        .replace(r#""type":"requirements""#, r#""type":"want-etcd-beta""#);
    let with_producer: PipelineConfig = serde_json::from_str(&text).unwrap();
    let mut p = Pipeline::with_node_types(with_producer, types()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let writer = TraceWriter::attach(&mut p, &path).unwrap();
    // The request asks for nothing: the custom producer says what is required.
    let mut no_request = sources(Requirement::from_spec("etcd").unwrap());
    no_request.request.require.clear();
    let run = p.run(&no_request);
    writer.finish(&run).unwrap();
    let bundles = |outcome: &Outcome| match outcome {
        Outcome::Resolved(a) => a
            .selected
            .iter()
            .map(|s| s.bundle.clone())
            .collect::<Vec<_>>(),
        Outcome::Unsatisfiable(_) => panic!("expected an answer"),
    };
    assert_eq!(bundles(&run.result.unwrap().outcome), ["etcd.v0.9.2"]);

    let trace = Trace::read(&path).unwrap();
    let mut again = Pipeline::with_node_types(trace.config.clone(), types()).unwrap();
    trace.check(&again).unwrap();
    let replayed = again.replay(&trace.sources).result.unwrap();
    assert_eq!(bundles(&replayed.outcome), ["etcd.v0.9.2"]);
}
