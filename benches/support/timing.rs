//! Timing helpers shared by the benchmarks: how many runs, the median of a closure's run
//! times.

use std::time::{Duration, Instant};

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The median time of `runs` calls of `f`; what `f` returns is dropped outside the timer.
pub fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                let out = f();
                let e = t.elapsed();
                drop(out);
                e
            })
            .collect(),
    )
}

/// The number of runs: `DEPPY_BENCH_RUNS` when set to a number, else `default` (at least 1).
#[allow(dead_code)] // benches with a fixed run count include this file too
pub fn runs_or(default: usize) -> usize {
    std::env::var("DEPPY_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .max(1)
}
