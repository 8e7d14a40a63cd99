//! `cargo bench --bench big_catalogs`: full-size indexes. Builds big catalogs from the
//! community catalog (`../shared/catalogs/community-v4.22` when present, with its heavy
//! `olm.csv.metadata` values; else the stripped copy in `catalogs/`) replicated with renamed
//! packages, bundles and API groups, as FBC JSON (one `catalog.json` per package), into
//! `target/big-catalogs/` (built once, never committed):
//!
//! - `x80/part0` … `x80/part3`: 20 replicas each; `x20` is `x80/part0` (about 220 MB from
//!   the shared catalog), `x80` all four (about 900 MB);
//! - `x20-yaml`: the YAML files copied 20 times as they are, into `copy0` … `copy19`, each
//!   bound as a catalog of its own (same package names), for the YAML floor.
//!
//! Then it times the `deppy` binary, a new process per run, with peak memory from
//! `/usr/bin/time` (n/a without it):
//!
//! - `deppy resolve --catalog big=DIR --require rabbitmq-messaging-topology-operator-r7 -o
//!   json`: cold (no cache), cold filling a fresh cache, warm (cache filled);
//! - `deppy cluster resolve` of a state with four CatalogSources bound to the four parts and
//!   a Subscription in each of four namespaces, without CRDs and with one to check (which
//!   reads the bundles' manifests): the same three ways;
//! - cold against the floor of reading every file and parsing it into `serde_json::Value` in
//!   this process (one thread, and two threads over halves of the files), and the same for
//!   the YAML files (serde-saphyr into `serde_json::Value`); deppy on one thread runs under
//!   `taskset -c 0`.
//!
//! Every figure is printed next to its target. Medians of RUNS runs (DEPPY_BENCH_RUNS), the
//! modes alternated round by round; DEPPY_BENCH_QUICK=1 runs fewer.

#[path = "big_catalogs/cluster.rs"]
mod cluster;
#[path = "support/timing.rs"]
#[allow(dead_code)] // `time`: this bench times processes, not closures
mod timing;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use timing::median;

const PARTS: usize = 4;
const PER_PART: usize = 20;
const REQUIRE: &str = "rabbitmq-messaging-topology-operator";
const REPLICA: usize = 7;

fn runs() -> usize {
    timing::runs_or(if quick() { 3 } else { 7 })
}

fn quick() -> bool {
    std::env::var("DEPPY_BENCH_QUICK").is_ok_and(|v| v == "1")
}

/// The catalog replicated: `DEPPY_BENCH_COMMUNITY` when set, else the shared community
/// catalog (`../shared/catalogs`, or `../../shared/catalogs` from a worktree) when present,
/// else the stripped copy in `catalogs/`.
fn source() -> PathBuf {
    if let Some(dir) = std::env::var_os("DEPPY_BENCH_COMMUNITY") {
        return PathBuf::from(dir);
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared", "../../shared"]
        .iter()
        .map(|up| here.join(up).join("catalogs/community-v4.22"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| here.join("catalogs/community-v4.22"))
}

fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("big-catalogs")
}

/// The YAML files of the source catalog, sorted.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("source catalog").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(yaml_files(&p));
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Every file below `dir` with extension `ext`, sorted.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_with(&p, ext));
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn bytes_of(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum()
}

/// Renames for replica `k`: packages, bundles and API groups.
struct Rename(usize);

impl Rename {
    fn package(&self, p: &str) -> String {
        format!("{p}-r{}", self.0)
    }
    fn bundle(&self, b: &str) -> String {
        format!("{b}-r{}", self.0)
    }
    fn group(&self, g: &str) -> String {
        format!("r{}.{g}", self.0)
    }

    fn text(&self, v: &mut Value, key: &str, f: impl Fn(&Self, &str) -> String) {
        if let Some(s) = v.get(key).and_then(Value::as_str) {
            let renamed = f(self, s);
            v[key] = Value::String(renamed);
        }
    }

