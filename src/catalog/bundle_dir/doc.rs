//! Reading the first document of a bundle file (YAML or JSON) into a `serde_json::Value`,
//! and typed access to its fields with errors that name the file and the field.

use std::path::Path;

use serde_json::{Map, Value};

use crate::catalog::error::LoadError;
use crate::catalog::fbc::limits;
use crate::catalog::fbc::{yaml_message, yaml_options};
use crate::catalog::model::Origin;

/// The first non-empty document of a file, with where it is.
#[derive(Debug)]
pub(super) struct FirstDoc {
    /// The parsed document.
    pub value: Value,
    /// Where the document starts (for errors about its fields).
    pub origin: Origin,
}

/// True for a line that is a YAML document marker `---` (optionally followed by content).
fn is_doc_start(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|r| r.trim().is_empty() || r.starts_with([' ', '\t']))
}

/// True for a line that holds nothing but blanks, a comment, `---` or `...`.
fn is_blank(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_prefix("---").map_or(t, str::trim_start);
    t.is_empty() || t.starts_with('#') || t == "..."
}

/// The first YAML document that holds anything: its text, its 1-based index among the
/// file's documents and the line where its text starts. Like the Kubernetes YAML reader opm
/// uses, empty documents before it are skipped and later ones are never looked at.
fn first_yaml_doc(text: &str) -> Option<(&str, usize, usize)> {
    let mut start = 0;
    let mut start_line = 1;
    let mut document = 1;
    let mut has_content = false;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if is_doc_start(line) && offset > start {
            if has_content {
                return Some((text.get(start..offset)?, document, start_line));
            }
            start = offset;
            start_line = i + 1;
            document += 1;
        }
        has_content |= !is_blank(line);
        offset += line.len();
    }
    has_content.then(|| (text.get(start..).unwrap_or_default(), document, start_line))
}

fn syntax(
    file: &str,
    format: &'static str,
    pos: (usize, usize),
    doc: usize,
    msg: String,
) -> LoadError {
    LoadError::Syntax {
        file: file.to_string(),
        format,
        line: pos.0,
        column: pos.1,
        document: doc,
        message: msg,
    }
}

/// Reads `path` and parses its first non-empty document: JSON for a `.json` file, YAML
/// otherwise. None for a file without any document.
pub(super) fn read_first_doc(path: &Path) -> Result<Option<FirstDoc>, LoadError> {
    let file = path.display().to_string();
    let bytes = limits::read_limited(path, limits::max_file_size())?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let json = path.extension().is_some_and(|e| e == "json");
    let text = std::str::from_utf8(bytes)
        .map_err(|_| LoadError::not_utf8(&file, if json { "JSON" } else { "YAML" }, bytes))?;
    let origin = |document, line| Origin {
        file: file.clone(),
        document,
        line: Some(line),
    };
    if json {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        return match stream.next() {
            None => Ok(None),
            Some(Ok(value)) => Ok(Some(FirstDoc {
                value,
                origin: origin(1, 1),
            })),
            Some(Err(e)) => Err(syntax(
                &file,
                "JSON",
                (e.line(), e.column()),
                1,
                e.to_string(),
            )),
        };
    }
    let Some((chunk, document, first_line)) = first_yaml_doc(text) else {
        return Ok(None);
    };
    // The same budgets as catalog YAML, alias replay bounded by the document's size: an
    // alias bomb in a CSV is refused at once.
    let options = limits::yaml_document_options(&yaml_options(), chunk.len());
    match serde_saphyr::from_str_with_options::<Option<Value>>(chunk, options) {
        Ok(None | Some(Value::Null)) => Ok(None),
        Ok(Some(value)) => Ok(Some(FirstDoc {
            value,
            origin: origin(document, first_line),
        })),
        Err(e) => {
            let pos = e.location().map_or((first_line, 0), |l| {
                let line = usize::try_from(l.line()).unwrap_or(0);
                let col = usize::try_from(l.column()).unwrap_or(0);
                (first_line + line.saturating_sub(1), col)
            });
            Err(syntax(&file, "YAML", pos, document, yaml_message(&e)))
        }
    }
}

/// The JSON type of a value, for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Fields of one document, read with errors that name the document and the field path.
pub(super) struct Fields<'a> {
    /// Where the document is.
    pub origin: &'a Origin,
}

impl Fields<'_> {
    /// An error about `field`.
    pub fn invalid(&self, field: &str, message: impl Into<String>) -> LoadError {
        LoadError::Invalid {
            origin: self.origin.clone(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    fn wrong_type(&self, field: &str, expected: &str, found: &Value) -> LoadError {
        let hint = if expected == "a string" && matches!(found, Value::Number(_) | Value::Bool(_)) {
            " (quote it)"
        } else {
            ""
        };
        self.invalid(
            field,
            format!("expected {expected}, found {}{hint}", type_name(found)),
        )
    }

    /// `v` as a string; None when missing (`v` is None) or null.
    pub(crate) fn opt_str<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<Option<&'v str>, LoadError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong_type(field, "a string", other)),
        }
    }

    /// `v` as a non-empty string (after trimming); an error when missing or empty.
    pub(crate) fn req_str<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<&'v str, LoadError> {
        match self.opt_str(v, field)?.map(str::trim) {
            Some(s) if !s.is_empty() => Ok(s),
            Some(_) => Err(self.invalid(field, "is empty")),
            None => Err(self.invalid(field, "is missing")),
        }
    }

    /// `v` as a list; empty when missing or null.
    pub(crate) fn opt_list<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<&'v [Value], LoadError> {
        match v {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(other) => Err(self.wrong_type(field, "a list", other)),
        }
    }

    /// `v` as a mapping; None when missing or null.
    pub(crate) fn opt_map<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<Option<&'v Map<String, Value>>, LoadError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(other) => Err(self.wrong_type(field, "a mapping", other)),
        }
    }

    /// `v` as a mapping; an error when missing or of another type.
    pub(crate) fn req_map<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<&'v Map<String, Value>, LoadError> {
        self.opt_map(v, field)?
            .ok_or_else(|| self.invalid(field, "is missing"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_document_skips_empty_ones_and_ignores_later_ones() {
        let text = "# comment\n---\n\n---\na: 1\n---\nb: 2\n";
        let (chunk, document, line) = first_yaml_doc(text).expect("doc");
        assert_eq!((document, line), (3, 4));
        assert!(chunk.contains("a: 1") && !chunk.contains("b: 2"), "{chunk}");
        assert!(first_yaml_doc("---\n# nothing\n...\n").is_none());
        let (chunk, document, _) = first_yaml_doc("a: 1\n--- \nb: 2\n").expect("doc");
        assert_eq!(document, 1);
        assert!(!chunk.contains("b: 2"));
    }

    #[test]
    fn wrong_types_name_the_field() {
        let origin = Origin {
            file: "f.yaml".into(),
            document: 1,
            line: Some(1),
        };
        let f = Fields { origin: &origin };
        let v = serde_json::json!(1.1);
        let e = f.opt_str(Some(&v), "spec.version").expect_err("number");
        assert_eq!(
            e.to_string(),
            "f.yaml:1 (document 1), field `spec.version`: expected a string, found a number (quote it)"
        );
        assert!(f.req_str(None, "x").is_err());
        assert!(f.req_str(Some(&serde_json::json!(" ")), "x").is_err());
        assert!(f.opt_list(Some(&serde_json::json!({})), "x").is_err());
    }
}
