//! Reading input files with bounds: every file deppy reads (catalogs, requests, cluster
//! files, pipeline configurations, generic models, traces) goes through [`read_bytes`] or
//! [`read_text`].
//!
//! - `-` is standard input. It can be read once per process; naming it twice is an error.
//! - The size is checked from the file's metadata before anything is read, and reading
//!   stops one byte past the limit for what reports no size (a pipe, `/dev/zero`, a file
//!   that grows), so memory never holds more than the limit. The limit is
//!   [`DEFAULT_MAX_FILE_SIZE`], or [`MAX_FILE_SIZE_ENV`] when it holds a number of bytes.
//! - [`read_text`] refuses bytes that are not UTF-8, naming the line and column of the
//!   first bad byte: every command gives the same answer for the same file.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest input file read, in bytes, unless [`MAX_FILE_SIZE_ENV`] says otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 512 << 20;
/// Environment variable that sets the largest input file read, in bytes.
pub const MAX_FILE_SIZE_ENV: &str = "DEPPY_MAX_FILE_SIZE";

/// An input file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// What failed (in the message, so not also a `source`).
        error: std::io::Error,
    },
    /// The file is larger than the limit.
    #[error("{}: {}", path.display(), size_text(*actual, *limit))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (for a stream: at least this much).
        actual: u64,
        /// The limit.
        limit: u64,
    },
    /// The bytes are not UTF-8 text.
    #[error("{}:{line}:{column}: not UTF-8 text (byte {offset} is not part of a UTF-8 character)", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// 1-based line of the first bad byte.
        line: usize,
        /// 1-based column (in characters) of the first bad byte.
        column: usize,
        /// 0-based byte offset of the first bad byte.
        offset: usize,
    },
    /// Standard input was named a second time.
    #[error("-: standard input can be read only once, and it was already read")]
    StdinAgain,
}

impl InputError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::TooLarge { path, .. }
            | InputError::NotUtf8 { path, .. } => path,
            InputError::StdinAgain => Path::new("-"),
        }
    }
}

/// `1.0 GiB (1073741824 bytes)`.
pub(crate) fn bytes_text(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match UNITS.iter().find(|(_, size)| n >= *size) {
        Some((unit, size)) => format!("{:.1} {unit} ({n} bytes)", n as f64 / *size as f64),
        None => format!("{n} bytes"),
    }
}

/// `file size is …, over the limit of … (set DEPPY_MAX_FILE_SIZE …)`.
pub(crate) fn size_text(actual: u64, limit: u64) -> String {
    format!(
        "file size is {}, over the limit of {} (set {MAX_FILE_SIZE_ENV} to another number of bytes to change it)",
        bytes_text(actual),
        bytes_text(limit)
    )
}

/// Set when a malformed [`MAX_FILE_SIZE_ENV`] has been warned about (once per process).
static WARNED: AtomicBool = AtomicBool::new(false);

/// The largest input file read: [`MAX_FILE_SIZE_ENV`] when it holds a number of bytes, else
/// [`DEFAULT_MAX_FILE_SIZE`]. A value that is not a number is ignored, with one warning per
/// process.
pub fn max_file_size() -> u64 {
    let Some(raw) = std::env::var_os(MAX_FILE_SIZE_ENV) else {
        return DEFAULT_MAX_FILE_SIZE;
    };
    match raw
        .to_str()
        .map(str::trim)
        .and_then(|s| s.parse::<u64>().ok())
    {
        Some(n) => n,
        None => {
            if !WARNED.swap(true, Ordering::Relaxed) {
                log::warn!(
                    "{MAX_FILE_SIZE_ENV}={} is not a number of bytes; using {DEFAULT_MAX_FILE_SIZE}",
                    raw.to_string_lossy()
                );
            }
            DEFAULT_MAX_FILE_SIZE
        }
    }
}

/// Set once standard input has been read.
static STDIN_READ: AtomicBool = AtomicBool::new(false);

/// True for the path `-` (standard input).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads at most `limit` bytes of `path` (`-`: standard input; see the module documentation).
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let io = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    if is_stdin(path) {
        if STDIN_READ.swap(true, Ordering::Relaxed) {
            return Err(InputError::StdinAgain);
        }
        return read_stream(path, std::io::stdin().lock(), 0, limit);
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a directory",
        )));
    }
    if meta.len() > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            actual: meta.len(),
            limit,
        });
    }
    read_stream(path, file, meta.len(), limit)
}

