//! `cargo bench --bench entry_formats`: the catalog cache's stored form of one package entry
//! (the package and its bundles, one unit of a stored set's body) in postcard, as the cache
//! writes it, against rkyv (zero-copy), on the real package entries of a real catalog.
//!
//! The catalog: `DEPPY_BENCH_CATALOG` when set, else the x20 catalog the `big_catalogs` bench
//! builds (`target/big-catalogs/x80/part0`) when it is there, else the shared community
//! catalog (`../shared/catalogs/community-v4.22`), else the stripped copy in `catalogs/`. It
//! is loaded by `CatalogSet::load` with the default options (no cache), as a cold run that
//! fills the cache loads it, and each package entry is encoded by the cache's own encoder.
//!
//! rkyv archives a mirror of the stored entry defined here ([`Entry`]), not the crate's
//! types: the mirror is what postcard decodes the stored bytes into, field by field (the
//! bench checks that the mirror decodes every entry's bytes with nothing left over and
//! encodes back to the same bytes), so both formats carry the same data. Per entry, medians
//! of `DEPPY_BENCH_RUNS` runs (default 7), each the mean of a batch of at least 2 ms:
//!
//! - postcard: bytes; the cache's decode (`decode_entry`: into the crate's `Package` and
//!   `Bundle`, versions and JSON values checked); the BLAKE3 check a warm load adds; a
//!   decode into the mirror (the same target as rkyv's deserialize);
//! - rkyv: bytes; access with validation (`rkyv::access`, bytecheck); access without it
//!   (`rkyv::access_unchecked`); deserialize into the mirror.
//!
//! Then a warm request on the same catalog (`rabbitmq-messaging-topology-operator`, or its
//! `-r7` replica in x20) counts the entries it decodes, and the saving is that count times
//! the mean per-entry difference.

#[path = "support/timing.rs"]
#[allow(dead_code)] // `time`: this bench times batches, not single calls
mod timing;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use deppy::advanced::catalog::{
    Bundle, CatalogSet, CatalogSource, LoadOptions, Package, decode_entry, encode_entry,
};
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::Resolver;
use rkyv::rancor::Error as RkyvError;
use rkyv::{Archive, Deserialize as RkyvDeserialize, Serialize as RkyvSerialize};
use serde::{Deserialize, Serialize};
use timing::median;

/// The allocator the `deppy` binary uses (`src/main.rs`), so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The package the warm request requires (as the `big_catalogs` bench does).
const REQUIRE: &str = "rabbitmq-messaging-topology-operator";

// The mirror: the fields of a stored unit, `(Package, Vec<StoredBundle>)` in
// `src/catalog/fbc/set_cache.rs`, in their stored order and binary shape. Ids are `u32`, a
// version is its parts, a range its text and comparators, a JSON value its text; a bundle's
// compiled constraints are not stored (a set with any is never cached).

/// One unit: a package entry of one catalog and its bundles.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Entry {
    package: Pkg,
    bundles: Vec<Bun>,
}

/// `Package`: id, catalog, default channel, channels, origin.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Pkg {
    id: u32,
    catalog: u32,
    default_channel: Option<String>,
    channels: Vec<Chan>,
    origin: Option<Orig>,
}

/// `Origin`: file, document, line (`usize` in the crate, a varint in postcard).
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Orig {
    file: String,
    document: u64,
    line: Option<u64>,
}

/// `Channel`: name, entries, origin.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Chan {
    name: String,
    entries: Vec<ChanEntry>,
    origin: Orig,
}

/// `ChannelEntry`: name, replaces, skips, skip range, bundle.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct ChanEntry {
    name: String,
    replaces: Option<String>,
    skips: Vec<String>,
    skip_range: Option<Range>,
    bundle: Option<u32>,
}

/// `VersionRange` in its binary form: the text and the OR of AND-sets of comparators.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Range {
    raw: String,
    sets: Vec<Vec<Cmp>>,
}

/// One comparator: its operator's code and version.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Cmp {
    op: u8,
    version: Ver,
}

/// `Version` in its binary form: major, minor, patch, pre-release, build.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Ver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    build: String,
}

/// `PackageRequirement`: package and range.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Req {
    package: String,
    range: Range,
}