    fn doc(&self, mut d: Value) -> Value {
        let schema = d
            .get("schema")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match schema.as_str() {
            "olm.package" => self.text(&mut d, "name", Self::package),
            "olm.channel" => {
                self.text(&mut d, "package", Self::package);
                if let Some(entries) = d.get_mut("entries").and_then(Value::as_array_mut) {
                    for e in entries {
                        self.text(e, "name", Self::bundle);
                        self.text(e, "replaces", Self::bundle);
                        if let Some(skips) = e.get_mut("skips").and_then(Value::as_array_mut) {
                            for s in skips.iter_mut() {
                                if let Some(t) = s.as_str() {
                                    *s = Value::String(self.bundle(t));
                                }
                            }
                        }
                    }
                }
            }
            "olm.bundle" => {
                self.text(&mut d, "name", Self::bundle);
                self.text(&mut d, "package", Self::package);
                if let Some(props) = d.get_mut("properties").and_then(Value::as_array_mut) {
                    for p in props {
                        let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
                        let kind = kind.to_string();
                        let Some(v) = p.get_mut("value") else {
                            continue;
                        };
                        match kind.as_str() {
                            "olm.package" | "olm.package.required" => {
                                self.text(v, "packageName", Self::package)
                            }
                            "olm.gvk" | "olm.gvk.required" => self.text(v, "group", Self::group),
                            _ => {}
                        }
                    }
                }
            }
            "olm.deprecations" => {
                self.text(&mut d, "package", Self::package);
                if let Some(entries) = d.get_mut("entries").and_then(Value::as_array_mut) {
                    for e in entries {
                        let bundle = e
                            .get("reference")
                            .and_then(|r| r.get("schema"))
                            .and_then(Value::as_str)
                            == Some("olm.bundle");
                        if bundle && let Some(r) = e.get_mut("reference") {
                            self.text(r, "name", Self::bundle);
                        }
                    }
                }
            }
            _ => {}
        }
        d
    }
}

/// Builds the big catalogs (once: a marker file records what they were built from).
fn build(out: &Path) {
    let src = source();
    let marker = out.join("built-from");
    let stamp = format!("{} {PARTS}x{PER_PART}\n", src.display());
    if std::fs::read_to_string(&marker).is_ok_and(|m| m == stamp) {
        return;
    }
    let t = Instant::now();
    let _ = std::fs::remove_dir_all(out);
    let files = yaml_files(&src);
    let docs: Vec<(String, Vec<Value>)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("source file");
            let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("source YAML");
            let pkg = f
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (pkg, docs)
        })
        .collect();
    for part in 0..PARTS {
        for k in part * PER_PART..(part + 1) * PER_PART {
            let r = Rename(k);
            for (pkg, ds) in &docs {
                let dir = out.join(format!("x80/part{part}/{}", r.package(pkg)));
                std::fs::create_dir_all(&dir).expect("out dir");
                let mut text = String::new();
                for d in ds {
                    text.push_str(&serde_json::to_string(&r.doc(d.clone())).expect("json"));
                    text.push('\n');
                }
                std::fs::write(dir.join("catalog.json"), text).expect("write");
            }
        }
    }
    for k in 0..PER_PART {
        for f in &files {
            let rel = f.strip_prefix(&src).expect("below the source");
            let to = out.join(format!("x20-yaml/copy{k}")).join(rel);
            std::fs::create_dir_all(to.parent().expect("parent")).expect("out dir");
            std::fs::copy(f, &to).expect("copy");
        }
    }
    std::fs::write(&marker, stamp).expect("marker");
    eprintln!(
        "built the big catalogs in {} in {:.1} s",
        out.display(),
        t.elapsed().as_secs_f64()
    );
}

/// A run of the deppy binary: wall time, peak RSS in MB (when /usr/bin/time is there), and
/// whether it exited 0.
struct Run {
    wall: Duration,
    peak_mb: Option<f64>,
}

