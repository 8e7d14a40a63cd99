//! Splitting files into documents: concatenated JSON objects and `---`-separated YAML
//! documents, each handed to a sink with its [`Origin`]. Errors carry absolute lines.

use std::path::Path;

use serde_json::value::RawValue;

use super::docs::{Doc, Header, JsonProp};
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;

/// A catalog file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Yaml,
}

/// A file's format by its extension, when it tells.
pub(crate) fn format_of(path: &Path) -> Option<Format> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => Some(Format::Json),
        Some("yaml" | "yml") => Some(Format::Yaml),
        _ => None,
    }
}

/// A file's format: as given, else JSON when its first character opens an object.
pub(crate) fn format_of_bytes(format: Option<Format>, bytes: &[u8]) -> Format {
    format.unwrap_or_else(|| match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Format::Json,
        _ => Format::Yaml,
    })
}

/// Schemas deppy reads; documents of other schemas are skipped.
pub(crate) fn is_known_schema(schema: &str) -> bool {
    matches!(
        schema,
        "olm.package" | "olm.channel" | "olm.bundle" | "olm.deprecations"
    )
}

/// Counts lines up to increasing byte offsets in one pass over the file.
pub(crate) struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// 1-based line of `offset` (offsets must not decrease between calls).
    pub(crate) fn line_at(&mut self, offset: usize) -> usize {
        let end = offset.min(self.bytes.len());
        if end > self.offset {
            let newlines = self.bytes.get(self.offset..end).map_or(0, count_newlines);
            self.line += newlines;
            self.offset = end;
        }
        self.line
    }
}

/// Number of `\n` bytes, 64 at a time into byte-wide counters (which the compiler turns into
/// vector compares; a plain filtered count does not vectorize as well).
fn count_newlines(s: &[u8]) -> usize {
    let mut chunks = s.chunks_exact(64);
    let mut n = 0;
    for chunk in &mut chunks {
        let mut k: u8 = 0;
        for &b in chunk {
            k += u8::from(b == b'\n');
        }
        n += usize::from(k);
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
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
    match s.rfind(" at line ").and_then(|i| s.get(..i)) {
        Some(head) => head.to_string(),
        None => s,
    }
}

/// Context shared by the error paths of one file.
pub(crate) struct FileCtx<'a> {
    pub file: &'a str,
}

impl FileCtx<'_> {
    pub fn origin(&self, document: usize, line: usize) -> Origin {
        Origin {
            file: self.file.to_string(),
            document,
            line: Some(line),
        }
    }

    pub fn syntax(
        &self,
        format: &'static str,
        pos: (usize, usize),
        doc: usize,
        msg: String,
    ) -> LoadError {
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
    match std::str::from_utf8(bytes) {
        // Checked once as a whole (much faster than string by string): serde_json then
        // borrows its strings without checking each again. Documents start after ASCII
        // bytes (whitespace, or the end of the document before), so `from` is always a
        // character boundary.
        Ok(text) => parse_stream(ctx, bytes, sink, |from| {
            serde_json::Deserializer::from_str(text.get(from..).unwrap_or_default()).into_iter()
        }),
        // Not UTF-8: refused as every other reader of catalogs refuses it, even when the bad
        // bytes sit in a string no schema reads.
        Err(_) => Err(LoadError::not_utf8(ctx.file, "JSON", bytes)),
    }
}

/// [`parse_json`] over the documents streams that `open` starts at a byte offset.
fn parse_stream<'a, R: serde_json::de::Read<'a>>(
    ctx: &FileCtx<'_>,
    bytes: &'a [u8],
    sink: &mut dyn FnMut(Origin, Doc<'a, JsonProp<'a>>) -> Result<(), LoadError>,
    open: impl Fn(usize) -> serde_json::StreamDeserializer<'a, R, Doc<'a, JsonProp<'a>>>,
) -> Result<(), LoadError> {
    let mut lines = LineCounter::new(bytes);
    let mut pos = 0;
    let mut document = 0;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        let base = (pos, lines.line_at(pos));
        let mut stream = open(pos);
        loop {
            let start = pos + skip_ws(rest, stream.byte_offset());
            if document >= super::limits::MAX_DOCUMENTS_PER_FILE && start < bytes.len() {
                return Err(super::limits::too_many_documents(ctx.file, document + 1));
            }
            match stream.next() {
                None => return Ok(()),
                Some(Ok(doc)) => {
                    document += 1;
                    sink(ctx.origin(document, lines.line_at(start)), doc)?;
                }
                Some(Err(e)) => {
                    document += 1;
                    let line = lines.line_at(start);
                    let typed = json_pos(bytes, base, &e);
                    pos = json_recover(ctx, bytes, (start, line), document, (typed, &e))?;
                    break;
                }
            }
        }
    }
}

/// Absolute (line, column) of an error from parsing `bytes[offset..]`, which starts on `line`.
fn json_pos(bytes: &[u8], (offset, line): (usize, usize), e: &serde_json::Error) -> (usize, usize) {
    let col = if e.line() == 1 {
        e.column() + offset - line_start(bytes, offset)
    } else {
        e.column()
    };
    (line + e.line().saturating_sub(1), col)
}

/// Re-reads the failing document at `start`; returns where the next document starts when
/// this one is of an unknown schema, else the error to report.
fn json_recover(
    ctx: &FileCtx<'_>,
    bytes: &[u8],
    (start, line): (usize, usize),
    document: usize,
    (typed_pos, typed): ((usize, usize), &serde_json::Error),
) -> Result<usize, LoadError> {
    let rest = bytes.get(start..).unwrap_or_default();
    let mut raw_stream = serde_json::Deserializer::from_slice(rest).into_iter::<&RawValue>();
    let raw = match raw_stream.next() {
        None => return Ok(bytes.len()),
        Some(Err(e)) => {
            let at = json_pos(bytes, (start, line), &e);
            return Err(ctx.syntax("JSON", at, document, json_message(&e)));
        }
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
            typed_pos,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_counter_is_incremental() {
        let mut c = LineCounter::new(b"a\nb\n\nc");
        assert_eq!(c.line_at(0), 1);
        assert_eq!(c.line_at(2), 2);
        assert_eq!(c.line_at(5), 4);
        assert_eq!(c.line_at(100), 4);
    }

    #[test]
    fn newlines_are_counted_across_chunks() {
        let text: Vec<u8> = (0..1000u32)
            .map(|i| if i % 7 == 0 { b'\n' } else { b'x' })
            .collect();
        for len in [0, 1, 63, 64, 65, 200, 1000] {
            let want = text[..len].iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_newlines(&text[..len]), want, "{len}");
        }
    }
}
