//! Catalog loading benchmark: loads the real catalogs (`../shared/catalogs/*` when present,
//! else the shipped `catalogs/`), JSON and YAML separately, and prints median MB/s and
//! bundles/s. `cargo bench --bench load` (iterations: `DEPPY_BENCH_ITERS`, default 7).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};

/// Every `.json` / `.yaml` / `.yml` file below `dir`, with its size.
fn files(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.filter_map(|e| e.ok()).map(|e| e.path()));
            }
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("json" | "yaml" | "yml")
        ) {
            let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
            out.push((p, len));
        }
    }
    out
}

struct Row {
    label: String,
    sources: Vec<CatalogSource>,
    bytes: u64,
    files: usize,
    keep_heavy: bool,
}

fn measure(row: &Row, iters: usize) {
    let opts = LoadOptions {
        keep_heavy_properties: row.keep_heavy,
        ..LoadOptions::default()
    };
    let mut times: Vec<Duration> = Vec::new();
    let mut bundles = 0;
    for _ in 0..iters {
        let t = Instant::now();
        match CatalogSet::load(&row.sources, &opts) {
            Ok(set) => bundles = std::hint::black_box(set).bundles.len(),
            Err(e) => {
                eprintln!("{}: {e}", row.label);
                return;
            }
        }
        times.push(t.elapsed());
    }
    times.sort();
    let secs = |i: usize| times.get(i).copied().unwrap_or_default().as_secs_f64();
    let (median, best) = (secs(times.len() / 2), secs(0));
    let mb = row.bytes as f64 / 1e6;
    println!(
        "{:<30} {:>6} {:>6.1} {:>8} {:>10.1} {:>6.0} ({:>5.0}) {:>10.0}",
        row.label,
        row.files,
        mb,
        bundles,
        median * 1e3,
        mb / median,
        mb / best,
        bundles as f64 / median
    );
}

fn source(path: &Path) -> CatalogSource {
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("catalog")
        .to_string();
    CatalogSource {
        name,
        path: path.to_path_buf(),
        priority: 0,
    }
}

fn group(label: &str, dirs: &[PathBuf], keep_heavy: bool) -> Row {
    let all: Vec<_> = dirs.iter().flat_map(|d| files(d)).collect();
    Row {
        label: label.to_string(),
        sources: dirs.iter().map(|d| source(d)).collect(),
        bytes: all.iter().map(|f| f.1).sum(),
        files: all.len(),
        keep_heavy,
    }
}

fn main() {
    let shared = Path::new("../shared/catalogs");
    let root = if shared.is_dir() {
        shared
    } else {
        Path::new("catalogs")
    };
    let iters = std::env::var("DEPPY_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.retain(|d| !d.ends_with("bundle-dirs"));
    dirs.sort();
    let is = |d: &PathBuf, ext: &str| {
        let f = files(d);
        !f.is_empty()
            && f.iter()
                .all(|(p, _)| p.extension().and_then(|e| e.to_str()) == Some(ext))
    };
    let json: Vec<PathBuf> = dirs.iter().filter(|d| is(d, "json")).cloned().collect();
    let yaml: Vec<PathBuf> = dirs.iter().filter(|d| is(d, "yaml")).cloned().collect();
    println!(
        "deppy catalog loading, {} ({} iterations; median, and best in parentheses)",
        root.display(),
        iters
    );
    println!(
        "{:<30} {:>6} {:>6} {:>8} {:>10} {:>14} {:>10}",
        "input", "files", "MB", "bundles", "median ms", "MB/s", "bundles/s"
    );
    for row in &rows(&json, &yaml) {
        measure(row, iters);
    }
    let names = |ds: &[PathBuf]| {
        ds.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("JSON: {}", names(&json));
    println!("YAML: {}", names(&yaml));
}

/// The inputs measured: every JSON catalog, every YAML catalog, with and without heavy
/// properties, and the largest file of each format alone (one file: one thread).
fn rows(json: &[PathBuf], yaml: &[PathBuf]) -> Vec<Row> {
    let largest = |ds: &[PathBuf]| {
        ds.iter()
            .flat_map(|d| files(d))
            .max_by_key(|f| f.1)
            .map(|f| f.0)
    };
    let mut rows = vec![
        group("JSON", json, false),
        group("YAML", yaml, false),
        group("JSON, keep heavy", json, true),
        group("YAML, keep heavy", yaml, true),
    ];
    if let Some(f) = largest(json) {
        rows.push(group("largest JSON file", &[f], false));
    }
    if let Some(f) = largest(yaml) {
        rows.push(group("largest YAML file", std::slice::from_ref(&f), false));
        rows.push(group("largest YAML file, keep heavy", &[f], true));
    }
    rows
}
