//! deppy-compare: deppy vs libsolv vs resolvo on identical seeded instances (issue 7).
//! See README.md beside Cargo.toml.

mod check;
mod emit;
mod engines;
mod file_engine;
mod harness;
mod model;
mod resolvo_engine;
mod rng;

use std::path::PathBuf;
use std::time::Duration;

use model::{Model, Shape};

/// With `--features mimalloc`, every engine runs on the allocator of the `deppy` binary.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn usage() -> ! {
    eprintln!(
        "usage:
  deppy-compare gen --shape n|u|c|real --n N [--seed S] [--ranges bounded|open]
      [--dep-rate R] [--gvk-rate R] [--con-rate R] --out DIR
      writes DIR/model.json (deppy solve), DIR/catalog/catalog.json + DIR/request.yaml
      (conflict-free variant, deppy resolve) and DIR/libsolv/ (testsolv testcase)
  deppy-compare run [--sizes 100,1000,10000] [--shapes n,u,c,real] [--repeats K] [--seed S]
      [--work DIR] [--no-libsolv] [--no-fbc] [--deppy-bin PATH] [--timeout SECS]
      [--ranges bounded|open] [--resolvo-gvk union|virtual]
      [--dep-rate R] [--gvk-rate R] [--con-rate R]
  deppy-compare resolvo-file --catalog FILE --roots FILE [--eager]
      resolvo as a whole process on the catalog file (used by run)
  deppy-compare child --engine deppy|deppy-problem|deppy-provided|deppy-resolve|resolvo-eager|resolvo-lazy|none
      --shape S --n N --seed S --repeats K --dir DIR [--nc]   (used by run)"
    );
    std::process::exit(2)
}

pub struct Args(Vec<String>);

impl Args {
    pub fn value(&self, flag: &str) -> Option<String> {
        let i = self.0.iter().position(|a| a == flag)?;
        Some(self.0.get(i + 1).cloned().unwrap_or_else(|| usage()))
    }
    pub fn has(&self, flag: &str) -> bool {
        self.0.iter().any(|a| a == flag)
    }
    pub fn parse<T: std::str::FromStr>(&self, flag: &str, default: T) -> T {
        match self.value(flag) {
            Some(v) => v.parse().unwrap_or_else(|_| usage()),
            None => default,
        }
    }
    fn shape(&self) -> Shape {
        self.value("--shape")
            .and_then(|s| Shape::parse(&s))
            .unwrap_or_else(|| usage())
    }
    /// Every flag must be known and take a value unless it is a switch.
    fn validate(&self, with_value: &[&str], switches: &[&str]) {
        let mut i = 0;
        while i < self.0.len() {
            let a = self.0[i].as_str();
            if with_value.contains(&a) {
                i += 2;
            } else if switches.contains(&a) {
                i += 1;
            } else {
                eprintln!("unknown argument {a:?}");
                usage()
            }
        }
    }
}

