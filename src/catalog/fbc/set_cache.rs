//! The assembled catalog set in the catalog cache. When every catalog of a load is unchanged,
//! a warm load reads the set's index from the cache and decodes a package's entry and bundles
//! only when something first looks them up (`crate::catalog::table`): the packages a request
//! never reaches are never read from the entry, decoded or held.
//!
//! The entry's key is a BLAKE3 hash of deppy's version, the cache format, the load options,
//! and every catalog (name, priority, path) with what stands for its contents: every file's
//! path and content hash in load order, or the content key the caller gave for it (an
//! image's manifest digest). Any change gives another key.
//!
//! Layout: a header line (`deppy-catalog-set FORMAT KEY HEAD-HASH HEAD-LEN BODY-LEN`), the
//! head, then the body. The head (postcard) holds everything but the package entries and
//! bundles: catalogs, package names, APIs, deprecations, warnings, each GVK's providers, the
//! entries with a channel that cannot be ordered, and a table of units (one package entry of
//! one catalog with its bundles: their place in the id spaces, where their bytes lie in the
//! body and a BLAKE3 hash of them). The body holds each unit's postcard bytes, then every
//! bundle's name (read on the first lookup of a bundle by name). The header's hash covers
//! the head; a unit's hash is checked when it is decoded. A head that does not check out
//! rejects the entry (rebuilt). A unit that does not is a late cache miss: the entry is
//! removed, the set is loaded again from the catalogs' files (the [`Reload`] the lookup was
//! given, which stores a sound entry again), and that unit, and every other that does not
//! check out, is taken from the reloaded set, whose units must lie exactly where the
//! entry's did. Only when there is no reload, or it fails, is the damage reported
//! ([`CatalogSet::cache_damage`]).
//!
//! A set is stored only when no bundle states a constraint (`olm.constraint` or an alias
//! form): those are compiled into CEL programs, which have no stored form, so such a set is
//! assembled from the files' entries on every load.

use std::fs::File;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::value::RawValue;

use super::cache::{self, raw_properties, raw_values};
use super::heavy::Keep;
use crate::catalog::ChannelGraph;
use crate::catalog::error::Warning;
use crate::catalog::intern::Interner;
use crate::catalog::model::{
    Bundle, BundleId, CatalogId, Deprecation, Gvk, GvkId, OpaqueProperty, Origin, Package,
    PackageId, PackageRequirement,
};
use crate::catalog::set::{CatalogInfo, CatalogSet, Index};
use crate::catalog::table::{Bundles, Packages, Unit, UnitSpan, Units};
use crate::version::Version;

/// First word of a set entry's header.
const MAGIC: &str = "deppy-catalog-set";

