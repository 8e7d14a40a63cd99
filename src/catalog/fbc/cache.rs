//! The catalog cache: each catalog file's resolver-relevant records (what the loader keeps
//! of its documents: names, versions, channels, typed properties, light opaque properties,
//! warnings; heavy `olm.csv.metadata` / `olm.bundle.object` values are dropped unless asked
//! for) stored in a cache directory, so an unchanged file is not parsed again.
//!
//! An entry is keyed by a BLAKE3 hash of deppy's version, the cache format, the load
//! options, the file's path and its full contents: any change to the file gives another key,
//! so a stale entry is never found. Each entry starts with a header line naming the format,
//! its key and a BLAKE3 hash of the payload; an entry whose header, hash or payload does not
//! check out is reported, ignored and rebuilt, never trusted. Entries are written through a
//! temporary file and a rename ([`crate::advanced::atomic`]), so an interrupted run leaves no
//! half-written entry. The payload is the records in postcard (compact, not self-describing:
//! typed serde both ways): the file's packages, channels, deprecations, warnings and GVKs,
//! then its bundles in chunks of [`CHUNK`], which a warm load decodes on several threads.
//! Versions and ranges are carried as their parts (a warm load does not parse them again);
//! raw JSON values (constraints, opaque properties) are carried as their text, because a
//! binary format cannot carry serde_json's raw-value token.

use std::path::Path;

use super::convert::{BundleRec, ChannelRec, DeprecationRec, PackageRec, Records};
use super::gvk_table::GvkTable;
use super::heavy::{Heavy, Keep};
use crate::catalog::error::{LoadError, Warning};
use crate::parallel::parallel_map;

/// First word of an entry's header.
const MAGIC: &str = "deppy-catalog-cache";
/// Bumped whenever the records' shape or the payload encoding changes (1: JSON payload;
/// 2 and 3: bincode; 4: postcard; 5: versions and ranges as their parts, bundles in chunks;
/// 6: keys from content hashes, the set stored as an index and units decoded on first use).
pub(crate) const FORMAT: u32 = 6;

/// The key of a file's entry: its path and the BLAKE3 hash of its contents.
fn key(file: &str, content: &blake3::Hash, keep: Keep) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    h.update(MAGIC.as_bytes());
    h.update(&FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&[keep.tag()]);
    h.update(&(file.len() as u64).to_le_bytes());
    h.update(file.as_bytes());
    h.update(content.as_bytes());
    h.finalize()
}

