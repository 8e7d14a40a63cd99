//! The bodies of deppy's fuzz targets, shared by `fuzz/fuzz_targets/*.rs` (libFuzzer, nightly)
//! and `tests/fuzz_corpus.rs` (every committed corpus file as a plain regression test, on the
//! stable toolchain). Only deppy's public API is used.
//!
//! Each function takes arbitrary bytes and must not panic, overflow the stack or hang. Where it
//! is cheap, it also asserts an invariant: a resolved answer passes the independent checker of
//! `tests/support/checker/` (which reads the same catalog text and the request as JSON and
//! shares no code with deppy) and is minimal; on an input of at most 16 bundles, deppy
//! resolves exactly when some subset of the bundles passes that checker; a strict range
//! re-parses to the same meaning; a request survives a JSON round trip.

#![allow(dead_code)]

use std::path::PathBuf;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, Gvk, LoadOptions, SourceFile};
use deppy::advanced::constraint::{
    CandidateView, CelCache, Limits, OlmConstraint as Constraint, Predicate,
};
use deppy::advanced::explain::{Detail, explain_failure};
use deppy::advanced::generic::GenericFile;
use deppy::advanced::range::VersionRange;
use deppy::advanced::report::Report;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::{Outcome, Resolver};
use deppy::advanced::solver::{SolveError, SolveOptions, Var};
use deppy::advanced::version::Version;
use serde_json::{Value, json};

#[path = "cel_cost.rs"]
pub mod cel_cost;
#[path = "../tests/support/checker/mod.rs"]
mod checker;
#[path = "constraint_print.rs"]
pub mod constraint_print;
#[path = "../tests/support/generic_model.rs"]
mod generic_model;
#[path = "independent.rs"]
mod independent;

// Read by tests/fuzz_corpus.rs; the fuzz targets do not use it.
#[allow(unused_imports)]
pub use independent::take_tally;
use independent::{check_independently, checker_inputs, count};

/// A target's body.
pub type Target = fn(&[u8]);

/// Every target, by name: the fuzz target `fuzz_targets/<name>.rs` and the corpus folder
/// `corpus/<name>/` use the same name.
pub const TARGETS: &[(&str, Target)] = &[
    ("fbc_json", fbc_json),
    ("fbc_yaml", fbc_yaml),
    ("request", request),
    ("range", range),
    ("constraint", constraint),
    ("cel", cel),
    ("resolve", resolve),
    ("generic", generic),
];

/// Separates the parts of a `resolve` input: catalogs, then the request (see [`resolve`]).
pub const PART_SEPARATOR: &str = "\n%%\n";

/// Inputs longer than this are ignored by the targets that run whole resolutions (their
/// bugs are found on small inputs; long ones only slow the fuzzer down).
const MAX_RESOLVE_INPUT: usize = 64 << 10;

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

fn source(name: &str, path: &str, priority: i32) -> CatalogSource {
    CatalogSource {
        name: name.into(),
        path: PathBuf::from(path),
        priority,
    }
}

fn load_one(path: &str, body: String, keep_heavy: bool) -> Option<CatalogSet> {
    let file = SourceFile {
        path: path.into(),
        text: body,
    };
    CatalogSet::load_files(
        &[(source("fuzz", path, 0), vec![file])],
        &LoadOptions {
            keep_heavy_properties: keep_heavy,
            ..LoadOptions::default()
        },
    )
    .ok()
}

/// Resolves the first few packages of `set` one at a time and holds each answer against the
/// independent checker; words every failure.
fn resolve_some_packages(set: CatalogSet, max: usize, inputs: Option<&[checker::CatalogInput]>) {
    let mut names: Vec<String> = set
        .packages
        .iter()
        .map(|p| set.package_name(p.id).to_string())
        .collect();
    names.dedup();
    names.truncate(max);
    let resolver = resolver(set);
    for name in names {
        let request = Request {
            require: vec![Requirement {
                package: name,
                ..Requirement::default()
            }],
            ..Request::default()
        };
        resolve_and_check(&resolver, &request, inputs);
    }
}

/// A resolver with a conflict budget, so a hard fuzzed problem gives up instead of hanging.
fn resolver(set: CatalogSet) -> Resolver {
    Resolver::new(set).with_options(SolveOptions {
        max_conflicts: Some(20_000),
        ..SolveOptions::default()
    })
}

