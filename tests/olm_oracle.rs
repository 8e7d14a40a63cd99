//! Property test of the whole OLM pipeline against a brute-force oracle: random small FBC
//! catalogs and requests. The oracle is the independent checker of `tests/support/checker/`
//! (it reads the same documents and the request as JSON, and shares no code with deppy):
//! deppy resolves iff some subset of the bundles passes it; every answer passes it, is
//! justified, and is the answer docs/semantics.md §5 prefers; shuffled documents give
//! byte-identical output.

use std::path::{Path, PathBuf};

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::{InstalledBundle, Request, Requirement};
use deppy::advanced::resolve::{Outcome, Resolver};
use proptest::prelude::*;
use serde_json::Value;

#[path = "support/checker/mod.rs"]
mod checker;

#[derive(Clone, Debug)]
struct Dep {
    kind: u8, // 0 package, 1 gvk
    target: usize,
    min: u32,
}

#[derive(Clone, Debug)]
struct Bundle {
    gvk: Option<usize>,
    deps: Vec<Dep>,
    deprecated: bool,
    skipped: bool,
}

#[derive(Clone, Debug)]
struct Case {
    packages: Vec<Vec<Bundle>>,
    require: Vec<(usize, Option<u32>)>,
    installed: Option<(usize, u32)>,
    keep_installed: bool,
    /// Admin constraints: (kind, package, version); see [`admin`].
    admin: Vec<(u8, usize, u32)>,
}

fn arb_case() -> impl Strategy<Value = Case> {
    let dep =
        (0u8..2, 0usize..4, 0u32..3).prop_map(|(kind, target, min)| Dep { kind, target, min });
    let bundle = (
        prop::option::of(0usize..2),
        prop::collection::vec(dep, 0..2),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(gvk, deps, deprecated, skipped)| Bundle {
            gvk,
            deps,
            deprecated,
            skipped,
        });
    let package = prop::collection::vec(bundle, 1..4);
    (
        prop::collection::vec(package, 1..5),
        prop::collection::vec((0usize..4, prop::option::of(0u32..3)), 1..3),
        prop::option::of((0usize..4, 0u32..3)),
        any::<bool>(),
        prop::collection::vec((0u8..4, 0usize..4, 0u32..3), 0..3),
    )
        .prop_map(
            |(packages, require, installed, keep_installed, admin)| Case {
                packages,
                require,
                installed,
                keep_installed,
                admin,
            },
        )
}

