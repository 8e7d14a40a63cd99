//! Reading a cluster dump: files and directories (walked in sorted order), each a stream of
//! YAML documents or JSON values, each an object or a `List` of them (the output of `kubectl
//! get -o yaml|json`, or a must-gather tree). Lists are flattened at any depth, as kubectl's
//! `FlattenListVisitor` does, and their items are handled one at a time as they are parsed;
//! every document is read in one pass into the typed parts of its kind, and what deppy does
//! not read is skipped without being built. A namespaced object without a namespace takes
//! the one given ([`ReadOptions::namespace`], `-n`), as `kubectl apply -n NS -f` gives it.
//!
//! Limits (docs/reliability.md): the file size of every input, 1,000,000 documents a file,
//! 1,000,000 objects a document, 16 MiB an object kept whole, and the run's budgets ([`Meter`]:
//! the time budget, and the memory budget for everything kept).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::budget::{Meter, Stage};
use super::custom::Custom;
use super::error::StateError;
use super::object::{Object, Skipped};
use crate::catalog::walk::{self, Root};

mod body;
mod doc;
mod emit;
mod meta;
mod value;

pub(super) use emit::{describe, escape_newlines};

/// Most documents one state file may hold, as for catalog files.
pub const MAX_DOCUMENTS_PER_FILE: usize = crate::catalog::limits::MAX_DOCUMENTS_PER_FILE;
/// Most objects one document may hold (a `List`'s items, nested lists included).
pub const MAX_OBJECTS_PER_DOCUMENT: usize = 1_000_000;
/// The largest object kept whole (a custom resource, a CRD), counted as about its JSON size:
/// the API server stores at most 1.5 MiB an object.
pub const MAX_OBJECT_SIZE: u64 = 16 << 20;

/// What a dump holds: the objects deppy reads, and what it skipped (by kind).
#[derive(Debug, Default)]
pub struct Dump {
    /// Objects of the kinds deppy reads, in file, document and item order.
    pub objects: Vec<Object>,
    /// Objects of other kinds.
    pub skipped: Vec<Skipped>,
    /// Of those, the ones kept whole for the CRD checks (`super::custom`).
    pub custom: Vec<Custom>,
    /// Entries of a directory that were not read although their names say they would be (a
    /// FIFO, a dangling link, a link out of the directory named), in words.
    pub warnings: Vec<String>,
}

/// How a state is read.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// The namespace of namespaced objects that name none (`-n`, as `kubectl apply -n NS
    /// -f` gives it); None: such an object is an error naming it.
    pub namespace: Option<String>,
}

/// Reads every `.yaml`, `.yml` and `.json` file under `paths` (a file named is read
/// whatever its extension; `-` is standard input). Directories are walked depth first in
/// sorted name order, as catalog directories are: hidden entries are not looked at, and
/// what is not a regular file or a directory (a FIFO, a device, a dangling link, a link out
/// of the directory named) is never opened, with a warning when its name says it would
/// have been read. Files are parsed in parallel; the first error in path order is returned.
/// Objects without a namespace are an error (see [`read_paths_with`]).
///
/// The example on [`crate::resolve_cluster`] reads a dump with it.
pub fn read_paths(paths: &[PathBuf]) -> Result<Dump, StateError> {
    read_paths_with(paths, &ReadOptions::default(), &Meter::unlimited())
}

/// [`read_paths`] with a default namespace and within the budgets of `meter` (a FIFO nobody
/// writes is waited on until the time budget runs out).
pub fn read_paths_with(
    paths: &[PathBuf],
    opts: &ReadOptions,
    meter: &Meter,
) -> Result<Dump, StateError> {
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for p in paths {
        collect_named(p, &mut files, &mut warnings)?;
    }
    let parsed = crate::parallel::parallel_map(&files, |f| read_file(f, opts, meter));
    let mut dump = Dump {
        warnings,
        ..Dump::default()
    };
    for d in parsed {
        let d = d?;
        dump.objects.extend(d.objects);
        dump.skipped.extend(d.skipped);
        dump.custom.extend(d.custom);
    }
    Ok(dump)
}

