//! Output files that are never left half-written, and outputs that are not files at all.
//!
//! [`Output::open`] decides by what is at the path:
//!
//! - a regular file, or nothing yet: everything goes to a temporary file in the same
//!   directory, which is flushed, synced to disk and then renamed over the destination. A run
//!   that is interrupted or fails leaves the destination as it was (the old file, or none); a
//!   reader never sees a truncated file. A read-only file is refused unless
//!   [`WriteOptions::force`] is set (then it is replaced, keeping its mode);
//! - `-`, `/dev/stdout` (`/dev/fd/1`, `/proc/self/fd/1`): the process's standard output;
//!   `/dev/stderr` likewise;
//! - anything else that exists and is not a regular file or a directory (a character device
//!   such as `/dev/null`, a FIFO, a socket), or any path under `/dev` or `/proc`: written
//!   straight into, never replaced, so `/dev/null` stays a device and a FIFO's reader gets
//!   the bytes.
//!
//! `deppy ... --output-file FILE` and `deppy resolve --trace FILE` write this way.
//! [`write_atomic`] and [`AtomicFile`] always replace (the catalog cache's entries).
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let out = dir.path().join("answer.json");
//! deppy::advanced::atomic::write_atomic(&out, b"{}\n")?;
//! assert_eq!(std::fs::read(&out)?, b"{}\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An output file could not be written; the destination is unchanged.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {error}", path.display())]
pub struct WriteError {
    /// The destination.
    pub path: PathBuf,
    /// What failed (in the message, so not also a `source`).
    pub error: std::io::Error,
}

/// Writes `bytes` to `path` atomically (see the module documentation).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes).map_err(|e| file.error(e))?;
    file.commit()
}

/// [`write_atomic`] without syncing to disk ([`AtomicFile::commit_unsynced`]).
pub(crate) fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes).map_err(|e| file.error(e))?;
    file.commit_unsynced()
}

/// How [`Output::open`] may treat an existing file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Replace a read-only regular file (it keeps its mode).
    pub force: bool,
}

/// What an output path names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The process's standard output (`-`, `/dev/stdout`).
    Stdout,
    /// The process's standard error (`/dev/stderr`).
    Stderr,
    /// Written straight into: a device, a FIFO, a socket, a path under `/dev` or `/proc`.
    Direct(PathBuf),
    /// A regular file, or nothing yet: replaced atomically.
    Replace(PathBuf),
}

/// The message of a refused read-only destination (an [`std::io::ErrorKind::PermissionDenied`]
/// error in [`WriteError::error`]).
pub const READ_ONLY: &str = "it is read-only";

/// What `path` names, and whether it may be written (a directory never; a read-only regular
/// file only with [`WriteOptions::force`]).
pub fn destination(path: &Path, options: WriteOptions) -> Result<Destination, WriteError> {
    let err = |error| WriteError {
        path: path.to_path_buf(),
        error,
    };
    let text = path.as_os_str();
    if text == "-"
        || ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
            .iter()
            .any(|s| text == *s)
    {
        return Ok(Destination::Stdout);
    }
    if ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"]
        .iter()
        .any(|s| text == *s)
    {
        return Ok(Destination::Stderr);
    }
    let system = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a directory",
        ))),
        Ok(m)
            if m.is_file()
                && !system(path)
                && !std::fs::canonicalize(path).is_ok_and(|c| system(&c)) =>
        {
            if m.permissions().readonly() && !options.force {
                return Err(err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    READ_ONLY,
                )));
            }
            Ok(Destination::Replace(path.to_path_buf()))
        }
        Ok(_) => Ok(Destination::Direct(path.to_path_buf())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !system(path) => {
            Ok(Destination::Replace(path.to_path_buf()))
        }
        Err(e) => Err(err(e)),
    }
}

/// An output being written: to a temporary file renamed into place by [`Output::commit`], or
/// straight into a device, a FIFO or a standard stream (see the module documentation).
/// Dropped without a commit, a temporary file is removed and the destination is untouched.
pub struct Output {
    sink: Sink,
}

