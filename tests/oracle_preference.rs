//! OLM's preference order (docs/semantics.md §5) against a brute-force model. Random small
//! catalogs stress what decides between valid answers: up to three catalogs with tied or
//! different priorities, packages shipped by several catalogs, two channels with either one
//! the default, upgrade edges by replaces, skips and skipRange, `olm.deprecations` of a
//! package, a channel or a bundle, APIs several packages provide, local catalogs, installed
//! bundles in every form §7 allows (named in full or by name, in no catalog with their own
//! properties, `@existing`, `keep`) and `keepInstalled`, requirements with a catalog or a
//! channel, or on a package no catalog offers any more.
//!
//! The model (`tests/support/checker/preference.rs`, sharing no code with deppy) tries every
//! subset of the bundles for validity, then replays §5: requirements in request order,
//! dependencies breadth-first, each taking its most preferred candidate that some valid
//! selection extends. deppy's answer must be exactly that selection (and unsatisfiable
//! exactly when no subset is valid).
//!
//! `DEPPY_ORACLE_PREFERENCE_CASES` (default 1,500) and `DEPPY_ORACLE_SEED` as in
//! oracle_generic.rs; a failure prints the case seed.

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions, SourceFile};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::Request;
use deppy::advanced::resolve::{Outcome, Resolver};
use serde_json::{Value, json};

#[path = "support/checker/mod.rs"]
mod checker;
#[path = "support/oracle.rs"]
mod oracle;
use oracle::{Rng, env_usize};

const MAX_BUNDLES: usize = 12;
const CATALOGS: [&str; 3] = ["c0", "c1", "c2"];

/// One random case: each catalog's documents and the request.
struct Case {
    catalogs: Vec<(String, i32, Vec<Value>)>,
    request: Value,
}

fn gvk(k: usize) -> Value {
    json!({"group": "g.io", "version": "v1", "kind": format!("K{k}")})
}