/// What stands for one catalog's contents in the set's key.
pub(crate) enum Contents<'a> {
    /// Every file: its path and the BLAKE3 hash of its bytes, in load order.
    Files(Vec<(&'a str, blake3::Hash)>),
    /// A key given for the catalog's contents (an image's manifest digest).
    Given(&'a str),
}

/// The key of the set loaded from `catalogs`.
pub(crate) fn key(catalogs: &[(&CatalogInfo, Contents<'_>)], keep: Keep) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    h.update(MAGIC.as_bytes());
    h.update(&cache::FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&[keep.tag()]);
    let mut text = |t: &[u8]| {
        h.update(&(t.len() as u64).to_le_bytes());
        h.update(t);
    };
    for (info, contents) in catalogs {
        text(info.name.as_bytes());
        text(&info.priority.to_le_bytes());
        text(info.path.as_bytes());
        match contents {
            Contents::Files(files) => {
                text(b"files");
                text(&(files.len() as u64).to_le_bytes());
                for (path, hash) in files {
                    text(path.as_bytes());
                    text(hash.as_bytes());
                }
            }
            Contents::Given(k) => {
                text(b"given");
                text(k.as_bytes());
            }
        }
    }
    h.finalize()
}

/// Loads a stored set again from its catalogs' files (never from the cache entry being
/// replaced): how the package entries of an entry found damaged after it was read are had.
pub(crate) type Reload = Box<dyn Fn() -> Result<CatalogSet, String> + Send + Sync>;

/// The stored set of `key` in `dir`, when a sound entry is there (`None` otherwise: the
/// caller assembles the set and [`store`]s it). `reload` stands in for the entry's units
/// when some turn out damaged once read.
pub(crate) fn lookup(dir: &Path, key: &blake3::Hash, reload: Option<Reload>) -> Option<CatalogSet> {
    let path = cache::entry_path(dir, key);
    match open(&path, key, reload) {
        Ok(set) => Some(set),
        Err(Miss::Absent) => None,
        Err(Miss::Unusable(why)) => {
            log::warn!(
                "catalog cache entry {} for the catalog set is unusable ({why}); rebuilding it",
                path.display()
            );
            None
        }
    }
}

/// Stores `set` as the entry of `key` in `dir`, when it can be stored. A cache that cannot be
/// written costs a warning in the log, never the load.
pub(crate) fn store(dir: &Path, key: &blake3::Hash, set: &CatalogSet) {
    if !storable(set) {
        return;
    }
    let path = cache::entry_path(dir, key);
    let written = encode(key, set).and_then(|entry| cache::write_entry(dir, &path, &entry));
    if let Err(e) = written {
        log::warn!("cannot write catalog cache entry {}: {e}", path.display());
    }
}

/// True when every part of `set` has a stored form (no bundle states a constraint).
fn storable(set: &CatalogSet) -> bool {
    set.bundles.units().is_none() && !set.has_constraints()
}

/// A bundle as stored: every field but the compiled constraints (none, see [`storable`]),
/// one list for both directions (serde's remote derive over [`Bundle`]).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(remote = "Bundle")]
struct StoredBundle {
    id: BundleId,
    catalog: CatalogId,
    package: PackageId,
    name: String,
    version: Version,
    image: Option<String>,
    provides: Vec<GvkId>,
    labels: Vec<String>,
    requires_packages: Vec<PackageRequirement>,
    requires_gvks: Vec<GvkId>,
    requires_labels: Vec<String>,
    #[serde(with = "raw_values")]
    constraints: Vec<Box<RawValue>>,
    #[serde(skip)]
    requires_constraints: Vec<crate::constraint::Constraint>,
    deprecated: bool,
    #[serde(with = "raw_properties")]
    properties: Vec<OpaqueProperty>,
    origin: Origin,
}

/// A bundle to store.
#[derive(serde::Serialize)]
struct BundleOut<'a>(#[serde(serialize_with = "stored")] &'a Bundle);

fn stored<S: serde::Serializer>(b: &&Bundle, s: S) -> Result<S::Ok, S::Error> {
    StoredBundle::serialize(b, s)
}

/// A stored bundle, read back.
#[derive(serde::Deserialize)]
struct BundleIn(#[serde(with = "StoredBundle")] Bundle);

/// Where a stored part lies in the body, and its hash.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Extent {
    offset: u64,
    len: u64,
    hash: [u8; 32],
}

/// One unit of the body: its place in the set and its bytes.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct StoredUnit {
    span: UnitSpan,
    extent: Extent,
}

/// The head of a set entry (see the module's documentation).
#[derive(serde::Serialize, serde::Deserialize)]
struct Head {
    catalogs: Vec<CatalogInfo>,
    package_names: Vec<String>,
    gvks: Vec<Gvk>,
    deprecations: Vec<Deprecation>,
    warnings: Vec<Warning>,
    providers: Vec<Vec<BundleId>>,
    broken_channels: Vec<u32>,
    units: Vec<StoredUnit>,
    names: Extent,
}

/// A unit's bytes in the body: one package entry and its bundles.
pub(super) fn encode_unit(package: &Package, bundles: &[Bundle]) -> postcard::Result<Vec<u8>> {
    let bundles: Vec<BundleOut<'_>> = bundles.iter().map(BundleOut).collect();
    postcard::to_allocvec(&(package, bundles))
}

/// A unit's bytes, decoded (its hash checked already).
pub(super) fn decode_unit(bytes: &[u8]) -> Result<Unit, String> {
    let (package, bundles): (Package, Vec<BundleIn>) = cache::whole(bytes, "package entry")?;
    Ok(Unit {
        package,
        bundles: bundles.into_iter().map(|b| b.0).collect(),
    })
}

/// Appends `bytes` to `body`, returning where they lie.
fn append(body: &mut Vec<u8>, bytes: &[u8]) -> Extent {
    let offset = body.len() as u64;
    body.extend_from_slice(bytes);
    Extent {
        offset,
        len: bytes.len() as u64,
        hash: *blake3::hash(bytes).as_bytes(),
    }
}

/// The units of an assembled set, in bundle order; `None` when its bundles do not tile into
/// package entries (never, for a set `assemble` built).
fn spans_of(set: &CatalogSet) -> Option<Vec<(UnitSpan, usize)>> {
    let mut order: Vec<usize> = (0..set.packages.len()).collect();
    order.sort_by_key(|&i| set.packages.key_at(i).map(|(p, c)| (c, p)));
    let mut spans = Vec::with_capacity(order.len());
    let mut next = 0usize;
    for pos in order {
        let (package, catalog) = set.packages.key_at(pos)?;
        let count = set
            .bundles
            .as_slice()
            .get(next..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.package == package && b.catalog == catalog)
            .count();
        let first = u32::try_from(next).ok()?;
        spans.push((
            UnitSpan {
                package,
                catalog,
                first,
                count: u32::try_from(count).ok()?,
            },
            pos,
        ));
        next += count;
    }
    (next == set.bundles.len()).then_some(spans)
}

fn encode(key: &blake3::Hash, set: &CatalogSet) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let spans = spans_of(set).ok_or("bundles do not tile into package entries")?;
    let mut body = Vec::new();
    let mut units = Vec::with_capacity(spans.len());
    for (span, pos) in spans {
        let package = set.packages.get(pos).ok_or("no package entry")?;
        let from = span.first as usize;
        let bundles = set
            .bundles
            .as_slice()
            .get(from..from + span.count as usize)
            .ok_or("a package entry's bundles are out of range")?;
        let bytes = encode_unit(package, bundles)?;
        units.push(StoredUnit {
            span,
            extent: append(&mut body, &bytes),
        });
    }
    let names: Vec<&str> = set.bundles.iter().map(|b| b.name.as_str()).collect();
    let names = append(&mut body, &postcard::to_allocvec(&names)?);
    let broken_channels = (0..set.packages.len())
        .filter(|&i| {
            set.packages
                .get(i)
                .is_some_and(|p| p.channels.iter().any(|ch| ChannelGraph::build(ch).is_err()))
        })
        .map(|i| i as u32)
        .collect();
    let head = postcard::to_allocvec(&Head {
        catalogs: set.catalogs.clone(),
        package_names: set.package_names.values().to_vec(),
        gvks: set.gvks.values().to_vec(),
        deprecations: set.deprecations.clone(),
        warnings: set.warnings.clone(),
        providers: set.index.providers.clone(),
        broken_channels,
        units,
        names,
    })?;
    let header = format!(
        "{MAGIC} {} {} {} {} {}\n",
        cache::FORMAT,
        key.to_hex(),
        blake3::hash(&head).to_hex(),
        head.len(),
        body.len()
    );
    let mut entry = header.into_bytes();
    entry.reserve(head.len() + body.len());
    entry.extend_from_slice(&head);
    entry.extend_from_slice(&body);
    Ok(entry)
}

/// Why no stored set was read.
enum Miss {
    /// There is no entry.
    Absent,
    /// There is one, and it does not check out.
    Unusable(String),
}

/// The entry's header: its head's hash and length, and the body's length.
struct Header {
    head_hash: String,
    head_len: u64,
    body_len: u64,
    /// Bytes of the header line, newline included.
    len: u64,
}

/// The header line of an entry starting with `start` (its first bytes), checked against
/// `key`.
fn header(start: &[u8], key: &blake3::Hash) -> Result<Header, String> {
    let newline = start
        .iter()
        .position(|b| *b == b'\n')
        .ok_or("no header line")?;
    let line = std::str::from_utf8(start.get(..newline).unwrap_or_default())
        .map_err(|_| "header is not text")?;
    let words: Vec<&str> = line.split(' ').collect();
    let [magic, format, entry_key, head_hash, head_len, body_len] = words[..] else {
        return Err("malformed header".to_string());
    };
    if magic != MAGIC || format != cache::FORMAT.to_string() {
        return Err(format!(
            "format {magic} {format}, expected {MAGIC} {}",
            cache::FORMAT
        ));
    }
    if entry_key != key.to_hex().as_str() {
        return Err("key does not match the catalogs".to_string());
    }
    let number = |w: &str| w.parse::<u64>().map_err(|_| "malformed header".to_string());
    Ok(Header {
        head_hash: head_hash.to_string(),
        head_len: number(head_len)?,
        body_len: number(body_len)?,
        len: newline as u64 + 1,
    })
}

/// The stored set at `path`: its head read and checked, its units left in the file.
fn open(path: &Path, key: &blake3::Hash, reload: Option<Reload>) -> Result<CatalogSet, Miss> {
    let unusable = |e: std::io::Error| Miss::Unusable(e.to_string());
    // Only a regular file is opened (a FIFO planted there would block the load).
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(Miss::Unusable("not a regular file".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Miss::Absent),
        Err(e) => return Err(unusable(e)),
    }
    let file = File::open(path).map_err(unusable)?;
    let size = file.metadata().map_err(unusable)?.len();
    let start = store::read_at(&file, 0, size.min(512)).map_err(unusable)?;
    let h = header(&start, key).map_err(Miss::Unusable)?;
    let body_at = h.len.saturating_add(h.head_len);
    if body_at.checked_add(h.body_len) != Some(size) {
        return Err(Miss::Unusable(format!(
            "entry is {size} bytes, header says {} (truncated?)",
            body_at.saturating_add(h.body_len)
        )));
    }
    let head_bytes = store::read_at(&file, h.len, h.head_len).map_err(unusable)?;
    if blake3::hash(&head_bytes).to_hex().as_str() != h.head_hash {
        return Err(Miss::Unusable("head hash does not match (corrupt)".into()));
    }
    let head: Head =
        cache::whole(&head_bytes, "head of the catalog set").map_err(Miss::Unusable)?;
    drop(head_bytes);
    let store = store::Store {
        file,
        path: path.to_path_buf(),
        body_at,
        units: head.units.iter().map(|u| u.extent).collect(),
        spans: head.units.iter().map(|u| u.span).collect(),
        names: head.names,
        reload,
        reloaded: OnceLock::new(),
    };
    from_head(head, store, h.body_len).map_err(Miss::Unusable)
}

/// The set of a checked head, its units left in `store`. Every id the head holds is checked
/// against the sizes it gives: an entry is never trusted to be consistent.
fn from_head(head: Head, store: store::Store, body_len: u64) -> Result<CatalogSet, String> {
    let within = |e: &Extent| {
        e.offset
            .checked_add(e.len)
            .is_some_and(|end| end <= body_len)
    };
    if !head.units.iter().all(|u| within(&u.extent)) || !within(&head.names) {
        return Err("a part lies outside the entry".into());
    }
    let (catalogs, packages) = (head.catalogs.len(), head.package_names.len());
    let spans: Vec<UnitSpan> = head.units.iter().map(|u| u.span).collect();
    if !spans
        .iter()
        .all(|s| (s.catalog.0 as usize) < catalogs && (s.package.0 as usize) < packages)
    {
        return Err("a package entry names no catalog or package".into());
    }
    let units = Arc::new(Units::new(Box::new(store), spans).ok_or("bundle ids out of order")?);
    let bundle_count = units
        .spans()
        .iter()
        .map(|s| s.count as usize)
        .sum::<usize>();
    if head.providers.len() != head.gvks.len()
        || head
            .providers
            .iter()
            .flatten()
            .any(|b| b.0 as usize >= bundle_count)
    {
        return Err("providers out of range".into());
    }
    let mut bundles_of = vec![Vec::new(); packages];
    let mut package_entry = FxHashMap::default();
    for (pos, s) in (0..units.spans().len()).filter_map(|i| Some((i, units.span_at(i)?))) {
        package_entry.insert((s.package, s.catalog), pos);
    }
    for s in units.spans() {
        if let Some(of) = bundles_of.get_mut(s.package.0 as usize) {
            of.extend((s.first..s.first + s.count).map(BundleId));
        }
    }
    let broken: Vec<usize> = head.broken_channels.iter().map(|&i| i as usize).collect();
    if broken.iter().any(|&i| i >= units.spans().len()) {
        return Err("a broken channel's entry is out of range".into());
    }
    Ok(CatalogSet {
        catalogs: head.catalogs,
        packages: Packages::lazy(units.clone()),
        bundles: Bundles::lazy(units),
        deprecations: head.deprecations,
        warnings: head.warnings,
        package_names: Interner::from_values(head.package_names),
        gvks: Interner::from_values(head.gvks),
        index: Index {
            bundles_of,
            providers: head.providers,
            package_entry,
            broken_channels: Some(broken),
            ..Index::default()
        },
        heavy: None,
    })
}

mod store;

/// Hooks for benchmarks (the `testing` feature).
#[cfg(feature = "testing")]
pub(super) mod hooks;

#[cfg(test)]
mod tests;
