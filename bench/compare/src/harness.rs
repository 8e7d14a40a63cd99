//! The parent: generates each instance, runs every engine in a child process, checks every
//! answer with the one checker, and prints the tables.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::check;
use crate::emit;
use crate::model::{Model, Shape};

/// What a child process did.
pub struct Proc {
    pub ok: bool,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub wall_ms: f64,
    /// ru_maxrss of the child (KB on Linux).
    pub maxrss_kb: i64,
    pub timed_out: bool,
}

/// Spawns `cmd`, waits with wait4 (so the child's own rusage is read), kills it after
/// `timeout`.
pub fn run_proc(cmd: &mut Command, timeout: Duration) -> Proc {
    let start = Instant::now();
    let mut child = match cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Proc {
                ok: false,
                code: -1,
                stdout: String::new(),
                stderr: format!("cannot start {:?}: {e}", cmd.get_program()),
                wall_ms: 0.0,
                maxrss_kb: 0,
                timed_out: false,
            };
        }
    };
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut timed_out = false;
    let mut wall_ms;
    loop {
        // SAFETY: pid is our child, not reaped by anyone else (std's Child is never waited on).
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        wall_ms = start.elapsed().as_secs_f64() * 1000.0;
        if r == pid {
            break;
        }
        if r < 0 {
            break;
        }
        if !timed_out && start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_micros(if wall_ms < 50.0 {
            200
        } else {
            2000
        }));
    }
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let exited = libc::WIFEXITED(status);
    let code = if exited {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Proc {
        ok: exited && code == 0 && !timed_out,
        code,
        stdout,
        stderr,
        wall_ms,
        maxrss_kb: usage.ru_maxrss,
        timed_out,
    }
}

pub fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    Some(if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    })
}

/// The smallest and largest of `v`.
pub fn spread(v: &[f64]) -> (Option<f64>, Option<f64>) {
    let min = v.iter().copied().reduce(f64::min);
    let max = v.iter().copied().reduce(f64::max);
    (min, max)
}

/// One engine's result on one instance.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub engine: String,
    /// "sat", "unsat", "error", "timeout", "n/a"
    pub status: String,
    pub selected: Vec<usize>,
    pub median_ms: Option<f64>,
    /// The fastest and slowest repeat of the headline figure.
    pub min_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub phases: Vec<(String, f64)>,
    pub peak_mb: Option<f64>,
    pub note: String,
    /// Filled by the checker.
    pub valid: String,
}

impl Outcome {
    fn na(engine: &str, why: &str) -> Outcome {
        Outcome {
            engine: engine.into(),
            status: "n/a".into(),
            selected: Vec::new(),
            median_ms: None,
            min_ms: None,
            max_ms: None,
            phases: Vec::new(),
            peak_mb: None,
            note: why.into(),
            valid: "n/a".into(),
        }
    }
}

pub struct Config {
    pub sizes: Vec<usize>,
    pub shapes: Vec<Shape>,
    pub repeats: Option<usize>,
    pub seed: u64,
    pub work: PathBuf,
    pub libsolv: bool,
    pub deppy_bin: PathBuf,
    pub timeout: Duration,
    pub fbc: bool,
}

struct Ctx<'a> {
    cfg: &'a Config,
    exe: PathBuf,
    script: PathBuf,
}

/// Parses a child's JSON line into an outcome; `headline` names the phase reported as the
/// median.
fn from_child(engine: &str, p: &Proc, headline: &str, m: &Model) -> Outcome {
    let peak = Some(p.maxrss_kb as f64 / 1024.0);
    if p.timed_out {
        let mut o = Outcome::na(engine, "timed out");
        o.status = "timeout".into();
        o.peak_mb = peak;
        return o;
    }
    let line = p.stdout.lines().last().unwrap_or("");
    let v: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) if p.ok => v,
        _ => {
            let mut o = Outcome::na(
                engine,
                &format!(
                    "exit {}: {}",
                    p.code,
                    p.stderr.lines().last().unwrap_or("").trim()
                ),
            );
            o.status = "error".into();
            o.peak_mb = peak;
            return o;
        }
    };
    let mut phases = Vec::new();
    let (mut min_ms, mut max_ms) = (None, None);
    if let Some(map) = v["phases"].as_object() {
        for (k, xs) in map {
            let xs: Vec<f64> = xs
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
                .unwrap_or_default();
            if let Some(md) = median(&xs) {
                phases.push((k.clone(), md));
            }
            if k == headline {
                (min_ms, max_ms) = spread(&xs);
            }
        }
    }
    let mut selected: Vec<usize> = v["selected"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as usize)
                .collect()
        })
        .unwrap_or_default();
    if let Some(names) = v["selected_names"].as_array() {
        selected = names
            .iter()
            .filter_map(|x| x.as_str())
            .filter_map(|s| m.parse_bundle(s))
            .collect();
    }
    let median_ms = phases.iter().find(|(k, _)| k == headline).map(|(_, x)| *x);
    Outcome {
        engine: engine.into(),
        status: v["status"].as_str().unwrap_or("error").into(),
        selected,
        median_ms,
        min_ms,
        max_ms,
        phases,
        peak_mb: peak,
        note: v["note"].as_str().unwrap_or("").into(),
        valid: String::new(),
    }
}

