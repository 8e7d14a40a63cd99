//! Where `--output-file` and `--trace` write: a regular file (or a new one) is replaced
//! atomically; a device, a FIFO, `-` (stdout) and `/dev/stdout` are written straight into and
//! stay what they are; a read-only file is refused unless `--force` is given. A destination
//! that cannot be written is exit code 4, never 2 (bad input).

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_deppy");
const ODF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/catalogs/odf-dev");

fn deppy(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run deppy")
}

fn resolve_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "-q",
        "resolve",
        "--catalog",
        ODF,
        "--require",
        "odf-dependencies",
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    args
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `--output-file -` prints on stdout and creates no file named `-`.
#[test]
fn a_dash_is_stdout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = deppy(&resolve_args(&[]));
    let out = Command::new(BIN)
        .args(resolve_args(&["--output-file", "-"]))
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
    assert!(!dir.path().join("-").exists(), "a file named - was created");
}

/// `/dev/stdout` is written into, whatever stdout is (here a pipe).
#[cfg(target_os = "linux")]
#[test]
fn dev_stdout_is_written_into() {
    let plain = deppy(&resolve_args(&[]));
    let out = deppy(&resolve_args(&["--output-file", "/dev/stdout"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
}

/// `/dev/null` stays a character device (a run as root used to replace it with a regular
/// file); the trace too can go there.
#[cfg(unix)]
#[test]
fn dev_null_stays_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let out = deppy(&resolve_args(&[
        "--output-file",
        "/dev/null",
        "--trace",
        "/dev/null",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let meta = std::fs::metadata("/dev/null").expect("stat /dev/null");
    assert!(meta.file_type().is_char_device(), "/dev/null: {meta:?}");
}

/// A FIFO is written into (a reader gets the answer) and stays a FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_is_written_into_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("answer.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read the fifo"))
    };
    let out = deppy(&resolve_args(&[
        "--output-file",
        fifo.to_str().expect("utf8"),
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Checked before joining the reader: had the FIFO been replaced, its reader would wait
    // on it for ever.
    let meta = std::fs::symlink_metadata(&fifo).expect("stat");
    assert!(meta.file_type().is_fifo(), "{meta:?}");
    let got = reader.join().expect("reader");
    assert_eq!(got, deppy(&resolve_args(&[])).stdout);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// A read-only file is refused (exit 4, it is left as it was) unless `--force` is given.
#[cfg(unix)]
#[test]
fn a_read_only_file_needs_force() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("answer.json");
    std::fs::write(&path, "old\n").expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let p = path.to_str().expect("utf8");
    for flag in ["--output-file", "--trace"] {
        let out = deppy(&resolve_args(&[flag, p]));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{flag}: {err}");
        assert!(
            err.contains("answer.json") && err.contains("read-only"),
            "{err}"
        );
        assert!(err.contains("--force"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old\n");
    }
    let out = deppy(&resolve_args(&["--output-file", p, "--force"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("\"resolved\""), "{text}");
    let mode = std::fs::metadata(&path).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o444, "the mode is kept");
}

/// A regular file is still replaced atomically: the old inode is not written into.
#[cfg(unix)]
#[test]
fn a_regular_file_is_replaced_not_written_into() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("answer.json");
    std::fs::write(&path, "old\n").expect("write");
    let hard = dir.path().join("hard-link.json");
    std::fs::hard_link(&path, &hard).expect("link");
    let before = std::fs::metadata(&path).expect("stat").ino();
    let out = deppy(&resolve_args(&[
        "--output-file",
        path.to_str().expect("utf8"),
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(std::fs::metadata(&path).expect("stat").ino(), before);
    assert_eq!(std::fs::read_to_string(&hard).expect("read"), "old\n");
}

/// A device that cannot take the bytes (`/dev/full`: no space left) is an output error,
/// exit 4, with a one-line message naming it.
#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_an_output_error() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    let out = deppy(&resolve_args(&["--output-file", "/dev/full"]));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.starts_with("error: cannot write /dev/full"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