fn deppy(args: &[&str], one_thread: bool) -> Run {
    let bin = env!("CARGO_BIN_EXE_deppy");
    let time = Path::new("/usr/bin/time");
    let peak_file = std::env::temp_dir().join(format!("deppy-big-peak-{}", std::process::id()));
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-f").arg("%M").arg("-o").arg(&peak_file);
        if one_thread {
            c.args(["taskset", "-c", "0"]);
        }
        c.arg(bin);
        c
    } else if one_thread {
        let mut c = Command::new("taskset");
        c.args(["-c", "0", bin]);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let t = Instant::now();
    let status = cmd.status().expect("deppy runs");
    let wall = t.elapsed();
    assert!(
        status.code().is_some_and(|c| c <= 1),
        "deppy {args:?} failed: {status}"
    );
    let peak_mb = std::fs::read_to_string(&peak_file)
        .ok()
        .and_then(|s| s.trim().lines().last()?.trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0);
    let _ = std::fs::remove_file(&peak_file);
    Run { wall, peak_mb }
}

/// Median wall time (ms) and peak (MB) of runs.
fn summary(runs: &[Run]) -> (f64, Option<f64>) {
    let wall = median(runs.iter().map(|r| r.wall).collect()).as_secs_f64() * 1e3;
    let peaks: Vec<f64> = runs.iter().filter_map(|r| r.peak_mb).collect();
    let peak = (!peaks.is_empty()).then(|| {
        let mut p = peaks;
        p.sort_by(f64::total_cmp);
        p[p.len() / 2]
    });
    (wall, peak)
}

fn fmt_peak(p: Option<f64>) -> String {
    p.map_or("n/a".into(), |p| format!("{p:.1}"))
}

/// Parses every file into `serde_json::Value` (each file read, then parsed) on `threads`
/// threads over interleaved halves; returns the time.
fn json_floor(files: &[PathBuf], threads: usize) -> Duration {
    let t = Instant::now();
    std::thread::scope(|s| {
        for i in 0..threads {
            s.spawn(move || {
                for f in files.iter().skip(i).step_by(threads) {
                    let text = std::fs::read(f).expect("read");
                    let stream = serde_json::Deserializer::from_slice(&text).into_iter::<Value>();
                    for v in stream {
                        std::hint::black_box(v.expect("json"));
                    }
                }
            });
        }
    });
    t.elapsed()
}

fn yaml_floor(files: &[PathBuf], threads: usize) -> Duration {
    let t = Instant::now();
    std::thread::scope(|s| {
        for i in 0..threads {
            s.spawn(move || {
                for f in files.iter().skip(i).step_by(threads) {
                    let text = std::fs::read_to_string(f).expect("read");
                    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("yaml");
                    std::hint::black_box(docs);
                }
            });
        }
    });
    t.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The three ways of one command, alternated round by round: cold (no cache), cold filling
/// a fresh cache, warm. Returns the (ms, MB) medians of each.
fn three_ways(args: &[String], cache_root: &Path, runs: usize) -> [(f64, Option<f64>); 3] {
    let warm_cache = cache_root.join("warm");
    let _ = std::fs::remove_dir_all(&warm_cache);
    let with_cache = |dir: &Path| {
        let mut a = vec!["--cache-dir".to_string(), dir.display().to_string()];
        a.extend(args.iter().cloned());
        a
    };
    let run = |a: &[String]| deppy(&a.iter().map(String::as_str).collect::<Vec<_>>(), false);
    run(&with_cache(&warm_cache)); // fills the warm cache
    let cold_runs = runs.div_ceil(2).max(1);
    let (mut cold, mut fill, mut warm) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        if i < cold_runs {
            cold.push(run(args));
            let fresh = cache_root.join(format!("fill{i}"));
            let _ = std::fs::remove_dir_all(&fresh);
            fill.push(run(&with_cache(&fresh)));
            let _ = std::fs::remove_dir_all(&fresh);
        }
        warm.push(run(&with_cache(&warm_cache)));
    }
    [summary(&cold), summary(&fill), summary(&warm)]
}

fn line(what: &str, figure: String, target: String) {
    println!("{what:<58} {figure:>22}   target: {target}");
}