fn read_error(path: &Path, e: impl fmt::Display) -> StateError {
    StateError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// True for the names a directory walk reads.
fn is_state_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// A path named on the command line: a directory is walked, anything else is read (a FIFO
/// too: `<(kubectl get ...)` is one).
fn collect_named(
    path: &Path,
    out: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    if crate::input::is_stdin(path) {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let meta = std::fs::metadata(path).map_err(|e| read_error(path, e))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    walk_dir(path, out, warnings)
}

/// The state files below `dir`, as the catalog walk lists them (`crate::catalog::walk`):
/// links are followed inside `dir` only, special files are never opened, and every
/// directory is entered once (by canonical path), so a link to an ancestor cannot loop.
fn walk_dir(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    let root = Root::directory(dir);
    let list = |d: &Path| {
        walk::list(d, &root).map_err(|e| match e {
            crate::catalog::LoadError::Io { path, source } => read_error(&path, source),
            other => read_error(d, other),
        })
    };
    let mut visited = std::collections::HashSet::new();
    visited.extend(std::fs::canonicalize(dir).ok());
    let mut stack = vec![list(dir)?.into_iter()];
    while let Some(top) = stack.last_mut() {
        let Some(entry) = top.next() else {
            stack.pop();
            continue;
        };
        match entry.kind {
            walk::Kind::Dir => {
                if let Ok(canonical) = std::fs::canonicalize(&entry.path)
                    && !visited.insert(canonical)
                {
                    continue;
                }
                stack.push(list(&entry.path)?.into_iter());
            }
            walk::Kind::File if is_state_file(&entry.path) => out.push(entry.path),
            walk::Kind::File => {}
            // Warned about where a file (or a directory) would have been read.
            walk::Kind::Skipped(_) => {
                if is_state_file(&entry.path) || entry.path.is_dir() {
                    warnings.extend(entry.skipped_warning());
                }
            }
        }
    }
    Ok(())
}

/// True for a FIFO (named pipe): opening one waits for a writer.
fn is_fifo(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The text of `path`; a FIFO is read on a thread of its own, waited on within the time
/// budget (its writer may never come).
fn text_of(path: &Path, meter: &Meter) -> Result<String, StateError> {
    let Some(deadline) = meter.deadline().filter(|_| is_fifo(path)) else {
        return Ok(crate::input::read_text(path)?);
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(crate::input::read_text(&owned));
    });
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(read) => Ok(read?),
        Err(_) => Err(StateError::Budget {
            stage: Stage::Reading,
            exhausted: super::budget::Exhausted::Time,
            detail: format!(
                "{} is a FIFO that nothing wrote to",
                emit::escape_newlines(&path.display().to_string())
            ),
        }),
    }
}

/// Reads one file: JSON when it ends in `.json`, or does not end in `.yaml` or `.yml` and
/// its first non-blank character is `{`; else YAML.
pub(crate) fn read_file(
    path: &Path,
    opts: &ReadOptions,
    meter: &Meter,
) -> Result<Dump, StateError> {
    let text = text_of(path, meter)?;
    read_text_with(&path.display().to_string(), &text, opts, meter)
}

/// Reads the documents of one file's text (`file` names it in errors), without a default
/// namespace or budgets.
pub fn read_text(file: &str, text: &str) -> Result<Dump, StateError> {
    read_text_with(file, text, &ReadOptions::default(), &Meter::unlimited())
}

/// Reads the documents of one file's text (`file` names it in errors). A byte order mark
/// is skipped, in JSON as in YAML.
pub fn read_text_with(
    file: &str,
    text: &str,
    opts: &ReadOptions,
    meter: &Meter,
) -> Result<Dump, StateError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let yaml = file.ends_with(".yaml") || file.ends_with(".yml");
    let json = file.ends_with(".json") || (!yaml && text.trim_start().starts_with('{'));
    let mut reader = doc::Reader::new(file, opts, meter);
    if json {
        doc::read_json(&mut reader, text)?;
    } else {
        doc::read_yaml(&mut reader, text)?;
    }
    Ok(reader.finish())
}

#[cfg(test)]
mod tests;