/// One resolution: a resolved answer must serialize, pass the independent checker and be
/// minimal; on at most 16 bundles, deppy resolves exactly when some subset passes the checker;
/// a failure must be worded.
fn resolve_and_check(
    resolver: &Resolver,
    request: &Request,
    inputs: Option<&[checker::CatalogInput]>,
) -> Option<bool> {
    let (universe, outcome) = resolver.resolve(request).ok()?;
    if let Outcome::Unsatisfiable(failure) = &outcome {
        let words = explain_failure(failure, &universe, request, Detail::Full);
        assert!(words.starts_with("No resolution exists"), "{words}");
    }
    let report = Report::new(&universe, request, &outcome, Detail::Summary, Vec::new());
    let _ = report.to_text();
    let json = serde_json::to_value(&report);
    assert!(json.is_ok(), "a report does not serialize: {json:?}");
    let resolved = matches!(outcome, Outcome::Resolved(_));
    if let (Some(inputs), Ok(json)) = (inputs, &json) {
        check_independently(inputs, request, resolved, json);
    }
    Some(resolved)
}

/// FBC JSON: the text as one `.json` catalog file; what loads is resolved package by package.
pub fn fbc_json(data: &[u8]) {
    let body = text(data);
    if let Some(set) = load_one("fuzz.json", body.clone(), false) {
        let inputs = checker_inputs(&[("fuzz".into(), 0, &body)]);
        resolve_some_packages(set, 3, inputs.as_deref());
    }
}

/// FBC YAML: the text as one `.yaml` catalog file, loaded with heavy properties cut out (the
/// default) and kept. When both load, they hold the same bundles. What loads is resolved.
pub fn fbc_yaml(data: &[u8]) {
    let body = text(data);
    let light = load_one("fuzz.yaml", body.clone(), false);
    let heavy = load_one("fuzz.yaml", body.clone(), true);
    if let (Some(a), Some(b)) = (&light, &heavy) {
        let names = |s: &CatalogSet| -> Vec<(String, String)> {
            s.bundles
                .iter()
                .map(|x| (x.name.clone(), x.version.to_string()))
                .collect()
        };
        assert_eq!(
            names(a),
            names(b),
            "cutting heavy properties changed the bundles"
        );
    }
    if let Some(set) = light {
        let inputs = checker_inputs(&[("fuzz".into(), 0, &body)]);
        resolve_some_packages(set, 3, inputs.as_deref());
    }
}

/// The request file (YAML or JSON). A request that parses survives a JSON round trip and
/// `--require` specs parse or fail cleanly.
pub fn request(data: &[u8]) {
    let body = text(data);
    for line in body.lines().take(4) {
        let _ = Requirement::from_spec(line);
    }
    let Ok(req) = Request::parse(&body) else {
        return;
    };
    let _ = req.admin_constraints();
    let _ = req.cluster_node();
    let json = serde_json::to_string(&req).expect("a parsed request serializes");
    let back = Request::parse(&json)
        .unwrap_or_else(|e| panic!("a serialized request does not parse again: {e}\n{json}"));
    assert_eq!(back, req, "request JSON round trip");
}

const VERSIONS: &[&str] = &[
    "0.0.0",
    "0.9.2",
    "1.0.0",
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0+build.5",
    "1.2.3",
    "1.2.4-rc.1",
    "1.10.0",
    "2.0.0",
    "2.0.0-0",
    "18446744073709551615.0.0",
];