/// The records of `file` (contents `bytes`): from the cache in `dir` when a sound entry
/// exists, else from `parse`, then stored. A cache that cannot be read or written costs a
/// parse and a warning in the log, never the load.
pub(crate) fn parse_cached(
    dir: &Path,
    file: &str,
    bytes: &[u8],
    keep: Keep,
    parse: impl FnOnce(Heavy<'_>) -> Result<Records, LoadError>,
) -> Result<Records, LoadError> {
    records_cached(dir, file, &blake3::hash(bytes), keep, parse)
}

/// The records of `file`, whose contents hash to `content`: from the cache in `dir` when a
/// sound entry exists (the file is not read), else from `parse` (told which heavy values to
/// keep), then stored.
pub(crate) fn records_cached(
    dir: &Path,
    file: &str,
    content: &blake3::Hash,
    keep: Keep,
    parse: impl FnOnce(Heavy<'_>) -> Result<Records, LoadError>,
) -> Result<Records, LoadError> {
    let key = key(file, content, keep);
    through(
        dir,
        &key,
        &format!("for {file}"),
        decode_payload,
        || parse(keep.heavy()),
        |records| Some(encode(&key, records).map_err(Into::into)),
    )
}

/// The value of the entry `key` in `dir` (its checked payload read by `decode`) when a sound
/// one exists, else `build`'s, stored as the entry `encode` gives (none when it gives
/// `None`). A cache that cannot be read or written costs a build and a warning in the log,
/// never the load; `what` names the entry in the warning.
pub(super) fn through<T>(
    dir: &Path,
    key: &blake3::Hash,
    what: &str,
    decode: impl FnOnce(&[u8]) -> Result<T, String>,
    build: impl FnOnce() -> Result<T, LoadError>,
    encode: impl FnOnce(&T) -> Option<Result<Vec<u8>, Box<dyn std::error::Error>>>,
) -> Result<T, LoadError> {
    let path = entry_path(dir, key);
    match read_entry(&path) {
        Ok(entry) => match check(&entry, key).and_then(decode) {
            Ok(value) => return Ok(value),
            Err(why) => log::warn!(
                "catalog cache entry {} {what} is unusable ({why}); rebuilding it",
                path.display()
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => log::warn!("cannot read catalog cache entry {}: {e}", path.display()),
    }
    let value = build()?;
    if let Some(entry) = encode(&value)
        && let Err(e) = entry.and_then(|entry| write_entry(dir, &path, &entry))
    {
        log::warn!("cannot write catalog cache entry {}: {e}", path.display());
    }
    Ok(value)
}

/// Where the entry of `key` lives in `dir`.
pub(super) fn entry_path(dir: &Path, key: &blake3::Hash) -> std::path::PathBuf {
    dir.join(format!("{}.bin", key.to_hex()))
}

/// An entry's bytes. Only a regular file is read: a FIFO or a device planted at an entry's
/// path would block the load (or feed it without end); it is replaced by the rename of a
/// fresh entry.
pub(super) fn read_entry(path: &Path) -> std::io::Result<Vec<u8>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => std::fs::read(path),
        Ok(_) => Err(std::io::Error::other("not a regular file")),
        Err(e) => Err(e),
    }
}

/// Bundles per chunk of the payload: the chunks of a large file decode on several threads.
const CHUNK: usize = 1024;

/// The payload's first part: a file's records without their bundles.
#[derive(serde::Serialize)]
struct HeadRef<'a> {
    packages: &'a [PackageRec],
    channels: &'a [ChannelRec],
    deprecations: &'a [DeprecationRec],
    warnings: &'a [Warning],
    gvks: &'a GvkTable,
}

impl<'a> HeadRef<'a> {
    fn of(records: &'a Records) -> HeadRef<'a> {
        HeadRef {
            packages: &records.packages,
            channels: &records.channels,
            deprecations: &records.deprecations,
            warnings: &records.warnings,
            gvks: &records.gvks,
        }
    }
}

/// [`HeadRef`], read back.
#[derive(serde::Deserialize)]
struct Head {
    packages: Vec<PackageRec>,
    channels: Vec<ChannelRec>,
    deprecations: Vec<DeprecationRec>,
    warnings: Vec<Warning>,
    gvks: GvkTable,
}

/// A file's bundle records, boxed as [`Records::bundles`] holds them.
#[allow(clippy::vec_box)]
type Bundles = Vec<Box<BundleRec>>;

/// An entry: the header line, then the payload (postcard: variable-length integers; a
/// reader never takes more than the payload holds, and serde caps what a length prefix can
/// make it allocate ahead). The payload is the head's bytes, then the bundles in chunks of
/// [`CHUNK`], each chunk's bytes on their own.
fn encode(key: &blake3::Hash, records: &Records) -> Result<Vec<u8>, postcard::Error> {
    let head = postcard::to_allocvec(&HeadRef::of(records))?;
    let chunks = records
        .bundles
        .chunks(CHUNK)
        .map(postcard::to_allocvec)
        .collect::<Result<Vec<Vec<u8>>, _>>()?;
    let payload = postcard::to_allocvec(&(head, chunks))?;
    Ok(entry(key, &payload))
}

/// The entry of a payload: its header line, then the payload.
pub(super) fn entry(key: &blake3::Hash, payload: &[u8]) -> Vec<u8> {
    let header = format!(
        "{MAGIC} {FORMAT} {} {} {}\n",
        key.to_hex(),
        blake3::hash(payload).to_hex(),
        payload.len()
    );
    let mut entry = header.into_bytes();
    entry.extend_from_slice(payload);
    entry
}

/// One value of postcard bytes that must hold exactly that value.
pub(super) fn whole<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
    what: &str,
) -> Result<T, String> {
    let (value, rest): (T, &[u8]) =
        postcard::take_from_bytes(bytes).map_err(|e| format!("{what} does not decode: {e}"))?;
    if !rest.is_empty() {
        return Err(format!("{} bytes after the {what}", rest.len()));
    }
    Ok(value)
}

/// The records of a checked payload; the chunks of bundles decode in parallel.
fn decode_payload(payload: &[u8]) -> Result<Records, String> {
    let (head, chunks): (&[u8], Vec<&[u8]>) = whole(payload, "payload")?;
    let head: Head = whole(head, "head of the payload")?;
    let decoded: Vec<Result<Bundles, String>> =
        parallel_map(&chunks, |c| whole(c, "chunk of bundles"));
    let total = decoded.iter().map(|c| c.as_ref().map_or(0, Vec::len)).sum();
    let mut bundles = Vec::with_capacity(total);
    for chunk in decoded {
        bundles.extend(chunk?);
    }
    Ok(Records {
        packages: head.packages,
        channels: head.channels,
        bundles,
        deprecations: head.deprecations,
        warnings: head.warnings,
        gvks: head.gvks,
    })
}

/// The payload of an entry, checked against the key and against its own hash.
pub(super) fn check<'e>(entry: &'e [u8], key: &blake3::Hash) -> Result<&'e [u8], String> {
    check_as(entry, key, MAGIC)
}

