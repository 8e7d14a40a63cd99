//! Resolution benchmark: every package of the merged real catalogs resolved one request at a
//! time (each answer held against `deppy::advanced::resolve::check`, the resolver's consistency check,
//! not an independent one), and synthetic catalogs of 1k, 10k and 100k bundles.
//! Prints resolutions/s, p50/p99 per resolution and peak memory.
//! Run: `cargo bench --bench resolve` (set DEPPY_BENCH_QUICK=1 for a short run).

#[path = "support/real.rs"]
mod real;
#[path = "support/requests.rs"]
mod requests;
#[path = "support/synth.rs"]
mod synth;

use std::time::Instant;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::request::Request;
use requests::{every_package, report, require, run};

fn real_sources() -> Vec<CatalogSource> {
    real::catalogs_in(&real::root())
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
    let (times, ok, unsat) = run(&set, &every_package(&set));
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