impl Ctx<'_> {
    fn child(&self, engine: &str, label: &str, m: &Model, dir: &Path, repeats: usize) -> Outcome {
        let mut cmd = Command::new(&self.exe);
        cmd.args([
            "child",
            "--engine",
            engine,
            "--shape",
            m.shape.name(),
            "--n",
            &m.n.to_string(),
            "--seed",
            &m.seed.to_string(),
            "--repeats",
            &repeats.to_string(),
            "--dir",
            &dir.display().to_string(),
        ]);
        if !m.with_conflicts {
            cmd.arg("--nc");
        }
        let p = run_proc(&mut cmd, self.cfg.timeout);
        let headline = if engine == "deppy-resolve" {
            "request"
        } else {
            "total"
        };
        from_child(label, &p, headline, m)
    }

    fn libsolv_py(&self, label: &str, m: &Model, dir: &Path, repeats: usize) -> Outcome {
        if !self.cfg.libsolv {
            return Outcome::na(label, "libsolv not installed");
        }
        let mut cmd = Command::new("/usr/bin/python3");
        cmd.arg(&self.script)
            .arg(dir.join("libsolv"))
            .arg(repeats.to_string());
        let p = run_proc(&mut cmd, self.cfg.timeout);
        from_child(label, &p, "total", m)
    }

    /// testsolv as a process: wall time of `testsolv testcase.t`, and of the same repos with no
    /// job (parse, whatprovides and an empty solve) to subtract.
    fn testsolv(&self, m: &Model, dir: &Path, repeats: usize) -> (Outcome, Outcome) {
        if !self.cfg.libsolv {
            return (
                Outcome::na("libsolv testsolv (process)", "libsolv not installed"),
                Outcome::na("libsolv testsolv - parse", "libsolv not installed"),
            );
        }
        let ldir = dir.join("libsolv");
        let mut full = Vec::new();
        let mut parse = Vec::new();
        let mut rss = 0i64;
        let mut last = None;
        for _ in 0..repeats {
            let p = run_proc(
                Command::new("testsolv")
                    .arg("testcase.t")
                    .current_dir(&ldir),
                self.cfg.timeout,
            );
            full.push(p.wall_ms);
            rss = rss.max(p.maxrss_kb);
            let q = run_proc(
                Command::new("testsolv")
                    .arg("parse-only.t")
                    .current_dir(&ldir),
                self.cfg.timeout,
            );
            parse.push(q.wall_ms);
            last = Some(p);
        }
        let p = last.expect("repeats >= 1");
        let mut o = Outcome::na("libsolv testsolv (process)", "");
        if p.timed_out {
            o.status = "timeout".into();
            return (o.clone(), o);
        }
        let mut selected = Vec::new();
        let mut problems = 0;
        let mut notes = String::new();
        for line in p.stdout.lines() {
            if let Some(rest) = line.strip_prefix("+install ") {
                if let Some(b) = m.parse_bundle(rest) {
                    selected.push(b);
                }
            } else if line.starts_with("+problem") {
                problems += 1;
                if notes.is_empty() && line.contains(" info ") {
                    notes = line.split(" info ").nth(1).unwrap_or("").to_string();
                }
            }
        }
        o.status = if p.stdout.trim().is_empty() && p.code > 1 {
            o.note = p.stderr.lines().last().unwrap_or("").into();
            "error".into()
        } else if problems > 0 {
            "unsat".into()
        } else {
            "sat".into()
        };
        if o.status != "error" {
            o.note = notes;
        }
        o.selected = selected;
        o.median_ms = median(&full);
        (o.min_ms, o.max_ms) = spread(&full);
        o.peak_mb = Some(rss as f64 / 1024.0);
        o.phases = vec![
            ("process".into(), median(&full).unwrap_or(0.0)),
            ("parse-only".into(), median(&parse).unwrap_or(0.0)),
        ];
        let mut d = o.clone();
        d.engine = "libsolv testsolv - parse".into();
        d.median_ms = match (median(&full), median(&parse)) {
            (Some(a), Some(b)) if a > b => Some(a - b),
            _ => None,
        };
        (d.min_ms, d.max_ms) = (None, None);
        (o, d)
    }

    /// `deppy resolve DIR/request.yaml -o json`, end to end, as a process; with `cache`, with
    /// `--cache-dir` filled by one untimed run first (the warm start).
    fn deppy_cli(&self, m: &Model, dir: &Path, repeats: usize, cache: Option<&Path>) -> Outcome {
        let label = match cache {
            Some(_) => "deppy resolve CLI, warm --cache-dir",
            None => "deppy resolve CLI (end to end)",
        };
        if !self.cfg.deppy_bin.exists() {
            return Outcome::na(label, "deppy binary not built");
        }
        let cmd = || {
            let mut c = Command::new(&self.cfg.deppy_bin);
            c.arg("resolve")
                .arg(dir.join("request.yaml"))
                .args(["-o", "json"]);
            if let Some(dir) = cache {
                c.arg("--cache-dir").arg(dir);
            }
            c
        };
        if cache.is_some() {
            run_proc(&mut cmd(), self.cfg.timeout);
        }
        let (times, rss, p) = self.repeat(repeats, cmd);
        let mut o = Outcome::na(label, "");
        o.median_ms = median(&times);
        (o.min_ms, o.max_ms) = spread(&times);
        o.peak_mb = Some(rss as f64 / 1024.0);
        if p.timed_out {
            o.status = "timeout".into();
            return o;
        }
        match serde_json::from_str::<serde_json::Value>(&p.stdout) {
            Ok(v) => {
                o.status = match v["status"].as_str() {
                    Some("resolved") => "sat",
                    Some("unsatisfiable") => "unsat",
                    _ => "error",
                }
                .into();
                o.selected = v["selected"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s["bundle"].as_str())
                            .filter_map(|s| m.parse_bundle(s))
                            .collect()
                    })
                    .unwrap_or_default();
                if o.status == "unsat" {
                    o.note = v["explanation"]
                        .as_str()
                        .unwrap_or("")
                        .lines()
                        .nth(1)
                        .unwrap_or("")
                        .trim()
                        .into();
                }
            }
            Err(_) => {
                o.status = "error".into();
                o.note = format!("exit {}: {}", p.code, p.stderr.lines().last().unwrap_or(""));
            }
        }
        o
    }

    /// resolvo as a whole process: `deppy-compare resolvo-file` reads the same catalog file
    /// `deppy resolve` reads, builds its provider and solves (see `file_engine.rs`).
    fn resolvo_process(&self, m: &Model, dir: &Path, repeats: usize, eager: bool) -> Outcome {
        let label = if eager {
            "resolvo eager, process on catalog.json"
        } else {
            "resolvo lazy, process on catalog.json"
        };
        let cmd = || {
            let mut c = Command::new(&self.exe);
            c.arg("resolvo-file")
                .arg("--catalog")
                .arg(dir.join("catalog/catalog.json"))
                .arg("--roots")
                .arg(dir.join("libsolv/roots.txt"));
            if eager {
                c.arg("--eager");
            }
            c
        };
        let (times, rss, p) = self.repeat(repeats, cmd);
        let mut o = from_child(label, &p, "none", m);
        o.median_ms = median(&times);
        (o.min_ms, o.max_ms) = spread(&times);
        o.peak_mb = Some(rss as f64 / 1024.0);
        o
    }

    /// Runs a process `repeats` times: wall times, the largest peak RSS, the last run.
    fn repeat(&self, repeats: usize, cmd: impl Fn() -> Command) -> (Vec<f64>, i64, Proc) {
        let mut times = Vec::new();
        let mut rss = 0;
        let mut last = None;
        for _ in 0..repeats.max(1) {
            let p = run_proc(&mut cmd(), self.cfg.timeout);
            times.push(p.wall_ms);
            rss = rss.max(p.maxrss_kb);
            last = Some(p);
        }
        (times, rss, last.expect("repeats >= 1"))
    }
}