enum Sink {
    Replace(AtomicFile),
    Direct(PathBuf, File),
    Stdout(std::io::Stdout),
    Stderr(std::io::Stderr),
}

impl Output {
    /// Opens `path` for writing as [`destination`] says. Opening a FIFO waits for a reader,
    /// as a shell's `>` does.
    pub fn open(path: &Path, options: WriteOptions) -> Result<Output, WriteError> {
        let sink = match destination(path, options)? {
            Destination::Stdout => Sink::Stdout(std::io::stdout()),
            Destination::Stderr => Sink::Stderr(std::io::stderr()),
            Destination::Direct(p) => {
                let file = File::options()
                    .write(true)
                    .open(&p)
                    .map_err(|error| WriteError {
                        path: p.clone(),
                        error,
                    })?;
                Sink::Direct(p, file)
            }
            Destination::Replace(p) => Sink::Replace(AtomicFile::create(&p)?),
        };
        Ok(Output { sink })
    }

    /// An I/O error while writing this output, naming its destination.
    pub fn error(&self, error: std::io::Error) -> WriteError {
        let path = match &self.sink {
            Sink::Replace(f) => f.path().to_path_buf(),
            Sink::Direct(p, _) => p.clone(),
            Sink::Stdout(_) => PathBuf::from("-"),
            Sink::Stderr(_) => PathBuf::from("/dev/stderr"),
        };
        WriteError { path, error }
    }