/// In this process, on the warm cache of x20: reading the stored set's head, the request
/// (decoding what it reaches), and decoding every package entry, so the share of a warm run
/// that decoding takes is known (what a zero-copy format could save at most).
fn decode_costs(dir: &Path, cache: &Path, require: &str) {
    use deppy::{CatalogSet, CatalogSource, LoadOptions, Request, Requirement, Resolver};
    let source = CatalogSource {
        name: "big".into(),
        path: dir.to_path_buf(),
        priority: 0,
    };
    let opts = LoadOptions {
        cache_dir: Some(cache.to_path_buf()),
        ..LoadOptions::default()
    };
    let request = Request {
        require: vec![Requirement::from_spec(require).expect("a requirement")],
        ..Request::default()
    };
    let (mut head, mut resolve, mut all, mut reached, mut units) =
        (Vec::new(), Vec::new(), Vec::new(), 0, 0);
    for _ in 0..5 {
        let t = Instant::now();
        let set = CatalogSet::load(std::slice::from_ref(&source), &opts).expect("load");
        head.push(t.elapsed());
        let t = Instant::now();
        let resolver = Resolver::new(set);
        let _ = resolver.resolve(&request).expect("resolves");
        resolve.push(t.elapsed());
        (reached, units) = resolver.catalogs().decoded_entries().unwrap_or((0, 0));
        let set = CatalogSet::load(std::slice::from_ref(&source), &opts).expect("load");
        let t = Instant::now();
        std::hint::black_box(set.bundles.iter().count());
        all.push(t.elapsed());
    }
    let (head, resolve, all) = (ms(median(head)), ms(median(resolve)), ms(median(all)));
    println!(
        "
in process, x20 warm: head {head:.1} ms; request {resolve:.1} ms decoding {reached} of {units} package entries; every entry decoded: {all:.1} ms ({:.3} ms each, so about {:.2} ms for the request's)",
        all / units.max(1) as f64,
        all / units.max(1) as f64 * reached as f64
    );
}

fn main() {
    let out = out_dir();
    build(&out);
    let runs = runs();
    let x20 = out.join("x80/part0");
    let x80 = out.join("x80");
    let yaml = out.join("x20-yaml");
    let (f20, f80, fy) = (
        files_with(&x20, "json"),
        files_with(&x80, "json"),
        files_with(&yaml, "yaml"),
    );
    let (b20, b80, by) = (bytes_of(&f20), bytes_of(&f80), bytes_of(&fy));
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "deppy with full-size indexes, built from {}",
        source().display()
    );
    println!(
        "x20: {} files, {:.0} MB; x80: {} files, {:.0} MB; x20 YAML: {} files, {:.0} MB; {runs} runs, medians",
        f20.len(),
        mb(b20),
        f80.len(),
        mb(b80),
        fy.len(),
        mb(by)
    );
    let require = Rename(REPLICA).package(REQUIRE);
    let cache_root = out.join("caches");
    let _ = std::fs::create_dir_all(&cache_root);

    // The floors.
    let floor_runs = if quick() { 1 } else { 3 };
    let floor = |files: &[PathBuf], threads: usize, yaml: bool| {
        median(
            (0..floor_runs)
                .map(|_| {
                    if yaml {
                        yaml_floor(files, threads)
                    } else {
                        json_floor(files, threads)
                    }
                })
                .collect(),
        )
    };
    let (fl20_1, fl20_2) = (floor(&f20, 1, false), floor(&f20, 2, false));
    let fl80_2 = floor(&f80, 2, false);
    let (fly_1, fly_2) = (floor(&fy, 1, true), floor(&fy, 2, true));
    println!(
        "\nfloor, serde_json::Value: x20 {:.0} ms (1 thread), {:.0} ms (2 threads); x80 {:.0} ms (2 threads)",
        ms(fl20_1),
        ms(fl20_2),
        ms(fl80_2)
    );
    println!(
        "floor, YAML into serde_json::Value: x20 YAML {:.0} ms (1 thread), {:.0} ms (2 threads)",
        ms(fly_1),
        ms(fly_2)
    );

    // deppy resolve, the three ways.
    let args = |dir: &Path| -> Vec<String> {
        [
            "resolve",
            "--catalog",
            &format!("big={}", dir.display()),
            "--require",
            &require,
            "-o",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    println!("\ndeppy resolve --require {require} -o json (ms, peak MB)");
    let r20 = three_ways(&args(&x20), &cache_root.join("r20"), runs);
    let r80 = three_ways(&args(&x80), &cache_root.join("r80"), runs.min(5));
    for (name, r, bytes, fl) in [("x20", &r20, b20, fl20_2), ("x80", &r80, b80, fl80_2)] {
        let [cold, fill, warm] = *r;
        line(
            &format!("{name}: cold (2 threads)"),
            format!("{:.0} ms {} MB", cold.0, fmt_peak(cold.1)),
            format!(
                "<= 1.2x floor: {:.2}x; peak <= 0.6x catalog: {}",
                cold.0 / ms(fl),
                cold.1
                    .map_or("n/a".into(), |p| format!("{:.2}x", p / mb(bytes)))
            ),
        );
        line(
            &format!("{name}: cold, filling the cache"),
            format!("{:.0} ms {} MB", fill.0, fmt_peak(fill.1)),
            "(no target)".into(),
        );
        let target = if name == "x20" {
            "<= 100 ms and <= 60 MB".to_string()
        } else {
            format!(
                "<= 120 ms and <= 72 MB; {:.2}x and {} x20's",
                warm.0 / r20[2].0,
                match (warm.1, r20[2].1) {
                    (Some(a), Some(b)) => format!("{:.2}x", a / b),
                    _ => "n/a".into(),
                }
            )
        };
        line(
            &format!("{name}: warm"),
            format!("{:.1} ms {} MB", warm.0, fmt_peak(warm.1)),
            target,
        );
    }
    // One thread, cold, against the one-thread floor.
    let cold_one: Vec<Run> = (0..runs.div_ceil(2))
        .map(|_| {
            let a = args(&x20);
            deppy(&a.iter().map(String::as_str).collect::<Vec<_>>(), true)
        })
        .collect();
    let (c1, p1) = summary(&cold_one);
    line(
        "x20: cold (1 thread, taskset -c 0)",
        format!("{c1:.0} ms {} MB", fmt_peak(p1)),
        format!("<= 1.2x floor (1 thread): {:.2}x", c1 / ms(fl20_1)),
    );
    // The YAML copies keep the package names: one catalog each (duplicate channels within
    // one catalog are an error), the original package required.
    let mut yaml_args: Vec<String> = vec!["resolve".into()];
    for k in 0..PER_PART {
        yaml_args.push("--catalog".into());
        yaml_args.push(format!("c{k}={}", yaml.join(format!("copy{k}")).display()));
    }
    yaml_args.extend(["--require", REQUIRE, "-o", "json"].map(String::from));
    let yaml_cold: Vec<Run> = (0..runs.div_ceil(2).min(3))
        .map(|_| {
            deppy(
                &yaml_args.iter().map(String::as_str).collect::<Vec<_>>(),
                false,
            )
        })
        .collect();
    let (cy, py) = summary(&yaml_cold);
    line(
        "x20 YAML: cold (2 threads)",
        format!("{cy:.0} ms {} MB", fmt_peak(py)),
        format!(
            "against the YAML floor: {:.2}x; peak {}",
            cy / ms(fly_2),
            py.map_or("n/a".into(), |p| format!("{:.2}x catalog", p / mb(by)))
        ),
    );

    // deppy cluster resolve on four bound catalogs, without and with CRDs to check.
    for crds in [false, true] {
        cluster::rows(&out, &cache_root, runs, (ms(fl80_2), b80), crds);
    }
    decode_costs(&x20, &cache_root.join("r20/warm"), &require);
    let size = |ext: &str| {
        std::fs::read_dir(cache_root.join("r20/warm")).map_or(0, |rd| {
            rd.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == ext))
                .map(|e| e.metadata().map_or(0, |m| m.len()))
                .sum::<u64>()
        })
    };
    let (records, heavy) = (size("bin"), size("heavy"));
    println!(
        "\ncatalog cache of x20: records and set {:.1} MB ({:.1}% of the catalog); heavy values {:.1} MB ({:.1}%)",
        mb(records),
        100.0 * records as f64 / b20 as f64,
        mb(heavy),
        100.0 * heavy as f64 / b20 as f64
    );
    println!(
        "bench/compare's 10k rows (warm process, library request) come from `bash bench/compare/run.sh --sizes 1000,10000`."
    );
}