fn random_case(rng: &mut Rng) -> Case {
    let ncat = rng.range(1, 3);
    let npkg = rng.range(2, 4);
    let mut docs: Vec<Vec<Value>> = vec![Vec::new(); ncat];
    let mut bundles: Vec<(usize, usize, usize)> = Vec::new(); // (catalog, package, version)
    let mut total = 0;
    for p in 0..npkg {
        let pkg = format!("p{p}");
        let cats: Vec<usize> = (0..ncat).filter(|_| rng.chance(55)).collect();
        let cats = if cats.is_empty() {
            vec![rng.below(ncat)]
        } else {
            cats
        };
        for c in cats {
            let n = rng.range(1, 3).min(MAX_BUNDLES.saturating_sub(total));
            if n == 0 {
                break;
            }
            total += n;
            let d = &mut docs[c];
            let fast = rng.chance(40);
            let default = if fast && rng.chance(50) {
                "fast"
            } else {
                "stable"
            };
            d.push(json!({"schema": "olm.package", "name": pkg, "defaultChannel": default}));
            let name = |v: usize| format!("{pkg}.v{v}");
            // Each version's entry, the same in every channel that lists it (edges that
            // differ between channels are the subject of `upgrade_edge_of_another_channel`).
            let entries: Vec<Value> = (0..n)
                .map(|v| {
                    let mut e = json!({"name": name(v)});
                    if v > 0 {
                        e["replaces"] = json!(name(v - 1));
                        if rng.chance(15) {
                            e["skips"] = json!([name(v - 1)]);
                        }
                    }
                    if v + 1 == n && v > 1 && rng.chance(30) {
                        e["skipRange"] = json!(format!("<1.{v}.0"));
                    }
                    e
                })
                .collect();
            d.push(json!({"schema": "olm.channel", "package": pkg, "name": "stable", "entries": entries}));
            if fast {
                // The top one or two versions.
                let from = n.saturating_sub(rng.range(1, 2));
                let top = entries[from..].to_vec();
                d.push(json!({"schema": "olm.channel", "package": pkg, "name": "fast", "entries": top}));
            }
            for v in 0..n {
                let mut props = vec![
                    json!({"type": "olm.package", "value": {"packageName": pkg, "version": format!("1.{v}.0")}}),
                ];
                if rng.chance(35) {
                    props.push(json!({"type": "olm.gvk", "value": gvk(rng.below(2))}));
                }
                if rng.chance(30) {
                    props.push(json!({"type": "olm.gvk.required", "value": gvk(rng.below(2))}));
                }
                if rng.chance(20) {
                    let t = rng.below(npkg);
                    if t != p {
                        props.push(json!({"type": "olm.package.required",
                            "value": {"packageName": format!("p{t}"), "versionRange": format!(">=1.{}.0", rng.below(2))}}));
                    }
                }
                d.push(json!({"schema": "olm.bundle", "package": pkg, "name": name(v), "image": "x", "properties": props}));
                bundles.push((c, p, v));
            }
            if rng.chance(20) {
                let reference = match rng.below(3) {
                    0 => json!({"schema": "olm.package"}),
                    1 => {
                        let channel = ["stable", "fast"][rng.below(2)];
                        json!({"schema": "olm.channel", "name": channel})
                    }
                    _ => json!({"schema": "olm.bundle", "name": name(rng.below(n))}),
                };
                d.push(json!({"schema": "olm.deprecations", "package": pkg,
                    "entries": [{"reference": reference, "message": "deprecated"}]}));
            }
        }
    }
    let require: Vec<Value> = (0..rng.range(1, 2))
        .map(|_| {
            let mut q = json!({"package": format!("p{}", rng.below(npkg))});
            if rng.chance(20) {
                q["catalog"] = json!(CATALOGS[rng.below(ncat)]);
            }
            if rng.chance(20) {
                q["channel"] = json!(["stable", "fast"][rng.below(2)]);
            }
            q
        })
        .collect();
    let installed = random_installed(rng, npkg, &bundles);
    let mut require = require;
    // A requirement on a package no catalog offers any more, kept by its installed bundle.
    if installed.iter().any(|i| i["package"] == "pz") && rng.chance(50) {
        require.push(json!({"package": "pz"}));
    }
    let catalogs = docs
        .into_iter()
        .enumerate()
        .map(|(c, d)| (CATALOGS[c].to_string(), rng.below(2) as i32, d))
        .collect();
    let mut request =
        json!({"require": require, "installed": installed, "keepInstalled": rng.chance(30)});
    if rng.chance(25) {
        request["localCatalogs"] = json!([CATALOGS[rng.below(ncat)]]);
    }
    Case { catalogs, request }
}

