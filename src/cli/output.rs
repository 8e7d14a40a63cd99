//! What deppy prints as its result: on stdout, or into `--output-file FILE` (see
//! [`deppy::advanced::atomic`] for how each kind of destination is written).
//!
//! - Text meant for people ([`Content::Text`]) has its control characters escaped (see
//!   [`super::report::escape`]); JSON and YAML are printed as their serializers wrote them.
//! - A reader that goes away (`deppy ... | head`) ends the output quietly: the rest is
//!   dropped, nothing is printed about it, and the exit code is the command's own.
//! - Any other failure to write is an [`OutputError`]: exit code 4
//!   ([`super::EXIT_OUTPUT`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use deppy::advanced::atomic::{WriteError, WriteOptions, write_output};

use super::report::escape;

/// Whether the output is for people or for programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// Plain text (also DOT and Mermaid): control characters are escaped.
    Text,
    /// JSON or YAML: printed as serialized.
    Data,
}

/// The result could not be written (exit code 4).
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Writing stdout failed (for a reason other than a closed pipe).
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
    /// Writing an output file failed; the destination is unchanged.
    #[error("{}", with_force_hint(.0.to_string()))]
    File(#[from] WriteError),
    /// The trace could not be written.
    #[error("{}", with_force_hint(.0.to_string()))]
    Trace(#[from] deppy::pipeline::trace::TraceError),
    /// A directory of files (`deppy catalog pull`) could not be written; nothing was left
    /// at its path.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The directory.
        path: std::path::PathBuf,
        /// What failed.
        error: std::io::Error,
    },
}

/// A refused read-only destination's message, with how to replace it anyway.
fn with_force_hint(message: String) -> String {
    if message.ends_with(deppy::advanced::atomic::READ_ONLY) {
        format!("{message} (give --force to replace it)")
    } else {
        message
    }
}

/// Set once stdout's reader has gone: nothing more is written there.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints `text` on stdout (escaped when it is [`Content::Text`]). A closed pipe is not an
/// error: the output ends there, quietly.
pub fn print(text: &str, content: Content) -> Result<(), OutputError> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let text = match content {
        Content::Text => escape(text),
        Content::Data => text.into(),
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(OutputError::Stdout(e)),
    }
}

/// Prints one line of text (see [`print`]).
pub fn line(text: impl std::fmt::Display) -> Result<(), OutputError> {
    print(&format!("{text}\n"), Content::Text)
}

/// `--output-file FILE` and `--force`: where a command's result goes instead of stdout.
#[derive(Debug, Args)]
pub struct OutputFile {
    /// Write the result to FILE instead of stdout. A regular file is replaced atomically
    /// (written to a temporary file in the same directory, synced and renamed into place, so
    /// FILE is never left half-written); a device, a FIFO, `-` or /dev/stdout is written
    /// straight into.
    #[arg(long = "output-file", value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Replace an output file (or trace) even when it is read-only.
    #[arg(long)]
    pub force: bool,
}

impl OutputFile {
    /// How output files (and traces) of this run may be written.
    pub fn options(&self) -> WriteOptions {
        WriteOptions { force: self.force }
    }

    /// Prints `text`, or writes it to the output file.
    pub fn emit(&self, text: &str, content: Content) -> Result<(), OutputError> {
        match &self.output_file {
            Some(path) => write_file(path, text, content, self.options()),
            None => print(text, content),
        }
    }
}

/// Writes `text` to `path` as [`deppy::advanced::atomic::Output`] decides (`-` is stdout).
pub fn write_file(
    path: &Path,
    text: &str,
    content: Content,
    options: WriteOptions,
) -> Result<(), OutputError> {
    if deppy::advanced::atomic::destination(path, options)?
        == deppy::advanced::atomic::Destination::Stdout
    {
        return print(text, content);
    }
    let text = match content {
        Content::Text => escape(text),
        Content::Data => text.into(),
    };
    Ok(write_output(path, text.as_bytes(), options)?)
}