/// As [`check`], for an entry whose header's first word is `kind` (the length may be
/// written with leading zeros: a header of fixed width).
pub(super) fn check_as<'e>(
    entry: &'e [u8],
    key: &blake3::Hash,
    kind: &str,
) -> Result<&'e [u8], String> {
    let newline = entry
        .iter()
        .position(|b| *b == b'\n')
        .ok_or("no header line")?;
    let (header, payload) = entry.split_at(newline);
    let payload = payload.get(1..).unwrap_or_default();
    let header = std::str::from_utf8(header).map_err(|_| "header is not text")?;
    let words: Vec<&str> = header.split(' ').collect();
    let [magic, format, entry_key, hash, len] = words[..] else {
        return Err("malformed header".to_string());
    };
    if magic != kind || format != FORMAT.to_string() {
        return Err(format!("format {magic} {format}, expected {kind} {FORMAT}"));
    }
    if entry_key != key.to_hex().as_str() {
        return Err("key does not match the file".to_string());
    }
    if len.parse::<usize>().ok() != Some(payload.len()) {
        return Err(format!(
            "payload is {} bytes, header says {len} (truncated?)",
            payload.len()
        ));
    }
    if hash != blake3::hash(payload).to_hex().as_str() {
        return Err("payload hash does not match (corrupt)".to_string());
    }
    Ok(payload)
}

#[cfg(test)]
fn decode(entry: &[u8], key: &blake3::Hash) -> Result<Records, String> {
    check(entry, key).and_then(decode_payload)
}

/// Writes an entry through a temporary file and a rename.
pub(super) fn write_entry(
    dir: &Path,
    path: &Path,
    entry: &[u8],
) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    // Not synced to disk: every entry is checked when read, and rebuilt when it does not
    // check out, so a crash can cost an entry but never trust a torn one.
    crate::atomic::write_atomic_unsynced(path, entry)?;
    Ok(())
}

/// `Box<RawValue>` fields as their JSON text (`#[serde(with = ...)]` on the records).
pub(crate) mod raw_values {
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::value::RawValue;