    /// Finishes the output: renames a temporary file into place, or flushes a stream.
    pub fn commit(mut self) -> Result<(), WriteError> {
        match self.sink {
            Sink::Replace(f) => f.commit(),
            _ => self.flush().map_err(|e| self.error(e)),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.sink {
            Sink::Replace(f) => f.write(buf),
            Sink::Direct(_, f) => f.write(buf),
            Sink::Stdout(s) => s.write(buf),
            Sink::Stderr(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Replace(f) => f.flush(),
            Sink::Direct(_, f) => f.flush(),
            Sink::Stdout(s) => s.flush(),
            Sink::Stderr(s) => s.flush(),
        }
    }
}

/// Writes `bytes` to `path` as [`Output::open`] decides (atomically for a regular file).
pub fn write_output(path: &Path, bytes: &[u8], options: WriteOptions) -> Result<(), WriteError> {
    let mut out = Output::open(path, options)?;
    out.write_all(bytes).map_err(|e| out.error(e))?;
    out.commit()
}

/// Distinguishes the temporary files of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file being written: a temporary file next to the destination until
/// [`AtomicFile::commit`] renames it into place. Dropped without a commit, the temporary
/// file is removed and the destination is untouched.
pub struct AtomicFile {
    /// The destination (a symlink's target when it is a symlink).
    path: PathBuf,
    /// The temporary file, while it exists.
    tmp: Option<(PathBuf, File)>,
}

impl AtomicFile {
    /// Creates the temporary file `.NAME.PID.N.tmp` in the destination's directory. A
    /// destination that is a symlink is resolved, so its target is replaced, not the link;
    /// the permissions of an existing destination are kept.
    pub fn create(path: &Path) -> Result<AtomicFile, WriteError> {
        let err = |error| WriteError {
            path: path.to_path_buf(),
            error,
        };
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(err)?,
            _ => path.to_path_buf(),
        };
        let name = target.file_name().ok_or_else(|| {
            err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a file name",
            ))
        })?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut attempts = 0;
        let (tmp, file) = loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut tmp_name = std::ffi::OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".{}.{n}.tmp", std::process::id()));
            let tmp = dir.join(tmp_name);
            match File::options().write(true).create_new(true).open(&tmp) {
                Ok(f) => break (tmp, f),
                // Left by an earlier process with the same id: try the next name.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 100 => {
                    attempts += 1;
                }
                Err(e) => return Err(err(e)),
            }
        };
        let out = AtomicFile {
            path: target,
            tmp: Some((tmp, file)),
        };
        if let (Ok(meta), Some((_, f))) = (std::fs::metadata(&out.path), &out.tmp)
            && meta.is_file()
        {
            f.set_permissions(meta.permissions())
                .map_err(|e| out.error(e))?;
        }
        Ok(out)
    }

    /// Writes `bytes` over the start of the file written so far (a header of fixed width
    /// whose contents are known only at the end).
    pub(crate) fn rewrite_start(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Seek;
        match &mut self.tmp {
            Some((_, f)) => {
                f.seek(std::io::SeekFrom::Start(0))?;
                f.write_all(bytes)
            }
            None => Err(std::io::Error::other("already committed")),
        }
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An I/O error while writing this file, naming its destination.
    pub fn error(&self, error: std::io::Error) -> WriteError {
        WriteError {
            path: self.path.clone(),
            error,
        }
    }

    /// Syncs the temporary file to disk and renames it over the destination (then syncs the
    /// directory, where the platform allows). On an error the destination is unchanged and
    /// the temporary file is removed.
    pub fn commit(self) -> Result<(), WriteError> {
        self.finish(true)
    }

    /// Renames the temporary file over the destination without syncing anything to disk:
    /// for files whose readers check them and rebuild them when they do not check out (the
    /// catalog cache), where a crash may lose the file but never leaves a half-written one
    /// under its name.
    pub(crate) fn commit_unsynced(self) -> Result<(), WriteError> {
        self.finish(false)
    }

    fn finish(mut self, sync: bool) -> Result<(), WriteError> {
        let Some((tmp, file)) = self.tmp.take() else {
            return Err(self.error(std::io::Error::other("already committed")));
        };
        let synced = if sync { file.sync_all() } else { Ok(()) };
        let result = synced
            .and_then(|()| {
                drop(file);
                std::fs::rename(&tmp, &self.path)
            })
            .map_err(|e| self.error(e));
        match result {
            Ok(()) => {
                if sync {
                    sync_dir(&self.path);
                }
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }
}

/// Makes a rename durable (best effort: not every platform can open a directory).
fn sync_dir(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.tmp {
            Some((_, f)) => f.write(buf),
            None => Err(std::io::Error::other("already committed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.tmp {
            Some((_, f)) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some((tmp, file)) = self.tmp.take() {
            drop(file);
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn writes_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.json");
        write_atomic(&out, b"first").expect("write");
        assert_eq!(std::fs::read(&out).expect("read"), b"first");
        write_atomic(&out, b"second, longer").expect("replace");
        assert_eq!(std::fs::read(&out).expect("read"), b"second, longer");
        assert_eq!(listing(dir.path()), ["out.json"]);
    }

    #[test]
    fn an_uncommitted_file_leaves_the_old_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.json");
        write_atomic(&out, b"old").expect("write");
        {
            let mut f = AtomicFile::create(&out).expect("create");
            f.write_all(b"half of the new").expect("write");
            // Dropped, as when a run fails before it is done.
        }
        assert_eq!(std::fs::read(&out).expect("read"), b"old");
        assert_eq!(listing(dir.path()), ["out.json"]);
    }

    #[test]
    fn failures_name_the_file_and_change_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("no-such-dir").join("out.json");
        let e = write_atomic(&missing, b"x").expect_err("no directory");
        assert!(e.to_string().contains("no-such-dir"), "{e}");
        // The destination is a directory: the rename fails, nothing is left behind.
        let taken = dir.path().join("taken");
        std::fs::create_dir(&taken).expect("mkdir");
        std::fs::write(taken.join("keep"), b"k").expect("write");
        assert!(write_atomic(&taken, b"x").is_err());
        assert_eq!(listing(dir.path()), ["taken"]);
        assert_eq!(listing(&taken), ["keep"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_and_permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("real.txt");
        std::fs::write(&real, b"old").expect("write");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        write_atomic(&link, b"new").expect("write");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).expect("read"), b"new");
        let mode = std::fs::metadata(&real).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
