//! File fingerprints: what the catalog cache remembers of a catalog's files, so a warm load
//! can tell that a file is unchanged from its metadata alone, without reading it (as cargo's
//! fingerprints and git's index do).
//!
//! For each catalog, the cache keeps one fingerprint entry: every file's path, size,
//! modification and status-change times, inode and device, with the BLAKE3 hash of its
//! contents. A file whose metadata are all as recorded is taken to have the recorded hash;
//! any other file is read and hashed. A file whose recorded times fell within
//! [`RACY`] of the moment its fingerprint was written is always read again (its
//! metadata might not move on a rewrite in the same clock tick), until a later load records
//! it outside that window. `LoadOptions::verify_cache` reads and hashes every file.
//!
//! The entry is keyed by the catalog's path (as given, and canonical), deppy's version and
//! the cache format; it holds no records, only these fingerprints, and it is checked like
//! every entry ([`super::cache`]: header, key, payload hash).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashMap;

use super::cache;

/// Files whose times are this close to the moment their fingerprint was written are read
/// again on the next load.
const RACY: Duration = Duration::from_secs(2);

/// Tells a fingerprint entry's key from the others'.
const KIND: &[u8] = b"catalog file fingerprints";

/// A file's metadata, as compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stamp {
    size: u64,
    /// Modification time, nanoseconds since the epoch.
    modified: i128,
    /// Status-change time, nanoseconds since the epoch (0 where the system has none).
    changed: i128,
    inode: u64,
    device: u64,
}

fn nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

impl Stamp {
    /// The stamp of a file's metadata (as `std::fs::metadata` gives them: links followed).
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        let modified = m.modified().map_or(0, nanos);
        #[cfg(unix)]
        let (changed, inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
                m.ino(),
                m.dev(),
            )
        };
        #[cfg(not(unix))]
        let (changed, inode, device) = (0, 0, 0);
        Stamp {
            size: m.len(),
            modified,
            changed,
            inode,
            device,
        }
    }

    /// True when its times are within [`RACY`] of `written` (or after it).
    fn racy(&self, written: i128) -> bool {
        let window = RACY.as_nanos() as i128;
        self.modified.max(self.changed) + window >= written
    }
}

/// One file's fingerprint.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Print {
    path: String,
    stamp: Stamp,
    hash: [u8; 32],
}

/// A catalog's fingerprints.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Prints {
    /// When they were written, nanoseconds since the epoch.
    pub(super) written: i128,
    files: Vec<Print>,
}

/// The fingerprints of one catalog's files, as last recorded, and as this load finds them.
pub(crate) struct Fingerprints {
    key: blake3::Hash,
    /// Recorded, by path: (stamp, hash), trusted (outside the racy window).
    known: FxHashMap<String, (Stamp, [u8; 32])>,
    /// Found by this load, in file order.
    found: Vec<Print>,
    changed: bool,
}

fn key(catalog: &Path) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    h.update(KIND);
    h.update(&cache::FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    let mut text = |t: &[u8]| {
        h.update(&(t.len() as u64).to_le_bytes());
        h.update(t);
    };
    text(catalog.display().to_string().as_bytes());
    let canonical = std::fs::canonicalize(catalog).unwrap_or_default();
    text(canonical.display().to_string().as_bytes());
    h.finalize()
}

