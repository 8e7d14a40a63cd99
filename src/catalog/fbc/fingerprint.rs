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
//! With the files, the entry keeps the catalog's directory listings: every directory the
//! catalog walk listed, with its metadata, when the walk met only plain directories and
//! regular files. A load whose directories all have the metadata recorded, each last changed
//! more than [`RACY`] before the walk that recorded them began, takes the recorded files as
//! the catalog's files without listing a directory (adding, removing or renaming an entry
//! changes its directory's modification time). `verify_cache` walks every catalog.
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
const KIND: &[u8] = b"catalog file fingerprints and directory listings";

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

/// Now, in nanoseconds since the epoch.
pub(crate) fn now() -> i128 {
    nanos(SystemTime::now())
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

/// A catalog's directory listings, as one walk read them: the files it found are the
/// fingerprints' files, in the same order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Listing {
    /// When the walk began, nanoseconds since the epoch.
    listed_at: i128,
    /// Every directory listed, in walk order, with its metadata as found after the walk.
    dirs: Vec<(String, Stamp)>,
}

impl Listing {
    /// True when every directory has the recorded metadata, last changed more than
    /// [`RACY`] before the walk began (so the walk saw what it holds now).
    fn holds(&self) -> bool {
        let window = RACY.as_nanos() as i128;
        let fresh = |(dir, stamp): &(String, Stamp)| {
            stamp.modified.max(stamp.changed) + window < self.listed_at
                && std::fs::metadata(dir).is_ok_and(|m| Stamp::of(&m) == *stamp)
        };
        crate::parallel::parallel_map(&self.dirs, fresh)
            .into_iter()
            .all(|ok| ok)
    }
}

/// A catalog's fingerprints.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Prints {
    /// When they were written, nanoseconds since the epoch.
    pub(super) written: i128,
    files: Vec<Print>,
    /// The directory listings that found `files`, when they may be trusted.
    listing: Option<Listing>,
}

/// The fingerprints of one catalog's files, as last recorded, and as this load finds them.
pub(crate) struct Fingerprints {
    key: blake3::Hash,
    /// Recorded, by path: (stamp, hash), trusted (outside the racy window).
    known: FxHashMap<String, (Stamp, [u8; 32])>,
    /// Found by this load, in file order.
    found: Vec<Print>,
    changed: bool,
    /// The recorded listings, with the paths of the files they found, in order.
    listing: Option<(Listing, Vec<String>)>,
    /// What this load's walk read, and how many files it found (None: it did not walk,
    /// and the recorded listings stand).
    walked: Option<(Option<Listing>, usize)>,
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
        let listing = recorded.listing.map(|l| {
            let paths = recorded.files.iter().map(|p| p.path.clone()).collect();
            (l, paths)
        });
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
            listing,
            walked: None,
        }
    }

    /// The catalog's files, in walk order, when the recorded listings still hold (every
    /// directory's metadata as recorded, outside the racy window): no directory is listed.
    pub fn listed_files(&self) -> Option<Vec<std::path::PathBuf>> {
        let (listing, paths) = self.listing.as_ref()?;
        listing
            .holds()
            .then(|| paths.iter().map(std::path::PathBuf::from).collect())
    }

    /// Records what this load's walk of the catalog read (begun at `listed_at`, nanoseconds
    /// since the epoch), found `files` files: its listings are kept when the walk met only
    /// plain directories and regular files, all with UTF-8 paths.
    pub fn walked(&mut self, listed_at: i128, walked: &super::Walked, files: usize) {
        let dirs: Option<Vec<(String, Stamp)>> = match walked.plain && !walked.dirs.is_empty() {
            true => crate::parallel::parallel_map(&walked.dirs, |d| {
                let m = std::fs::metadata(d).ok()?;
                Some((d.to_str()?.to_string(), Stamp::of(&m)))
            })
            .into_iter()
            .collect(),
            false => None,
        };
        let listing = dirs.map(|dirs| Listing { listed_at, dirs });
        self.walked = Some((listing, files));
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

    /// Forgets what this load found so far (recorded again from the first file).
    pub fn forget_found(&mut self) {
        self.found.clear();
        self.changed = false;
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
        let found_paths = || self.found.iter().map(|p| p.path.as_str());
        // Listings are kept only when this load recorded every file they found, in order.
        let listing = match (self.walked, &self.listing) {
            (Some((l, files)), _) => l.filter(|_| files == self.found.len()),
            (None, Some((l, paths))) => found_paths()
                .eq(paths.iter().map(String::as_str))
                .then(|| l.clone()),
            (None, None) => None,
        };
        let recorded = self.listing.map(|(l, _)| l);
        if !self.changed && !racy_before && listing == recorded {
            return;
        }
        let prints = Prints {
            written: nanos(SystemTime::now()),
            files: self.found,
            listing,
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

#[cfg(test)]
impl Prints {
    /// Moves the recorded times of writing and listing `by` nanoseconds forward (tests make
    /// files look fingerprinted and listed long after they were written).
    pub(super) fn age(&mut self, by: i128) {
        self.written += by;
        if let Some(l) = &mut self.listing {
            l.listed_at += by;
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
