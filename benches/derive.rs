//! Derivation benchmark: the whole Datalog program for one request against derivation on
//! demand (the dependency lists of one bundle at a time, evaluated through the catalog's
//! indexes, `src/resolve/demand.rs`). The demanded bundles are the ones the answer
//! selects: what a solver that derives on first need would ask for. Then a whole request
//! (`Resolver::resolve`, from the loaded catalog to the answer, channel orders aside) with
//! the whole program against derivation driven by the search: solves run (1 on demand)
//! and bundles whose lists were derived on demand. Synthetic catalogs of the shape of issue 7
//! (`support/synth.rs`) at 1k, 10k and 100k bundles, 10 roots.
//! Prints medians of 5 (DEPPY_BENCH_ITERS) and the cost per bundle derived on demand
//! (`runs`: bundles, `us/run`: µs per bundle). First, every
//! package of the merged real catalogs, one request at a time, both ways (p50, p99).
//! Run: `cargo bench --bench derive` (DEPPY_BENCH_QUICK=1 stops at 10k bundles).

#[path = "support/real.rs"]
mod real;
#[path = "support/requests.rs"]
mod requests;
#[path = "support/synth.rs"]
mod synth;

use std::sync::Arc;
use std::time::{Duration, Instant};

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::resolve::{Adjustments, Outcome, Prepared, Resolver};
use requests::{every_package, require, run_on};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let quick = std::env::var_os("DEPPY_BENCH_QUICK").is_some();
    let iters: usize = std::env::var("DEPPY_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let sizes: &[usize] = if quick {
        &[100, 1_000]
    } else {
        &[100, 1_000, 10_000]
    };
    let sources = real::catalogs_in(&real::root());
    let set = Arc::new(CatalogSet::load(&sources, &LoadOptions::default()).expect("real catalogs"));
    let requests = every_package(&set);
    for (name, resolver) in [
        // Each mode twice, alternating: on this shared machine the order of the rows moves
        // single figures more than the mode does.
        (
            "real, whole program",
            Resolver::new(set.clone()).with_whole_program(),
        ),
        ("real, on demand", Resolver::new(set.clone())),
        (
            "real, whole program",
            Resolver::new(set.clone()).with_whole_program(),
        ),
        ("real, on demand", Resolver::new(set.clone())),
    ] {
        let (times, ok, unsat) = run_on(&resolver, &requests);
        println!(
            "{name:<20} {} requests {ok} resolved {unsat} not  p50 {:.3} ms  p99 {:.3} ms",
            requests.len(),
            ms(requests::percentile(&times, 0.50)),
            ms(requests::percentile(&times, 0.99)),
        );
    }
    let dir = std::env::temp_dir().join(format!("deppy-bench-derive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!(
        "{:>8} {:>9} {:>9} {:>6} {:>6} {:>10} {:>7} | {:>10} {:>10} {:>7} {:>9} {:>6}",
        "bundles",
        "selected",
        "whole ms",
        "runs",
        "lists",
        "demand ms",
        "us/run",
        "req whole",
        "req lazy",
        "solves",
        "demanded",
        "ratio"
    );
    for &packages in sizes {
        let (fbc, roots) = synth::generate(packages, 10, 1.0, 42);
        let path = dir.join(format!("synth-{packages}.json"));
        std::fs::write(&path, fbc).expect("write synthetic catalog");
        let src = [CatalogSource {
            name: "synth".into(),
            path,
            priority: 0,
        }];
        let set = Arc::new(CatalogSet::load(&src, &LoadOptions::default()).expect("loads"));
        let request = require(&roots);
        let resolver = Resolver::new(set.clone());
        let selected = match resolver.resolve(&request) {
            Ok((_, Outcome::Resolved(a))) => a.bundles,
            _ => Vec::new(),
        };
        let prepared = Prepared::new(set.clone());
        let whole: Vec<Duration> = (0..iters)
            .map(|_| {
                let t = Instant::now();
                let model = prepared
                    .derive(Arc::new(request.clone()), &Adjustments::default(), None)
                    .expect("derives");
                let d = t.elapsed();
                drop(model);
                d
            })
            .collect();
        let mut lists = 0;
        let demand: Vec<Duration> = (0..iters)
            .map(|_| {
                let t = Instant::now();
                lists = prepared
                    .derive_on_demand(&request, &selected)
                    .expect("derives on demand");
                t.elapsed()
            })
            .collect();
        let (w, d) = (median(whole), median(demand));
        let whole_resolver = Resolver::new(set.clone()).with_whole_program();
        let mut stats = Default::default();
        let time = |r: &Resolver, stats: &mut deppy::advanced::resolve::Demand| -> Vec<Duration> {
            (0..iters)
                .map(|_| {
                    let t = Instant::now();
                    let (out, s) = r.resolve_counting(&request);
                    let d = t.elapsed();
                    assert!(out.is_ok(), "resolves");
                    *stats = s;
                    d
                })
                .collect()
        };
        let rw = median(time(&whole_resolver, &mut stats));
        let rl = median(time(&resolver, &mut stats));
        println!(
            "{:>8} {:>9} {:>9.1} {:>6} {:>6} {:>10.2} {:>7.1} | {:>10.1} {:>10.1} {:>7} {:>9} {:>6.2}",
            set.bundles.len(),
            selected.len(),
            ms(w),
            selected.len(),
            lists,
            ms(d),
            ms(d) * 1e3 / selected.len().max(1) as f64,
            ms(rw),
            ms(rl),
            stats.rounds,
            stats.bundles,
            ms(rl) / ms(rw).max(1e-9)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
