//! Errors in input files as miette diagnostics: a code, the message naming the file and the
//! field, the offending source lines with a label at the location, and a help line.
//!
//! The library's errors carry the location (file, line and column, or document and field
//! path); this module reads the file again, only after an error, to show the lines. Long
//! lines (a catalog document on one line) are cropped around the location.

use std::fmt;
use std::io::IsTerminal;
use std::ops::Range;
use std::path::Path;

use clap::ValueEnum;
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use deppy::catalog::{LoadError, locate};
use deppy::pipeline::{ConfigError, Failure, NodeError, NodeState, PipelineConfig};
use deppy::request::RequestError;

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

/// Widest cropped source line shown, in characters.
const MAX_LINE: usize = 120;

/// An error with its place in a source file, ready to render.
#[derive(Clone, Debug)]
pub struct Diagnosed {
    code: &'static str,
    message: String,
    source: Option<Excerpt>,
    label: Option<LabeledSpan>,
    help: Option<String>,
}

impl Diagnosed {
    /// A diagnostic without source lines (yet).
    pub fn new(code: &'static str, message: impl Into<String>) -> Diagnosed {
        Diagnosed {
            code,
            message: message.into(),
            source: None,
            label: None,
            help: None,
        }
    }

    /// Shows `range` of `text` (the contents of `file`) with `label`; nothing when the range
    /// is None. A long label keeps its last part (after the last `: `).
    pub fn at(mut self, file: &str, text: &str, range: Option<Range<usize>>, label: &str) -> Self {
        let label = match label.rsplit_once(": ") {
            Some((_, tail)) if label.chars().count() > 60 => tail,
            _ => label,
        };
        if let Some(range) = range
            && let Some((excerpt, span)) = Excerpt::around(file, text, range)
        {
            self.label = Some(LabeledSpan::new_primary_with_span(
                Some(label.to_string()),
                span,
            ));
            self.source = Some(excerpt);
        }
        self
    }

