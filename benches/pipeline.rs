//! Pipeline benchmark: whole executions of the default pipeline (read files, parse, derive,
//! solve) with and without a trace, cold (a new pipeline each time) and warm (one pipeline
//! kept alive, as `deppy watch` does: unchanged files are not parsed again).
//! Prints the median of each and the trace overhead as a ratio.
//! Run: `cargo bench --bench pipeline` (DEPPY_BENCH_QUICK=1 for fewer iterations).

#[path = "support/real.rs"]
mod real;

use std::path::Path;
use std::time::{Duration, Instant};

use deppy::advanced::catalog::CatalogSource;
use deppy::advanced::request::{Request, Requirement};
use deppy::pipeline::trace::TraceWriter;
use deppy::pipeline::{Pipeline, PipelineConfig, Sources};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn one(sources: &Sources, trace: Option<&Path>, keep: Option<&mut Pipeline>) -> Duration {
    let mut fresh;
    let p = match keep {
        Some(p) => p,
        None => {
            fresh = Pipeline::new(PipelineConfig::default_config()).expect("default pipeline");
            &mut fresh
        }
    };
    let t = Instant::now();
    let writer = trace.map(|path| TraceWriter::attach(p, path).expect("trace"));
    let run = p.run(sources);
    if let Some(w) = writer {
        w.finish(&run).expect("trace written");
    }
    let d = t.elapsed();
    assert!(run.result.is_ok(), "resolution fails");
    d
}

fn bench(name: &str, sources: &Sources, iters: usize) {
    let trace =
        std::env::temp_dir().join(format!("deppy-bench-trace-{}.jsonl", std::process::id()));
    let plain = median((0..iters).map(|_| one(sources, None, None)).collect());
    let traced = median(
        (0..iters)
            .map(|_| one(sources, Some(&trace), None))
            .collect(),
    );
    let size = std::fs::metadata(&trace).map_or(0, |m| m.len());
    let mut warm_p = Pipeline::new(PipelineConfig::default_config()).expect("default pipeline");
    warm_p.keep_parsed_files(true);
    one(sources, None, Some(&mut warm_p));
    let warm = median(
        (0..iters)
            .map(|_| one(sources, None, Some(&mut warm_p)))
            .collect(),
    );
    let _ = std::fs::remove_file(&trace);
    println!(
        "{name}: cold p50 {:.1} ms, with --trace {:.1} ms (x{:.2}, trace {:.1} MB), warm p50 {:.1} ms",
        plain.as_secs_f64() * 1e3,
        traced.as_secs_f64() * 1e3,
        traced.as_secs_f64() / plain.as_secs_f64().max(1e-9),
        size as f64 / 1e6,
        warm.as_secs_f64() * 1e3,
    );
}

fn main() {
    let quick = std::env::var_os("DEPPY_BENCH_QUICK").is_some();
    let iters = if quick { 3 } else { 11 };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let odf = Sources {
        catalogs: vec![CatalogSource {
            name: "odf-dev".into(),
            path: here.join("catalogs/odf-dev"),
            priority: 0,
        }],
        request: Request {
            require: vec![Requirement::from_spec("odf-dependencies").expect("spec")],
            ..Request::default()
        },
    };
    bench("odf-dev, require odf-dependencies", &odf, iters);
    let root = real::root();
    let real_sources = Sources {
        catalogs: real::catalogs_in(&root),
        request: Request {
            require: vec![Requirement::from_spec("etcd").expect("spec")],
            ..Request::default()
        },
    };
    let n = real_sources.catalogs.len();
    bench(
        &format!("{} ({n} catalogs), require etcd", root.display()),
        &real_sources,
        iters.min(5),
    );
}
