//! Catalog loading and cold-start benchmark on the real catalogs (`../shared/catalogs/*` when
//! present, else the shipped `catalogs/`). One run prints:
//!
//! 1. the JSON parse floor (read each FBC JSON file into memory, then a typed serde_json
//!    parse with borrowed strings and `&RawValue` property values), on one thread and on as
//!    many threads as deppy uses, and deppy's `CatalogSet::load` of the same files (JSON and
//!    YAML separately, with and without heavy properties, and through a warm catalog cache),
//!    as MB/s and as a ratio to the floor;
//! 2. cold start for one requirement (files → answer through the default pipeline, as
//!    `deppy resolve` runs it) against the floor plus the warm solve of the same request;
//! 3. warm per-request figures for every package of the merged catalogs in turn;
//! 4. `catalog check` (channel heads), cold (files → rows) and warm (loaded → rows).
//!
//! `cargo bench --bench load` (iterations: `DEPPY_BENCH_ITERS`, default 7; medians).

#[path = "support/real.rs"]
mod real;
#[path = "support/requests.rs"]
mod requests;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::installability::{Scope, check_bundles as check};
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::Resolver;
use deppy::pipeline::{Pipeline, PipelineConfig, Run, Sources};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The allocator the `deppy` binary uses (`src/main.rs`), so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The requirement of the cold-start rows (a package of the JSON catalogs).
const COLD_PACKAGE: &str = "etcd";

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
    out.sort();
    out
}

/// Lists every file below `dirs` as a loader must before it reads anything: each directory
/// read once, entry types from the listing (no `stat` per entry), sorted. One thread.
fn walk(dirs: &[PathBuf]) -> usize {
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    let mut found = 0;
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<(PathBuf, bool)> = rd
            .filter_map(Result::ok)
            .map(|e| (e.path(), e.file_type().is_ok_and(|t| t.is_dir())))
            .collect();
        entries.sort();
        for (path, is_dir) in entries {
            if is_dir {
                stack.push(path);
            } else {
                found += 1;
            }
        }
    }
    found
}

// ---- the parse floor -------------------------------------------------------------------

/// An FBC document, typed and borrowed: what any loader must at least read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct FloorDoc<'a> {
    #[serde(borrow)]
    schema: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    package: Option<Cow<'a, str>>,
    #[serde(borrow)]
    default_channel: Option<Cow<'a, str>>,
    #[serde(borrow)]
    image: Option<Cow<'a, str>>,
    #[serde(borrow)]
    entries: Option<Vec<FloorEntry<'a>>>,
    #[serde(borrow)]
    properties: Option<Vec<FloorProp<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct FloorEntry<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    replaces: Option<Cow<'a, str>>,
    #[serde(borrow)]
    skips: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow)]
    skip_range: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct FloorProp<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    value: Option<&'a RawValue>,
}

/// Reads one JSON file and parses every document: (documents, properties).
fn floor_file(path: &Path) -> (usize, usize) {
    let bytes = std::fs::read(path).expect("read");
    let (mut docs, mut props) = (0, 0);
    for doc in serde_json::Deserializer::from_slice(&bytes).into_iter::<FloorDoc>() {
        let doc = doc.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        docs += 1;
        props += doc.properties.map_or(0, |p| p.len());
    }
    std::hint::black_box((docs, props))
}

/// Maps `f` over `items` on `threads` threads (the loader's scheme: a shared counter).
fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut local = Vec::new();
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    local.push(f(item));
                }
                out.lock().expect("lock").extend(local);
            });
        }
    });
    out.into_inner().expect("lock")
}

// ---- measuring -------------------------------------------------------------------------

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Times `f` `iters` times (after one untimed warm-up run); sorted. What `f` returns is
/// dropped after the clock stops: the figures are time to the answer, not teardown.
fn times<R>(iters: usize, mut f: impl FnMut() -> R) -> Vec<Duration> {
    std::hint::black_box(f());
    let mut v: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            let r = std::hint::black_box(f());
            let d = t.elapsed();
            drop(r);
            d
        })
        .collect();
    v.sort();
    v
}

