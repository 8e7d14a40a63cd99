//! YAML files: split at document markers without parsing, each document parsed on its own
//! (so an error names its document and an unknown schema can be skipped), heavy property
//! values cut out of the text before parsing when they are not kept.

use serde::de::IgnoredAny;

use super::docs::{Doc, Header, YamlProp};
use super::limits;
use super::parse::{FileCtx, is_known_schema};
use crate::catalog::error::LoadError;
use crate::catalog::model::Origin;
use crate::yaml::{budget_message, is_budget_breach, saphyr_message, yaml_options};

/// One YAML document of a file: its text, absolute first line and index.
pub(crate) struct YamlChunk<'a> {
    pub(crate) text: &'a str,
    /// 1-based line where `text` starts in the file.
    first_line: usize,
    /// 1-based line of the first content line (the document's line in messages).
    pub(crate) content_line: usize,
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
pub(crate) fn split_yaml(text: &str) -> Vec<YamlChunk<'_>> {
    split_yaml_bounded(text, usize::MAX).unwrap_or_default()
}

/// [`split_yaml`], stopping with `Err(max + 1)` as soon as a document past the first `max`
/// is found: a storm of tiny documents is refused in one linear scan, before any parse.
pub(crate) fn split_yaml_bounded(text: &str, max: usize) -> Result<Vec<YamlChunk<'_>>, usize> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut start_line = 1;
    let mut content_line = None;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let lineno = i + 1;
        if is_doc_start(line) && offset > start {
            if let Some(cl) = content_line.take() {
                if chunks.len() >= max {
                    return Err(max.saturating_add(1));
                }
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
        if chunks.len() >= max {
            return Err(max.saturating_add(1));
        }
        chunks.push(YamlChunk {
            text: text.get(start..).unwrap_or_default(),
            first_line: start_line,
            content_line: cl,
        });
    }
    Ok(chunks)
}

fn yaml_pos(e: &serde_saphyr::Error, first_line: usize) -> (usize, usize) {
    e.location().map_or((first_line, 0), |l| {
        let line = usize::try_from(l.line()).unwrap_or(0);
        let col = usize::try_from(l.column()).unwrap_or(0);
        (first_line + line.saturating_sub(1), col)
    })
}

/// Parses a YAML file document by document. Unless `KEEP`, heavy property values written
/// in opm's block style are cut from the text first ([`strip_heavy`]); if the cut text does
/// not parse, the document is parsed again as written.
pub(crate) fn parse_yaml<const KEEP: bool>(
    ctx: &FileCtx<'_>,
    bytes: &[u8],
    sink: &mut YamlSink<'_, KEEP>,
) -> Result<(), LoadError> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| LoadError::not_utf8(ctx.file, "YAML", bytes))?;
    let base = yaml_options();
    let chunks = split_yaml_bounded(text, limits::MAX_DOCUMENTS_PER_FILE)
        .map_err(|n| limits::too_many_documents(ctx.file, n))?;
    for (i, chunk) in chunks.into_iter().enumerate() {
        let document = i + 1;
        let origin = || ctx.origin(document, chunk.content_line);
        let options = limits::yaml_document_options(&base, chunk.text.len());
        if !KEEP && let Some(cut) = strip_heavy(chunk.text) {
            let parsed = serde_saphyr::from_str_with_options::<Option<Doc<YamlProp<KEEP>>>>(
                &cut,
                options.clone(),
            );
            match parsed {
                Ok(Some(doc)) => sink(origin(), doc)?,
                Ok(None) => {}
                Err(_) => parse_chunk(ctx, &chunk, document, &options, sink)?,
            }
            continue;
        }
        parse_chunk(ctx, &chunk, document, &options, sink)?;
    }
    Ok(())
}

fn parse_chunk<const KEEP: bool>(
    ctx: &FileCtx<'_>,
    chunk: &YamlChunk<'_>,
    document: usize,
    options: &serde_saphyr::Options,
    sink: &mut YamlSink<'_, KEEP>,
) -> Result<(), LoadError> {
    let parsed = serde_saphyr::from_str_with_options::<Option<Doc<YamlProp<KEEP>>>>(
        chunk.text,
        options.clone(),
    );
    match parsed {
        Ok(Some(doc)) => sink(ctx.origin(document, chunk.content_line), doc),
        Ok(None) => Ok(()),
        Err(e) => yaml_recover(ctx, chunk, document, &e, options),
    }
}

