//! Heavy property values (`olm.csv.metadata`, `olm.bundle.object`) kept out of memory. A
//! load through the catalog cache that does not keep them records where each file's are
//! (a [`HeavyStore`] in the set); a command that needs a bundle's heavy values
//! ([`crate::CatalogSet::bundle_properties`]: the cluster's CRD check) reads them from its
//! file's entry in the cache. The first time, or when the entry does not check out, the
//! catalog file is parsed again (its contents checked against those the set was loaded
//! from) and its heavy values are streamed into the entry as they are met: only the asked
//! bundle's are kept in memory.
//!
//! An entry is `DIR/<key>.heavy`: a header line of fixed width (format, key, BLAKE3 hash and
//! length of the payload, written last), then one postcard record per heavy value:
//! (document, position among the bundle's opaque properties, type, JSON text). Its key is
//! a hash of deppy's version, the cache format, the file's path and its content hash (or
//! the content key given for its catalog).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::heavy::{Heavy, HeavySink};
use super::parse::Format;
use crate::atomic::AtomicFile;
use crate::catalog::error::LoadError;
use crate::catalog::model::{OpaqueProperty, Origin};
use crate::catalog::set::{HeavyValues, Values};

/// First word of an entry's header.
const MAGIC: &str = "deppy-heavy-values";

/// What names a file's contents in an entry's key.
#[derive(Clone, Debug)]
pub(crate) enum Basis {
    /// The BLAKE3 hash of its bytes.
    Content(blake3::Hash),
    /// The content key given for its catalog (an image's manifest digest).
    Given(String),
}

/// The key of the heavy values of `file` with contents `basis`.
pub(crate) fn key(file: &str, basis: &Basis) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    h.update(MAGIC.as_bytes());
    h.update(&super::cache::FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&(file.len() as u64).to_le_bytes());
    h.update(file.as_bytes());
    match basis {
        Basis::Content(c) => h.update(b"content").update(c.as_bytes()),
        Basis::Given(k) => h.update(b"given").update(k.as_bytes()),
    };
    h.finalize()
}

fn entry_path(dir: &Path, key: &blake3::Hash) -> PathBuf {
    dir.join(format!("{}.heavy", key.to_hex()))
}

/// An entry's header: fixed width, so that it is written over its placeholder once the
/// payload is streamed.
fn header(key: &blake3::Hash, hash: &blake3::Hash, len: u64) -> String {
    format!(
        "{MAGIC} {} {} {} {len:020}\n",
        super::cache::FORMAT,
        key.to_hex(),
        hash.to_hex()
    )
}

/// Streams a file's heavy values into its entry: written through a temporary file, renamed
/// into place by [`HeavyWriter::finish`] once the whole file was parsed. A write that
/// fails is logged and leaves no entry; it never fails the command.
pub(crate) struct HeavyWriter {
    key: blake3::Hash,
    out: Option<BufWriter<AtomicFile>>,
    hasher: blake3::Hasher,
    len: u64,
    record: Vec<u8>,
}

impl HeavyWriter {
    /// A writer of the entry `key` in `dir`; None (logged) when it cannot be created.
    pub(crate) fn create(dir: &Path, key: blake3::Hash) -> Option<HeavyWriter> {
        let path = entry_path(dir, &key);
        let created = std::fs::create_dir_all(dir)
            .map_err(|e| e.to_string())
            .and_then(|()| AtomicFile::create(&path).map_err(|e| e.to_string()));
        let file = match created {
            Ok(f) => f,
            Err(e) => {
                log::warn!("cannot write catalog cache entry {}: {e}", path.display());
                return None;
            }
        };
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let placeholder = header(&key, &blake3::Hash::from_bytes([0; 32]), 0);
        if let Err(e) = out.write_all(placeholder.as_bytes()) {
            log::warn!("cannot write catalog cache entry {}: {e}", path.display());
            return None;
        }
        Some(HeavyWriter {
            key,
            out: Some(out),
            hasher: blake3::Hasher::new(),
            len: 0,
            record: Vec::new(),
        })
    }

    /// Renames the entry into place, its header written.
    pub(crate) fn finish(mut self) {
        let Some(out) = self.out.take() else { return };
        let done = out
            .into_inner()
            .map_err(|e| e.into_error().to_string())
            .and_then(|mut file| {
                let head = header(&self.key, &self.hasher.finalize(), self.len);
                file.rewrite_start(head.as_bytes())
                    .map_err(|e| e.to_string())?;
                file.commit_unsynced().map_err(|e| e.to_string())
            });
        if let Err(e) = done {
            log::warn!("cannot write the heavy values entry {}: {e}", self.key);
        }
    }

