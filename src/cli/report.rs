//! What deppy says on stderr, in cargo's and rustc's words: `error: …`, `warning: …`, and
//! with `-v` `note: …` (what was skipped, and why). `-q` silences warnings and notes; errors
//! always print. The library's `log` records come here too, so a
//! library warning reads as any other (see [`init`]).
//!
//! Everything that reaches the terminal goes through [`escape`] first: a name in a catalog
//! cannot clear the screen or set the window title.

use std::borrow::Cow;
use std::fmt::Display;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// How much to say on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`: errors only.
    Quiet = 0,
    /// The default: errors and warnings.
    Normal = 1,
    /// `-v`: also notes (what was skipped, and why).
    Verbose = 2,
    /// `-vv`: the same, for now (room for more detail).
    Debug = 3,
}

impl Verbosity {
    /// The verbosity of `-q` (quiet) and `-v` given `verbose` times; `RUST_LOG=debug` or
    /// `RUST_LOG=info` raise it as `-vv` and `-v` do.
    pub fn from_flags(quiet: bool, verbose: u8) -> Verbosity {
        let from_env = match std::env::var("RUST_LOG").ok().as_deref().map(str::trim) {
            Some("debug" | "trace") => Verbosity::Debug,
            Some("info") => Verbosity::Verbose,
            _ => Verbosity::Normal,
        };
        if quiet {
            return Verbosity::Quiet;
        }
        let flags = match verbose {
            0 => Verbosity::Normal,
            1 => Verbosity::Verbose,
            _ => Verbosity::Debug,
        };
        flags.max(from_env)
    }
}

static VERBOSITY: AtomicU8 = AtomicU8::new(Verbosity::Normal as u8);
static COLOR: AtomicBool = AtomicBool::new(false);

/// Sets what to print and whether to colour it, and routes the library's `log` records
/// here (warnings as `warning:`, info and debug as `note:` with `-v`).
pub fn init(verbosity: Verbosity, color: bool) {
    VERBOSITY.store(verbosity as u8, Ordering::Relaxed);
    COLOR.store(color, Ordering::Relaxed);
    let level = match verbosity {
        Verbosity::Quiet => log::LevelFilter::Error,
        Verbosity::Normal => log::LevelFilter::Warn,
        Verbosity::Verbose | Verbosity::Debug => log::LevelFilter::Debug,
    };
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}

fn verbosity() -> u8 {
    VERBOSITY.load(Ordering::Relaxed)
}

/// Whether stderr is coloured in this run.
pub fn colored() -> bool {
    COLOR.load(Ordering::Relaxed)
}

/// `error: message` (bold red `error` when coloured), without a newline. The message is
/// one line: a line break inside it (a file or object named so) is shown as `\n`, so it
/// cannot start a line of its own.
pub fn error_head(message: &str) -> String {
    format!("{}: {}", paint("error", RED), escape(&one_line(message)))
}

/// `text` with its line breaks written `\n` (and `\r`).
fn one_line(text: &str) -> Cow<'_, str> {
    if text.contains(['\n', '\r']) {
        Cow::Owned(text.replace('\n', "\\n").replace('\r', "\\r"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Prints `warning: message` on stderr, unless `-q`.
pub fn warn(message: impl Display) {
    if verbosity() >= Verbosity::Normal as u8 {
        say(&paint("warning", YELLOW), &message.to_string());
    }
}

/// Prints `note: message` on stderr with `-v`.
pub fn note(message: impl Display) {
    if verbosity() >= Verbosity::Verbose as u8 {
        say(&paint("note", GREEN), &message.to_string());
    }
}

/// Prints each warning of a list (`-q` silences them).
pub fn warnings<T: Display>(all: &[T]) {
    for w in all {
        warn(w);
    }
}

/// One line on stderr: `head: message`. Errors writing stderr are ignored: there is nowhere
/// left to report them.
fn say(head: &str, message: &str) {
    let line = one_line(message);
    let _ = writeln!(std::io::stderr().lock(), "{head}: {}", escape(&line));
}

const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const GREEN: &str = "\x1b[1;32m";
/// Bold blue, rustc's colour for the gutter of source excerpts.
pub const BLUE: &str = "\x1b[1;34m";
const RESET: &str = "\x1b[0m";

/// `word` in `style` (an ANSI SGR sequence) when stderr is coloured, else as it is.
pub fn paint(word: &str, style: &str) -> String {
    if colored() {
        format!("{style}{word}{RESET}")
    } else {
        word.to_string()
    }
}

/// `text` with every control character but newline and tab written as an escape (`\x1b`,
/// `\u{9b}`), and the bidirectional overrides that reorder what a terminal shows
/// (U+202A–U+202E, U+2066–U+2069) likewise: text from catalogs and requests is shown, never
/// obeyed.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&escaped(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether [`escape`] rewrites `c`.
pub fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The escape of one character: `\x1b` below U+0080, else `\u{…}`.
pub fn escaped(c: char) -> String {
    if c.is_ascii() {
        format!("\\x{:02x}", c as u32)
    } else {
        format!("\\u{{{:x}}}", c as u32)
    }
}

/// The library's `log` records, said as deppy says everything else.
struct Logger;

static LOGGER: Logger = Logger;

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target().starts_with("deppy") && metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let message = record.args().to_string();
        match record.level() {
            log::Level::Error => say(&paint("error", RED), &message),
            log::Level::Warn => warn(message),
            _ => note(message),
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(escape("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            escape("a\x1b[2J\x1b]0;title\x07b"),
            "a\\x1b[2J\\x1b]0;title\\x07b"
        );
        assert_eq!(escape("x\u{9b}y\u{202e}z\r"), "x\\u{9b}y\\u{202e}z\\x0d");
        assert!(matches!(escape("é ok"), Cow::Borrowed(_)));
    }
}