/// The catalog as FBC JSON documents.
fn documents(case: &Case) -> Vec<String> {
    let mut docs = Vec::new();
    let n = case.packages.len();
    for (p, bundles) in case.packages.iter().enumerate() {
        docs.push(format!(
            r#"{{"schema":"olm.package","name":"p{p}","defaultChannel":"stable"}}"#
        ));
        // entry v replaces v-1, and also skips it when v-1 is marked skipped
        let entries: Vec<String> = (0..bundles.len())
            .map(|v| {
                let mut e = format!(r#"{{"name":"p{p}.v{v}""#);
                if v > 0 {
                    e.push_str(&format!(r#","replaces":"p{p}.v{}""#, v - 1));
                    if bundles[v - 1].skipped {
                        e.push_str(&format!(r#","skips":["p{p}.v{}"]"#, v - 1));
                    }
                }
                e.push('}');
                e
            })
            .collect();
        docs.push(format!(
            r#"{{"schema":"olm.channel","package":"p{p}","name":"stable","entries":[{}]}}"#,
            entries.join(",")
        ));
        for (v, b) in bundles.iter().enumerate() {
            let mut props = vec![format!(
                r#"{{"type":"olm.package","value":{{"packageName":"p{p}","version":"1.{v}.0"}}}}"#
            )];
            if let Some(g) = b.gvk {
                props.push(format!(r#"{{"type":"olm.gvk","value":{{"group":"g.example.com","version":"v1","kind":"K{g}"}}}}"#));
            }
            for d in &b.deps {
                let t = d.target % n;
                if d.kind == 0 && t != p {
                    props.push(format!(
                        r#"{{"type":"olm.package.required","value":{{"packageName":"p{t}","versionRange":">=1.{}.0"}}}}"#,
                        d.min
                    ));
                } else if d.kind == 1 {
                    props.push(format!(
                        r#"{{"type":"olm.gvk.required","value":{{"group":"g.example.com","version":"v1","kind":"K{}"}}}}"#,
                        d.target % 2
                    ));
                }
            }
            if b.deprecated {
                props.push(r#"{"type":"olm.deprecated","value":{}}"#.to_string());
            }
            docs.push(format!(
                r#"{{"schema":"olm.bundle","package":"p{p}","name":"p{p}.v{v}","image":"x","properties":[{}]}}"#,
                props.join(",")
            ));
        }
    }
    docs
}

fn request(case: &Case) -> Request {
    let n = case.packages.len();
    let require = case
        .require
        .iter()
        .map(|(p, min)| Requirement {
            package: format!("p{}", p % n),
            version_range: min.map(|m| format!(">=1.{m}.0").parse().expect("valid range")),
            ..Requirement::default()
        })
        .collect();
    let installed = case
        .installed
        .iter()
        .filter_map(|(p, v)| {
            let p = p % n;
            let v = (*v as usize) % case.packages[p].len();
            Some(InstalledBundle {
                bundle: format!("p{p}.v{v}"),
                package: Some(format!("p{p}")),
                version: Some(format!("1.{v}.0").parse().ok()?),
                catalog: Some("main".into()),
                ..InstalledBundle::default()
            })
        })
        .collect();
    Request {
        require,
        installed,
        keep_installed: case.keep_installed,
        constraints: case.admin.iter().map(|a| admin(*a, n)).collect(),
        ..Request::default()
    }
}

/// An admin constraint: prohibit a package or a bundle, conflict with a package's versions
/// from `1.v.0`, or require every bundle to be at `1.v.0` or above (a CEL rule).
fn admin((kind, p, v): (u8, usize, u32), n: usize) -> serde_json::Value {
    let p = p % n;
    match kind {
        0 => serde_json::json!({"prohibit": {"package": format!("p{p}")}}),
        1 => serde_json::json!({"prohibit": {"bundle": format!("p{p}.v{v}")}}),
        2 => serde_json::json!({"action": "conflict",
            "package": {"packageName": format!("p{p}"), "versionRange": format!(">=1.{v}.0")}}),
        _ => serde_json::json!({"action": "require", "cel": {"rule": format!(
            "properties.exists(p, p.type == \"olm.package\" && semver_compare(p.value.version, \"1.{v}.0\") >= 0)"
        )}}),
    }
}

fn write(dir: &Path, docs: &[String]) -> PathBuf {
    std::fs::create_dir_all(dir).expect("temp dir");
    let file = dir.join("catalog.json");
    std::fs::write(&file, docs.join("\n")).expect("write catalog");
    file
}

fn resolve_json(path: PathBuf, docs: &[String], req: &Request) -> (String, Option<bool>) {
    let set = CatalogSet::load(
        &[CatalogSource {
            name: "main".into(),
            path,
            priority: 0,
        }],
        &LoadOptions::default(),
    )
    .expect("generated catalog loads");
    let resolver = Resolver::new(set.clone());
    let (u, outcome) = resolver
        .resolve(req)
        .expect("no bad input in generated cases");
    let report = Report::new(&u, req, &outcome, Detail::Full, Vec::new());
    let json = serde_json::to_string(&report).expect("serializable");
    let input = checker::CatalogInput {
        name: "main".into(),
        priority: 0,
        docs: docs
            .iter()
            .map(|d| serde_json::from_str(d).expect("a generated document"))
            .collect(),
    };
    let request = serde_json::to_value(req).expect("a request serializes");
    let world = checker::World::new(&[input], &request, None).expect("the checker reads the case");
    let masks = world.masks().expect("at most 24 bundles");
    let valid = masks.all_valid();
    let preferred = checker::preference::preferred_answer(&world, &valid);
    let resolved = match &outcome {
        Outcome::Resolved(_) => {
            let value: Value = serde_json::from_str(&json).expect("report JSON");
            let sel = world
                .selection_of_report(&value)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(world.check(&sel), Ok(()), "the answer fails the checker");
            assert_eq!(world.justified(&sel), Ok(()), "the answer is not minimal");
            let names = |s: &[usize]| {
                let mut v: Vec<String> = s.iter().map(|b| world.describe(*b)).collect();
                v.sort();
                v
            };
            assert_eq!(
                names(&sel),
                names(preferred.as_deref().unwrap_or_default()),
                "deppy's answer is not the one docs/semantics.md §5 prefers"
            );
            Some(true)
        }
        Outcome::Unsatisfiable(_) => Some(false),
    };
    let exists = !valid.is_empty();
    assert_eq!(
        resolved,
        Some(exists),
        "deppy resolved={resolved:?}, brute force finds a valid set={exists}"
    );
    (json, resolved)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn resolves_iff_brute_force_finds_a_valid_set(case in arb_case(), seed in any::<u64>()) {
        let total: usize = case.packages.iter().map(Vec::len).sum();
        prop_assume!(total <= 12);
        let docs = documents(&case);
        let req = request(&case);
        let base = std::env::temp_dir().join(format!("deppy-oracle-{}-{seed}", std::process::id()));
        let (a, _) = resolve_json(write(&base.join("a"), &docs), &docs, &req);
        // Same documents, shuffled by the seed.
        let mut shuffled = docs.clone();
        let mut s = seed | 1;
        for i in (1..shuffled.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            shuffled.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let (b, _) = resolve_json(write(&base.join("b"), &shuffled), &shuffled, &req);
        let _ = std::fs::remove_dir_all(&base);
        prop_assert_eq!(a, b);
    }
}
