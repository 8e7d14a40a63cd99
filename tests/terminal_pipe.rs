//! A reader that goes away (`deppy ... | head`): the output ends quietly, as cargo's and
//! ripgrep's do, with the command's own exit code; never a panic (exit 101, "failed printing
//! to stdout").

use std::io::Read;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_deppy");

/// Runs deppy with stdout a pipe whose reader takes `keep` bytes and closes it.
fn closed_early(args: &[&str], keep: usize) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut head = vec![0u8; keep];
    stdout.read_exact(&mut head).expect("the first bytes");
    drop(stdout);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let status = child.wait().expect("wait");
    (status.code(), err)
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let catalog = dir.path().join("chain.json");
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!(
            "{{\"schema\":\"olm.package\",\"name\":\"package-with-a-long-name-{i}\",\"defaultChannel\":\"stable\"}}\n"
        ));
    }
    std::fs::write(&catalog, text).expect("write");
    let c = catalog.to_str().expect("utf8");
    for args in [
        vec!["catalog", "inspect", c],
        vec!["catalog", "inspect", c, "-o", "json"],
    ] {
        let (code, err) = closed_early(&args, 10);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
    }
}