    /// Appends one value's record (see [`HeavySink::value`]).
    fn value(&mut self, document: usize, position: usize, kind: &str, json: &str) {
        let Some(out) = &mut self.out else { return };
        let (Ok(document), Ok(position)) = (u32::try_from(document), u32::try_from(position))
        else {
            self.out = None;
            return;
        };
        self.record.clear();
        let record = std::mem::take(&mut self.record);
        let record = match postcard::to_extend(&(document, position, kind, json), record) {
            Ok(r) => r,
            Err(e) => {
                log::warn!("cannot encode a heavy value: {e}");
                self.out = None;
                return;
            }
        };
        if let Err(e) = out.write_all(&record) {
            log::warn!("cannot write the heavy values entry {}: {e}", self.key);
            self.out = None;
            return;
        }
        self.hasher.update(&record);
        self.len += record.len() as u64;
        self.record = record;
    }
}

/// The values of `document` in the entry `key` of `dir`: None when there is no entry,
/// an error when it does not check out.
fn read(dir: &Path, key: &blake3::Hash, document: usize) -> Result<Option<Values>, String> {
    let path = entry_path(dir, key);
    let entry = match super::cache::read_entry(&path) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let payload = super::cache::check_as(&entry, key, MAGIC)?;
    let mut rest = payload;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let ((doc, position, kind, json), tail): ((u32, u32, &str, &str), &[u8]) =
            postcard::take_from_bytes(rest)
                .map_err(|e| format!("a record does not decode: {e}"))?;
        rest = tail;
        if doc as usize != document {
            continue;
        }
        let value = serde_json::value::RawValue::from_string(json.to_string())
            .map_err(|e| format!("a value is not JSON: {e}"))?;
        let kind = kind.to_string();
        out.push((position as usize, OpaqueProperty { kind, value }));
    }
    Ok(Some(out))
}

/// One catalog file of a set whose heavy values are kept in the cache.
#[derive(Clone, Debug)]
pub(crate) struct HeavyFile {
    pub(super) path: PathBuf,
    pub(super) format: Option<Format>,
    pub(super) basis: Basis,
}

/// Where the heavy values of a set loaded without them are: each file's entry in the cache
/// directory, by the file's name as the bundles' origins give it.
#[derive(Debug)]
pub(crate) struct HeavyStore {
    pub(super) dir: PathBuf,
    pub(super) files: FxHashMap<String, HeavyFile>,
}

impl HeavyValues for HeavyStore {
    /// The heavy values of the bundle at `origin`: from its file's entry, else from the file
    /// (parsed again, its heavy values streamed into a new entry).
    fn values(&self, origin: &Origin) -> Result<Values, LoadError> {
        let Some(file) = self.files.get(&origin.file) else {
            return Ok(Vec::new());
        };
        let key = key(&origin.file, &file.basis);
        match read(&self.dir, &key, origin.document) {
            Ok(Some(values)) => return Ok(values),
            Ok(None) => {}
            Err(why) => log::warn!(
                "heavy values entry {} for {} is unusable ({why}); reading the file again",
                entry_path(&self.dir, &key).display(),
                origin.file
            ),
        }
        self.parse_again(&origin.file, file, key, origin.document)
    }
}

impl HeavyStore {
    /// Parses `file` again, keeping the values of `document` and streaming all of them into
    /// the entry `key`.
    fn parse_again(
        &self,
        name: &str,
        file: &HeavyFile,
        key: blake3::Hash,
        document: usize,
    ) -> Result<Values, LoadError> {
        let bytes = super::limits::read_limited(&file.path, super::limits::max_file_size())?;
        if let Basis::Content(h) = &file.basis
            && blake3::hash(&bytes) != *h
        {
            return Err(LoadError::Io {
                path: file.path.clone(),
                source: std::io::Error::other(
                    "the file changed since its catalog was loaded; load again",
                ),
            });
        }
        let mut tee = Tee {
            writer: HeavyWriter::create(&self.dir, key),
            document,
            kept: Vec::new(),
        };
        super::records::parse_bytes(name, &bytes, file.format, Heavy::Stream(&mut tee))?;
        let Tee { writer, kept, .. } = tee;
        if let Some(w) = writer {
            w.finish();
        }
        let origin = || Origin {
            file: name.to_string(),
            document,
            line: None,
        };
        kept.into_iter()
            .map(|(position, kind, json)| {
                let value = serde_json::value::RawValue::from_string(json).map_err(|e| {
                    LoadError::Invalid {
                        origin: origin(),
                        field: format!("properties[{position}].value"),
                        message: format!("{kind} value is not JSON: {e}"),
                    }
                })?;
                Ok((position, OpaqueProperty { kind, value }))
            })
            .collect()
    }
}

/// Streams a file's heavy values into an entry and keeps one document's: (position, type,
/// JSON text).
struct Tee {
    writer: Option<HeavyWriter>,
    document: usize,
    kept: Vec<(usize, String, String)>,
}

