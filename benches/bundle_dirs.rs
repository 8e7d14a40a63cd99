//! Bundle-directory rendering benchmark: `deppy catalog render` of every bundle directory
//! under `../shared/catalogs/bundle-dirs` (else `catalogs/bundle-dirs`), through the library:
//! find the bundle directories, then render them into one catalog (the CSV and CRD YAML is
//! parsed in full; bundles are read in parallel). Prints the median and best of the runs.
//! Run: `cargo bench --bench bundle_dirs` (DEPPY_BENCH_ITERS sets the runs, default 7).

#[path = "support/real.rs"]
#[allow(dead_code)] // only `root` is used here
mod real;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use deppy::advanced::catalog::{find_bundle_dirs, render_bundle_dirs};

fn bytes_under(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(p),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

fn main() {
    let root = real::root().join("bundle-dirs");
    let iters: usize = std::env::var("DEPPY_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let dirs: Vec<PathBuf> = find_bundle_dirs(&root)
        .expect("readable bundle directories")
        .expect("a directory of bundle directories");
    let mut times: Vec<Duration> = Vec::new();
    let mut counts = (0, 0);
    for _ in 0..iters.max(1) {
        let t = Instant::now();
        let found = find_bundle_dirs(&root)
            .expect("readable bundle directories")
            .unwrap_or_default();
        let rendered = render_bundle_dirs(&found).expect("bundle directories render");
        times.push(t.elapsed());
        counts = (rendered.package_count(), rendered.bundle_count());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let best = times.first().copied().unwrap_or_default();
    let mb = bytes_under(&root) as f64 / 1e6;
    println!("deppy bundle-directory rendering, {}", root.display());
    println!(
        "{} bundle directories, {} packages, {} bundles, {mb:.1} MB; {} runs: median {:.1} ms, best {:.1} ms ({:.0} MB/s at the median)",
        dirs.len(),
        counts.0,
        counts.1,
        times.len(),
        ms(median),
        ms(best),
        mb / median.as_secs_f64().max(1e-9)
    );
}