/// Holds every answer against the checker; an "unsat" is valid only when no engine found a
/// valid selection (and, for shape u, it is the expected answer).
fn validate(m: &Model, outs: &mut [Outcome]) {
    for o in outs.iter_mut() {
        if o.status == "sat" {
            o.valid = match check::check(m, &o.selected) {
                Ok(()) => "valid".into(),
                Err(e) => {
                    o.note = format!("checker: {e}");
                    "INVALID".into()
                }
            };
        }
    }
    let some_valid = outs.iter().any(|o| o.valid == "valid");
    for o in outs.iter_mut() {
        match o.status.as_str() {
            "unsat" => {
                o.valid = if some_valid {
                    "INVALID (sat)".into()
                } else if m.shape == Shape::U {
                    "valid".into()
                } else {
                    "unsat?".into()
                }
            }
            "sat" => {
                if m.shape == Shape::U && o.valid == "valid" {
                    // cannot happen: the checker would have rejected it
                    o.valid = "INVALID".into();
                }
            }
            "n/a" => o.valid = "n/a".into(),
            other => o.valid = other.to_string(),
        }
    }
}

struct Row {
    shape: String,
    bundles: usize,
    engine: String,
    min: Option<f64>,
    median: Option<f64>,
    max: Option<f64>,
    ratio: Option<f64>,
    size: String,
    older: String,
    peak: Option<f64>,
    valid: String,
}

