//! What the oracle property tests share: case counts and seeds from the environment, and
//! running the cases on every core (case `i` goes to worker `i % workers`).

/// `name` from the environment as a number, else `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `DEPPY_ORACLE_SEED`, else this test's fixed default (so CI is repeatable).
pub fn base_seed(default: u64) -> u64 {
    std::env::var("DEPPY_ORACLE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `run(first, count, stride)` on up to 8 threads; a panic in one is re-raised.
pub fn on_every_core<T: Send>(count: usize, run: fn(usize, usize, usize) -> T) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| s.spawn(move || run(k, count, threads)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}