/// Model and encoding options that child processes must share: passed through the environment.
fn set_shared_options(args: &Args) {
    for (flag, var, allowed) in [
        ("--ranges", "DEPPY_COMPARE_RANGES", ["open", "bounded"]),
        (
            "--resolvo-gvk",
            "DEPPY_COMPARE_RESOLVO_GVK",
            ["union", "virtual"],
        ),
    ] {
        if let Some(v) = args.value(flag) {
            if !allowed.contains(&v.as_str()) {
                usage()
            }
            // SAFETY: called first thing in main, before any thread exists.
            unsafe { std::env::set_var(var, v) };
        }
    }
    for (flag, var) in [
        ("--dep-rate", "DEPPY_COMPARE_DEP_RATE"),
        ("--gvk-rate", "DEPPY_COMPARE_GVK_RATE"),
        ("--con-rate", "DEPPY_COMPARE_CON_RATE"),
    ] {
        if let Some(v) = args.value(flag) {
            if !v.parse::<f64>().is_ok_and(|x| (0.0..=1.0).contains(&x)) {
                usage()
            }
            // SAFETY: called first thing in main, before any thread exists.
            unsafe { std::env::set_var(var, v) };
        }
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = argv.first().cloned() else {
        usage()
    };
    let args = Args(argv[1..].to_vec());
    set_shared_options(&args);
    match cmd.as_str() {
        "gen" => {
            args.validate(
                &[
                    "--shape",
                    "--n",
                    "--seed",
                    "--out",
                    "--ranges",
                    "--dep-rate",
                    "--gvk-rate",
                    "--con-rate",
                ],
                &[],
            );
            let shape = args.shape();
            let n: usize = args.parse("--n", 0);
            let seed: u64 = args.parse("--seed", 1);
            let out = PathBuf::from(args.value("--out").unwrap_or_else(|| usage()));
            if n < 10 {
                usage()
            }
            let full = Model::generate(shape, n, seed, true);
            let nc = Model::generate(shape, n, seed, false);
            emit::write_all(&full, &nc, &out).unwrap_or_else(|e| {
                eprintln!("writing {}: {e}", out.display());
                std::process::exit(2)
            });
            println!("{}: {}", out.display(), full.stats());
        }
        "child" => {
            args.validate(
                &["--engine", "--shape", "--n", "--seed", "--repeats", "--dir"],
                &["--nc"],
            );
            let shape = args.shape();
            let n: usize = args.parse("--n", 0);
            let seed: u64 = args.parse("--seed", 1);
            let repeats: usize = args.parse("--repeats", 1);
            let dir = PathBuf::from(args.value("--dir").unwrap_or_else(|| ".".into()));
            let m = Model::generate(shape, n, seed, !args.has("--nc"));
            let run = match args.value("--engine").as_deref() {
                Some("deppy") => engines::deppy_generic(&m, repeats),
                Some("deppy-problem") => engines::deppy_problem(&m, repeats),
                Some("deppy-provided") => engines::deppy_provided(&m, repeats),
                Some("deppy-resolve") => engines::deppy_resolve(&m, &dir, repeats),
                Some("resolvo-eager") => engines::resolvo(&m, true, repeats),
                Some("resolvo-lazy") => engines::resolvo(&m, false, repeats),
                Some("none") => engines::Run {
                    status: "sat",
                    selected: Vec::new(),
                    phases: Vec::new(),
                    note: String::new(),
                },
                _ => usage(),
            };
            println!("{}", run.to_json());
        }
        "resolvo-file" => {
            args.validate(&["--catalog", "--roots"], &["--eager"]);
            let catalog = args.value("--catalog").unwrap_or_else(|| usage());
            let roots = args.value("--roots").unwrap_or_else(|| usage());
            let run = file_engine::main(&catalog, &roots, args.has("--eager"));
            println!("{}", run.to_json());
        }
        "run" => {
            args.validate(
                &[
                    "--sizes",
                    "--shapes",
                    "--repeats",
                    "--seed",
                    "--work",
                    "--deppy-bin",
                    "--timeout",
                    "--ranges",
                    "--resolvo-gvk",
                    "--dep-rate",
                    "--gvk-rate",
                    "--con-rate",
                ],
                &["--no-libsolv", "--no-fbc"],
            );
            let list = |flag: &str, default: &str| -> Vec<String> {
                args.value(flag)
                    .unwrap_or_else(|| default.into())
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            };
            let sizes: Vec<usize> = list("--sizes", "100,1000,10000")
                .iter()
                .map(|s| s.parse().unwrap_or_else(|_| usage()))
                .collect();
            if sizes.iter().any(|n| *n < 10) {
                usage()
            }
            let shapes: Vec<Shape> = list("--shapes", "n,u,c,real")
                .iter()
                .map(|s| Shape::parse(s).unwrap_or_else(|| usage()))
                .collect();
            let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
            let libsolv = !args.has("--no-libsolv")
                && std::process::Command::new("testsolv")
                    .arg("-h")
                    .output()
                    .is_ok()
                && std::process::Command::new("/usr/bin/python3")
                    .args(["-c", "import solv"])
                    .status()
                    .is_ok_and(|s| s.success());
            let cfg = harness::Config {
                sizes,
                shapes,
                repeats: args
                    .value("--repeats")
                    .map(|r| r.parse().unwrap_or_else(|_| usage())),
                seed: args.parse("--seed", 1),
                work: args
                    .value("--work")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| manifest.join("target/compare-work")),
                libsolv,
                deppy_bin: args
                    .value("--deppy-bin")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| manifest.join("../../target/release/deppy")),
                timeout: Duration::from_secs(args.parse("--timeout", 600)),
                fbc: !args.has("--no-fbc"),
            };
            let line: Vec<String> = std::env::args().collect();
            std::process::exit(harness::run(&cfg, &line.join(" ")));
        }
        _ => usage(),
    }
}