fn rows_for(m: &Model, outs: &[Outcome], reference: &str) -> Vec<Row> {
    let base = outs
        .iter()
        .find(|o| o.engine == reference)
        .and_then(|o| o.median_ms);
    outs.iter()
        .map(|o| Row {
            shape: m.shape.name().into(),
            bundles: m.bundles.len(),
            engine: o.engine.clone(),
            min: o.min_ms,
            median: o.median_ms,
            max: o.max_ms,
            ratio: match (base, o.median_ms) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            },
            size: match o.status.as_str() {
                "sat" => o.selected.len().to_string(),
                s => s.to_string(),
            },
            older: match o.status.as_str() {
                "sat" => check::older(&o.selected).to_string(),
                _ => "-".into(),
            },
            peak: o.peak_mb,
            valid: o.valid.clone(),
        })
        .collect()
}

fn fmt_ms(x: Option<f64>) -> String {
    match x {
        None => "n/a".into(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) if v >= 1.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.3}"),
    }
}

fn print_table(title: &str, ratio_name: &str, rows: &[Row]) {
    println!("{title}");
    let header = [
        "shape",
        "bundles",
        "engine (mode)",
        "min ms",
        "median ms",
        "max ms",
        ratio_name,
        "solution",
        "older",
        "peak MB",
        "valid",
    ];
    let cells: Vec<[String; 11]> = rows
        .iter()
        .map(|r| {
            [
                r.shape.clone(),
                r.bundles.to_string(),
                r.engine.clone(),
                fmt_ms(r.min),
                fmt_ms(r.median),
                fmt_ms(r.max),
                r.ratio.map_or("n/a".into(), |x| format!("{x:.2}")),
                r.size.clone(),
                r.older.clone(),
                r.peak.map_or("n/a".into(), |x| format!("{x:.0}")),
                r.valid.clone(),
            ]
        })
        .collect();
    let mut w = header.map(|h| h.len());
    for c in &cells {
        for (i, x) in c.iter().enumerate() {
            w[i] = w[i].max(x.len());
        }
    }
    let line = |c: &[String]| {
        let mut s = String::new();
        for (i, x) in c.iter().enumerate() {
            // text columns left-aligned, numbers right-aligned
            if matches!(i, 0 | 2 | 10) {
                s.push_str(&format!("{:<w$}  ", x, w = w[i]));
            } else {
                s.push_str(&format!("{:>w$}  ", x, w = w[i]));
            }
        }
        println!("{}", s.trim_end());
    };
    line(&header.map(String::from));
    let mut prev = String::new();
    for (r, c) in rows.iter().zip(&cells) {
        let key = format!("{}{}", r.shape, r.bundles);
        if !prev.is_empty() && key != prev {
            println!();
        }
        prev = key;
        line(c);
    }
    println!();
}

