//! The loader's hard limits on hostile input. Each one is an error that names the file (and
//! the document and field when there is one), raised before the work it guards:
//!
//! | limit | value | checked |
//! |---|---|---|
//! | catalog file size | [`DEFAULT_MAX_FILE_SIZE`] (512 MiB; env [`MAX_FILE_SIZE_ENV`]) | from the file's metadata before reading, and again while reading (pipes, devices, growing files) |
//! | documents per file | [`MAX_DOCUMENTS_PER_FILE`] (1,000,000) | YAML: while splitting, before any document is parsed; JSON: while streaming |
//! | entries per channel | [`MAX_CHANNEL_ENTRIES`] (100,000) | when the channel document is read |
//! | YAML alias replay per document | [`ALIAS_EVENTS_PER_BYTE`] × the document's bytes + [`ALIAS_EVENTS_BASE`] | by serde-saphyr while parsing (so a file's total alias work is linear in its size) |
//!
//! Nesting is bounded by the parsers (serde_json: 128 levels; serde-saphyr: 64), and
//! `olm.constraint` values by `constraint::Limits`.

use std::path::Path;

use crate::catalog::error::LoadError;

pub(crate) use crate::input::max_file_size;
pub use crate::input::{DEFAULT_MAX_FILE_SIZE, MAX_FILE_SIZE_ENV};
pub(crate) use crate::yaml::thousands;
pub(crate) use crate::yaml::yaml_document_options;
pub use crate::yaml::{ALIAS_EVENTS_BASE, ALIAS_EVENTS_PER_BYTE};
/// Most documents one catalog file may hold (JSON objects or YAML documents).
pub const MAX_DOCUMENTS_PER_FILE: usize = 1_000_000;
/// Most entries one channel may list.
pub const MAX_CHANNEL_ENTRIES: usize = 100_000;
/// `what` of [`LoadError::TooLarge`] for a file's size.
pub(crate) const FILE_SIZE: &str = "file size";
/// `what` of [`LoadError::TooLarge`] for a file's number of documents.
pub(crate) const DOCUMENTS: &str = "documents";

/// Reads a catalog file of at most `limit` bytes (see [`crate::input::read_bytes`]: the size
/// is checked before reading, and a stream is cut off one byte past the limit).
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, LoadError> {
    crate::input::read_bytes(path, limit).map_err(|e| match e {
        crate::input::InputError::TooLarge {
            path,
            actual,
            limit,
        } => LoadError::TooLarge {
            path,
            what: FILE_SIZE,
            actual,
            limit,
        },
        other => LoadError::Io {
            path: other.path().to_path_buf(),
            source: match other {
                crate::input::InputError::Io { error, .. } => error,
                e => std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
            },
        },
    })
}

/// The error for a file with more than [`MAX_DOCUMENTS_PER_FILE`] documents.
pub(crate) fn too_many_documents(file: &str, at_least: usize) -> LoadError {
    LoadError::TooLarge {
        path: file.into(),
        what: DOCUMENTS,
        actual: at_least as u64,
        limit: MAX_DOCUMENTS_PER_FILE as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_001), "1,000,001");
    }

    #[test]
    fn size_is_checked_before_and_while_reading() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("c.json");
        std::fs::write(&path, "0123456789").expect("write");
        assert_eq!(read_limited(&path, 10).expect("fits").len(), 10);
        match read_limited(&path, 9) {
            Err(LoadError::TooLarge { actual, limit, .. }) => assert_eq!((actual, limit), (10, 9)),
            other => panic!("{other:?}"),
        }
        // A device reports no size: reading stops one byte past the limit.
        if Path::new("/dev/zero").exists() {
            match read_limited(Path::new("/dev/zero"), 1 << 20) {
                Err(LoadError::TooLarge { actual, .. }) => assert_eq!(actual, (1 << 20) + 1),
                other => panic!("{other:?}"),
            }
        }
    }
}
