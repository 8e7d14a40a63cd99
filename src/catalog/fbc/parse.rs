//! Splitting files into documents: concatenated JSON objects and `---`-separated YAML
//! documents, each handed to a sink with its [`Origin`]. Errors carry absolute lines.

use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::docs::{Doc, Header, JsonProp, YamlProp};
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;

/// Schemas deppy reads; documents of other schemas are skipped.
pub(crate) fn is_known_schema(schema: &str) -> bool {
    matches!(
        schema,
        "olm.package" | "olm.channel" | "olm.bundle" | "olm.deprecations"
    )
}

/// Counts lines up to increasing byte offsets in one pass over the file.
struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// 1-based line of `offset` (offsets must not decrease between calls).
    fn line_at(&mut self, offset: usize) -> usize {
        let end = offset.min(self.bytes.len());
        if end > self.offset {
            let newlines = self.bytes.get(self.offset..end).map_or(0, |s| {
                s.iter().filter(|&&b| b == b'\n').count()
            });
            self.line += newlines;
            self.offset = end;
        }
        self.line
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// serde_json's message without its " at line L column C" suffix.
fn json_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Context shared by the error paths of one file.
pub(crate) struct FileCtx<'a> {
    pub file: &'a str,
}

impl FileCtx<'_> {
    fn origin(&self, document: usize, line: usize) -> Origin {
        Origin {
            file: self.file.to_string(),
            document,
            line: Some(line),
        }
    }

    fn syntax(&self, format: &'static str, pos: (usize, usize), doc: usize, msg: String) -> LoadError {
        LoadError::Syntax {
            file: self.file.to_string(),
            format,
            line: pos.0,
            column: pos.1,
            document: doc,
            message: msg,
        }
    }
}

/// Parses a file of concatenated JSON objects. Fast path: one streaming parse of the whole
/// file; when a document fails, it is re-read alone to tell a syntax error, a document of an
/// unknown schema (skipped) and an invalid document of a known schema apart.
pub(crate) fn parse_json<'a>(
    ctx: &FileCtx<'_>,
    bytes: &'a [u8],
    sink: &mut dyn FnMut(Origin, Doc<'a, JsonProp<'a>>) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let mut lines = LineCounter::new(bytes);
    let mut pos = 0;
    let mut document = 0;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Doc<JsonProp>>();
        loop {
            let start = pos + skip_ws(rest, stream.byte_offset());
            match stream.next() {
                None => return Ok(()),
                Some(Ok(doc)) => {
                    document += 1;
                    sink(ctx.origin(document, lines.line_at(start)), doc)?;
                }
                Some(Err(e)) => {
                    document += 1;
                    let line = lines.line_at(start);
                    pos = json_recover(ctx, bytes, start, (document, line), &e)?;
                    break;
                }
            }
        }
    }
}

/// Re-reads the failing document at `start`; returns where the next document starts when
/// this one is of an unknown schema, else the error to report.
fn json_recover(
    ctx: &FileCtx<'_>,
    bytes: &[u8],
    start: usize,
    (document, line): (usize, usize),
    typed: &serde_json::Error,
) -> Result<usize, LoadError> {
    let rest = bytes.get(start..).unwrap_or_default();
    let mut raw_stream = serde_json::Deserializer::from_slice(rest).into_iter::<&RawValue>();
    let abs = |e: &serde_json::Error| {
        let col = if e.line() == 1 {
            e.column() + start - line_start(bytes, start)
        } else {
            e.column()
        };
        (line + e.line().saturating_sub(1), col)
    };
    let raw = match raw_stream.next() {
        None => return Ok(bytes.len()),
        Some(Err(e)) => return Err(ctx.syntax("JSON", abs(&e), document, json_message(&e))),
        Some(Ok(raw)) => raw,
    };
    let end = start + raw_stream.byte_offset();
    let origin = ctx.origin(document, line);
    match serde_json::from_str::<Header>(raw.get()) {
        Ok(Header { schema: None }) => Err(LoadError::MissingSchema { origin }),
        Ok(Header {
            schema: Some(schema),
        }) if !is_known_schema(&schema) => {
            log::debug!("{origin}: skipping document of unknown schema {schema:?}");
            Ok(end)
        }
        Ok(Header { schema: Some(s) }) => Err(ctx.syntax(
            "JSON",
            abs(typed),
            document,
            format!("invalid {s} document: {}", json_message(typed)),
        )),
        Err(_) => Err(LoadError::Invalid {
            origin,
            field: "(document)".into(),
            message: "a document must be a JSON object".into(),
        }),
    }
}

fn line_start(bytes: &[u8], at: usize) -> usize {
    let head = bytes.get(..at).unwrap_or_default();
    head.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// One YAML document of a file: its text, absolute first line and index.
struct YamlChunk<'a> {
    text: &'a str,
    /// 1-based line where `text` starts in the file.
    first_line: usize,
    /// 1-based line of the first content line (the document's line in messages).
    content_line: usize,
}

/// True for a line that is a document marker `---` (optionally followed by content).
fn is_doc_start(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\r', '\n']))
}

/// True for a line that holds nothing but blanks, a comment, `---` or `...`.
fn is_blank(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_prefix("---").map_or(t, str::trim_start);
    t.is_empty() || t.starts_with('#') || t == "..."
}