fn median(sorted: &[Duration]) -> f64 {
    sorted
        .get(sorted.len() / 2)
        .copied()
        .unwrap_or_default()
        .as_secs_f64()
}

fn ms(secs: f64) -> f64 {
    secs * 1e3
}

/// One group of files: the catalogs (folders) they are in, and the files themselves.
struct Input {
    label: String,
    sources: Vec<CatalogSource>,
    files: Vec<(PathBuf, u64)>,
}

impl Input {
    fn new(label: &str, dirs: &[PathBuf]) -> Input {
        Input {
            label: label.to_string(),
            sources: dirs.iter().map(|d| source(d)).collect(),
            files: dirs.iter().flat_map(|d| files(d)).collect(),
        }
    }

    fn mb(&self) -> f64 {
        self.files.iter().map(|f| f.1).sum::<u64>() as f64 / 1e6
    }
}

fn source(path: &Path) -> CatalogSource {
    let name = path
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("catalog")
        .to_string();
    CatalogSource {
        name,
        path: path.to_path_buf(),
        priority: 0,
    }
}

fn header() {
    println!(
        "{:<36} {:>5} {:>6} {:>7} {:>9} {:>13} {:>9} {:>7}",
        "input", "files", "MB", "bundles", "median ms", "MB/s (best)", "bundles/s", "x floor"
    );
}

fn row(label: &str, input: &Input, bundles: usize, t: &[Duration], floor: Option<f64>) {
    let mb = input.mb();
    let (med, best) = (median(t), t.first().map_or(0.0, Duration::as_secs_f64));
    let ratio = floor.map_or(String::new(), |f| format!("{:.2}", med / f));
    println!(
        "{:<36} {:>5} {:>6.1} {:>7} {:>9.1} {:>6.0} ({:>4.0}) {:>9.0} {:>7}",
        label,
        input.files.len(),
        mb,
        bundles,
        ms(med),
        mb / med,
        mb / best,
        bundles as f64 / med,
        ratio
    );
}

/// Measures `CatalogSet::load` of `input`; prints a row; returns the median.
fn load_row(
    label: &str,
    input: &Input,
    opts: &LoadOptions,
    iters: usize,
    floor: Option<f64>,
) -> f64 {
    let mut bundles = 0;
    let t = times(iters, || {
        let set = CatalogSet::load(&input.sources, opts)
            .unwrap_or_else(|e| panic!("{}: {e}", input.label));
        bundles = set.bundles.len();
        set
    });
    row(label, input, bundles, &t, floor);
    median(&t)
}

/// Measures the parse floor of `input` on `threads` threads; prints a row; returns the median.
fn floor_row(label: &str, input: &Input, threads: usize, iters: usize) -> f64 {
    let t = times(iters, || {
        par_map(&input.files, threads, |f| floor_file(&f.0))
    });
    row(label, input, 0, &t, None);
    median(&t)
}

/// A fresh catalog cache directory (removed on drop).
struct CacheDir(PathBuf);

