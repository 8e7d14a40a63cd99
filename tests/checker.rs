//! The independent checker (`tests/support/checker/`): it imports nothing from deppy, and it
//! rejects answers that break each kind of exclusion — deprecated, skipped, admin
//! constraints, cluster constraints and served APIs, pipeline filters — while accepting the
//! answers deppy gives on the same inputs.

use serde_json::{Value, json};

#[path = "support/checker/mod.rs"]
mod checker;
use checker::{CatalogInput, World, documents};

/// Every `use` of the checker's files names std, serde_json, the `cel` or YAML crate, or the
/// checker itself; no path anywhere names deppy.
#[test]
fn checker_imports_nothing_from_deppy() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/checker");
    let mut files = 0;
    for entry in std::fs::read_dir(dir).expect("the checker's folder") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a source file");
        files += 1;
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            assert!(
                !code.contains("deppy") && !code.contains("crate::"),
                "{}:{}: {line}",
                path.display(),
                n + 1
            );
            if let Some(rest) = code.trim_start().strip_prefix("use ") {
                let root = rest.split("::").next().unwrap_or_default().trim();
                assert!(
                    [
                        "std",
                        "serde_json",
                        "super",
                        "catalog",
                        "input",
                        "predicate",
                        "range",
                        "version"
                    ]
                    .contains(&root),
                    "{}:{}: imports from {root}",
                    path.display(),
                    n + 1
                );
            }
        }
    }
    assert!(files >= 7, "only {files} checker files");
}

const CATALOG: &str = r#"
---
schema: olm.package
name: a
defaultChannel: stable
---
schema: olm.channel
package: a
name: stable
entries:
  - {name: a.v1}
  - {name: a.v2, replaces: a.v1, skips: [a.v1]}
  - {name: a.v3, replaces: a.v2}
---
schema: olm.bundle
package: a
name: a.v1
properties:
  - {type: olm.package, value: {packageName: a, version: 1.0.0}}
---
schema: olm.bundle
package: a
name: a.v2
properties:
  - {type: olm.package, value: {packageName: a, version: 2.0.0}}
  - {type: certified, value: {}}
---
schema: olm.bundle
package: a
name: a.v3
properties:
  - {type: olm.package, value: {packageName: a, version: 3.0.0}}
  - {type: olm.gvk, value: {group: g.io, version: v1, kind: K}}
  - {type: olm.deprecated, value: {}}
---
schema: olm.bundle
package: a
name: a.v9
properties:
  - {type: olm.package, value: {packageName: a, version: 9.0.0}}
"#;

fn world(request: Value, pipeline: Option<Value>) -> World {
    let input = CatalogInput {
        name: "main".into(),
        priority: 0,
        docs: documents(CATALOG).expect("the test catalog parses"),
    };
    World::new(&[input], &request, pipeline.as_ref()).expect("the checker reads the input")
}

fn pick(w: &World, name: &str) -> Vec<usize> {
    vec![w.find("main", name).expect("a bundle of the catalog")]
}