/// Splits YAML text at document markers. A `---` at column 0 always starts a document (YAML
/// forbids that line inside any scalar), so no parse is needed. Empty documents are dropped.
fn split_yaml(text: &str) -> Vec<YamlChunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut start_line = 1;
    let mut content_line = None;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let lineno = i + 1;
        if is_doc_start(line) && offset > start {
            if let Some(cl) = content_line.take() {
                let chunk = text.get(start..offset).unwrap_or_default();
                chunks.push(YamlChunk {
                    text: chunk,
                    first_line: start_line,
                    content_line: cl,
                });
            }
            start = offset;
            start_line = lineno;
        }
        if content_line.is_none() && !is_blank(line) {
            content_line = Some(lineno);
        }
        offset += line.len();
    }
    if let Some(cl) = content_line {
        chunks.push(YamlChunk {
            text: text.get(start..).unwrap_or_default(),
            first_line: start_line,
            content_line: cl,
        });
    }
    chunks
}

fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    // Catalog scale: one document at a time, but a bundle with its CSV can be large. The
    // alias/anchor budgets (billion laughs) keep their defaults.
    budget.max_documents = 1_000_000;
    budget.max_events = 20_000_000;
    budget.max_nodes = 5_000_000;
    budget.max_total_scalar_bytes = 1 << 30;
    budget.max_depth = 128;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.with_snippet = false;
    options.emit_comments = false;
    options
}

fn yaml_pos(e: &serde_saphyr::Error, first_line: usize) -> (usize, usize) {
    e.location().map_or((first_line, 0), |l| {
        let line = usize::try_from(l.line()).unwrap_or(0);
        let col = usize::try_from(l.column()).unwrap_or(0);
        (first_line + line.saturating_sub(1), col)
    })
}

/// Parses a YAML file document by document.
pub(crate) fn parse_yaml<'a, const KEEP: bool>(
    ctx: &FileCtx<'_>,
    bytes: &'a [u8],
    sink: &mut dyn FnMut(Origin, Doc<'a, YamlProp<'a, KEEP>>) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = LineCounter::new(bytes).line_at(at);
        ctx.syntax("YAML", (line, 0), 0, format!("not UTF-8: {e}"))
    })?;
    let options = yaml_options();
    for (i, chunk) in split_yaml(text).into_iter().enumerate() {
        let document = i + 1;
        let parsed =
            serde_saphyr::from_str_with_options::<Option<Doc<YamlProp<KEEP>>>>(chunk.text, options.clone());
        match parsed {
            Ok(Some(doc)) => sink(ctx.origin(document, chunk.content_line), doc)?,
            Ok(None) => {}
            Err(e) => yaml_recover(ctx, &chunk, document, &e, &options)?,
        }
    }
    Ok(())
}

fn saphyr_message(e: &serde_saphyr::Error) -> String {
    let s = e.to_string();
    let s = s.lines().next().unwrap_or_default().trim();
    s.to_string()
}

fn yaml_recover(
    ctx: &FileCtx<'_>,
    chunk: &YamlChunk<'_>,
    document: usize,
    typed: &serde_saphyr::Error,
    options: &serde_saphyr::Options,
) -> Result<(), LoadError> {
    let origin = ctx.origin(document, chunk.content_line);
    let syntax = |e: &serde_saphyr::Error, msg: String| {
        ctx.syntax("YAML", yaml_pos(e, chunk.first_line), document, msg)
    };
    match serde_saphyr::from_str_with_options::<Header>(chunk.text, options.clone()) {
        Ok(Header { schema: None }) => Err(LoadError::MissingSchema { origin }),
        Ok(Header {
            schema: Some(schema),
        }) if !is_known_schema(&schema) => {
            log::debug!("{origin}: skipping document of unknown schema {schema:?}");
            Ok(())
        }
        Ok(Header { schema: Some(s) }) => Err(syntax(
            typed,
            format!("invalid {s} document: {}", saphyr_message(typed)),
        )),
        Err(e) => match serde_saphyr::from_str_with_options::<IgnoredAny>(chunk.text, options.clone()) {
            Ok(_) => Err(LoadError::Invalid {
                origin,
                field: "(document)".into(),
                message: "a document must be a YAML mapping".into(),
            }),
            Err(_) => Err(syntax(&e, saphyr_message(&e))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_yaml_documents() {
        let text = "---\n# c\na: 1\n---\n\n---\nb: 2\n...\n--- {c: 3}\n";
        let chunks = split_yaml(text);
        let got: Vec<_> = chunks
            .iter()
            .map(|c| (c.first_line, c.content_line, c.text))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 3, "---\n# c\na: 1\n"),
                (6, 7, "---\nb: 2\n...\n"),
                (9, 9, "--- {c: 3}\n"),
            ]
        );
    }

    #[test]
    fn split_yaml_without_markers() {
        let chunks = split_yaml("a: 1\nb: 2");
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].content_line, 1);
        assert!(split_yaml("# only a comment\n---\n").is_empty());
        assert!(!is_doc_start("----\n"));
        assert!(is_doc_start("--- |\n"));
    }

    #[test]
    fn line_counter_is_incremental() {
        let mut c = LineCounter::new(b"a\nb\n\nc");
        assert_eq!(c.line_at(0), 1);
        assert_eq!(c.line_at(2), 2);
        assert_eq!(c.line_at(5), 4);
        assert_eq!(c.line_at(100), 4);
    }
}
