//! Resolution benchmark: every package of the merged real catalogs resolved one request at a
//! time (each answer held against the independent checker), and synthetic catalogs of 1k,
//! 10k and 100k bundles. Prints resolutions/s, p50/p99 per resolution and peak memory.
//! Run: `cargo bench --bench resolve` (set DEPPY_BENCH_QUICK=1 for a short run).

#[path = "support/real.rs"]
mod real;
#[path = "support/synth.rs"]
mod synth;

use std::time::{Duration, Instant};

use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::request::{Request, Requirement};
use deppy::resolve::{Outcome, Resolver, check};

fn real_sources() -> Vec<CatalogSource> {
    real::catalogs_in(&real::root())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.to_string())
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Resolves each request in turn; checks every answer; returns (times, resolved, unsat).
fn run(set: &CatalogSet, requests: &[Request]) -> (Vec<Duration>, usize, usize) {
    let resolver = Resolver::new(set.clone());
    let mut times = Vec::new();
    let (mut ok, mut unsat) = (0, 0);
    for r in requests {
        let t = Instant::now();
        let result = resolver.resolve(r);
        times.push(t.elapsed());
        match result {
            Ok((u, Outcome::Resolved(a))) => {
                if let Err(v) = check(&u, r, &a.bundles) {
                    panic!("checker rejects the answer to {:?}: {v}", r.require);
                }
                ok += 1;
            }
            Ok((_, Outcome::Unsatisfiable(_))) => {
                eprintln!(
                    "  unsatisfiable: {:?}",
                    r.require.iter().map(|q| &q.package).collect::<Vec<_>>()
                );
                unsat += 1
            }
            Err(e) => {
                eprintln!("  {:?}: {e}", r.require.first().map(|q| &q.package));
                unsat += 1
            }
        }
    }
    times.sort();
    (times, ok, unsat)
}

fn report(name: &str, bundles: usize, times: &[Duration], ok: usize, unsat: usize) {
    let total: Duration = times.iter().sum();
    println!(
        "{name:<34} {bundles:>7} bundles {:>6} requests {ok:>6} resolved {unsat:>5} not  {:>9.1} res/s  p50 {:>8.3} ms  p99 {:>8.3} ms  peak {:>6.0} MB",
        times.len(),
        times.len() as f64 / total.as_secs_f64(),
        percentile(times, 0.5).as_secs_f64() * 1e3,
        percentile(times, 0.99).as_secs_f64() * 1e3,
        peak_rss_mb()
    );
}

fn require(pkgs: &[String]) -> Request {
    Request {
        require: pkgs
            .iter()
            .map(|p| Requirement {
                package: p.clone(),
                ..Requirement::default()
            })
            .collect(),
        ..Request::default()
    }
}

fn main() {
    let quick = std::env::var_os("DEPPY_BENCH_QUICK").is_some();
    let sources = real_sources();
    let t = Instant::now();
    let set = CatalogSet::load(&sources, &LoadOptions::default()).expect("real catalogs load");
    println!(
        "loaded {} catalogs, {} bundles in {:.2} s",
        sources.len(),
        set.bundles.len(),
        t.elapsed().as_secs_f64()
    );
    let mut names: Vec<String> = set
        .packages
        .iter()
        .map(|p| set.package_name(p.id).to_string())
        .collect();
    names.sort();
    names.dedup();
    let requests: Vec<Request> = names
        .iter()
        .map(|n| require(std::slice::from_ref(n)))
        .collect();
    let (times, ok, unsat) = run(&set, &requests);
    report(
        "real: every package, one request",
        set.bundles.len(),
        &times,
        ok,
        unsat,
    );

    let dir = std::env::temp_dir().join(format!("deppy-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let sizes: &[usize] = if quick {
        &[100, 1_000]
    } else {
        &[100, 1_000, 10_000]
    };
    for &packages in sizes {
        let (fbc, roots) = synth::generate(packages, 10, 1.0, 42);
        let path = dir.join(format!("synth-{packages}.json"));
        std::fs::write(&path, fbc).expect("write synthetic catalog");
        let src = [CatalogSource {
            name: "synth".into(),
            path,
            priority: 0,
        }];
        let set = CatalogSet::load(&src, &LoadOptions::default()).expect("synthetic catalog loads");
        let reqs: Vec<Request> = (0..5).map(|_| require(&roots)).collect();
        let (times, ok, unsat) = run(&set, &reqs);
        report(
            &format!("synthetic: {} packages, 10 roots", packages),
            set.bundles.len(),
            &times,
            ok,
            unsat,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