impl Fingerprints {
    /// The fingerprints recorded in `dir` for the catalog at `catalog` (none when there is no
    /// sound entry).
    pub fn read(dir: &Path, catalog: &Path) -> Fingerprints {
        let key = key(catalog);
        let path = cache::entry_path(dir, &key);
        let recorded = match cache::read_entry(&path) {
            Ok(entry) => match cache::check(&entry, &key)
                .and_then(|p| cache::whole::<Prints>(p, "file fingerprints"))
            {
                Ok(p) => Some(p),
                Err(why) => {
                    log::warn!(
                        "catalog cache entry {} is unusable ({why}); rebuilding it",
                        path.display()
                    );
                    None
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                log::warn!("cannot read catalog cache entry {}: {e}", path.display());
                None
            }
        };
        let recorded = recorded.unwrap_or_default();
        let written = recorded.written;
        let known = recorded
            .files
            .into_iter()
            .filter(|p| !p.stamp.racy(written))
            .map(|p| (p.path, (p.stamp, p.hash)))
            .collect();
        Fingerprints {
            key,
            known,
            found: Vec::new(),
            changed: false,
        }
    }

    /// True when nothing was recorded for this catalog (a first load).
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// The recorded hash of `path`, when its metadata are as recorded.
    pub fn known(&self, path: &str, stamp: &Stamp) -> Option<blake3::Hash> {
        match self.known.get(path) {
            Some((s, h)) if s == stamp => Some(blake3::Hash::from_bytes(*h)),
            _ => None,
        }
    }

    /// Records what this load found of `path`, in file order.
    pub fn found(&mut self, path: &str, stamp: Stamp, hash: blake3::Hash) {
        let same = self
            .known
            .get(path)
            .is_some_and(|(s, h)| *s == stamp && h == hash.as_bytes());
        self.changed |= !same;
        self.found.push(Print {
            path: path.to_string(),
            stamp,
            hash: *hash.as_bytes(),
        });
    }

    /// Writes what this load found, when it differs from what was recorded (files gone,
    /// added or changed; racy ones again). A cache that cannot be written costs a warning.
    pub fn write(self, dir: &Path) {
        let racy_before = self.found.len() != self.known.len();
        if !self.changed && !racy_before {
            return;
        }
        let prints = Prints {
            written: nanos(SystemTime::now()),
            files: self.found,
        };
        let path = cache::entry_path(dir, &self.key);
        let written = postcard::to_allocvec(&prints)
            .map_err(Into::into)
            .and_then(|payload| cache::write_entry(dir, &path, &cache::entry(&self.key, &payload)));
        if let Err(e) = written {
            log::warn!("cannot write catalog cache entry {}: {e}", path.display());
        }
    }
}

/// The key in a fingerprint entry's header (tests age entries).
#[cfg(test)]
pub(super) fn key_of_entry(entry: &[u8]) -> Option<blake3::Hash> {
    let line = entry.split(|b| *b == b'\n').next()?;
    let text = std::str::from_utf8(line).ok()?;
    let hex = text.split(' ').nth(2)?;
    let key = blake3::Hash::from_hex(hex).ok()?;
    cache::check(entry, &key)
        .ok()
        .and_then(|p| cache::whole::<Prints>(p, "prints").ok())
        .map(|_| key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_within_the_racy_window_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        std::fs::write(&file, "{}").unwrap();
        let stamp = Stamp::of(&std::fs::metadata(&file).unwrap());
        let cache = dir.path().join("cache");
        let mut prints = Fingerprints::read(&cache, dir.path());
        assert!(prints.is_empty());
        prints.found("c.json", stamp, blake3::hash(b"{}"));
        prints.write(&cache);
        // Written right after the file: within the window, so read again next time.
        let again = Fingerprints::read(&cache, dir.path());
        assert_eq!(again.known("c.json", &stamp), None);
        // Recorded well after the file's times: trusted.
        let old = Stamp {
            modified: stamp.modified - 10 * RACY.as_nanos() as i128,
            changed: stamp.changed - 10 * RACY.as_nanos() as i128,
            ..stamp
        };
        let mut prints = Fingerprints::read(&cache, dir.path());
        prints.found("c.json", old, blake3::hash(b"{}"));
        prints.write(&cache);
        let again = Fingerprints::read(&cache, dir.path());
        assert_eq!(again.known("c.json", &old), Some(blake3::hash(b"{}")));
        assert_eq!(again.known("c.json", &stamp), None, "other metadata");
        assert_eq!(again.known("d.json", &old), None, "another path");
    }
}