/// `OpaqueProperty`: its type and its value's JSON text.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Prop {
    kind: String,
    value: String,
}

/// A stored `Bundle`: every field but the compiled constraints.
#[derive(Debug, PartialEq, Serialize, Deserialize, Archive, RkyvSerialize, RkyvDeserialize)]
struct Bun {
    id: u32,
    catalog: u32,
    package: u32,
    name: String,
    version: Ver,
    image: Option<String>,
    provides: Vec<u32>,
    labels: Vec<String>,
    requires_packages: Vec<Req>,
    requires_gvks: Vec<u32>,
    requires_labels: Vec<String>,
    constraints: Vec<String>,
    deprecated: bool,
    properties: Vec<Prop>,
    origin: Orig,
}

/// The catalog and the name of the package the request requires in it.
fn catalog() -> (PathBuf, String) {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let x20 = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| here.join("target"))
        .join("big-catalogs/x80/part0");
    let dir = std::env::var_os("DEPPY_BENCH_CATALOG")
        .map(PathBuf::from)
        .or_else(|| x20.is_dir().then_some(x20))
        .or_else(|| {
            ["../shared", "../../shared"]
                .iter()
                .map(|up| here.join(up).join("catalogs/community-v4.22"))
                .find(|p| p.is_dir())
        })
        .unwrap_or_else(|| here.join("catalogs/community-v4.22"));
    let replica = format!("{REQUIRE}-r7");
    let require = if dir.join(&replica).is_dir() {
        replica
    } else {
        REQUIRE.to_string()
    };
    (dir, require)
}

/// One package entry in every form the bench times.
struct Forms {
    name: String,
    bundles: usize,
    postcard: Vec<u8>,
    rkyv: rkyv::util::AlignedVec,
}

/// Every package entry of `set` (its bundles are held whole: a cold load), in both formats,
/// checked: the mirror holds exactly the stored bytes, and rkyv gives the mirror back.
fn forms_of(set: &CatalogSet) -> Vec<Forms> {
    let mut out = Vec::new();
    for i in 0..set.packages.len() {
        let package: &Package = set.packages.get(i).expect("a package entry");
        let bundles: Vec<Bundle> = (set.bundles_of(package.id).iter())
            .filter_map(|id| set.bundle(*id))
            .filter(|b| b.catalog == package.catalog)
            .cloned()
            .collect();
        let postcard = encode_entry(package, &bundles).expect("encodes");
        let (mirror, rest): (Entry, &[u8]) =
            postcard::take_from_bytes(&postcard).expect("the mirror decodes the stored unit");
        assert!(rest.is_empty(), "the mirror leaves stored bytes unread");
        let again = postcard::to_allocvec(&mirror).expect("mirror encodes");
        assert_eq!(
            again, postcard,
            "the mirror does not give the stored bytes back"
        );
        let rkyv = rkyv::to_bytes::<RkyvError>(&mirror).expect("rkyv archives");
        let back: Entry =
            rkyv::from_bytes::<Entry, RkyvError>(&rkyv).expect("rkyv reads its archive");
        assert_eq!(back, mirror, "rkyv does not give the entry back");
        let (p, b) = decode_entry(&postcard).expect("the cache decodes its unit");
        assert_eq!(encode_entry(&p, &b).expect("encodes"), postcard);
        let name = set.package_name(package.id).to_string();
        out.push(Forms {
            name,
            bundles: bundles.len(),
            postcard,
            rkyv,
        });
    }
    out
}

/// The ways of reading an entry the bench times, in the order of its table.
const WAYS: [&str; 7] = [
    "postcard: cache decode (crate types)",
    "postcard: BLAKE3 check of the unit",
    "postcard: decode into the mirror",
    "rkyv: access, validated",
    "rkyv: access, unchecked",
    "rkyv: deserialize into the mirror",
    "rkyv: access validated + deserialize",
];