/// OLM ranges. Line 1 is the range; later lines are versions to match (plus a fixed list).
/// A strict parse must also succeed tolerantly with the same meaning, and a tolerant parse's
/// repaired text must parse strictly with the same meaning.
pub fn range(data: &[u8]) {
    let body = text(data);
    let mut lines = body.split('\n');
    let spec = lines.next().unwrap_or("");
    let mut versions: Vec<Version> = VERSIONS.iter().filter_map(|v| v.parse().ok()).collect();
    for line in lines.take(8) {
        let _ = Version::parse(line);
        if let Ok(v) = Version::parse(line.trim()) {
            let _ = v.to_string();
            versions.push(v);
        }
    }
    let meaning =
        |r: &VersionRange| -> Vec<bool> { versions.iter().map(|v| r.matches(v)).collect() };
    let strict = VersionRange::parse(spec);
    let tolerant = VersionRange::parse_tolerant(spec);
    if let Ok(r) = &strict {
        let _ = r.to_string();
        let Ok((t, _)) = &tolerant else {
            panic!("{spec:?} parses strictly but not tolerantly");
        };
        assert_eq!(
            meaning(r),
            meaning(t),
            "strict and tolerant differ on {spec:?}"
        );
        let again = VersionRange::parse(r.raw())
            .unwrap_or_else(|e| panic!("raw text of {spec:?} does not re-parse: {e}"));
        assert_eq!(meaning(r), meaning(&again), "re-parse of {spec:?} differs");
    }
    if let Ok((t, _)) = &tolerant {
        let repaired = VersionRange::parse(t.raw()).unwrap_or_else(|e| {
            panic!("repaired text {:?} of {spec:?} is not strict: {e}", t.raw())
        });
        assert_eq!(
            meaning(t),
            meaning(&repaired),
            "repaired text {:?} of {spec:?} means something else",
            t.raw()
        );
    }
}