/// Size of the blocks a stream is read into once the size it reported is exceeded.
const BLOCK: usize = 1 << 20;

/// Reads `from` to its end, one byte past `limit` at most (`expected` is the size the file
/// reports, 0 for a stream). The bytes go into a buffer of the expected size, then into
/// blocks of [`BLOCK`] bytes, never into a buffer that doubles: a stream over the limit is
/// refused having held the limit, not twice it, and a file of the size it reports is read
/// into one allocation.
fn read_stream(
    path: &Path,
    mut from: impl Read,
    expected: u64,
    limit: u64,
) -> Result<Vec<u8>, InputError> {
    let cap = limit.saturating_add(1);
    let mut head: Vec<u8> = Vec::with_capacity(usize::try_from(expected.min(cap)).unwrap_or(0));
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    // The size the file reports, read straight into its buffer.
    let room = head.capacity() as u64;
    (&mut from)
        .take(room)
        .read_to_end(&mut head)
        .map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    let mut total = head.len() as u64;
    let mut chunk = vec![0u8; 64 << 10];
    // Short of the reported size: the end came first. Else more may follow.
    let more = room == 0 || total == room;
    while more && total < cap {
        let want = usize::try_from(cap - total).map_or(chunk.len(), |w| w.min(chunk.len()));
        let n = match from.read(chunk.get_mut(..want).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(InputError::Io {
                    path: path.to_path_buf(),
                    error,
                });
            }
        };
        total += n as u64;
        let mut data = chunk.get(..n).unwrap_or_default();
        while !data.is_empty() {
            let into = if head.len() < head.capacity() {
                &mut head
            } else {
                if blocks.last().is_none_or(|b| b.len() == b.capacity()) {
                    blocks.push(Vec::with_capacity(BLOCK));
                }
                match blocks.last_mut() {
                    Some(b) => b,
                    None => break,
                }
            };
            let room = (into.capacity() - into.len()).min(data.len());
            let (now, rest) = data.split_at(room);
            into.extend_from_slice(now);
            data = rest;
        }
    }
    if total > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            actual: total,
            limit,
        });
    }
    if blocks.is_empty() {
        return Ok(head);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    bytes.extend_from_slice(&head);
    drop(head);
    for b in blocks {
        bytes.extend_from_slice(&b);
    }
    Ok(bytes)
}

/// 1-based line and column (in characters) of byte `offset` of `bytes`, counting only the
/// UTF-8 text before it.
pub fn position(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = bytes.get(..offset).unwrap_or(bytes);
    let text = match std::str::from_utf8(before) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(before.get(..e.valid_up_to()).unwrap_or_default())
            .unwrap_or_default(),
    };
    let line = text.matches('\n').count() + 1;
    let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Checks that `bytes` (read from `path`) are UTF-8 and returns them as text.
pub fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let (line, column) = position(e.as_bytes(), offset);
        InputError::NotUtf8 {
            path: path.to_path_buf(),
            line,
            column,
            offset,
        }
    })
}

/// Reads a UTF-8 text file of at most [`max_file_size`] bytes (`-`: standard input).
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let bytes = read_bytes(path, max_file_size())?;
    utf8(path, bytes)
}

/// serde-saphyr options for a YAML input of `len` bytes (a request, a cluster file, a
/// pipeline, a generic model): the catalog budgets with node and event counts scaled to the
/// text (a model of a million variables reads as well as YAML as it does as JSON; the file
/// size limit bounds them), and alias replay bounded by the text's size (an alias bomb is
/// refused at once).
pub fn yaml_options(len: usize) -> serde_saphyr::Options {
    let mut options = crate::yaml::yaml_options();
    if let Some(budget) = options.budget.as_mut() {
        let scaled = len.saturating_mul(2).saturating_add(1 << 20);
        budget.max_nodes = budget.max_nodes.max(scaled);
        budget.max_events = budget.max_events.max(scaled.saturating_mul(2));
    }
    crate::yaml::yaml_document_options(&options, len)
}

/// serde-saphyr's error in words, without its position: a safety budget's breach says which
/// (`YAML safety limit exceeded: more than 5,000,000 nodes`), a duplicate key names the key,
/// and no advice about serde-saphyr's own options is passed on.
pub fn yaml_reason(e: &serde_saphyr::Error) -> String {
    let text = crate::yaml::yaml_message(e);
    let text = text
        .strip_suffix(", set DuplicateKeyPolicy in Options if acceptable")
        .unwrap_or(&text);
    match text.strip_prefix("duplicate mapping key: ") {
        Some(key) => format!("duplicate key `{key}`"),
        None => text.to_string(),
    }
}