/// Installed entries in the forms docs/semantics.md §7 allows: a catalog bundle named in full,
/// by `{bundle, catalog}` or by `{bundle, package}`; a bundle no catalog has (of a catalog's
/// package or of package `pz`, which no catalog offers), with its own properties, its package
/// and version from the entry or only from its `olm.package` property, or in the `@existing`
/// catalog; sometimes marked `keep`, and sometimes a second, kept bundle of a package.
fn random_installed(rng: &mut Rng, npkg: usize, bundles: &[(usize, usize, usize)]) -> Vec<Value> {
    let mut installed = Vec::new();
    for p in 0..=npkg {
        if !rng.chance(25) {
            continue;
        }
        let of: Vec<&(usize, usize, usize)> = bundles.iter().filter(|b| b.1 == p).collect();
        let mut entry = if !of.is_empty() && rng.chance(70) {
            let (c, p, v) = *of[rng.below(of.len())];
            match rng.below(3) {
                0 => json!({"bundle": format!("p{p}.v{v}"), "package": format!("p{p}"),
                    "version": format!("1.{v}.0"), "catalog": CATALOGS[c]}),
                1 => json!({"bundle": format!("p{p}.v{v}"), "catalog": CATALOGS[c]}),
                _ => json!({"bundle": format!("p{p}.v{v}"), "package": format!("p{p}")}),
            }
        } else {
            let pkg = if p == npkg || rng.chance(30) {
                "pz".to_string()
            } else {
                format!("p{p}")
            };
            let mut props = vec![
                json!({"type": "olm.package", "value": {"packageName": pkg, "version": "1.9.0"}}),
            ];
            if rng.chance(40) {
                props.push(json!({"type": "olm.gvk", "value": gvk(rng.below(2))}));
            }
            if rng.chance(30) {
                props.push(json!({"type": "olm.gvk.required", "value": gvk(rng.below(2))}));
            }
            if rng.chance(30) {
                let target = format!("p{}", rng.below(npkg));
                let range = format!(">=1.{}.0", rng.below(3));
                props.push(json!({"type": "olm.package.required", "value": {"packageName": target, "versionRange": range}}));
            }
            let mut e = json!({"bundle": format!("{pkg}.v9"), "properties": props});
            if rng.chance(60) {
                e["package"] = json!(pkg);
                e["version"] = json!("1.9.0");
            }
            if pkg != "pz" && rng.chance(30) {
                // A name some catalog may have: `@existing` keeps it apart.
                e["bundle"] = json!(format!("{pkg}.v0"));
                e["catalog"] = json!("@existing");
            }
            e
        };
        if rng.chance(15) {
            entry["keep"] = json!(true);
        }
        installed.push(entry);
    }
    if let Some(pkg) = installed
        .first()
        .and_then(|e| e["package"].as_str())
        .map(str::to_string)
        && rng.chance(10)
    {
        installed.push(json!({"bundle": format!("{pkg}.v8"), "package": pkg, "version": "1.8.0", "keep": true}));
    }
    rng.shuffle(&mut installed);
    installed
}

/// deppy's answer as sorted `catalog/bundle` names, None when unsatisfiable.
fn deppy_answer(case: &Case) -> Result<Option<Vec<String>>, String> {
    let catalogs: Vec<(CatalogSource, Vec<SourceFile>)> = case
        .catalogs
        .iter()
        .map(|(name, priority, docs)| {
            let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
            let source = CatalogSource {
                name: name.clone(),
                path: name.into(),
                priority: *priority,
            };
            (
                source,
                vec![SourceFile {
                    path: format!("{name}/catalog.json"),
                    text,
                }],
            )
        })
        .collect();
    let set = CatalogSet::load_files(&catalogs, &LoadOptions::default())
        .map_err(|e| format!("the catalog does not load: {e}"))?;
    let request = Request::parse(&case.request.to_string())?;
    let resolver = Resolver::new(set);
    let (u, outcome) = resolver.resolve(&request).map_err(|e| e.to_string())?;
    if let Outcome::Unsatisfiable(_) = outcome {
        return Ok(None);
    }
    let report = Report::new(&u, &request, &outcome, Detail::Summary, Vec::new());
    let json = serde_json::to_value(&report).map_err(|e| e.to_string())?;
    let mut names: Vec<String> = json["selected"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            format!(
                "{}/{}",
                s["catalog"].as_str().unwrap_or("?"),
                s["bundle"].as_str().unwrap_or("?")
            )
        })
        .collect();
    names.sort();
    Ok(Some(names))
}

/// The model's answer, the same way.
fn model_answer(case: &Case) -> Result<Option<Vec<String>>, String> {
    let inputs: Vec<checker::CatalogInput> = case
        .catalogs
        .iter()
        .map(|(name, priority, docs)| checker::CatalogInput {
            name: name.clone(),
            priority: *priority,
            docs: docs.clone(),
        })
        .collect();
    let world = checker::World::new(&inputs, &case.request, None)?;
    let masks = world.masks().ok_or("too many bundles")?;
    let valid = masks.all_valid();
    Ok(
        checker::preference::preferred_answer(&world, &valid).map(|sel| {
            let mut names: Vec<String> = sel.iter().map(|b| world.describe(*b)).collect();
            names.sort();
            names
        }),
    )
}

struct Tally {
    cases: usize,
    resolved: usize,
    /// Inputs both refuse as bad input.
    refused: usize,
}