fn shell(cmd: &str) -> String {
    Command::new("sh")
        .args(["-c", cmd])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

pub fn run(cfg: &Config, command_line: &str) -> i32 {
    let exe = std::env::current_exe().expect("own path");
    std::fs::create_dir_all(&cfg.work).expect("work dir");
    let script = cfg.work.join("libsolv_solve.py");
    std::fs::write(&script, include_str!("../libsolv_solve.py")).expect("write script");
    let ctx = Ctx { cfg, exe, script };
    let started = Instant::now();
    println!("deppy-compare: deppy vs libsolv vs resolvo on identical instances");
    println!("date: {}", shell("date -u '+%Y-%m-%d %H:%M:%S UTC'"));
    println!("nproc: {}", shell("nproc"));
    println!("command: {command_line}");
    println!(
        "libsolv: {}",
        if cfg.libsolv {
            shell(
                "dpkg-query -W -f '${Package} ${Version}  ' libsolv-tools python3-solv 2>/dev/null",
            )
        } else {
            "not available (rows n/a)".into()
        }
    );
    println!(
        "resolvo: 0.12 (crates.io, bench-only dependency); shared GVKs encoded as {}",
        if crate::resolvo_engine::union_gvks() {
            "union requirements + constrains"
        } else {
            "virtual names"
        }
    );
    println!(
        "model: seed {}, dependency ranges {}",
        cfg.seed,
        if crate::model::open_ranges() {
            "open (>=1.lo.0)"
        } else {
            "bounded (>=1.lo.0 <1.hi.0)"
        }
    );
    for &shape in &cfg.shapes {
        println!(
            "rates, shape {}: {}",
            shape.name(),
            crate::model::Rates::describe(shape)
        );
    }
    println!(
        "timed: every engine from the same input in memory to its answer, input building \
         included, nothing reused between repeats; min/median/max over the repeats"
    );
    println!();
    let mut main_rows = Vec::new();
    let mut fbc_rows = Vec::new();
    let mut process_rows = Vec::new();
    let mut notes = Vec::new();
    let mut invalid = 0;
    for &n in &cfg.sizes {
        for &shape in &cfg.shapes {
            let repeats = cfg.repeats.unwrap_or(10).max(1);
            let full = Model::generate(shape, n, cfg.seed, true);
            let nc = Model::generate(shape, n, cfg.seed, false);
            let dir = cfg.work.join(format!("{}-{}", shape.name(), n));
            let ncdir = dir.join("nc");
            // model.json is left to `gen`: no engine here reads it
            emit::write_libsolv(&full, &dir.join("libsolv")).expect("write instance");
            if cfg.fbc {
                emit::write_fbc(&nc, &ncdir).expect("write instance");
                emit::write_libsolv(&nc, &ncdir.join("libsolv")).expect("write instance");
            }
            eprintln!(
                "[{:>6.1}s] {} n={} ({} repeats): {}",
                started.elapsed().as_secs_f64(),
                shape.name(),
                n,
                repeats,
                full.stats()
            );
            notes.push(format!("{}-{}: {}", shape.name(), n, full.stats()));
            let mut outs = vec![ctx.child("deppy", "deppy generic", &full, &dir, repeats)];
            outs.push(ctx.child(
                "deppy-problem",
                "deppy problem (typed)",
                &full,
                &dir,
                repeats,
            ));
            outs.push(ctx.child(
                "deppy-provided",
                "deppy problem (provider)",
                &full,
                &dir,
                repeats,
            ));
            outs.push(ctx.libsolv_py("libsolv python3-solv", &full, &dir, repeats));
            let (ts, tsp) = ctx.testsolv(&full, &dir, repeats);
            outs.push(ts);
            outs.push(tsp);
            outs.push(ctx.child("resolvo-eager", "resolvo eager", &full, &dir, repeats));
            outs.push(ctx.child("resolvo-lazy", "resolvo lazy", &full, &dir, repeats));
            validate(&full, &mut outs);
            for o in &outs {
                if o.valid.starts_with("INVALID") || o.valid == "error" {
                    invalid += 1;
                    notes.push(format!(
                        "{}-{} {}: {} {}",
                        shape.name(),
                        n,
                        o.engine,
                        o.valid,
                        o.note
                    ));
                }
                if let Some(b) = o.phases.iter().find(|(k, _)| k == "build" || k == "load") {
                    notes.push(format!(
                        "{}-{} {}: input built in {} ms (median; inside the timed part)",
                        shape.name(),
                        n,
                        o.engine,
                        fmt_ms(Some(b.1))
                    ));
                }
                if let Some(ex) = o.phases.iter().find(|(k, _)| k == "explain") {
                    notes.push(format!(
                        "{}-{} {}: explanation rendering {} ms of the median; first line: {}",
                        shape.name(),
                        n,
                        o.engine,
                        fmt_ms(Some(ex.1)),
                        o.note
                    ));
                }
            }
            main_rows.extend(rows_for(&full, &outs, "deppy generic"));
            if cfg.fbc {
                let mut f = vec![ctx.child(
                    "deppy-resolve",
                    "deppy resolve (library, request)",
                    &nc,
                    &ncdir,
                    repeats,
                )];
                // the library's other stages as their own rows
                let stages = f[0].clone();
                for (phase, label) in [
                    ("total", "deppy resolve (library, load+request)"),
                    ("resolve", "deppy resolve (library, resolve stage)"),
                ] {
                    let mut o = stages.clone();
                    o.engine = label.into();
                    o.median_ms = stages.phases.iter().find(|(k, _)| k == phase).map(|x| x.1);
                    // the child reports these stages' medians only
                    (o.min_ms, o.max_ms) = (None, None);
                    f.push(o);
                }
                f.push(ctx.deppy_cli(&nc, &ncdir, repeats, None));
                f.push(ctx.child("deppy", "deppy generic", &nc, &ncdir, repeats));
                f.push(ctx.libsolv_py("libsolv python3-solv", &nc, &ncdir, repeats));
                f.push(ctx.child("resolvo-eager", "resolvo eager", &nc, &ncdir, repeats));
                f.push(ctx.child("resolvo-lazy", "resolvo lazy", &nc, &ncdir, repeats));
                validate(&nc, &mut f);
                let st: Vec<String> = stages
                    .phases
                    .iter()
                    .map(|(k, v)| format!("{k} {}", fmt_ms(Some(*v))))
                    .collect();
                notes.push(format!(
                    "{}-{} deppy resolve library stages (median ms): {}",
                    shape.name(),
                    n,
                    st.join(", ")
                ));
                for o in &f {
                    if o.valid.starts_with("INVALID") || o.valid == "error" {
                        invalid += 1;
                        notes.push(format!(
                            "{}-{} (FBC) {}: {} {}",
                            shape.name(),
                            n,
                            o.engine,
                            o.valid,
                            o.note
                        ));
                    }
                }
                fbc_rows.extend(rows_for(&nc, &f, "deppy resolve (library, request)"));
                let cache = ncdir.join("deppy-cache");
                let _ = std::fs::remove_dir_all(&cache);
                let mut w = vec![ctx.deppy_cli(&nc, &ncdir, repeats, Some(&cache))];
                w.push(ctx.resolvo_process(&nc, &ncdir, repeats, false));
                w.push(ctx.resolvo_process(&nc, &ncdir, repeats, true));
                validate(&nc, &mut w);
                for o in &w {
                    if o.valid.starts_with("INVALID") || o.valid == "error" {
                        invalid += 1;
                        notes.push(format!(
                            "{}-{} (process) {}: {} {}",
                            shape.name(),
                            n,
                            o.engine,
                            o.valid,
                            o.note
                        ));
                    }
                }
                process_rows.extend(rows_for(&nc, &w, "deppy resolve CLI, warm --cache-dir"));
            }
        }
    }
    print_table(
        "Full model (conflicts included); ms from the model in memory to the answer (input building included)",
        "deppy/peer",
        &main_rows,
    );
    if cfg.fbc {
        print_table(
            "FBC comparison: conflict-free variant; deppy resolve from the loaded catalog, peers from the same model in memory, each to its answer",
            "resolve/peer",
            &fbc_rows,
        );
        print_table(
            "Whole process: conflict-free variant; each process reads catalog/catalog.json and answers",
            "deppy/peer",
            &process_rows,
        );
    }
    println!("Notes:");
    for n in &notes {
        println!("  {n}");
    }
    println!(
        "\n{} answers rejected by the checker or failed; wall time of this run {:.1} s",
        invalid,
        started.elapsed().as_secs_f64()
    );
    if invalid > 0 { 1 } else { 0 }
}