fn gvk(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

/// A candidate to test constraints against: package, version, provided APIs, properties.
type Candidate = (String, Version, Vec<Gvk>, Vec<(String, Value)>);

/// Fixed candidates to test constraints against.
fn candidates() -> Vec<Candidate> {
    let etcd = gvk("etcd.database.coreos.com", "v1beta2", "EtcdCluster");
    vec![
        (
            "etcd".into(),
            Version::new(0, 9, 4),
            vec![etcd.clone()],
            vec![
                (
                    "olm.package".into(),
                    json!({"packageName": "etcd", "version": "0.9.4"}),
                ),
                (
                    "olm.gvk".into(),
                    json!({"group": etcd.group, "version": etcd.version, "kind": etcd.kind}),
                ),
                ("certified".into(), json!({})),
                ("olm.label".into(), json!({"label": "tier"})),
                ("olm.maxOpenShiftVersion".into(), json!("4.22")),
                (
                    "nested".into(),
                    json!({"a": [1, 2.5, "x", null, true, {"b": -3}], "c": 18446744073709551615u64}),
                ),
            ],
        ),
        (
            "other".into(),
            "1.0.0-alpha+b"
                .parse()
                .unwrap_or_else(|_| Version::new(1, 0, 0)),
            Vec::new(),
            vec![(
                "olm.package".into(),
                json!({"packageName": "other", "version": "1.0.0-alpha+b"}),
            )],
        ),
        (
            "empty".into(),
            Version::new(0, 0, 0),
            Vec::new(),
            Vec::new(),
        ),
    ]
}

/// Tests `c` against the fixed candidates and words it.
fn exercise(c: &Constraint) {
    let _ = c.describe();
    let _ = c.message();
    let _ = c.to_string();
    for (package, version, provides, properties) in candidates() {
        let view = CandidateView {
            package: &package,
            version: &version,
            provides: provides.iter().collect(),
            properties: &properties,
        };
        let _ = c.test(&view);
    }
}

const CONSTRAINT_TYPES: &[&str] = &[
    "olm.constraint",
    "olm.all.required",
    "olm.any.required",
    "olm.none.required",
    "olm.package.required",
    "olm.gvk.required",
    "olm.label.required",
];

/// `olm.constraint` values (and the alias and simple requirement forms, chosen by the first
/// byte), parsed with the default limits, then tested against fixed candidates. The same JSON
/// as a decoded value parses to the same constraint, and so does the parsed tree printed back
/// as a property. Also parses the text as an admin constraint and as a cluster node.
pub fn constraint(data: &[u8]) {
    let (kind, rest) = match data.split_first() {
        Some((k, rest)) if *k < 0x20 => (
            CONSTRAINT_TYPES
                .get(usize::from(*k) % CONSTRAINT_TYPES.len())
                .copied()
                .unwrap_or("olm.constraint"),
            rest,
        ),
        _ => ("olm.constraint", data),
    };
    let raw = text(rest);
    let limits = Limits::default();
    let mut cache = CelCache::new();
    let parsed = Constraint::parse_typed(kind, &raw, &limits, &mut cache);
    if let Ok(c) = &parsed {
        exercise(c);
        // Printed back as a property and parsed again: the same tree.
        let (kind, value) = constraint_print::printed(c);
        match Constraint::from_typed_value(&kind, &value, &limits, &mut cache) {
            Ok(again) => assert_eq!(&again, c, "printed as {kind} {value}"),
            Err(e) => panic!("the printed constraint {kind} {value} does not parse: {e}"),
        }
        count(|t| t.round_trips += 1);
    }
    if let Ok(value) = serde_json::from_str::<Value>(&raw) {
        let decoded = Constraint::from_typed_value(kind, &value, &limits, &mut cache);
        if let (Ok(a), Ok(b)) = (&parsed, &decoded) {
            assert_eq!(a, b, "raw and decoded parses differ");
        }
        if let Ok(deppy::advanced::constraint::AdminEntry::Constraint(a)) =
            deppy::advanced::constraint::AdminEntry::from_value(
                &value,
                &limits,
                &mut CelCache::new(),
            )
        {
            exercise(&a.constraint);
        }
        if let Ok(cluster) =
            deppy::advanced::constraint::Cluster::from_value(&value, &limits, &mut CelCache::new())
        {
            let _ = cluster.provides();
            if let Ok(c) = &parsed {
                let _ = cluster.satisfies(c);
            }
        }
    }
}

/// CEL: the text up to the first NUL byte is a rule; after it, an optional JSON list of
/// `{type, value}` properties to evaluate it against (besides the fixed candidates). The rule
/// is compiled with the default limits and evaluated under `Constraint::test`; on inputs whose
/// lists hold at most 100 elements, evaluating it iterates over no more list elements than
/// its estimated cost.
pub fn cel(data: &[u8]) {
    let (rule, props) = match data.iter().position(|b| *b == 0) {
        Some(i) => (data.get(..i).unwrap_or(&[]), data.get(i + 1..)),
        None => (data, None),
    };
    let rule = text(rule);
    let mut cache = CelCache::new();
    let Ok(compiled) = cache.compile(&rule, &Limits::default(), "rule") else {
        return;
    };
    let cost = compiled.cost();
    let c = Constraint::new(Predicate::Cel(compiled));
    exercise(&c);
    // Evaluation never does more work than the estimate, on inputs whose lists are no longer
    // than the estimate assumes.
    let within_estimate = |properties: &[(String, Value)]| {
        let longest = properties
            .iter()
            .map(|(_, v)| cel_cost::longest_list(v))
            .max()
            .unwrap_or(0)
            .max(properties.len());
        if longest > cel_cost::ASSUMED_LIST {
            return;
        }
        if let Some(n) = cel_cost::iterations(&rule, properties) {
            assert!(
                n <= cost,
                "{rule:?} iterated {n} list elements, more than its estimated cost {cost}"
            );
            count(|t| t.costs += 1);
        }
    };
    for (_, _, _, properties) in candidates() {
        within_estimate(&properties);
    }
    let Some(Ok(Value::Array(list))) = props.map(serde_json::from_slice::<Value>) else {
        return;
    };
    let properties: Vec<(String, Value)> = list
        .into_iter()
        .take(64)
        .filter_map(|p| {
            let kind = p.get("type")?.as_str()?.to_string();
            Some((kind, p.get("value").cloned().unwrap_or(Value::Null)))
        })
        .collect();
    let version = Version::new(1, 0, 0);
    let view = CandidateView {
        package: "fuzz",
        version: &version,
        provides: Vec::new(),
        properties: &properties,
    };
    let _ = c.test(&view);
    within_estimate(&properties);
}

/// A whole resolution. The input is split at lines holding only `%%`: every part but the
/// last is a catalog (JSON or YAML, sniffed); the last is the request. Catalog `i` takes its
/// name and priority from the request's `catalogs[i]` when there is one (else `c<i>`, 0);
/// the request's paths are ignored. Without a separator the input is one catalog and each
/// of its first packages is required in turn. A resolved answer must pass the checker, and
/// resolving again gives the same report.
pub fn resolve(data: &[u8]) {
    if data.len() > MAX_RESOLVE_INPUT {
        return;
    }
    let body = text(data);
    let parts: Vec<&str> = body.split(PART_SEPARATOR).collect();
    let (catalog_parts, request) = match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => match Request::parse(last) {
            Ok(r) => (rest, Some(r)),
            Err(_) => return,
        },
        _ => (parts.as_slice(), None),
    };
    let named = |i: usize| -> (String, i32) {
        let Some(c) = request.as_ref().and_then(|r| r.catalogs.get(i)) else {
            return (format!("c{i}"), 0);
        };
        let name = c.name.clone().unwrap_or_else(|| {
            c.path
                .file_name()
                .map_or_else(|| format!("c{i}"), |n| n.to_string_lossy().into_owned())
        });
        (name, c.priority)
    };
    let named_parts: Vec<(String, i32, &str)> = catalog_parts
        .iter()
        .take(4)
        .enumerate()
        .map(|(i, t)| {
            let (name, priority) = named(i);
            (name, priority, *t)
        })
        .collect();
    let catalogs: Vec<(CatalogSource, Vec<SourceFile>)> = catalog_parts
        .iter()
        .take(4)
        .enumerate()
        .map(|(i, t)| {
            let (name, priority) = named(i);
            let file = SourceFile {
                path: format!("part{i}"),
                text: (*t).to_string(),
            };
            (source(&name, &format!("part{i}"), priority), vec![file])
        })
        .collect();
    let Ok(set) = CatalogSet::load_files(&catalogs, &LoadOptions::default()) else {
        return;
    };
    let inputs = checker_inputs(&named_parts);
    let Some(mut req) = request else {
        resolve_some_packages(set, 3, inputs.as_deref());
        return;
    };
    req.catalogs.clear();
    req.require.truncate(8);
    req.installed.truncate(8);
    req.constraints.truncate(8);
    let resolver = resolver(set);
    let report = |req: &Request| {
        resolver.resolve(req).ok().map(|(u, o)| {
            let r = Report::new(&u, req, &o, Detail::Full, Vec::new());
            serde_json::to_string(&r).unwrap_or_default()
        })
    };
    let first = report(&req);
    if let Err(e) = resolver.check_on_demand(&req) {
        panic!("derivation on demand differs from the whole program: {e}");
    }
    if let Err(e) = resolver.check_resolve_on_demand(&req) {
        panic!("resolving on demand differs from the whole program: {e}");
    }
    if resolve_and_check(&resolver, &req, inputs.as_deref()).is_some() {
        assert_eq!(
            first,
            report(&req),
            "resolving twice gives different reports"
        );
    }
}

