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

/// `deppy ARGS`, run in the crate's folder, with `RUST_LOG` and `NO_COLOR` unset, the image
/// cache in the build's temporary directory, and a 60-second limit.
pub fn deppy<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("DEPPY_MAX_FILE_SIZE")
        // Pulled catalog images go to the tests' own cache, never the user's.
        .env(
            "XDG_CACHE_HOME",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache"),
        );
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

// The inputs the tests feed deppy, shared with `examples/sweep_inputs.rs`.
#[path = "inputs.rs"]
mod inputs;
#[allow(unused_imports)]
pub use inputs::*;
