//! A stored set's unit reader: its package entries read from the open entry on first use,
//! checked against their hashes, and had from the catalogs' files again when one does not
//! check out (see the parent module).

use std::fs::File;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::{Extent, Reload, cache, decode_unit, spans_of};
use crate::catalog::set::CatalogSet;
use crate::catalog::table::{Unit, UnitSource, UnitSpan};

/// Reads `len` bytes at `offset` of `file`.
pub(super) fn read_at(file: &File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let len = usize::try_from(len).map_err(std::io::Error::other)?;
    let mut buf = vec![0u8; len];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buf, offset)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(&mut buf)?;
    }
    Ok(buf)
}

/// A stored set's unit reader: the open entry and where its parts lie.
pub(super) struct Store {
    pub(super) file: File,
    pub(super) path: PathBuf,
    pub(super) body_at: u64,
    pub(super) units: Vec<Extent>,
    pub(super) spans: Vec<UnitSpan>,
    pub(super) names: Extent,
    pub(super) reload: Option<Reload>,
    /// The set loaded again, once some part of the entry did not check out.
    pub(super) reloaded: OnceLock<Result<Reloaded, String>>,
}

/// The set loaded again from the files, and its units (each with its package entry's
/// position), which lie where the entry's did.
pub(super) struct Reloaded {
    set: CatalogSet,
    units: Vec<(UnitSpan, usize)>,
}

impl Reloaded {
    fn unit(&self, i: usize) -> Result<Unit, String> {
        let (span, pos) = self
            .units
            .get(i)
            .ok_or_else(|| format!("no unit {i} in the reloaded set"))?;
        let from = span.first as usize;
        let bundles = self
            .set
            .bundles
            .as_slice()
            .get(from..from + span.count as usize)
            .ok_or("a reloaded package entry's bundles are out of range")?;
        let package = self
            .set
            .packages
            .get(*pos)
            .ok_or("no reloaded package entry")?;
        Ok(Unit {
            package: package.clone(),
            bundles: bundles.to_vec(),
        })
    }
}

impl Store {
    fn read(&self, e: &Extent, what: &str) -> Result<Vec<u8>, String> {
        let bytes = read_at(&self.file, self.body_at + e.offset, e.len)
            .map_err(|err| format!("cannot read {what} of {}: {err}", self.path.display()))?;
        if blake3::hash(&bytes).as_bytes() != &e.hash {
            return Err(format!(
                "{what} of {} does not match its hash (corrupt)",
                self.path.display()
            ));
        }
        Ok(bytes)
    }

    /// Unit `i` as stored, checked.
    fn stored_unit(&self, i: usize) -> Result<Unit, String> {
        let e = self.units.get(i).ok_or("no such unit")?;
        decode_unit(&self.read(e, "a package entry")?)
    }

    /// The set loaded again from the files, the first time some part of the entry did not
    /// check out (`why`): the entry is removed first, so the reload cannot read it back.
    fn reloaded(&self, why: &str) -> Result<&Reloaded, String> {
        let Some(reload) = &self.reload else {
            return Err(why.to_string());
        };
        let reloaded = self.reloaded.get_or_init(|| {
            log::warn!(
                "removing damaged catalog cache entry {} ({why}); loading the catalogs from their files",
                self.path.display()
            );
            let _ = std::fs::remove_file(&self.path);
            let set = reload()?;
            if set.bundles.units().is_some() {
                return Err("the reloaded set was read from the catalog cache again".into());
            }
            let units = spans_of(&set).ok_or("the reloaded set does not tile")?;
            if !units.iter().map(|(s, _)| s).eq(self.spans.iter()) {
                return Err("the catalogs' files no longer give the stored set".into());
            }
            Ok(Reloaded { set, units })
        });
        reloaded
            .as_ref()
            .map_err(|e| format!("{why}; loading the catalogs again: {e}"))
    }
}

impl UnitSource for Store {
    fn decode(&self, i: usize) -> Result<Unit, String> {
        self.stored_unit(i)
            .or_else(|why| self.reloaded(&why)?.unit(i))
    }

    fn names(&self) -> Result<Vec<String>, String> {
        let stored = self
            .read(&self.names, "the bundle names")
            .and_then(|bytes| cache::whole(&bytes, "bundle names"));
        stored.or_else(|why| {
            let set = &self.reloaded(&why)?.set;
            Ok(set.bundles.iter().map(|b| b.name.clone()).collect())
        })
    }

    fn damaged(&self, why: &str) {
        // A failed reload has said so, and removed the entry, already.
        if self.reloaded.get().is_some() {
            return;
        }
        log::warn!(
            "removing damaged catalog cache entry {} ({why})",
            self.path.display()
        );
        let _ = std::fs::remove_file(&self.path);
    }
}
