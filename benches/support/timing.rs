//! Timing helpers shared by the benchmarks: the median of a closure's run times.

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