impl HeavySink for Tee {
    fn value(&mut self, document: usize, position: usize, kind: &str, json: &str) {
        if let Some(w) = &mut self.writer {
            w.value(document, position, kind, json);
        }
        if document == self.document {
            self.kept
                .push((position, kind.to_string(), json.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fbc::heavy::BUNDLE_OBJECT;
    use crate::catalog::fbc::records::parse_bytes;
    use crate::catalog::set::merge;

    /// Two bundles whose heavy values lie between light ones.
    const DOC: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"s"}
{"schema":"olm.bundle","name":"a.v1","package":"a","properties":[{"type":"x.one","value":1},{"type":"olm.csv.metadata","value":{"description":"d"}},{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"x.two","value":[2]},{"type":"olm.bundle.object","value":{"data":"e30="}},{"type":"olm.bundle.object","value":{"data":"W10="}},{"type":"x.three","value":"3"}]}
{"schema":"olm.bundle","name":"a.v2","package":"a","properties":[{"type":"olm.bundle.object","value":{"data":"bnVsbA=="}},{"type":"olm.package","value":{"packageName":"a","version":"2.0.0"}}]}
"#;

    /// Each bundle's opaque properties, as (type, JSON text).
    fn props(records: &super::super::convert::Records) -> Vec<Vec<(String, String)>> {
        records
            .bundles
            .iter()
            .map(|b| {
                let p = b.properties.iter();
                p.map(|p| (p.kind.clone(), p.value.get().to_string()))
                    .collect()
            })
            .collect()
    }

    /// The YAML form of DOC: its documents in flow style.
    fn yaml() -> String {
        let docs: Vec<String> = DOC.lines().map(str::to_string).collect();
        docs.join("\n---\n")
    }

    /// Streams `text` into an entry of `dir`, then merges each bundle's values back: the
    /// properties a parse keeping them gives.
    fn round_trip(name: &str, text: &str, format: Format) {
        let dir = tempfile::tempdir().unwrap();
        let kept = parse_bytes(name, text.as_bytes(), Some(format), Heavy::Keep).unwrap();
        let basis = Basis::Content(blake3::hash(text.as_bytes()));
        let key = key(name, &basis);
        let mut tee = Tee {
            writer: HeavyWriter::create(dir.path(), key),
            document: 0,
            kept: Vec::new(),
        };
        let light = parse_bytes(name, text.as_bytes(), Some(format), Heavy::Stream(&mut tee));
        let light = light.unwrap();
        tee.writer.take().unwrap().finish();
        assert!(
            light
                .bundles
                .iter()
                .all(|b| b.properties.iter().all(|p| !p.kind.starts_with("olm.")))
        );
        let mut merged = light.clone();
        for b in &mut merged.bundles {
            let values = read(dir.path(), &key, b.origin.document).unwrap().unwrap();
            b.properties = merge(&b.properties, values);
        }
        assert_eq!(props(&merged), props(&kept));
        assert_eq!(props(&kept)[0].len(), 6);
    }

    #[test]
    fn streamed_values_merge_back_where_the_document_had_them() {
        round_trip("c.json", DOC, Format::Json);
        round_trip("c.yaml", &yaml(), Format::Yaml);
    }

    #[test]
    fn only_bundle_objects_are_kept_when_asked() {
        let r = parse_bytes("c.json", DOC.as_bytes(), None, Heavy::KeepObjects).unwrap();
        let kinds: Vec<String> = props(&r)[0].iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(
            kinds,
            ["x.one", "x.two", BUNDLE_OBJECT, BUNDLE_OBJECT, "x.three"]
        );
    }

    /// A store of the file `c.json` in `dir`, holding DOC.
    fn store(dir: &Path) -> HeavyStore {
        let path = dir.join("c.json");
        std::fs::write(&path, DOC).unwrap();
        let name = path.display().to_string();
        let basis = Basis::Content(blake3::hash(DOC.as_bytes()));
        let file = HeavyFile {
            path,
            format: Some(Format::Json),
            basis,
        };
        HeavyStore {
            dir: dir.join("cache"),
            files: [(name, file)].into_iter().collect(),
        }
    }

    fn origin(store: &HeavyStore, document: usize) -> Origin {
        let file = store.files.keys().next().unwrap().clone();
        Origin {
            file,
            document,
            line: None,
        }
    }

    #[test]
    fn a_missing_or_damaged_entry_is_made_again_from_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store(tmp.path());
        let first = store.values(&origin(&store, 3)).unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].1.value.get(), r#"{"data":"bnVsbA=="}"#);
        let entry = std::fs::read_dir(&store.dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let good = std::fs::read(entry.path()).unwrap();
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        std::fs::write(entry.path(), &bad).unwrap();
        let again = store.values(&origin(&store, 2)).unwrap();
        assert_eq!(again.iter().map(|v| v.0).collect::<Vec<_>>(), [1, 3, 4]);
        assert_eq!(std::fs::read(entry.path()).unwrap(), good);
    }

    #[test]
    fn a_file_changed_since_the_load_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store(tmp.path());
        let changed = DOC.replace("2.0.0", "2.0.1");
        std::fs::write(&store.files.values().next().unwrap().path, changed).unwrap();
        let err = store.values(&origin(&store, 3)).unwrap_err().to_string();
        assert!(
            err.contains("changed since its catalog was loaded"),
            "{err}"
        );
    }
}
