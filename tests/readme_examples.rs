//! The examples the docs give for the constraint language (docs/constraints.md) and the
//! request file (docs/cli.md) parse as documented.

use deppy::advanced::constraint::{AdminEntry, CelCache, Limits, OlmConstraint as Constraint};
use deppy::advanced::request::Request;

fn doc(name: &str) -> String {
    let path = format!("{}/docs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The first ```yaml block after `marker`.
fn block_after(text: &str, marker: &str) -> String {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("the doc lacks {marker:?}"));
    let rest = &text[start..];
    let open = rest.find("```yaml\n").expect("a yaml block") + 8;
    let close = rest[open..].find("```").expect("block end");
    rest[open..open + close].to_string()
}

#[test]
fn every_constraint_kind_example_parses() {
    let yaml = block_after(&doc("constraints.md"), "One example per kind");
    let props: Vec<serde_json::Value> = serde_saphyr::from_str(&yaml).expect("yaml list");
    assert_eq!(props.len(), 7, "one example per kind and the alias form");
    let mut cache = CelCache::new();
    for p in &props {
        let kind = p["type"].as_str().expect("type");
        let c = Constraint::from_typed_value(kind, &p["value"], &Limits::default(), &mut cache);
        assert!(c.is_ok(), "{kind}: {:?}", c.err().map(|e| e.to_string()));
    }
}

#[test]
fn admin_and_request_examples_parse() {
    let yaml = block_after(&doc("constraints.md"), "**Admin constraints** (request");
    let list: Vec<serde_json::Value> =
        serde_saphyr::from_str(&yaml.replace("constraints:\n", "")).expect("yaml list");
    let mut cache = CelCache::new();
    let entries = AdminEntry::list_from_values(&list, &Limits::default(), &mut cache);
    assert_eq!(entries.map(|e| e.len()).ok(), Some(6));
    let request = block_after(&doc("cli.md"), "### Request file");
    assert!(
        Request::parse(&request).is_ok(),
        "{:?}",
        Request::parse(&request).err()
    );
}