    pub fn serialize<S: Serializer>(v: &[Box<RawValue>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|r| r.get()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Box<RawValue>>, D::Error> {
        Vec::<String>::deserialize(d)?
            .into_iter()
            .map(|t| super::raw(t).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// Constraint sources (field, type, raw value) with the value as its JSON text.
pub(crate) mod raw_sources {
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::value::RawValue;

    type Source = (String, String, Box<RawValue>);

    pub fn serialize<S: Serializer>(v: &[Source], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|(f, k, r)| (f, k, r.get())))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Source>, D::Error> {
        Vec::<(String, String, String)>::deserialize(d)?
            .into_iter()
            .map(|(f, k, t)| Ok((f, k, super::raw(t).map_err(serde::de::Error::custom)?)))
            .collect()
    }
}

/// Opaque properties (type, raw value) with the value as its JSON text.
pub(crate) mod raw_properties {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::catalog::model::OpaqueProperty;

    pub fn serialize<S: Serializer>(v: &[OpaqueProperty], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|p| (&p.kind, p.value.get())))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<OpaqueProperty>, D::Error> {
        Vec::<(String, String)>::deserialize(d)?
            .into_iter()
            .map(|(kind, t)| {
                let value = super::raw(t).map_err(serde::de::Error::custom)?;
                Ok(OpaqueProperty { kind, value })
            })
            .collect()
    }
}

/// JSON text back into a raw value (checked: an entry is never trusted to hold JSON).
fn raw(text: String) -> Result<Box<serde_json::value::RawValue>, serde_json::Error> {
    serde_json::value::RawValue::from_string(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fbc::parse::Format;
    use crate::catalog::fbc::records::parse_bytes;

    const DOC: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"stable"}
{"schema":"olm.channel","package":"a","name":"stable","entries":[{"name":"a.v1.0.0"}]}
{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","image":"i","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.constraint","value":{"failureMessage":"m","package":{"packageName":"b","versionRange":">=1.0.0"}}},{"type":"olm.maxOpenShiftVersion","value":"4.22"},{"type":"olm.any.required","value":{"any":[{"package":{"packageName":"c","versionRange":"<2"}}]}}]}
"#;

    fn parse(heavy: Heavy<'_>) -> Result<Records, LoadError> {
        parse_bytes("c.json", DOC.as_bytes(), Some(Format::Json), heavy)
    }

    fn summary(r: &Records) -> String {
        serde_json::to_string(r).unwrap()
    }

    #[test]
    fn a_hit_gives_the_parsed_records_without_parsing() {
        let dir = tempfile::tempdir().unwrap();
        let first = parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, parse).unwrap();
        let second = parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, |_| {
            panic!("parsed again")
        })
        .unwrap();
        assert_eq!(summary(&first), summary(&second));
        assert_eq!(summary(&first), summary(&parse(Heavy::Drop).unwrap()));
    }

    #[test]
    fn raw_values_survive_the_binary_payload() {
        let dir = tempfile::tempdir().unwrap();
        parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, parse).unwrap();
        let hit = parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, |_| {
            panic!("parsed again")
        })
        .unwrap();
        let b = &hit.bundles[0];
        assert!(b.constraints[0].get().contains("failureMessage"));
        let kinds: Vec<_> = b.properties.iter().map(|p| p.kind.as_str()).collect();
        assert_eq!(kinds, ["olm.maxOpenShiftVersion", "olm.any.required"]);
        assert_eq!(b.properties[0].value.get(), "\"4.22\"");
        assert_eq!(b.constraint_sources.len(), 2);
        let entry = std::fs::read(
            std::fs::read_dir(dir.path())
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path(),
        )
        .unwrap();
        assert!(entry.starts_with(format!("{MAGIC} {FORMAT} ").as_bytes()));
    }

