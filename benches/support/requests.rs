//! Resolving requests one at a time on a loaded catalog set, each answer held against
//! `deppy::advanced::resolve::check` (the resolver's consistency check, which shares the resolver's
//! reading of the catalogs); shared by the `resolve` and `load` benchmarks.

#![allow(dead_code)] // each benchmark uses part of it

use std::time::{Duration, Instant};

use deppy::advanced::catalog::CatalogSet;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::{Outcome, Resolver, check};

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

pub fn peak_rss_mb() -> f64 {
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

/// Resolves each request in turn on `resolver`; checks every answer; returns (sorted
/// times, resolved, unsat).
pub fn run_on(resolver: &Resolver, requests: &[Request]) -> (Vec<Duration>, usize, usize) {
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

/// As [`run_on`], with a resolver prepared for `set`.
pub fn run(set: &CatalogSet, requests: &[Request]) -> (Vec<Duration>, usize, usize) {
    run_on(&Resolver::new(set.clone()), requests)
}

/// One line: resolutions/s, p50, p99 and peak memory.
pub fn report(name: &str, bundles: usize, times: &[Duration], ok: usize, unsat: usize) {
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

/// A request requiring each of `pkgs` (any version, default channel).
pub fn require(pkgs: &[String]) -> Request {
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

/// One request per package name of `set`, in name order.
pub fn every_package(set: &CatalogSet) -> Vec<Request> {
    set.package_names()
        .iter()
        .map(|n| require(std::slice::from_ref(n)))
        .collect()
}
