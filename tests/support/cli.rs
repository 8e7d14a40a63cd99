//! Running the `deppy` binary in tests: with a time limit (a run that outlives it is killed
//! and fails the test), stdin from a string, and the output as text.

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_deppy");

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct Ran {
    /// The exit code (None when killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

impl Ran {
    /// Asserts the exit code, showing both streams when it differs.
    pub fn expect(&self, code: i32) -> &Ran {
        assert_eq!(
            self.code,
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// A `deppy` run to set up.
pub struct Run {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    limit: Duration,
}

/// `deppy ARGS`, run in the crate's folder, with `RUST_LOG` and `NO_COLOR` unset and a
/// 60-second limit.
pub fn deppy<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("DEPPY_MAX_FILE_SIZE");
    Run {
        cmd,
        stdin: None,
        limit: Duration::from_secs(60),
    }
}

impl Run {
    /// Feeds `bytes` on stdin.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Run {
        self.stdin = Some(bytes.into());
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: &str) -> Run {
        self.cmd.env(key, value);
        self
    }

    /// Runs in `dir`.
    pub fn dir(mut self, dir: &Path) -> Run {
        self.cmd.current_dir(dir);
        self
    }

    /// Fails the test if the run takes longer than `limit` (the process is killed).
    pub fn within(mut self, limit: Duration) -> Run {
        self.limit = limit;
        self
    }

    /// Runs to the end (or the limit).
    pub fn run(mut self) -> Ran {
        let start = Instant::now();
        self.cmd
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("spawn deppy");
        if let Some(bytes) = self.stdin.take() {
            let mut pipe = child.stdin.take().expect("stdin");
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let out = child.stdout.take().expect("stdout");
        let err = child.stderr.take().expect("stderr");
        let read = |mut r: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = r.read_to_end(&mut buf);
                String::from_utf8_lossy(&buf).into_owned()
            })
        };
        let (out, err) = (read(Box::new(out)), read(Box::new(err)));
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if start.elapsed() > self.limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("deppy {:?} ran past {:?}", self.cmd, self.limit);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Ran {
            code: status.code(),
            stdout: out.join().expect("stdout reader"),
            stderr: err.join().expect("stderr reader"),
            took: start.elapsed(),
        }
    }
}

/// A small catalog file: package `name` with one bundle `name.v1.0.0` in channel `stable`.
pub fn one_bundle_catalog(name: &str) -> String {
    format!(
        r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"{name}","name":"stable","entries":[{{"name":"{name}.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"{name}.v1.0.0","package":"{name}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"{name}","version":"1.0.0"}}}}]}}
"#
    )
}

/// A chain of `n` packages: `p0` requires `p1` ... requires `p{n-1}`.
pub fn chain_catalog(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            r#"{{"schema":"olm.package","name":"p{i}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"p{i}","name":"stable","entries":[{{"name":"p{i}.v1.0.0"}}]}}
"#
        ));
        let dep = if i + 1 < n {
            format!(
                r#",{{"type":"olm.package.required","value":{{"packageName":"p{}","versionRange":">=1.0.0"}}}}"#,
                i + 1
            )
        } else {
            String::new()
        };
        out.push_str(&format!(
            r#"{{"schema":"olm.bundle","name":"p{i}.v1.0.0","package":"p{i}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"p{i}","version":"1.0.0"}}}}{dep}]}}
"#
        ));
    }
    out
}

/// `pigeons` packages of `holes` bundles each; bundle `p{i}.v1.0.{h}` provides API `K{h}`.
/// Requiring every package asks for more providers of distinct APIs than there are: a
/// pigeonhole, unsatisfiable and hard for the solver when `pigeons > holes`.
pub fn pigeonhole_catalog(pigeons: usize, holes: usize) -> String {
    let mut out = String::new();
    for p in 0..pigeons {
        out.push_str(&format!(
            r#"{{"schema":"olm.package","name":"p{p}","defaultChannel":"stable"}}
"#
        ));
        let entries: Vec<String> = (0..holes)
            .map(|h| match h {
                0 => format!(r#"{{"name":"p{p}.v1.0.0"}}"#),
                _ => format!(
                    r#"{{"name":"p{p}.v1.0.{h}","replaces":"p{p}.v1.0.{}"}}"#,
                    h - 1
                ),
            })
            .collect();
        out.push_str(&format!(
            r#"{{"schema":"olm.channel","package":"p{p}","name":"stable","entries":[{}]}}
"#,
            entries.join(",")
        ));
        for h in 0..holes {
            out.push_str(&format!(
                r#"{{"schema":"olm.bundle","name":"p{p}.v1.0.{h}","package":"p{p}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"p{p}","version":"1.0.{h}"}}}},{{"type":"olm.gvk","value":{{"group":"g.io","version":"v1","kind":"K{h}"}}}}]}}
"#
            ));
        }
    }
    out
}

/// `--require p0 ... --require p{n-1}`.
pub fn require_all(n: usize) -> Vec<String> {
    (0..n)
        .flat_map(|i| ["--require".to_string(), format!("p{i}")])
        .collect()
}
