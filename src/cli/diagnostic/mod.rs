//! Errors as deppy prints them on stderr: one shape for every error, rustc's.
//!
//! ```text
//! error: tests/terminal/bad-version.yaml:12 (document 3), field `properties[1].value.version`: …
//!   --> tests/terminal/bad-version.yaml:22:16
//!    |
//! 21 |       packageName: foo
//! 22 |       version: 1.0.0.beta
//!    |                ^^^^^^^^^^ unexpected character '.' after patch version number
//!    |
//!    = help: a bundle's version is a semantic version, e.g. 1.2.3 or 1.2.3-rc.1
//! ```
//!
//! The first line always is `error: ` and the whole message: the file, the document, the
//! field and what is wrong. The source lines follow when the error is about a place in an
//! input file (the library's errors carry the location; the file is read again, only after
//! an error, to show the lines), then a help line where one helps. An error that is not about
//! a place is the first line alone: its causes joined by `: `, each said once.

mod excerpt;
mod kinds;

use std::fmt;

use clap::ValueEnum;

pub use excerpt::Excerpt;
pub use kinds::{NodeFailed, config_error, field_error, yaml_syntax};

use super::report::{BLUE, error_head, escape, paint};

/// When to colour terminal output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When stderr is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    /// Always (overrides `NO_COLOR`).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour what goes to stderr.
    pub fn stderr_colored(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        }
    }
}

/// An error with its place in a source file, ready to print.
#[derive(Clone, Debug)]
pub struct Diagnosed {
    message: String,
    excerpt: Option<Excerpt>,
    help: Option<String>,
}

impl Diagnosed {
    /// A diagnostic without source lines (yet).
    pub fn new(message: impl Into<String>) -> Diagnosed {
        Diagnosed {
            message: message.into(),
            excerpt: None,
            help: None,
        }
    }

    /// Shows `range` of `text` (the contents of `file`), marked with `label`; nothing when
    /// the range is None or not in the text.
    pub fn at(
        mut self,
        file: &str,
        text: &str,
        range: Option<std::ops::Range<usize>>,
        label: &str,
    ) -> Self {
        self.excerpt = range.and_then(|r| Excerpt::around(file, text, r, label));
        self
    }

    /// As [`Diagnosed::at`], reading the file (nothing shown when it cannot be read as a
    /// regular UTF-8 file within the size limit).
    pub(crate) fn at_file(
        self,
        file: &str,
        range: impl FnOnce(&str) -> Option<std::ops::Range<usize>>,
        label: &str,
    ) -> Self {
        let path = std::path::Path::new(file);
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return self;
        }
        match deppy::advanced::input::read_text(path) {
            Ok(text) => {
                let r = range(&text);
                self.at(file, &text, r, label)
            }
            Err(_) => self,
        }
    }

    /// Adds a help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn help_opt(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    /// Prefixes the message with context (`context: message`).
    fn within(mut self, context: &[String]) -> Self {
        if !context.is_empty() {
            self.message = format!("{}: {}", context.join(": "), self.message);
        }
        self
    }

    /// The whole report, `\n`-terminated (coloured when stderr is).
    pub fn render(&self) -> String {
        let mut out = error_head(&self.message);
        out.push('\n');
        if let Some(excerpt) = &self.excerpt {
            out.push_str(&excerpt.render());
        }
        if let Some(help) = &self.help {
            let pad = match &self.excerpt {
                Some(e) => " ".repeat(e.line.to_string().len() + 1),
                None => " ".to_string(),
            };
            if self.excerpt.is_some() {
                out.push_str(&format!("{pad}{}\n", paint("|", BLUE)));
            }
            out.push_str(&format!(
                "{pad}{} {}: {}\n",
                paint("=", BLUE),
                paint("help", "\x1b[1m"),
                escape(help)
            ));
        }
        out
    }
}

impl fmt::Display for Diagnosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnosed {}

/// The diagnostic for an error, when it is about a place in an input file. Context added
/// around the typed error prefixes the message.
pub fn diagnose(err: &anyhow::Error) -> Option<Diagnosed> {
    let mut context = Vec::new();
    for cause in err.chain() {
        if let Some(d) = kinds::diagnosed(cause) {
            return Some(d.within(&context));
        }
        context.push(cause.to_string());
    }
    None
}

/// An error's causes joined by `: `, each said once: a cause whose words the message
/// already holds (an I/O error that is both in the message and its source) is left out.
pub fn chain_text(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// The report of an error for stderr: `error: …`, with the source lines when it is about
/// a place in an input file.
pub fn render(err: &anyhow::Error) -> String {
    match diagnose(err) {
        Some(d) => d.render(),
        None => format!("{}\n", error_head(&chain_text(err))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_said_is_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::IsADirectory, "Is a directory");
        let err = anyhow::Error::new(deppy::pipeline::trace::TraceError::Io {
            path: "t".into(),
            source: io,
        })
        .context("replaying");
        assert_eq!(chain_text(&err), "replaying: t: Is a directory");
    }
}
