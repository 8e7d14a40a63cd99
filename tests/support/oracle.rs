//! What the oracle property tests share: case counts and seeds from the environment, and
//! running the cases on every core (case `i` goes to worker `i % workers`), and a seedable
//! random source. Each test uses a part of it.
#![allow(dead_code)]

/// SplitMix64: small, seedable, good enough for test generation.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    /// True with `percent` % probability.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    /// Fisher–Yates.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

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