/// One call of way `w` on `f`.
fn once(w: usize, f: &Forms) {
    use std::hint::black_box;
    match w {
        0 => drop(black_box(
            decode_entry(black_box(&f.postcard)).expect("decodes"),
        )),
        1 => drop(black_box(blake3::hash(black_box(&f.postcard)))),
        2 => {
            let e: Entry = postcard::from_bytes(black_box(&f.postcard)).expect("decodes");
            drop(black_box(e));
        }
        3 => {
            let a = rkyv::access::<ArchivedEntry, RkyvError>(black_box(&f.rkyv)).expect("valid");
            black_box(a);
        }
        4 => {
            // SAFETY: the bytes are rkyv's own archive of an `Entry` (`forms_of`), aligned.
            let a = unsafe { rkyv::access_unchecked::<ArchivedEntry>(black_box(&f.rkyv)) };
            black_box(a);
        }
        5 => {
            // SAFETY: as above.
            let a = unsafe { rkyv::access_unchecked::<ArchivedEntry>(black_box(&f.rkyv)) };
            let e: Entry = rkyv::deserialize::<Entry, RkyvError>(a).expect("deserializes");
            drop(black_box(e));
        }
        _ => {
            let a = rkyv::access::<ArchivedEntry, RkyvError>(black_box(&f.rkyv)).expect("valid");
            let e: Entry = rkyv::deserialize::<Entry, RkyvError>(a).expect("deserializes");
            drop(black_box(e));
        }
    }
}

/// How many calls of way `w` on `f` fill a batch of at least 2 ms.
fn batch(w: usize, f: &Forms) -> u32 {
    let mut n = 1u32;
    loop {
        let t = Instant::now();
        for _ in 0..n {
            once(w, f);
        }
        if t.elapsed() >= Duration::from_millis(2) || n >= 1 << 24 {
            return n;
        }
        n *= 2;
    }
}

/// Per entry and way, the median over `runs` of a batch's mean time per call; the ways and
/// entries alternate within each run.
fn measure(forms: &[Forms], runs: usize) -> Vec<[Duration; WAYS.len()]> {
    let sizes: Vec<[u32; WAYS.len()]> = forms
        .iter()
        .map(|f| std::array::from_fn(|w| batch(w, f)))
        .collect();
    let mut samples: Vec<[Vec<Duration>; WAYS.len()]> =
        forms.iter().map(|_| Default::default()).collect();
    for _ in 0..runs {
        for (i, f) in forms.iter().enumerate() {
            for w in 0..WAYS.len() {
                let n = sizes[i][w];
                let t = Instant::now();
                for _ in 0..n {
                    once(w, f);
                }
                samples[i][w].push(t.elapsed() / n);
            }
        }
    }
    samples.into_iter().map(|s| s.map(median)).collect()
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// What a warm run through the cache costs on `dir`.
struct Warm {
    /// Entries the request decodes, and entries stored.
    reached: usize,
    units: usize,
    /// Median of the request in process: warm load (the head) and resolve.
    request: Duration,
    /// Median of decoding every entry of a warm set through the cache (read, BLAKE3, decode
    /// and the table).
    every_entry: Duration,
}

/// A warm request on `dir` through a fresh cache, and every entry decoded the same way.
fn warm_request(dir: &Path, require: &str, runs: usize) -> Warm {
    let cache = tempfile::tempdir().expect("a cache directory");
    let source = CatalogSource {
        name: "big".into(),
        path: dir.to_path_buf(),
        priority: 0,
    };
    let opts = LoadOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..LoadOptions::default()
    };
    let request = Request {
        require: vec![Requirement::from_spec(require).expect("a requirement")],
        ..Request::default()
    };
    drop(CatalogSet::load(std::slice::from_ref(&source), &opts).expect("fills the cache"));
    let (mut counts, mut request_t, mut every) = ((0, 0), Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let set = CatalogSet::load(std::slice::from_ref(&source), &opts).expect("warm");
        let resolver = Resolver::new(set);
        let _ = resolver.resolve(&request).expect("resolves");
        request_t.push(t.elapsed());
        counts = resolver.catalogs().decoded_entries().expect("a warm set");
        let set = CatalogSet::load(std::slice::from_ref(&source), &opts).expect("warm");
        let t = Instant::now();
        std::hint::black_box(set.bundles.iter().count());
        every.push(t.elapsed());
    }
    Warm {
        reached: counts.0,
        units: counts.1,
        request: median(request_t),
        every_entry: median(every),
    }
}