impl CacheDir {
    fn new(tag: &str) -> CacheDir {
        let dir =
            std::env::temp_dir().join(format!("deppy-bench-cache-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        CacheDir(dir)
    }

    fn opts(&self) -> LoadOptions {
        LoadOptions {
            cache_dir: Some(self.0.clone()),
            ..LoadOptions::default()
        }
    }

    fn bytes(&self) -> u64 {
        std::fs::read_dir(&self.0).map_or(0, |rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
    }
}

impl Drop for CacheDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `YYYY-MM-DD HH:MM:SS UTC` of now.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86400) as i64, secs % 86400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

// ---- cold start ------------------------------------------------------------------------

fn request(package: &str) -> Request {
    Request {
        require: vec![Requirement::from_spec(package).expect("spec")],
        ..Request::default()
    }
}

/// Files → answer through a new default pipeline, as `deppy resolve` runs it (returned, to
/// be dropped untimed).
fn cold_resolve(sources: &Sources, opts: &LoadOptions) -> (Pipeline, Run) {
    let mut p = Pipeline::new(PipelineConfig::default_config()).expect("default pipeline");
    p.set_load_options(opts.clone());
    let run = p.run(sources);
    assert!(run.result.is_ok(), "resolution fails");
    (p, run)
}

/// Prints the cold-start rows of one group of catalogs.
fn cold_rows(input: &Input, dirs: &[PathBuf], floor: Option<f64>, iters: usize) {
    let sources = Sources {
        catalogs: input.sources.clone(),
        request: request(COLD_PACKAGE),
    };
    let set = CatalogSet::load(&input.sources, &LoadOptions::default()).expect("load");
    let resolver = Resolver::new(set);
    let req = request(COLD_PACKAGE);
    let solve = median(&times(iters.max(21), || {
        resolver.resolve(&req).expect("resolves")
    }));
    let cold = median(&times(iters, || {
        cold_resolve(&sources, &LoadOptions::default())
    }));
    let cache = CacheDir::new("cold");
    let cached = median(&times(iters, || cold_resolve(&sources, &cache.opts())));
    let walked = median(&times(iters.max(21), || walk(dirs)));
    let (f, ratio) = match floor {
        Some(f) => (
            format!("{:.1}", ms(f)),
            format!("{:.2}", cold / (f + solve)),
        ),
        None => ("n/a".to_string(), "n/a".to_string()),
    };
    println!(
        "{:<36} {:>9.1} {:>9} {:>9.3} {:>12} {:>15.1} {:>8.1}",
        input.label,
        ms(cold),
        f,
        ms(solve),
        ratio,
        ms(cached),
        ms(walked)
    );
}

// ---- catalog check ---------------------------------------------------------------------

fn check_rows(input: &Input, iters: usize) {
    let cold_check = |opts: &LoadOptions| {
        let resolver = Resolver::new(CatalogSet::load(&input.sources, opts).expect("load"));
        let rows = check(&resolver, Scope::Heads);
        (resolver, rows)
    };
    let plain = LoadOptions::default();
    let cold = median(&times(iters, || cold_check(&plain)));
    let cache = CacheDir::new("check");
    let cached = median(&times(iters, || cold_check(&cache.opts())));
    let resolver = Resolver::new(CatalogSet::load(&input.sources, &plain).expect("load"));
    let mut rows = 0;
    let warm = median(&times(iters, || {
        let r = check(&resolver, Scope::Heads);
        rows = r.len();
        r
    }));
    println!(
        "{:<36} {:>6} {:>9.1} {:>15.1} {:>9.1}",
        input.label,
        rows,
        ms(cold),
        ms(cached),
        ms(warm)
    );
}

// ---- main ------------------------------------------------------------------------------

fn main() {
    let root = real::root();
    let iters = std::env::var("DEPPY_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let dirs: Vec<PathBuf> = real::catalogs_in(&root)
        .into_iter()
        .map(|s| s.path)
        .collect();
    let is = |d: &PathBuf, ext: &str| {
        let f = files(d);
        !f.is_empty()
            && f.iter()
                .all(|(p, _)| p.extension().and_then(|e| e.to_str()) == Some(ext))
    };
    let json_dirs: Vec<PathBuf> = dirs.iter().filter(|d| is(d, "json")).cloned().collect();
    let yaml_dirs: Vec<PathBuf> = dirs.iter().filter(|d| is(d, "yaml")).cloned().collect();
    let json = Input::new("JSON", &json_dirs);
    let yaml = Input::new("YAML", &yaml_dirs);
    let all = Input::new("all", &dirs);
    let n = threads();
    println!("deppy catalog loading and cold start, {}", root.display());
    println!(
        "date: {}; {} threads available; {} iterations, medians (best in parentheses)",
        utc_now(),
        n,
        iters
    );
    println!("command: cargo bench --bench load (allocator: mimalloc, as the deppy binary)");
    println!();
    header();
    floor_row("JSON parse floor, 1 thread", &json, 1, iters);
    let floor = floor_row(&format!("JSON parse floor, {n} threads"), &json, n, iters);
    let plain = LoadOptions::default();
    let heavy = LoadOptions {
        keep_heavy_properties: true,
        ..LoadOptions::default()
    };
    load_row("JSON", &json, &plain, iters, Some(floor));
    load_row("JSON, keep heavy", &json, &heavy, iters, Some(floor));
    let cache = CacheDir::new("json");
    CatalogSet::load(&json.sources, &cache.opts()).expect("fill the cache");
    load_row(
        "JSON, catalog cache hit",
        &json,
        &cache.opts(),
        iters,
        Some(floor),
    );
    let json_cache_mb = cache.bytes() as f64 / 1e6;
    drop(cache);
    load_row("YAML", &yaml, &plain, iters, None);
    load_row("YAML, keep heavy", &yaml, &heavy, iters, None);
    let cache = CacheDir::new("yaml");
    CatalogSet::load(&yaml.sources, &cache.opts()).expect("fill the cache");
    load_row("YAML, catalog cache hit", &yaml, &cache.opts(), iters, None);
    let yaml_cache_mb = cache.bytes() as f64 / 1e6;
    drop(cache);
    let largest = |i: &Input| i.files.iter().max_by_key(|f| f.1).map(|f| f.0.clone());
    if let Some(f) = largest(&json) {
        let one = Input::new("largest JSON file", &[f]);
        let floor = floor_row("largest JSON file, parse floor", &one, 1, iters);
        load_row("largest JSON file", &one, &plain, iters, Some(floor));
    }
    if let Some(f) = largest(&yaml) {
        let one = Input::new("largest YAML file", &[f]);
        load_row("largest YAML file", &one, &plain, iters, None);
        load_row("largest YAML file, keep heavy", &one, &heavy, iters, None);
    }
    println!(
        "catalog cache entries: JSON {json_cache_mb:.1} MB, YAML {yaml_cache_mb:.1} MB. \
         YAML has no floor of this kind (no raw values: serde-saphyr must build every value)."
    );

    println!();
    println!(
        "cold start, require {COLD_PACKAGE}: files -> answer through a new default pipeline \
         (as `deppy resolve`); solve = the same request on a loaded, prepared catalog; \
         walk = listing the catalogs' files alone (one thread; part of every cold start, not \
         of the floor)"
    );
    println!(
        "{:<36} {:>9} {:>9} {:>9} {:>12} {:>15} {:>8}",
        "catalogs", "cold ms", "floor ms", "solve ms", "cold/(f+s)", "cold, cache ms", "walk ms"
    );
    let converted = Input {
        label: format!("JSON catalogs ({})", json.sources.len()),
        ..Input::new("", &json_dirs)
    };
    cold_rows(&converted, &json_dirs, Some(floor), iters);
    let every = Input {
        label: format!("all catalogs ({})", all.sources.len()),
        ..Input::new("", &dirs)
    };
    cold_rows(&every, &dirs, None, iters);

    println!();
    println!("warm: every package of all catalogs, one request at a time, on a loaded catalog");
    let set = CatalogSet::load(&all.sources, &plain).expect("load");
    let (t, ok, unsat) = requests::run(&set, &requests::every_package(&set));
    requests::report(
        "real: every package, one request",
        set.bundles.len(),
        &t,
        ok,
        unsat,
    );

    println!();
    println!(
        "catalog check (channel heads): cold = files -> rows, warm = loaded, prepared catalog -> rows"
    );
    println!(
        "{:<36} {:>6} {:>9} {:>15} {:>9}",
        "catalogs", "rows", "cold ms", "cold, cache ms", "warm ms"
    );
    check_rows(&every, iters);
    println!();
    let names = |ds: &[CatalogSource]| {
        ds.iter()
            .map(|d| d.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("JSON: {}", names(&json.sources));
    println!("YAML: {}", names(&yaml.sources));
}