/// Receives each parsed document.
pub(crate) type YamlSink<'s, const KEEP: bool> =
    dyn for<'b> FnMut(Origin, Doc<'b, YamlProp<'b, KEEP>>) -> Result<(), LoadError> + 's;

/// Number of leading spaces.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// `{n spaces}- type: olm.csv.metadata` (or `olm.bundle.object`): Some(n).
fn heavy_item(line: &str) -> Option<usize> {
    let n = indentation(line);
    let rest = line.get(n..)?.strip_prefix("- type: ")?.trim_end();
    matches!(rest, "olm.csv.metadata" | "olm.bundle.object").then_some(n)
}

/// How many lines after `lines[at]` (a `value:` key at indentation `key`) form its block
/// value; None when the block is not in the plain nested form this cut relies on.
fn value_block_len(lines: &[&str], at: usize, key: usize) -> Option<usize> {
    let mut len = 0;
    for line in lines.iter().skip(at + 1) {
        let t = line.trim_start_matches(' ');
        if t.trim().is_empty() {
            len += 1;
            continue;
        }
        let n = indentation(line);
        if n > key && !t.starts_with('\t') {
            len += 1;
            continue;
        }
        // The block ends at a sibling key or a shallower line; a comment or a sequence at
        // the key's own indentation (`value:\n- x`) could still belong to it: do not cut.
        let ambiguous =
            t.starts_with('#') || t.starts_with('\t') || (n == key && t.starts_with('-'));
        return (!ambiguous && len > 0).then_some(len);
    }
    (len > 0).then_some(len)
}

/// Replaces the value of every heavy property written as opm writes it
///
/// ```yaml
/// - type: olm.csv.metadata
///   value:
///     ...deeper lines...
/// ```
///
/// by `value: {}`, so the YAML parser never sees it: every line of a block value is indented
/// deeper than its key, except blank lines. Returns None when nothing was cut.
fn strip_heavy(text: &str) -> Option<String> {
    if !text.contains("- type: olm.csv.metadata") && !text.contains("- type: olm.bundle.object") {
        return None;
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len() / 4);
    let mut changed = false;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        out.push_str(line);
        i += 1;
        let Some(n) = heavy_item(line) else { continue };
        let Some(value) = lines.get(i) else { continue };
        let key = n + 2;
        let is_block_key = indentation(value) == key && value.trim() == "value:";
        let Some(len) = is_block_key
            .then(|| value_block_len(&lines, i, key))
            .flatten()
        else {
            continue;
        };
        out.push_str(value.get(..key).unwrap_or_default());
        out.push_str("value: {}\n");
        i += 1 + len;
        changed = true;
    }
    changed.then_some(out)
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
    if is_budget_breach(typed) {
        return Err(syntax(typed, budget_message(typed)));
    }
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
        Err(e) => {
            match serde_saphyr::from_str_with_options::<IgnoredAny>(chunk.text, options.clone()) {
                Ok(_) => Err(LoadError::Invalid {
                    origin,
                    field: "(document)".into(),
                    message: "a document must be a YAML mapping".into(),
                }),
                Err(_) => Err(syntax(&e, saphyr_message(&e))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_heavy_cuts_block_values_only() {
        let doc = "name: a\nproperties:\n- type: olm.csv.metadata\n  value:\n    annotations:\n      x: |\n        text\n\n        more\n    keywords:\n    - k\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\nschema: olm.bundle\n";
        let want = "name: a\nproperties:\n- type: olm.csv.metadata\n  value: {}\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\nschema: olm.bundle\n";
        assert_eq!(strip_heavy(doc).as_deref(), Some(want));
        // At the end of the document, indented under `properties:`.
        let doc = "properties:\n  - type: olm.bundle.object\n    value:\n      data: abc\nschema: olm.bundle";
        let want = "properties:\n  - type: olm.bundle.object\n    value: {}\nschema: olm.bundle";
        assert_eq!(strip_heavy(doc).as_deref(), Some(want));
        // Forms the cut does not rely on are left to the parser.
        for doc in [
            "- type: olm.csv.metadata\n  value: {a: 1}\n",
            "- type: olm.csv.metadata\n  value:\n  - a\n",
            "- type: olm.csv.metadata\n  value:\n# comment\n    a: 1\n",
            "- value:\n    a: 1\n  type: olm.csv.metadata\n",
            "- type: olm.gvk\n  value:\n    a: 1\n",
        ] {
            assert_eq!(strip_heavy(doc), None, "{doc}");
        }
    }

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
}
