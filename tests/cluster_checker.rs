//! Every namespace the cluster scenarios of `tests/cluster/` resolve, held against the
//! independent checker of `tests/support/checker/` (docs/semantics.md §9 turns a namespace
//! into a request; §1–§7 judge the answer).
//!
//! What is independent here, and what is not: the request a namespace becomes (its
//! Subscriptions as requirements, its CSVs as installed bundles, its local catalogs) is
//! deppy's own translation (`plan_cluster`), taken as given. The checker then reads the bound
//! catalogs' files and that request itself and judges the namespace's answer: valid,
//! justified, and, on catalogs of at most 16 bundles, the answer the §5 preference model
//! prefers. A namespace deppy finds unsatisfiable must have a Subscription that OLM's
//! prechecks refuse (§9: its catalog, package, channel or starting CSV missing, recomputed
//! here from the checker's reading of the catalogs) or no valid selection at all. Blocked
//! namespaces (OLM would not resolve them) have no answer to check.

use std::path::{Path, PathBuf};

use deppy::advanced::cluster::{
    NamespaceAnswer, NamespaceOutcome, NamespacePlan, Status, plan_cluster, resolve_cluster,
};
use deppy::advanced::scenario;
use serde_json::Value;

#[path = "support/checker/mod.rs"]
mod checker;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// At most this many bundles: the preference model and the search for a valid selection try
/// every subset.
const BRUTE_FORCE_BUNDLES: usize = 16;

#[derive(Default)]
struct Tally {
    resolved: usize,
    preferred: usize,
    unsatisfiable: usize,
    prechecked: usize,
    blocked: usize,
    bundle_dirs: usize,
}

/// True when a bound catalog is bundle directories (a directory with `manifests/` and
/// `metadata/`, at most two levels down): the checker reads File-Based Catalogs only.
fn has_bundle_dirs(plan: &NamespacePlan) -> bool {
    let is_bundle = |d: &Path| d.join("manifests").is_dir() && d.join("metadata").is_dir();
    let children = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    plan.catalogs
        .iter()
        .filter_map(|c| c.path.as_ref())
        .any(|p| {
            is_bundle(p)
                || children(p)
                    .iter()
                    .any(|c| is_bundle(c) || children(c).iter().any(|g| is_bundle(g)))
        })
}

