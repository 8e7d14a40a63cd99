//! Output files that are never left half-written: everything goes to a temporary file in the
//! same directory, which is flushed, synced to disk and then renamed over the destination.
//! A run that is interrupted or fails leaves the destination as it was (the old file, or
//! none); a reader never sees a truncated file. `deppy ... --output-file FILE` and
//! `deppy resolve --trace FILE` write this way.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let out = dir.path().join("answer.json");
//! deppy::atomic::write_atomic(&out, b"{}\n")?;
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
    pub fn commit(mut self) -> Result<(), WriteError> {
        let Some((tmp, file)) = self.tmp.take() else {
            return Err(self.error(std::io::Error::other("already committed")));
        };
        let result = file
            .sync_all()
            .and_then(|()| {
                drop(file);
                std::fs::rename(&tmp, &self.path)
            })
            .map_err(|e| self.error(e));
        match result {
            Ok(()) => {
                sync_dir(&self.path);
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
