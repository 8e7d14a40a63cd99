//! The one walk of catalog directories: the File-Based Catalog tree walk, the search for
//! bundle directories and the reading of a bundle's `manifests/` and `metadata/` all list
//! directories through [`list`], so they agree on what a catalog holds.
//!
//! - Entries whose names start with `.` are not looked at; the rest come sorted by name.
//! - A symbolic link is followed only when its target is inside the catalog's root
//!   ([`Root`]): a link out of the root (a link to `..` included) is not followed.
//! - What is neither a directory nor a regular file (a FIFO, a socket, a device), a link
//!   whose target does not exist and a link out of the root are [`Kind::Skipped`]: the
//!   caller ignores such an entry where it would ignore a regular file of that name, and
//!   skips it with a warning where it would have read it. Nothing is ever opened that could
//!   block (a FIFO) or lead elsewhere.

use std::path::{Path, PathBuf};

use super::error::LoadError;

/// What a directory entry is, as the walk treats it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A directory (or a link to one inside the root).
    Dir,
    /// A regular file (or a link to one inside the root).
    File,
    /// Not read: why, in words (`a FIFO`, `a link out of the catalog (to /etc)`).
    Skipped(String),
}

/// One entry of a listed directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its path (the directory's path joined with its name; links are not resolved).
    pub path: PathBuf,
    /// What it is.
    pub kind: Kind,
    /// True when the directory's listing did not say what it is (a symbolic link, or a file
    /// system that does not report types), so it was looked up further.
    pub looked_up: bool,
}

impl Entry {
    /// The entry's file name as text (empty when it is not UTF-8).
    pub fn name(&self) -> &str {
        self.path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }

    /// The warning for a skipped entry the caller would have read.
    pub(crate) fn skipped_warning(&self) -> Option<String> {
        match &self.kind {
            Kind::Skipped(why) => Some(format!("{}: skipped: it is {why}", self.path.display())),
            _ => None,
        }
    }
}

/// The directory a walk stays inside: its canonical path.
#[derive(Clone, Debug)]
pub(crate) struct Root {
    canonical: Option<PathBuf>,
    /// What it is, in words (`the catalog`).
    what: &'static str,
}

impl Root {
    /// The root of a catalog at `path` (a directory).
    pub fn new(path: &Path) -> Root {
        Root {
            canonical: std::fs::canonicalize(path).ok(),
            what: "the catalog",
        }
    }

    /// The root of another directory given to read (a cluster dump).
    pub fn directory(path: &Path) -> Root {
        Root {
            what: "the directory given",
            ..Root::new(path)
        }
    }

    /// True when `canonical` (a resolved path) is inside the root.
    fn contains(&self, canonical: &Path) -> bool {
        self.canonical
            .as_deref()
            .is_some_and(|root| canonical.starts_with(root))
    }
}

fn io_error(path: &Path, source: std::io::Error) -> LoadError {
    LoadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The non-hidden entries of `dir`, sorted by name, each with its [`Kind`] under `root`.
pub(crate) fn list(dir: &Path, root: &Root) -> Result<Vec<Entry>, LoadError> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let entry = entry.map_err(|e| io_error(dir, e))?;
        let path = entry.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        // The entry's own type needs no system call; a link (or a file system that does not
        // report types) is looked at further.
        let (kind, looked_up) = match entry.file_type() {
            Ok(t) if t.is_dir() => (Kind::Dir, false),
            Ok(t) if t.is_file() => (Kind::File, false),
            Ok(t) if !t.is_symlink() => (Kind::Skipped(special(&t).to_string()), false),
            _ => (kind_of(&path, root)?, true),
        };
        out.push(Entry {
            path,
            kind,
            looked_up,
        });
    }
    // Siblings share their parent's text, so comparing whole paths as bytes orders them by
    // name, as `Path`'s component-wise order does, for much less.
    out.sort_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
    Ok(out)
}

/// What `path` is under `root` (a link is what it points at, inside the root).
pub(crate) fn kind_of(path: &Path, root: &Root) -> Result<Kind, LoadError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| io_error(path, e))?;
    Ok(if meta.file_type().is_symlink() {
        link_kind(path, root)
    } else {
        of_type(&meta.file_type())
    })
}

/// What a symbolic link is: what it points at, when that is inside the root.
fn link_kind(path: &Path, root: &Root) -> Kind {
    let target = match std::fs::canonicalize(path) {
        Ok(t) => t,
        Err(e) if is_link_loop(&e) => {
            return Kind::Skipped("a link that loops (it leads back to itself)".into());
        }
        Err(_) => return Kind::Skipped("a link whose target does not exist".into()),
    };
    if !root.contains(&target) {
        return Kind::Skipped(format!(
            "a link out of {} (to {})",
            root.what,
            target.display()
        ));
    }
    match std::fs::metadata(&target) {
        Ok(m) => of_type(&m.file_type()),
        Err(_) => Kind::Skipped("a link whose target cannot be read".into()),
    }
}

/// True for the error of a chain of links that never ends (ELOOP).
fn is_link_loop(e: &std::io::Error) -> bool {
    let eloop = if cfg!(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd"
    )) {
        62
    } else {
        40
    };
    cfg!(unix) && e.raw_os_error() == Some(eloop)
}

fn of_type(t: &std::fs::FileType) -> Kind {
    if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Skipped(special(t).to_string())
    }
}

/// A special file's kind in words.
fn special(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    let _ = t;
    "not a regular file"
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn special_files_and_links_out_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("catalog");
        std::fs::create_dir(&root).expect("mkdir");
        std::fs::write(root.join("a.json"), "{}").expect("write");
        std::fs::create_dir(root.join("sub")).expect("mkdir");
        std::fs::write(dir.path().join("outside.json"), "{}").expect("write");
        std::os::unix::fs::symlink("..", root.join("up")).expect("link");
        std::os::unix::fs::symlink("sub", root.join("in")).expect("link");
        std::os::unix::fs::symlink("missing", root.join("NOTES.txt")).expect("link");
        std::os::unix::fs::symlink("../outside.json", root.join("out.json")).expect("link");
        std::fs::write(root.join(".hidden.json"), "{}").expect("write");
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("pipe.json"))
            .status();
        let entries = list(&root, &Root::new(&root)).expect("list");
        let kinds: Vec<(&str, &Kind)> = entries.iter().map(|e| (e.name(), &e.kind)).collect();
        let skipped = |k: &Kind, what: &str| matches!(k, Kind::Skipped(w) if w.contains(what));
        let find = |n: &str| kinds.iter().find(|(name, _)| *name == n).map(|(_, k)| *k);
        assert_eq!(find("a.json"), Some(&Kind::File));
        assert_eq!(find("sub"), Some(&Kind::Dir));
        assert_eq!(find("in"), Some(&Kind::Dir));
        assert!(skipped(find("up").expect("up"), "out of the catalog"));
        assert!(skipped(
            find("out.json").expect("out"),
            "out of the catalog"
        ));
        assert!(skipped(
            find("NOTES.txt").expect("dangling"),
            "does not exist"
        ));
        assert_eq!(find(".hidden.json"), None);
        if made.is_ok_and(|s| s.success()) {
            assert!(skipped(find("pipe.json").expect("fifo"), "FIFO"));
        }
        let names: Vec<&str> = entries.iter().map(Entry::name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }
}