fn main() {
    let (dir, require) = catalog();
    let runs = timing::runs_or(7);
    let t = Instant::now();
    let set = CatalogSet::load(
        &[CatalogSource {
            name: "big".into(),
            path: dir.clone(),
            priority: 0,
        }],
        &LoadOptions::default(),
    )
    .expect("the catalog loads");
    let load = t.elapsed();
    let forms = forms_of(&set);
    drop(set);
    let bundles: usize = forms.iter().map(|f| f.bundles).sum();
    println!(
        "package entries of {}: {} entries, {bundles} bundles (loaded in {:.0} ms); medians of {runs} runs",
        dir.display(),
        forms.len(),
        load.as_secs_f64() * 1e3
    );
    let (pc, rk): (usize, usize) = forms
        .iter()
        .fold((0, 0), |(p, r), f| (p + f.postcard.len(), r + f.rkyv.len()));
    println!(
        "bytes, all entries: postcard {:.2} MB, rkyv {:.2} MB ({:.2}x)",
        pc as f64 / 1e6,
        rk as f64 / 1e6,
        rk as f64 / pc.max(1) as f64
    );
    let times = measure(&forms, runs);
    print_table(&forms, &times);
    let n = forms.len().max(1) as f64;
    let mean = |w: usize| times.iter().map(|t| us(t[w])).sum::<f64>() / n;
    let warm = warm_request(&dir, &require, runs);
    let (reached, units) = (warm.reached, warm.units);
    let now = mean(0) + mean(1);
    println!(
        "\nwarm request (--require {require}), in process: load + resolve {:.1} ms, decoding {reached} of {units} entries",
        warm.request.as_secs_f64() * 1e3
    );
    println!(
        "every entry of a warm set decoded through the cache (read, BLAKE3, decode, table): {:.3} ms, {:.1} us each",
        warm.every_entry.as_secs_f64() * 1e3,
        us(warm.every_entry) / units.max(1) as f64
    );
    println!(
        "per entry, mean: postcard decode + hash {now:.1} us; rkyv validated access {:.2} us, + deserialize {:.1} us; unchecked access {:.3} us",
        mean(3),
        mean(6),
        mean(4)
    );
    println!(
        "the request's {reached} entries: postcard {:.3} ms; rkyv validated access {:.3} ms (saves {:.3} ms); validated + deserialize {:.3} ms (saves {:.3} ms)",
        now * reached as f64 / 1e3,
        (mean(1) + mean(3)) * reached as f64 / 1e3,
        (now - mean(1) - mean(3)) * reached as f64 / 1e3,
        (mean(1) + mean(6)) * reached as f64 / 1e3,
        (now - mean(1) - mean(6)) * reached as f64 / 1e3,
    );
}

/// The per-entry table: sizes and times, the entries at the quartiles of postcard's size
/// and the whole (sum, mean, median over entries).
fn print_table(forms: &[Forms], times: &[[Duration; WAYS.len()]]) {
    let mut order: Vec<usize> = (0..forms.len()).collect();
    order.sort_by_key(|&i| forms[i].postcard.len());
    let pick: Vec<usize> = [0, order.len() / 4, order.len() / 2, 3 * order.len() / 4]
        .into_iter()
        .chain(order.len().checked_sub(1))
        .filter_map(|k| order.get(k).copied())
        .collect();
    println!(
        "\n{:<44} {:>7} {:>10} {:>10}  {}",
        "entry",
        "bundles",
        "postcard B",
        "rkyv B",
        WAYS.iter()
            .enumerate()
            .map(|(w, _)| format!("{:>10}", format!("way {w} us")))
            .collect::<String>()
    );
    for &i in &pick {
        let f = &forms[i];
        println!(
            "{:<44} {:>7} {:>10} {:>10}  {}",
            f.name,
            f.bundles,
            f.postcard.len(),
            f.rkyv.len(),
            times[i]
                .iter()
                .map(|d| format!("{:>10.3}", us(*d)))
                .collect::<String>()
        );
    }
    let col = |w: usize| -> Vec<f64> { times.iter().map(|t| us(t[w])).collect() };
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "\nway                                        all entries (ms)  mean (us)  median entry (us)"
    );
    for (w, name) in WAYS.iter().enumerate() {
        let v = col(w);
        println!(
            "{w} {name:<40} {:>16.3} {:>10.3} {:>18.3}",
            sum(&v) / 1e3,
            sum(&v) / v.len().max(1) as f64,
            med(v)
        );
    }
}