fn require_a(extra: Value) -> Value {
    let mut r = json!({"require": [{"package": "a"}]});
    if let (Some(m), Some(e)) = (r.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    r
}

#[test]
fn each_exclusion_is_recomputed() {
    let plain = world(require_a(json!({})), None);
    assert_eq!(plain.check(&pick(&plain, "a.v2")), Ok(()));
    // Deprecated property, skipped entry, entry of no channel.
    for name in ["a.v3", "a.v1", "a.v9"] {
        assert!(plain.check(&pick(&plain, name)).is_err(), "{name}");
    }
    let cases = [
        json!({"constraints": [{"prohibit": {"bundle": "a.v2"}}]}),
        json!({"constraints": [{"prohibit": {"package": "a"}}]}),
        json!({"constraints": [{"prohibit": {"catalog": "main"}}]}),
        json!({"constraints": [{"prohibit": {"channel": {"package": "a", "name": "stable"}}}]}),
        json!({"constraints": [{"action": "conflict", "package": {"packageName": "a", "versionRange": ">=2.0.0"}}]}),
        json!({"constraints": [{"action": "require", "cel": {"rule": "properties.exists(p, p.type == \"nope\")"}}]}),
        json!({"constraints": [{"action": "conflict", "cel": {"rule": "properties.exists(p, p.type == \"certified\")"}}]}),
        json!({"cluster": {"constraints": [{"action": "conflict", "cel": {"rule": "properties.exists(p, p.type == \"olm.package\" && semver_compare(p.value.version, \"2.0.0\") == 0)"}}]}}),
        json!({"cluster": {"kind": "ConfigMap", "data": {"properties": "[{\"type\":\"olm.constraint\",\"value\":{\"evaluator\":{\"id\":\"cel\"},\"source\":\"properties.exists(p, p.type == \\\"certified\\\")\",\"action\":{\"id\":\"conflict\"}}}]"}}}),
    ];
    for extra in cases {
        let w = world(require_a(extra.clone()), None);
        assert!(
            w.check(&pick(&w, "a.v2")).is_err(),
            "{extra} is not applied"
        );
    }
    let filter = json!({"nodes": [
        {"name": "load", "type": "load-catalogs"},
        {"name": "drop", "type": "filter", "inputs": ["load"], "select": {"bundle": "a.v2"}},
        {"name": "derive", "type": "datalog", "inputs": ["load", "drop"]}]});
    let w = world(require_a(json!({})), Some(filter));
    assert!(
        w.check(&pick(&w, "a.v2")).is_err(),
        "the pipeline filter is not applied"
    );
    let unused = json!({"nodes": [
        {"name": "load", "type": "load-catalogs"},
        {"name": "drop", "type": "filter", "inputs": ["load"], "select": {"bundle": "a.v2"}},
        {"name": "derive", "type": "datalog", "inputs": ["load"]}]});
    let w = world(require_a(json!({})), Some(unused));
    assert_eq!(
        w.check(&pick(&w, "a.v2")),
        Ok(()),
        "a filter no path uses applies"
    );
}

#[test]
fn pins_installed_bundles_and_upgrade_edges() {
    // A pin may name a skipped entry, not a deprecated one.
    let pin = |b: &str| json!({"require": [{"package": "a", "bundle": b}]});
    let w = world(pin("a.v1"), None);
    assert_eq!(w.check(&pick(&w, "a.v1")), Ok(()));
    let w = world(pin("a.v3"), None);
    assert!(w.check(&pick(&w, "a.v3")).is_err());
    // Installed a.v1: a.v2 replaces and skips it (one edge); a.v3 is two edges away.
    let installed = json!({"require": [{"package": "a"}],
        "installed": [{"bundle": "a.v1", "package": "a", "version": "1.0.0", "catalog": "main"}]});
    let w = world(installed, None);
    assert_eq!(w.check(&pick(&w, "a.v1")), Ok(()));
    assert_eq!(w.check(&pick(&w, "a.v2")), Ok(()));
    assert!(w.check(&[]).is_err());
    // An installed bundle is exempt from exclusions: installed a.v3 (deprecated) stays.
    let w = world(
        json!({"require": [{"package": "a"}],
               "installed": [{"bundle": "a.v3", "catalog": "main"}],
               "constraints": [{"prohibit": {"package": "a"}}]}),
        None,
    );
    assert_eq!(w.check(&pick(&w, "a.v3")), Ok(()));
    // Two bundles of one package, or of one API, are never an answer.
    let w = world(json!({"require": [{"package": "a"}]}), None);
    let both = [pick(&w, "a.v2"), pick(&w, "a.v1")].concat();
    assert!(w.check(&both).is_err());
}

#[test]
fn installed_bundle_in_no_catalog_keeps_its_requirements() {
    // docs/semantics.md §7: every property of an installed bundle counts, wherever it came
    // from. x.v1 is in no catalog and requires package a at 1.0.0 (a skipped entry, so only
    // installed a.v1 can meet it).
    let request = json!({
        "keepInstalled": true,
        "require": [{"package": "a"}],
        "installed": [
            {"bundle": "x.v1", "package": "x", "version": "1.0.0", "properties": [
                {"type": "olm.package.required", "value": {"packageName": "a", "versionRange": "1.0.0"}}]},
            {"bundle": "a.v1", "package": "a", "version": "1.0.0", "catalog": "main"}]});
    let w = world(request, None);
    let x = w
        .find("@installed", "x.v1")
        .expect("the installed-only bundle");
    let a1 = w.find("main", "a.v1").expect("a.v1");
    let a2 = w.find("main", "a.v2").expect("a.v2");
    assert_eq!(w.check(&[x, a1]), Ok(()));
    assert!(w.check(&[x, a2]).is_err(), "upgrading a breaks x.v1");
}

#[test]
fn installed_entries_as_docs_semantics_7_writes_them() {
    // Looked up by name alone; `@existing` never matches a catalog bundle.
    let w = world(
        json!({"require": [{"package": "a"}], "installed": [{"bundle": "a.v1"}]}),
        None,
    );
    assert_eq!(w.installed, pick(&w, "a.v1"));
    let w = world(
        json!({"require": [{"package": "a"}],
               "installed": [{"bundle": "a.v1", "catalog": "@existing", "package": "a", "version": "1.0.0"}]}),
        None,
    );
    assert_eq!(w.bundles[w.installed[0]].catalog, None);
    // A kept entry must stay; only one installed bundle per package may move.
    let kept = json!({"require": [{"package": "a"}],
        "installed": [{"bundle": "a.v1", "keep": true}]});
    let w = world(kept, None);
    assert!(w.check(&pick(&w, "a.v2")).is_err(), "a kept bundle moved");
    let two = json!({"installed": [{"bundle": "a.v1"}, {"bundle": "a.v2"}]});
    let input = CatalogInput {
        name: "main".into(),
        priority: 0,
        docs: documents(CATALOG).expect("parses"),
    };
    assert!(World::new(&[input], &two, None).is_err());
    // An installed bundle in no catalog stays even under a requirement naming a catalog.
    let w = world(
        json!({"require": [{"package": "a", "catalog": "main"}],
               "installed": [{"bundle": "a.v7", "package": "a", "version": "7.0.0"}]}),
        None,
    );
    let a7 = w.find("@installed", "a.v7").expect("installed a.v7");
    assert_eq!(w.check(&[a7]), Ok(()));
}

/// Every pipeline configuration of tests/pipeline/configs (filters, static variables,
/// mutations) run on its test catalogs: a resolved answer passes the checker given the same
/// configuration and is the answer §5 prefers, and an unsatisfiable request has no valid
/// subset.
#[test]
fn pipeline_answers_pass_the_checker_with_their_configuration() {
    use deppy::advanced::catalog::CatalogSource;
    use deppy::advanced::request::{Request, Requirement};
    use deppy::advanced::resolve::Outcome;
    use deppy::pipeline::{Pipeline, PipelineConfig, Sources};
    use std::path::Path;

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pipeline");
    let mut configs: Vec<_> = std::fs::read_dir(root.join("configs"))
        .expect("tests/pipeline/configs")
        .map(|e| e.expect("an entry").path())
        .collect();
    configs.sort();
    assert!(configs.len() >= 5);
    let catalogs = ["catalog", "other"];
    let mut judged = 0;
    for path in &configs {
        let text = std::fs::read_to_string(path).expect("a configuration");
        let raw = documents(&text).expect("YAML").remove(0);
        for package in ["vault", "etcd"] {
            let sources = Sources {
                catalogs: catalogs
                    .iter()
                    .map(|c| CatalogSource {
                        name: c.to_string(),
                        path: root.join(c),
                        priority: 0,
                    })
                    .collect(),
                request: Request {
                    require: vec![Requirement::from_spec(package).expect("a spec")],
                    ..Request::default()
                },
            };
            let mut pipeline =
                Pipeline::new(PipelineConfig::parse(&text).expect("parses")).expect("valid");
            let run = pipeline.run(&sources);
            let Ok(resolution) = run.result else {
                continue;
            };
            let inputs: Vec<CatalogInput> = catalogs
                .iter()
                .map(|c| CatalogInput {
                    name: c.to_string(),
                    priority: 0,
                    docs: checker::read_tree(&root.join(c)).expect("the catalog"),
                })
                .collect();
            let request = json!({"require": [{"package": package}]});
            let w = World::new(&inputs, &request, Some(&raw)).expect("the checker reads it");
            let what = format!("{} with --require {package}", path.display());
            match &resolution.outcome {
                Outcome::Resolved(a) => {
                    let sel: Vec<usize> = a
                        .selected
                        .iter()
                        .map(|s| {
                            w.find(&s.catalog, &s.bundle)
                                .expect("a bundle of the input")
                        })
                        .collect();
                    assert_eq!(w.check(&sel), Ok(()), "{what}");
                    assert_eq!(w.justified(&sel), Ok(()), "{what}");
                    // Static preferences and catalog priorities decide as §5 says.
                    let masks = w.masks().expect("a small catalog");
                    let mut want = checker::preference::preferred_answer(&w, &masks.all_valid())
                        .expect("an answer");
                    let mut got = sel.clone();
                    want.sort();
                    got.sort();
                    assert_eq!(got, want, "{what}: not the preferred answer");
                }
                Outcome::Unsatisfiable(_) => {
                    let masks = w.masks().expect("a small catalog");
                    assert!(
                        masks.all_valid().is_empty(),
                        "{what}: a valid subset exists"
                    );
                }
            }
            judged += 1;
        }
    }
    assert!(judged >= 8, "only {judged} pipeline runs judged");
}