    #[test]
    fn a_changed_file_or_option_misses() {
        let dir = tempfile::tempdir().unwrap();
        parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, parse).unwrap();
        let changed = DOC.replace("1.0.0", "1.0.1");
        let mut parsed = false;
        parse_cached(dir.path(), "c.json", changed.as_bytes(), Keep::None, |h| {
            parsed = true;
            parse(h)
        })
        .unwrap();
        assert!(parsed, "a changed file was served from the cache");
        let mut parsed = false;
        parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::All, |h| {
            parsed = true;
            parse(h)
        })
        .unwrap();
        assert!(parsed, "other load options were served from the cache");
    }

    #[test]
    fn corrupt_or_truncated_entries_are_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, parse).unwrap();
        let entry = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let good = std::fs::read(&entry).unwrap();
        let mut flipped = good.clone();
        let last = flipped.len() - 2;
        flipped[last] ^= 1;
        let truncated = good[..good.len() - 10].to_vec();
        for bad in [flipped, truncated, b"garbage".to_vec(), Vec::new()] {
            std::fs::write(&entry, &bad).unwrap();
            let mut parsed = false;
            let r = parse_cached(dir.path(), "c.json", DOC.as_bytes(), Keep::None, |h| {
                parsed = true;
                parse(h)
            })
            .unwrap();
            assert!(parsed, "a bad entry was trusted");
            assert_eq!(summary(&r), summary(&parse(Heavy::Drop).unwrap()));
            assert_eq!(std::fs::read(&entry).unwrap(), good, "entry not rebuilt");
        }
    }

    /// A file of `n` bundles of one package, one channel naming them all.
    fn many(n: usize) -> String {
        let mut doc = String::from(r#"{"schema":"olm.package","name":"a"}"#);
        doc.push('\n');
        let entries: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"name":"a.v{i}.0.0"}}"#))
            .collect();
        doc.push_str(&format!(
            r#"{{"schema":"olm.channel","package":"a","name":"s","entries":[{}]}}"#,
            entries.join(",")
        ));
        doc.push('\n');
        for i in 0..n {
            doc.push_str(&format!(
                r#"{{"schema":"olm.bundle","name":"a.v{i}.0.0","package":"a","properties":[{{"type":"olm.package","value":{{"packageName":"a","version":"{i}.0.0-rc.{i}+b{i}"}}}},{{"type":"olm.package.required","value":{{"packageName":"b","versionRange":">={i}.0.0 <{}.0.0 || =0.1.x"}}}}]}}"#,
                i + 1
            ));
            doc.push('\n');
        }
        doc
    }

    #[test]
    fn bundles_in_several_chunks_come_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let doc = many(2 * CHUNK + 7);
        let fresh = |h: Heavy<'_>| parse_bytes("m.json", doc.as_bytes(), Some(Format::Json), h);
        let first = parse_cached(dir.path(), "m.json", doc.as_bytes(), Keep::None, fresh).unwrap();
        let hit = parse_cached(dir.path(), "m.json", doc.as_bytes(), Keep::None, |_| {
            panic!("parsed again")
        })
        .unwrap();
        assert_eq!(hit.bundles.len(), 2 * CHUNK + 7);
        assert_eq!(summary(&hit), summary(&first));
        let b = &hit.bundles[2 * CHUNK + 3];
        assert_eq!(b.name, format!("a.v{}.0.0", 2 * CHUNK + 3));
        assert_eq!(
            b.version.to_string(),
            format!("{0}.0.0-rc.{0}+b{0}", 2 * CHUNK + 3)
        );
        let range = &b.requires_packages[0].range;
        assert!(range.matches(&crate::version::Version::parse("0.1.5").unwrap()));
        assert!(!range.matches(&crate::version::Version::parse("0.2.0").unwrap()));
    }

    #[test]
    fn a_chunk_that_does_not_decode_rejects_the_entry() {
        let records = parse(Heavy::Drop).unwrap();
        let key = key("c.json", &blake3::hash(DOC.as_bytes()), Keep::None);
        let good = encode(&key, &records).unwrap();
        assert!(decode(&good, &key).is_ok());
        // A payload whose hash checks out but whose one chunk is not a list of bundles.
        let head = postcard::to_allocvec(&HeadRef::of(&records)).unwrap();
        let payload = postcard::to_allocvec(&(head, vec![vec![5u8, 1, 2]])).unwrap();
        let bad = entry(&key, &payload);
        let why = decode(&bad, &key).err().unwrap();
        assert!(why.contains("chunk of bundles"), "{why}");
    }

    #[test]
    fn an_unwritable_cache_still_loads() {
        let dir = tempfile::tempdir().unwrap();
        let not_a_dir = dir.path().join("file");
        std::fs::write(&not_a_dir, "x").unwrap();
        let r = parse_cached(&not_a_dir, "c.json", DOC.as_bytes(), Keep::None, parse).unwrap();
        assert_eq!(summary(&r), summary(&parse(Heavy::Drop).unwrap()));
    }
}