/// Refuses a key that appears twice in one JSON object, at any depth (serde_json would keep
/// the last silently, so `{"action": "require", "action": "conflict"}` meant conflict). The
/// error carries the line and column of the second key's value.
pub fn check_json_keys(text: &str) -> Result<(), serde_json::Error> {
    use serde::Deserializer as _;
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(UniqueKeys)?;
    de.end()
}

/// [`check_json_keys`] for a stream of JSON values one after another (`{...} {...}`, as
/// cluster dumps may be): on a repeated key, or a syntax error, the 0-based index of the
/// value it is in and the error.
pub fn check_json_stream_keys(text: &str) -> Result<(), (usize, serde_json::Error)> {
    use serde::de::DeserializeSeed as _;
    let mut de = serde_json::Deserializer::from_str(text);
    let mut i = 0;
    while de.end().is_err() {
        UniqueKeys.deserialize(&mut de).map_err(|e| (i, e))?;
        i += 1;
    }
    Ok(())
}

/// A visitor that walks any JSON value and fails on a repeated key.
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(UniqueKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(UniqueKeys)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
            }
            map.next_value_seed(UniqueKeys)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_checked_before_and_while_reading() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.yaml");
        std::fs::write(&path, "0123456789").expect("write");
        assert_eq!(read_bytes(&path, 10).expect("fits").len(), 10);
        assert!(matches!(
            read_bytes(&path, 9),
            Err(InputError::TooLarge {
                actual: 10,
                limit: 9,
                ..
            })
        ));
        if Path::new("/dev/zero").exists() {
            match read_bytes(Path::new("/dev/zero"), 1 << 20) {
                Err(InputError::TooLarge { actual, .. }) => assert_eq!(actual, (1 << 20) + 1),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_stream_over_the_limit_never_holds_more_than_the_limit() {
        let limit = 1_000_000u64;
        let zeros = std::io::repeat(0).take(10 * limit);
        match read_stream(Path::new("s"), zeros, 0, limit) {
            Err(InputError::TooLarge { actual, .. }) => assert_eq!(actual, limit + 1),
            other => panic!("{other:?}"),
        }
        let fits = read_stream(Path::new("s"), std::io::repeat(1).take(limit), 0, limit);
        let bytes = fits.expect("at the limit");
        assert_eq!(bytes.len() as u64, limit);
        assert!(bytes.iter().all(|b| *b == 1));
        assert!(bytes.capacity() as u64 <= limit + 1, "{}", bytes.capacity());
        // A file of the size it reports: one buffer of that size.
        let text = b"0123456789".repeat(100_000);
        let read = read_stream(Path::new("f"), text.as_slice(), text.len() as u64, limit);
        let bytes = read.expect("fits");
        assert_eq!(bytes, text);
        assert_eq!(bytes.capacity(), text.len());
    }

    #[test]
    fn duplicate_json_keys_are_found_at_any_depth() {
        assert!(check_json_keys(r#"{"a": [{"b": 1, "c": {"d": 2}}], "e": null}"#).is_ok());
        let e = check_json_keys("{\"a\": [{\"x\": 1,\n \"x\": 2}]}").expect_err("dup");
        assert!(e.to_string().starts_with("duplicate key `x`"), "{e}");
        assert_eq!(e.line(), 2);
        assert!(check_json_keys("{} {}").is_err(), "trailing data");
        assert!(check_json_stream_keys("{} {\"a\": 1}\n[]\n").is_ok());
        let (i, e) = check_json_stream_keys("{}\n{\"a\": {\"b\": 1, \"b\": 2}}").expect_err("dup");
        assert_eq!(i, 1);
        assert!(e.to_string().starts_with("duplicate key `b`"), "{e}");
    }

    #[test]
    fn bad_utf8_names_line_and_column() {
        let e = utf8(Path::new("r.yaml"), b"a: 1\nb: \"x\xffy\"\n".to_vec()).expect_err("bad");
        assert_eq!(
            e.to_string(),
            "r.yaml:2:6: not UTF-8 text (byte 10 is not part of a UTF-8 character)"
        );
    }
}
