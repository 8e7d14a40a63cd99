//! Errors that stop loading ([`LoadError`]) and problems that only warn ([`Warning`]).

use std::fmt;
use std::path::PathBuf;

use super::model::Origin;

/// A fatal problem found while loading catalogs. Every variant names the file, and where the
/// parser gives one, the line, the document and the field.
///
/// The example on [`crate::CatalogSet`] returns it with `?`.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A catalog path does not exist.
    #[error("catalog {catalog:?}: path {} does not exist", path.display())]
    MissingPath {
        /// Catalog name.
        catalog: String,
        /// The path given.
        path: PathBuf,
    },
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Malformed JSON or YAML (or a YAML safety budget exceeded).
    #[error("{}", syntax_text(file, *line, *column, *document, format, message))]
    Syntax {
        /// File path.
        file: String,
        /// `JSON` or `YAML`.
        format: &'static str,
        /// 1-based line (0 when the parser gives none).
        line: usize,
        /// 1-based column (0 when the parser gives none).
        column: usize,
        /// 1-based document index the error falls in (0 when not known: the file is not
        /// text).
        document: usize,
        /// The parser's message.
        message: String,
    },
    /// A document has no `schema` field.
    #[error("{origin}: document has no `schema` field")]
    MissingSchema {
        /// Where the document is.
        origin: Origin,
    },
    /// A document of a known schema is invalid: a required field is missing or has the wrong
    /// type, or a property it depends on is missing or malformed.
    #[error("{origin}, field `{field}`: {message}")]
    Invalid {
        /// Where the document is.
        origin: Origin,
        /// Field path inside the document, e.g. `properties[2].value.versionRange`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A file is over one of the loader's hard limits (see `catalog::limits`): its size,
    /// checked before reading it, or its number of documents.
    #[error("{}: {}", path.display(), too_large_text(what, *actual, *limit))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What is counted: `file size` (bytes) or `documents`.
        what: &'static str,
        /// How much the file has (for documents: at least this many).
        actual: u64,
        /// The limit.
        limit: u64,
    },
    /// Two documents of the same catalog conflict (the same bundle with different package or
    /// version, the same channel twice, the same package with different default channels).
    #[error("{origin}: {message} (first defined at {first})")]
    Conflict {
        /// The later document.
        origin: Origin,
        /// The earlier document.
        first: Origin,
        /// What conflicts.
        message: String,
    },
}

/// The words of a [`LoadError::Syntax`]: `file:line:column (document n): malformed JSON: …`.
fn syntax_text(
    file: &str,
    line: usize,
    column: usize,
    document: usize,
    format: &str,
    message: &str,
) -> String {
    let document = if document == 0 {
        String::new()
    } else {
        format!(" (document {document})")
    };
    format!("{file}:{line}:{column}{document}: malformed {format}: {message}")
}

impl LoadError {
    /// The error for a catalog file (of `format`, `JSON` or `YAML`) whose bytes are not UTF-8:
    /// the same error on every path that reads catalogs, placed at the first bad byte.
    pub(crate) fn not_utf8(file: &str, format: &'static str, bytes: &[u8]) -> LoadError {
        let offset = std::str::from_utf8(bytes)
            .err()
            .map_or(0, |e| e.valid_up_to());
        let (line, column) = crate::input::position(bytes, offset);
        LoadError::Syntax {
            file: file.to_string(),
            format,
            line,
            column,
            document: 0,
            message: format!("not UTF-8 text (byte {offset} is not part of a UTF-8 character)"),
        }
    }
}

/// The words of a [`LoadError::TooLarge`]: `file size is 1.0 GiB (1073741824 bytes), over
/// the limit of 512.0 MiB (536870912 bytes) (set ...)`, or `more than 1,000,000 documents
/// (the limit per file)`.
fn too_large_text(what: &str, actual: u64, limit: u64) -> String {
    use super::limits::{FILE_SIZE, thousands};
    if what != FILE_SIZE {
        return format!("more than {} {what} (the limit per file)", thousands(limit));
    }
    crate::input::size_text(actual, limit)
}

/// What a [`Warning`] is about, as a stable machine-readable code.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// A version range was repaired (leading `v`, typographic quotes, ...) and is honoured.
    RepairedRange,
    /// A `skipRange` could not be parsed and is ignored.
    InvalidSkipRange,
    /// A package has no (or an empty) `defaultChannel`.
    MissingDefaultChannel,
    /// Channels or bundles name a package that has no `olm.package` document.
    MissingPackageDocument,
    /// A channel entry names a bundle the catalog does not have.
    EntryWithoutBundle,
    /// A channel lists the same bundle twice; the first entry is kept.
    DuplicateEntry,
    /// The same bundle (same package and version) appears twice; the first is kept.
    DuplicateBundle,
    /// The same package document appears twice; the first is kept.
    DuplicatePackage,
    /// A property has no `value` (or `null`).
    PropertyWithoutValue,
    /// A provided property (`olm.gvk`, `olm.label`) is malformed and is ignored.
    InvalidProperty,
    /// The `olm.package` property names another package than the bundle's `package`.
    PackageNameMismatch,
    /// An `olm.deprecations` entry is malformed and is ignored.
    InvalidDeprecation,
}

/// A non-fatal problem found while loading: the catalog still loads.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warning {
    /// What kind of problem.
    pub kind: WarningKind,
    /// Where the document is (None for problems not tied to one document).
    pub origin: Option<Origin>,
    /// Field path inside the document, e.g. `entries[3].skipRange`.
    pub field: Option<String>,
    /// Human-readable description.
    pub message: String,
}

impl Warning {
    /// A warning about a field of a document.
    pub fn new(
        kind: WarningKind,
        origin: &Origin,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Warning {
        Warning {
            kind,
            origin: Some(origin.clone()),
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// A warning about a whole document, or about nothing in particular.
    pub(crate) fn general(
        kind: WarningKind,
        origin: Option<&Origin>,
        message: impl Into<String>,
    ) -> Self {
        Warning {
            kind,
            origin: origin.cloned(),
            field: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(origin) = &self.origin {
            write!(f, "{origin}")?;
            if let Some(field) = &self.field {
                write!(f, ", field `{field}`")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin {
            file: "cat/a.yaml".into(),
            document: 3,
            line: Some(12),
        }
    }

    #[test]
    fn warning_display_names_file_line_document_field() {
        let w = Warning::new(
            WarningKind::InvalidSkipRange,
            &origin(),
            "entries[0].skipRange",
            "bad",
        );
        assert_eq!(
            w.to_string(),
            "cat/a.yaml:12 (document 3), field `entries[0].skipRange`: bad"
        );
    }

    #[test]
    fn errors_display_location() {
        let e = LoadError::Invalid {
            origin: origin(),
            field: "properties[1].value.version".into(),
            message: "invalid version \"x\"".into(),
        };
        assert_eq!(
            e.to_string(),
            "cat/a.yaml:12 (document 3), field `properties[1].value.version`: invalid version \"x\""
        );
    }
}
