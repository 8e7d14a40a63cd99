//! resolvo as a whole process on the catalog file `deppy resolve` reads
//! (`deppy-compare resolvo-file --catalog catalog.json --roots roots.txt [--eager]`): it
//! parses the FBC JSON written by `emit::fbc` with serde_json (typed, borrowed strings),
//! rebuilds the model from the documents' properties, builds the resolvo provider and solves.
//! It prints the child JSON line (`engines.rs`). It reads only what this generator writes
//! (versions `1.V.0`, shared GVKs `S<k>` in group `shared.example.com`): a driver for this
//! benchmark's catalogs, not a general FBC reader.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::engines::Run;
use crate::model::{Bundle, Dep, Model, Range, Shape, VERSIONS, bid};
use crate::resolvo_engine;

#[derive(Deserialize)]
struct Doc<'a> {
    schema: &'a str,
    name: Option<&'a str>,
    package: Option<&'a str>,
    #[serde(borrow, default)]
    properties: Vec<Property<'a>>,
}

#[derive(Deserialize)]
struct Property<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    value: &'a RawValue,
}

#[derive(Deserialize)]
struct PackageValue<'a> {
    version: &'a str,
}

#[derive(Deserialize)]
struct GvkValue<'a> {
    group: &'a str,
    kind: &'a str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequiredValue<'a> {
    package_name: &'a str,
    version_range: &'a str,
}

/// `1.V.0` → V.
fn version_index(s: &str) -> Option<u8> {
    s.strip_prefix("1.")?.strip_suffix(".0")?.parse().ok()
}

/// `>=1.lo.0` or `>=1.lo.0 <1.hi.0` → (lo, hi).
fn range(s: &str) -> Option<(u8, u8)> {
    let mut parts = s.split_whitespace();
    let lo = version_index(parts.next()?.strip_prefix(">=")?)?;
    let hi = match parts.next() {
        Some(h) => version_index(h.strip_prefix('<')?)?,
        None => VERSIONS as u8,
    };
    Some((lo, hi))
}

/// Shared GVK `S<k>` → k.
fn shared(raw: &RawValue) -> Result<Option<u32>, String> {
    let g: GvkValue = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    if g.group != "shared.example.com" {
        return Ok(None);
    }
    Ok(g.kind.strip_prefix('S').and_then(|k| k.parse().ok()))
}

/// The model back from the catalog text.
pub fn model_of(text: &str, roots: &str) -> Result<Model, String> {
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut bundles_raw: Vec<(u32, u8, Vec<Dep>, Vec<u32>)> = Vec::new();
    let mut pending: Vec<(usize, &str, u8, u8)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let doc: Doc = serde_json::from_str(line).map_err(|e| e.to_string())?;
        match doc.schema {
            "olm.package" => {
                let name = doc.name.ok_or("olm.package without a name")?;
                index.insert(name.to_string(), names.len() as u32);
                names.push(name.to_string());
            }
            "olm.bundle" => {
                let package = doc.package.ok_or("olm.bundle without a package")?;
                let p = *index.get(package).ok_or("bundle before its package")?;
                let (mut v, mut deps, mut gvks) = (None, Vec::new(), Vec::new());
                for prop in &doc.properties {
                    match prop.kind {
                        "olm.package" => {
                            let pv: PackageValue = serde_json::from_str(prop.value.get())
                                .map_err(|e| e.to_string())?;
                            v = version_index(pv.version);
                        }
                        "olm.gvk" => gvks.extend(shared(prop.value)?),
                        "olm.gvk.required" => {
                            let k = shared(prop.value)?.ok_or("unknown required GVK")?;
                            deps.push(Dep::Gvk(k));
                        }
                        "olm.package.required" => {
                            let r: RequiredValue = serde_json::from_str(prop.value.get())
                                .map_err(|e| e.to_string())?;
                            let (lo, hi) = range(r.version_range).ok_or("bad range")?;
                            // the package may come later in the file: resolved below
                            pending.push((bundles_raw.len(), r.package_name, lo, hi));
                            deps.push(Dep::Pkg(Range { pkg: 0, lo, hi }));
                        }
                        _ => {}
                    }
                }
                let v = v.ok_or("bundle without a version")?;
                bundles_raw.push((p, v, deps, gvks));
            }
            _ => {}
        }
    }
    // package-range dependencies name their package; fill the ids in, in property order
    let mut k = 0;
    while k < pending.len() {
        let at = pending[k].0;
        let deps = &mut bundles_raw[at].2;
        for d in deps.iter_mut() {
            if let Dep::Pkg(r) = d {
                let (_, name, lo, hi) = pending[k];
                r.pkg = *index.get(name).ok_or("required package unknown")?;
                (r.lo, r.hi) = (lo, hi);
                k += 1;
            }
        }
    }
    let n = names.len();
    let shared_count = (n / 4).max(1);
    let mut provides: Vec<Vec<(u32, u8)>> = vec![Vec::new(); n];
    let mut bundles = vec![Bundle::default(); n * VERSIONS];
    for (p, v, deps, gvks) in bundles_raw {
        for g in gvks {
            let list = &mut provides[p as usize];
            match list.iter_mut().find(|(x, _)| *x == g) {
                Some((_, from)) => *from = (*from).min(v),
                None => list.push((g, v)),
            }
        }
        bundles[bid(p, v)].deps = deps;
    }
    let mut gvk_providers: Vec<Vec<(u32, u8)>> = vec![Vec::new(); shared_count];
    for (p, list) in provides.iter().enumerate() {
        for (g, from) in list {
            if let Some(slot) = gvk_providers.get_mut(*g as usize) {
                slot.push((p as u32, *from));
            }
        }
    }
    let roots = roots
        .split_whitespace()
        .map(|r| index.get(r).copied().ok_or(format!("unknown root {r}")))
        .collect::<Result<Vec<u32>, String>>()?;
    Ok(Model {
        shape: Shape::N,
        n,
        seed: 0,
        with_conflicts: false,
        names,
        gvk_providers,
        provides,
        bundles,
        roots,
    })
}

/// The whole process: read, rebuild, solve, print.
pub fn main(catalog: &str, roots: &str, eager: bool) -> Run {
    let mut run = Run::new();
    let read = std::fs::read_to_string(catalog)
        .map_err(|e| format!("{catalog}: {e}"))
        .and_then(|text| {
            let roots = std::fs::read_to_string(roots).map_err(|e| format!("{roots}: {e}"))?;
            model_of(&text, &roots)
        });
    let m = match read {
        Ok(m) => m,
        Err(e) => {
            run.note = e;
            return run;
        }
    };
    let provider = resolvo_engine::Provider::new(&m, eager);
    let (result, _solver) = resolvo_engine::solve(provider);
    match result {
        Ok(sel) => {
            run.status = "sat";
            run.selected = sel;
        }
        Err(text) => {
            run.status = "unsat";
            run.note = text.lines().next().unwrap_or("").to_string();
        }
    }
    run
}