    /// As [`Diagnosed::at`], reading the file (nothing shown when it cannot be read).
    fn at_file(
        self,
        file: &str,
        range: impl FnOnce(&str) -> Option<Range<usize>>,
        label: &str,
    ) -> Self {
        match std::fs::read_to_string(file) {
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

    fn help_opt(mut self, help: Option<String>) -> Self {
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

    /// The report as text: coloured with ANSI codes when `color`.
    pub fn render(&self, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let mut handler = GraphicalReportHandler::new_themed(theme).with_links(false);
        handler = match terminal_size::terminal_size_of(std::io::stderr()) {
            Some((w, _)) if std::io::stderr().is_terminal() => handler.with_width(usize::from(w.0)),
            _ => handler.with_wrap_lines(false),
        };
        let mut out = String::new();
        if handler.render_report(&mut out, self).is_err() {
            return format!("error: {}\n", self.message);
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

impl Diagnostic for Diagnosed {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label
            .clone()
            .map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}

/// The lines around a location, cropped to [`MAX_LINE`] characters, numbered as in the
/// file.
#[derive(Clone, Debug)]
struct Excerpt {
    name: String,
    text: String,
    /// 0-based line of the file where `text` starts.
    first_line: usize,
    /// Excerpt offset of the label, with its 0-based column in the file.
    label_at: (usize, usize),
}

impl Excerpt {
    /// The line holding `range.start`, one line before and after, and the label's span in
    /// the excerpt (clipped to its first line).
    fn around(file: &str, text: &str, range: Range<usize>) -> Option<(Excerpt, SourceSpan)> {
        let start = range.start.min(text.len());
        let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
        let line_no = text.get(..line_start)?.matches('\n').count();
        let column = text.get(line_start..start)?.chars().count();
        let label_chars = text
            .get(start..range.end.max(start).min(text.len()))?
            .split('\n')
            .next()
            .map_or(0, |s| s.chars().count());
        // Keep the label's start in view, a third of the way in.
        let skip = column.saturating_sub(MAX_LINE / 3);
        let all: Vec<&str> = text.split('\n').collect();
        let first = line_no.saturating_sub(1);
        let mut out = String::new();
        let mut label_at = 0;
        let mut label_len = 0;
        // Context lines are shown only when lines are not cropped on the left.
        let (first, count) = if skip == 0 {
            (first, line_no + 2 - first)
        } else {
            (line_no, 1)
        };
        for (i, line) in all.iter().enumerate().skip(first).take(count) {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if i > line_no && line.trim().is_empty() {
                break;
            }
            let (cropped, lead) = crop(line, skip);
            if i == line_no {
                label_at = out.len()
                    + cropped
                        .char_indices()
                        .nth(lead + column - skip)
                        .map_or(cropped.len(), |(b, _)| b);
                let rest = cropped.get(label_at - out.len()..).unwrap_or_default();
                let room = rest.trim_end_matches('…').chars().count();
                label_len = rest
                    .chars()
                    .take(label_chars.min(room))
                    .map(char::len_utf8)
                    .sum();
            }
            out.push_str(&cropped);
            out.push('\n');
        }
        let excerpt = Excerpt {
            name: file.to_string(),
            text: out,
            first_line: first,
            label_at: (label_at, column),
        };
        Some((excerpt, SourceSpan::new(label_at.into(), label_len)))
    }
}

/// `line` without its first `skip` characters and cut to [`MAX_LINE`] characters, with `…`
/// where it was cut; and how many characters were put in front of the kept text.
fn crop(line: &str, skip: usize) -> (String, usize) {
    let mut out = String::new();
    let mut lead = 0;
    if skip > 0 && line.chars().count() > skip {
        out.push('…');
        lead = 1;
    }
    let kept: String = line.chars().skip(skip).take(MAX_LINE).collect();
    let cut = line.chars().count() > skip + MAX_LINE;
    out.push_str(&kept);
    if cut {
        out.push('…');
    }
    (out, lead)
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        // The header names the label's column in the file, not in the cropped line.
        let column = if span.offset() == self.label_at.0 && before == 0 && after == 0 {
            self.label_at.1
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            column,
            inner.line_count(),
        )))
    }
}

/// Byte offset of 1-based `line` and `column` (characters; 0 = the line's start).
fn offset_of(text: &str, line: usize, column: usize) -> Option<Range<usize>> {
    if line == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|t| t.find('\n')) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    let rest = text.get(start..)?;
    let line_text = rest.split('\n').next().unwrap_or_default();
    if column == 0 {
        return Some(start..start + line_text.len());
    }
    let at = line_text
        .char_indices()
        .nth(column - 1)
        .map_or(line_text.len(), |(b, _)| b);
    // A word (a key, a plain scalar) is underlined whole; anything else one character.
    let rest = line_text.get(at..).unwrap_or_default();
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let len = match rest.chars().next() {
        Some(c) if c.is_alphanumeric() => rest.find(|c| !word(c)).unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
        None => 0,
    };
    Some(start + at..start + at + len)
}

/// A failed pipeline node, with the typed error kept for the diagnostic.
#[derive(Debug)]
pub struct NodeFailed {
    node: String,
    error: NodeError,
    others: Vec<String>,
}

impl NodeFailed {
    /// The failure of a run; `states` names the other nodes that did not succeed.
    pub fn new(f: Failure, states: &[(String, NodeState)]) -> NodeFailed {
        let others = states
            .iter()
            .filter(|(n, s)| *n != f.node && *s != NodeState::Successful)
            .map(|(n, s)| format!("{n} {}", s.name()))
            .collect();
        NodeFailed {
            node: f.node,
            error: f.error,
            others,
        }
    }
}

/// A failed run as an error (keeping the node's typed error).
pub fn node_failed(f: Failure) -> anyhow::Error {
    NodeFailed::new(f, &[]).into()
}

impl fmt::Display for NodeFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pipeline node {:?} failed: {}", self.node, self.error)?;
        if !self.others.is_empty() {
            write!(f, " (other nodes: {})", self.others.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for NodeFailed {}

/// The diagnostic for an error, when it is about a place in an input file. Context added
/// around the typed error prefixes the message.
pub fn diagnose(err: &anyhow::Error) -> Option<Diagnosed> {
    let mut context = Vec::new();
    for cause in err.chain() {
        if let Some(d) = cause.downcast_ref::<Diagnosed>() {
            return Some(d.clone().within(&context));
        }
        if let Some(e) = cause.downcast_ref::<LoadError>() {
            return Some(load_error(e).within(&context));
        }
        if let Some(e) = cause.downcast_ref::<RequestError>() {
            return Some(request_error(e).within(&context));
        }
        if let Some(NodeFailed {
            error: NodeError::Load(e),
            ..
        }) = cause.downcast_ref::<NodeFailed>()
        {
            // The message names the node, as without a diagnostic.
            let mut d = load_error(e);
            d.message = cause.to_string();
            return Some(d.within(&context));
        }
        context.push(cause.to_string());
    }
    None
}

/// Renders an error for stderr: a diagnostic with source lines when it is about an input
/// file, else `error: ` and the chain of causes.
pub fn render(err: &anyhow::Error, color: bool) -> String {
    match diagnose(err) {
        Some(d) => d.render(color),
        None => format!("error: {err:#}\n"),
    }
}

/// A help line for an invalid catalog field.
fn field_help(field: &str, message: &str) -> Option<String> {
    let help = if field.ends_with(".version") {
        "a bundle's version is a semantic version, e.g. 1.2.3 or 1.2.3-rc.1"
    } else if field.ends_with("versionRange") || field.ends_with("skipRange") {
        "a version range is written as OLM writes it, e.g. \">=1.0.0 <2.0.0\""
    } else if field == "properties" && message.contains("olm.package") {
        "a bundle needs a property {type: olm.package, value: {packageName, version}}"
    } else if message.contains("required field") {
        "see https://olm.operatorframework.io/docs/reference/file-based-catalogs/ for the fields of each schema"
    } else {
        return None;
    };
    Some(help.to_string())
}

fn load_error(e: &LoadError) -> Diagnosed {
    let message = e.to_string();
    match e {
        LoadError::Syntax {
            file,
            format,
            line,
            column,
            message: reason,
            ..
        } => {
            let help = if *format == "JSON" {
                "a .json catalog file holds JSON objects one after the other, one per document"
            } else {
                "a .yaml catalog file holds YAML documents separated by `---` lines"
            };
            Diagnosed::new("deppy::catalog::syntax", message)
                .at_file(file, |t| offset_of(t, *line, *column), reason)
                .help(help)
        }
        LoadError::Invalid {
            origin,
            field,
            message: reason,
        } => Diagnosed::new("deppy::catalog::invalid", message)
            .at_file(
                &origin.file,
                |t| locate(&origin.file, t, origin.document, Some(field)),
                reason,
            )
            .help_opt(field_help(field, reason)),
        LoadError::MissingSchema { origin } => Diagnosed::new("deppy::catalog::no-schema", message)
            .at_file(
                &origin.file,
                |t| locate(&origin.file, t, origin.document, None),
                "this document has no `schema`",
            )
            .help(
                "give it `schema: olm.package`, `olm.channel`, `olm.bundle` or \
                 `olm.deprecations`; documents of other schemas are skipped",
            ),
        LoadError::Conflict { origin, first, .. } => {
            Diagnosed::new("deppy::catalog::conflict", message)
                .at_file(
                    &origin.file,
                    |t| locate(&origin.file, t, origin.document, None),
                    "defined again here",
                )
                .help(format!(
                    "the first definition is at {first}; remove one of them"
                ))
        }
        LoadError::MissingPath { .. } => Diagnosed::new("deppy::catalog::missing-path", message)
            .help("a catalog is a .json or .yaml file, a directory of them, or bundle directories"),
        _ => Diagnosed::new("deppy::catalog::load", message),
    }
}

fn request_error(e: &RequestError) -> Diagnosed {
    match e {
        RequestError::Parse {
            file,
            location,
            field,
            reason,
            ..
        } => {
            let message = match location {
                Some((line, column)) => format!("{file}:{line}:{column}: {reason}"),
                None => format!("{file}: {reason}"),
            };
            let help = if reason.contains("unknown field") {
                Some("see \"Request file\" in the README for the fields a request takes")
            } else if reason.contains("version range") {
                Some("a version range is written as OLM writes it, e.g. \">=1.0.0 <2.0.0\"")
            } else {
                None
            };
            Diagnosed::new("deppy::request::invalid", message)
                .at_file(
                    file,
                    |t| match (location, field) {
                        (Some((line, column)), _) => offset_of(t, *line, *column),
                        (None, Some(field)) => locate(file, t, 1, Some(field)),
                        (None, None) => None,
                    },
                    reason,
                )
                .help_opt(help.map(str::to_string))
        }
        RequestError::Spec { .. } => Diagnosed::new("deppy::request::spec", e.to_string())
            .help("write PKG[/CHANNEL][@RANGE], e.g. etcd/alpha@\">=0.9.0 <1.0.0\""),
        _ => Diagnosed::new("deppy::request", e.to_string()),
    }
}

/// The diagnostic for a YAML or JSON file (`what` it should be) that does not parse.
pub fn yaml_syntax(file: &Path, text: &str, what: &str, e: &serde_saphyr::Error) -> Diagnosed {
    let name = file.display().to_string();
    let reason = e.without_snippet().to_string();
    let reason = match reason.rsplit_once(" at line ") {
        Some((head, _)) => head.to_string(),
        None => reason,
    };
    let range = e.location().and_then(|l| {
        let line = usize::try_from(l.line()).ok()?;
        let column = usize::try_from(l.column()).ok()?;
        offset_of(text, line, column)
    });
    Diagnosed::new(
        "deppy::input::syntax",
        format!("{name}: not {what}: {reason}"),
    )
    .at(&name, text, range, &reason)
}

/// The diagnostic for a field of a YAML or JSON file: `field` is a path such as
/// `properties[0].value`, relative to the file's root.
pub fn field_error(file: &Path, text: &str, field: Option<&str>, message: String) -> Diagnosed {
    let name = file.display().to_string();
    let range = locate(&name, text, 1, field);
    Diagnosed::new("deppy::input::invalid", format!("{name}: {message}")).at(
        &name,
        text,
        range,
        field.map_or("here", |f| f),
    )
}

/// The diagnostic for a pipeline configuration file that is not valid.
pub fn config_error(file: &Path, text: &str, e: &ConfigError) -> Diagnosed {
    if let ConfigError::Syntax(_) = e
        && let Err(se) = serde_saphyr::from_str::<PipelineConfig>(text)
    {
        return yaml_syntax(file, text, "a pipeline configuration", &se);
    }
    let node = match e {
        ConfigError::DuplicateName(n)
        | ConfigError::ProducerWithInputs(n)
        | ConfigError::Cycle(n)
        | ConfigError::Unfed(n, _) => Some((n, "name".to_string())),
        ConfigError::UnknownType { node, .. } => Some((node, "type".to_string())),
        ConfigError::Params { node, .. }
        | ConfigError::Missing { node, .. }
        | ConfigError::UnknownInput { node, .. }
        | ConfigError::ConsumerAsInput { node, .. }
        | ConfigError::Mismatch { node, .. } => Some((node, String::new())),
        _ => None,
    };
    let config = serde_saphyr::from_str::<PipelineConfig>(text).ok();
    let field = node.and_then(|(name, sub)| {
        let nodes = &config.as_ref()?.nodes;
        let i = nodes.iter().rposition(|n| &n.name == name)?;
        let input = match e {
            ConfigError::UnknownInput { input, .. }
            | ConfigError::ConsumerAsInput { input, .. }
            | ConfigError::Mismatch { input, .. } => nodes
                .get(i)
                .and_then(|n| n.inputs.iter().position(|x| x == input))
                .map(|j| format!("inputs[{j}]")),
            _ => None,
        };
        Some(match (input, sub.is_empty()) {
            (Some(inp), _) => format!("nodes[{i}].{inp}"),
            (None, false) => format!("nodes[{i}].{sub}"),
            (None, true) => format!("nodes[{i}]"),
        })
    });
    let label = match e {
        ConfigError::UnknownType { .. } => "unknown type",
        ConfigError::UnknownInput { .. } => "names no node",
        ConfigError::ConsumerAsInput { .. } | ConfigError::Mismatch { .. } => "this input",
        _ => "this node",
    };
    let name = file.display().to_string();
    let range = locate(&name, text, 1, field.as_deref());
    Diagnosed::new("deppy::pipeline::config", format!("{name}: {e}"))
        .at(&name, text, range.filter(|_| field.is_some()), label)
        .help("`deppy pipeline show` prints the default configuration to start from")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_of_lines_and_columns() {
        let t = "ab\ncdé\nf";
        assert_eq!(offset_of(t, 2, 3), Some(5..7));
        assert_eq!(offset_of("a: key_1 x", 1, 4), Some(3..8));
        assert_eq!(offset_of(t, 2, 0), Some(3..7));
        assert_eq!(offset_of(t, 3, 1), Some(8..9));
        assert_eq!(offset_of(t, 0, 1), None);
    }

    #[test]
    fn long_lines_are_cropped_around_the_label() {
        let line = format!("{}BAD{}", "x".repeat(500), "y".repeat(500));
        let text = format!("first\n{line}\nlast\n");
        let at = 6 + 500;
        let (ex, span) = Excerpt::around("f.json", &text, at..at + 3).unwrap();
        assert_eq!(ex.first_line, 1);
        assert_eq!(
            ex.text.get(span.offset()..span.offset() + span.len()),
            Some("BAD")
        );
        assert!(ex.text.lines().all(|l| l.chars().count() <= MAX_LINE + 2));
        assert_eq!(ex.label_at.1, 500);
    }
}