fn world(plan: &NamespacePlan) -> Result<checker::World, String> {
    let request = serde_json::to_value(&plan.request).map_err(|e| e.to_string())?;
    let inputs = plan
        .catalogs
        .iter()
        .filter_map(|c| c.path.as_ref().map(|p| (c, p)))
        .map(|(c, p)| {
            Ok(checker::CatalogInput {
                name: c.name.clone(),
                priority: c.priority,
                docs: checker::read_tree(p)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    checker::World::new(&inputs, &request, None)
}

fn names(w: &checker::World, sel: &[usize]) -> Vec<String> {
    let mut out: Vec<String> = sel.iter().map(|&b| w.describe(b)).collect();
    out.sort();
    out
}

/// The first Subscription (requirement) OLM refuses before resolving (§9): its catalog,
/// package, channel or starting CSV is missing from the catalog it names.
fn precheck(w: &checker::World) -> Option<String> {
    w.request.require.iter().find_map(|q| {
        let catalog = q.catalog.as_deref()?;
        let Some(c) = w.catalogs.iter().position(|(n, _)| n == catalog) else {
            return Some(format!("no catalog {catalog}"));
        };
        let of_package: Vec<&checker::Bundle> = w
            .bundles
            .iter()
            .filter(|b| b.catalog == Some(c) && b.package == q.package)
            .collect();
        let in_channel: Vec<&&checker::Bundle> = of_package
            .iter()
            .filter(|b| q.channel.as_ref().is_none_or(|ch| b.entry_of.contains(ch)))
            .collect();
        if of_package.is_empty() {
            Some(format!("no package {} in {catalog}", q.package))
        } else if in_channel.is_empty() {
            Some(format!("no channel {:?} of {}", q.channel, q.package))
        } else if let Some(start) = &q.bundle
            && !in_channel.iter().any(|b| b.name == *start)
        {
            Some(format!("no starting CSV {start}"))
        } else {
            None
        }
    })
}

/// Judges one namespace's answer; Err says what the checker found wrong.
fn judge(plan: &NamespacePlan, ns: &NamespaceAnswer, tally: &mut Tally) -> Result<(), String> {
    if has_bundle_dirs(plan) {
        tally.bundle_dirs += 1;
        return Ok(());
    }
    let w = world(plan)?;
    let masks = w.masks().filter(|m| m.n <= BRUTE_FORCE_BUNDLES);
    let valid = masks.as_ref().map(|m| m.all_valid());
    match ns.status {
        Status::Resolved => {
            if let Some(refused) = precheck(&w) {
                return Err(format!(
                    "resolved, but OLM's prechecks refuse it: {refused}"
                ));
            }
            let report = serde_json::json!({ "selected": &ns.selected });
            let sel = w.selection_of_report(&report)?;
            w.check(&sel)?;
            w.justified(&sel)?;
            tally.resolved += 1;
            if let Some(valid) = &valid {
                let best = checker::preference::preferred_answer(&w, valid)
                    .ok_or("resolved, but the checker finds no valid selection")?;
                if names(&w, &best) != names(&w, &sel) {
                    return Err(format!(
                        "not the preferred answer: deppy {:?}, the §5 model {:?}",
                        names(&w, &sel),
                        names(&w, &best)
                    ));
                }
                tally.preferred += 1;
            }
        }
        // OLM's refusals (the answer's data) and the checker's own reading of the catalogs
        // agree on which namespaces the prechecks stop.
        Status::Unsatisfiable if precheck(&w).is_some() => {
            if !matches!(ns.outcome, NamespaceOutcome::Refused(_)) {
                return Err("the prechecks refuse it, but deppy's answer is not a refusal".into());
            }
            tally.prechecked += 1
        }
        Status::Unsatisfiable => {
            if !matches!(ns.outcome, NamespaceOutcome::Unsatisfiable(_)) {
                return Err("unsatisfiable without a proof, but no precheck refuses it".into());
            }
            let valid = valid.ok_or("unsatisfiable on too many bundles to search")?;
            if let Some(&s) = valid.first() {
                let sel: Vec<usize> = (0..w.bundles.len()).filter(|b| s & 1 << b != 0).collect();
                return Err(format!(
                    "unsatisfiable, but {:?} passes the checker",
                    names(&w, &sel)
                ));
            }
            tally.unsatisfiable += 1;
        }
        Status::Blocked | Status::GaveUp => tally.blocked += 1,
    }
    Ok(())
}

fn folders() -> Vec<PathBuf> {
    scenario::find(&[Path::new(MANIFEST).join("tests/cluster")])
}

#[test]
fn cluster_answers_pass_the_independent_checker() {
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for dir in folders() {
        let name = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into());
        // Scenarios whose input is bad (exit 2) have no answer.
        let Ok((state, bindings, opts)) = scenario::cluster::inputs(&dir) else {
            continue;
        };
        let (Ok(plans), Ok(answer)) = (
            plan_cluster(&state, &bindings, &opts),
            resolve_cluster(&state, &bindings, &opts),
        ) else {
            continue;
        };
        for ns in &answer.namespaces {
            let Some(plan) = plans.iter().find(|p| p.namespace == ns.namespace) else {
                failures.push(format!("{name}: no plan for namespace {}", ns.namespace));
                continue;
            };
            if let Err(e) = judge(plan, ns, &mut tally) {
                failures.push(format!("{name}, namespace {}: {e}", ns.namespace));
            }
        }
    }
    println!(
        "cluster scenarios: {} resolved namespaces checked ({} also against the preference \
         model), {} unsatisfiable confirmed by brute force, {} refused by the prechecks, {} \
         blocked (nothing to check), {} on bundle directories (not read by the checker)",
        tally.resolved,
        tally.preferred,
        tally.unsatisfiable,
        tally.prechecked,
        tally.blocked,
        tally.bundle_dirs
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        tally.resolved >= 15,
        "only {} namespaces checked",
        tally.resolved
    );
    assert!(
        tally.preferred >= 10,
        "only {} preference checks",
        tally.preferred
    );
    assert!(
        tally.unsatisfiable + tally.prechecked >= 4,
        "few unsatisfiable namespaces"
    );
}

#[test]
fn the_checker_rejects_a_wrong_cluster_answer() {
    let dir = Path::new(MANIFEST).join("tests/cluster/upgrade-replaces");
    let (state, bindings, opts) = scenario::cluster::inputs(&dir).expect("scenario inputs");
    let plans = plan_cluster(&state, &bindings, &opts).expect("plans");
    let answer = resolve_cluster(&state, &bindings, &opts).expect("answer");
    let ns = &answer.namespaces[0];
    let w = world(&plans[0]).expect("checker input");
    let mut report = serde_json::json!({ "selected": &ns.selected });
    // The installed CSV stays and its upgrade is added: two bundles of one package.
    let selected = report["selected"].as_array_mut().expect("selected");
    let installed = plans[0].request.installed[0].bundle.clone();
    selected.push(serde_json::json!({"bundle": installed, "catalog": "@existing"}));
    let sel = w.selection_of_report(&report).expect("names bundles");
    assert!(w.check(&sel).is_err(), "a doubled package passes");
    // Nothing selected: the Subscription's requirement is not met.
    report["selected"] = Value::Array(Vec::new());
    let sel = w.selection_of_report(&report).expect("empty");
    assert!(w.check(&sel).is_err(), "an empty answer passes");
}