/// The generic model (`deppy solve FILE`): parse, solve; a resolved selection satisfies every
/// constraint of the problem.
pub fn generic(data: &[u8]) {
    if data.len() > MAX_RESOLVE_INPUT {
        return;
    }
    let Ok(file) = GenericFile::parse(&text(data)) else {
        return;
    };
    let Ok(problem) = file.problem() else {
        return;
    };
    if problem.var_count() > 2000 {
        return;
    }
    let options = SolveOptions {
        max_conflicts: Some(20_000),
        ..SolveOptions::default()
    };
    let Ok(answer) = file.solve(&options) else {
        return;
    };
    if answer.status == "resolved" {
        let selected: Vec<Var> = answer
            .selected
            .iter()
            .filter_map(|id| file.variables.iter().position(|v| &v.id == id))
            .map(|i| Var(i as u32))
            .collect();
        assert_eq!(selected.len(), answer.selected.len());
        assert_eq!(
            generic_model::first_broken(&problem, &selected),
            None,
            "a resolved generic answer breaks a constraint"
        );
    }
    // Small problems: the model decides satisfiability by trying every selection, and an
    // unsatisfiability proof is checked step by step.
    if problem.var_count() <= 16 {
        let valid = generic_model::valid_masks(&problem);
        match deppy::advanced::solver::solve(&problem, &options) {
            Ok(_) => assert!(!valid.is_empty(), "solved, but no selection is valid"),
            Err(SolveError::Unsatisfiable(tree)) => {
                assert!(valid.is_empty(), "unsatisfiable, but a selection is valid");
                if let Err(e) = generic_model::check_proof(&problem, &tree) {
                    panic!("an unsound proof: {e}");
                }
            }
            Err(SolveError::GaveUp { .. }) => {}
        }
        count(|t| t.brute_forced += 1);
    }
}