fn run(first: usize, count: usize, stride: usize) -> Tally {
    let base = oracle::base_seed(0x5EED_0000_9EF5);
    let mut t = Tally {
        cases: 0,
        resolved: 0,
        refused: 0,
    };
    let mut i = first;
    while i < count {
        let seed = base.wrapping_add(i as u64);
        let case = random_case(&mut Rng(seed));
        let fail = |what: String| -> ! {
            let docs: Vec<String> = case
                .catalogs
                .iter()
                .map(|(n, p, d)| {
                    format!(
                        "catalog {n} (priority {p}):\n{}",
                        d.iter()
                            .map(Value::to_string)
                            .collect::<Vec<_>>()
                            .join("\n")
                    )
                })
                .collect();
            panic!(
                "case seed {seed}: {what}\nrequest: {}\n{}",
                case.request,
                docs.join("\n")
            )
        };
        match (deppy_answer(&case), model_answer(&case)) {
            (Ok(got), Ok(want)) => {
                if got != want {
                    fail(format!(
                        "deppy answers {got:?}, docs/semantics.md §5 prefers {want:?}"
                    ));
                }
                t.resolved += usize::from(got.is_some());
            }
            // Bad input for both (e.g. a bundle named without a catalog that two catalogs have).
            (Err(_), Err(_)) => t.refused += 1,
            (Err(e), Ok(_)) => fail(format!("deppy refuses the input, the model reads it: {e}")),
            (Ok(_), Err(e)) => fail(format!("deppy reads the input, the model refuses it: {e}")),
        }
        t.cases += 1;
        i += stride;
    }
    t
}

#[test]
fn answers_are_the_most_preferred_valid_selection() {
    let count = env_usize("DEPPY_ORACLE_PREFERENCE_CASES", 1_500);
    let start = std::time::Instant::now();
    let tallies = oracle::on_every_core(count, run);
    let cases: usize = tallies.iter().map(|t| t.cases).sum();
    let resolved: usize = tallies.iter().map(|t| t.resolved).sum();
    let refused: usize = tallies.iter().map(|t| t.refused).sum();
    println!(
        "oracle_preference: {cases} random catalogs+requests ({resolved} resolved, {refused} refused as bad input by both) checked in {:.1} s on {} threads",
        start.elapsed().as_secs_f64(),
        tallies.len()
    );
    assert_eq!(cases, count);
    assert!(
        refused * 10 < cases,
        "too many cases are bad input: {refused}"
    );
}

/// docs/semantics.md §4/§7: an upgrade edge is a channel entry's, and a requirement's moves are
/// restricted to its channel, so only the edges of that channel count (as in OLM, whose cache
/// holds one entry per bundle and channel). Here a.v2 replaces a.v1 in `stable` only; with
/// installed a.v1 and `channel: fast`, staying is the only candidate. deppy upgrades to a.v2.
#[test]
fn upgrade_edge_of_another_channel() {
    let bundle = |v: usize| {
        json!({"schema": "olm.bundle", "package": "a", "name": format!("a.v{v}"), "image": "x",
            "properties": [{"type": "olm.package", "value": {"packageName": "a", "version": format!("1.{v}.0")}}]})
    };
    let case = Case {
        catalogs: vec![(
            "c0".into(),
            0,
            vec![
                json!({"schema": "olm.package", "name": "a", "defaultChannel": "stable"}),
                json!({"schema": "olm.channel", "package": "a", "name": "stable",
                    "entries": [{"name": "a.v1"}, {"name": "a.v2", "replaces": "a.v1"}]}),
                json!({"schema": "olm.channel", "package": "a", "name": "fast", "entries": [{"name": "a.v2"}]}),
                bundle(1),
                bundle(2),
            ],
        )],
        request: json!({"require": [{"package": "a", "channel": "fast"}],
            "installed": [{"bundle": "a.v1", "package": "a", "version": "1.1.0", "catalog": "c0"}]}),
    };
    let want = Some(vec!["c0/a.v1".to_string()]);
    assert_eq!(model_answer(&case), Ok(want.clone()));
    assert_eq!(deppy_answer(&case), Ok(want));
}
