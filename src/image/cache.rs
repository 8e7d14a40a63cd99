//! The image cache: each catalog pulled, by the digest of the manifest its reference
//! resolved to, under `DIR/images/v1/sha256/<hex>/` (`catalog/` holds the File-Based Catalog,
//! `image.json` what it came from). An entry is written in a temporary directory beside
//! the entries and renamed into place, so a reader sees a whole entry or none, and two runs
//! pulling one image at once both end with the same entry. The tag a registry reference
//! last resolved to is kept too (`tags/`), so `--offline` can use it.
//!
//! Without a cache directory (`--no-cache`), entries go to a directory of this process's
//! own that is removed when the cache is dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::digest::Digest;
use super::layers::Tree;
use super::reference::RegistryRef;

/// What an entry records about its image.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct EntryInfo {
    /// The reference pulled, as given.
    pub image: String,
    /// The digest the reference resolved to (the entry's key).
    pub digest: Digest,
    /// The image manifest used (the platform's, when the digest is an index).
    pub manifest: Digest,
    /// Where the catalog was in the image (its configs label).
    pub configs: String,
}

/// The image cache of a run.
#[derive(Debug)]
pub struct Cache {
    root: PathBuf,
    /// Set for a cache of this process only: removed on drop.
    owned: bool,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A name no other run or thread picks.
fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// The default cache directory: `$XDG_CACHE_HOME/deppy`, else `$HOME/.cache/deppy`.
pub fn default_dir() -> Option<PathBuf> {
    let nonempty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(x) = nonempty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("deppy"));
    }
    nonempty("HOME").map(|h| PathBuf::from(h).join(".cache").join("deppy"))
}

impl Cache {
    /// The cache under `dir` (`DIR/images/v1`).
    pub fn at(dir: &Path) -> Cache {
        Cache {
            root: dir.join("images").join("v1"),
            owned: false,
        }
    }

    /// A cache of this process only, in the system's temporary directory.
    pub fn temporary() -> Cache {
        Cache {
            root: std::env::temp_dir().join(unique("deppy-images-")),
            owned: true,
        }
    }

    fn entry_dir(&self, digest: &Digest) -> PathBuf {
        self.root.join(digest.algorithm().name()).join(digest.hex())
    }

    /// The entry of `digest`, when there is one.
    pub fn lookup(&self, digest: &Digest) -> Option<(PathBuf, EntryInfo)> {
        let dir = self.entry_dir(digest);
        let text = std::fs::read(dir.join("image.json")).ok()?;
        let info: EntryInfo = serde_json::from_slice(&text).ok()?;
        (info.digest == *digest).then(|| (dir.join("catalog"), info))
    }

    fn tag_file(&self, r: &RegistryRef) -> Option<PathBuf> {
        let tag = r.tag.as_deref()?;
        let key = blake3::hash(format!("{}:{tag}", r.name()).as_bytes());
        Some(self.root.join("tags").join(key.to_hex().as_str()))
    }

    /// The digest `r`'s tag resolved to when last pulled.
    pub fn tag(&self, r: &RegistryRef) -> Option<Digest> {
        let text = std::fs::read_to_string(self.tag_file(r)?).ok()?;
        let (name, digest) = text.trim_end().rsplit_once(' ')?;
        (name == r.to_string()).then(|| digest.parse().ok())?
    }

    /// Records what `r`'s tag resolved to (best effort: a cache that cannot be written
    /// still pulls).
    pub fn remember_tag(&self, r: &RegistryRef, digest: &Digest) {
        let Some(file) = self.tag_file(r) else { return };
        let write = || -> std::io::Result<()> {
            let dir = self.root.join("tags");
            std::fs::create_dir_all(&dir)?;
            let tmp = dir.join(unique(".tmp-"));
            std::fs::write(&tmp, format!("{r} {digest}\n"))?;
            std::fs::rename(&tmp, &file).inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        };
        if let Err(e) = write() {
            log::warn!("cannot write image cache entry {}: {e}", file.display());
        }
    }

    /// Writes the catalog of `info` into its entry (through a temporary directory and a
    /// rename) and returns the catalog's directory.
    pub fn store(&self, tree: &Tree, info: &EntryInfo) -> std::io::Result<PathBuf> {
        let dest = self.entry_dir(&info.digest);
        if let Some((dir, _)) = self.lookup(&info.digest) {
            return Ok(dir);
        }
        let tmp_root = self.root.join("tmp");
        std::fs::create_dir_all(&tmp_root)?;
        let tmp = tmp_root.join(unique(""));
        std::fs::create_dir(&tmp)?;
        let written = (|| {
            let catalog = tmp.join("catalog");
            std::fs::create_dir(&catalog)?;
            tree.write(&catalog)?;
            let json = serde_json::to_vec_pretty(info).map_err(std::io::Error::other)?;
            std::fs::write(tmp.join("image.json"), json)?;
            if let Some(p) = dest.parent() {
                std::fs::create_dir_all(p)?;
            }
            std::fs::rename(&tmp, &dest)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&tmp);
            // Another run wrote the same entry first: it is as good as ours.
            if let Some((dir, _)) = self.lookup(&info.digest) {
                return Ok(dir);
            }
            return Err(e);
        }
        Ok(dest.join("catalog"))
    }

    /// A scratch directory inside the cache (for unpacking an `oci-archive:`), removed when
    /// the returned guard is dropped.
    pub fn scratch(&self) -> std::io::Result<Scratch> {
        let dir = self.root.join("tmp").join(unique("scratch-"));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// A directory removed when dropped.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(hex: char) -> EntryInfo {
        let d: Digest = format!("sha256:{}", hex.to_string().repeat(64))
            .parse()
            .unwrap();
        EntryInfo {
            image: "docker://r.io/x:1".into(),
            digest: d.clone(),
            manifest: d,
            configs: "/configs".into(),
        }
    }

    #[test]
    fn entries_are_found_by_digest_and_tags_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::at(dir.path());
        let i = info('a');
        assert!(cache.lookup(&i.digest).is_none());
        let tree = Tree::new("/configs").unwrap();
        let catalog = cache.store(&tree, &i).unwrap();
        assert!(catalog.is_dir());
        assert_eq!(
            cache.lookup(&i.digest).unwrap(),
            (catalog.clone(), i.clone())
        );
        // A second store of the same digest keeps the first.
        assert_eq!(cache.store(&tree, &i).unwrap(), catalog);
        let r = RegistryRef::parse("r.io/x:1").unwrap();
        assert_eq!(cache.tag(&r), None);
        cache.remember_tag(&r, &i.digest);
        assert_eq!(cache.tag(&r), Some(i.digest.clone()));
        assert_eq!(cache.tag(&RegistryRef::parse("r.io/x:2").unwrap()), None);
        assert!(
            std::fs::read_dir(dir.path().join("images/v1/tmp"))
                .unwrap()
                .next()
                .is_none()
        );
    }

    #[test]
    fn a_temporary_cache_is_removed_when_dropped() {
        let cache = Cache::temporary();
        let catalog = cache
            .store(&Tree::new("/configs").unwrap(), &info('b'))
            .unwrap();
        assert!(catalog.is_dir());
        drop(cache);
        assert!(!catalog.exists());
    }
}
