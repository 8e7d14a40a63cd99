//! The catalog cache's rules on real files: fingerprints, listings, the stored set.
use super::*;
use std::time::{Duration, SystemTime};

const A: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"s"}
{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1.0.0"}]}
{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}
"#;
const B: &str = r#"{"schema":"olm.package","name":"b","defaultChannel":"s"}
{"schema":"olm.channel","package":"b","name":"s","entries":[{"name":"b.v1.0.0"}]}
{"schema":"olm.bundle","name":"b.v1.0.0","package":"b","properties":[{"type":"olm.package","value":{"packageName":"b","version":"1.0.0"}}]}
"#;

struct Fixture {
    _tmp: tempfile::TempDir,
    catalog: std::path::PathBuf,
    cache: std::path::PathBuf,
}

/// A catalog of two files, their times set well in the past (outside the racy window).
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("cat");
    std::fs::create_dir_all(catalog.join("a")).unwrap();
    std::fs::create_dir_all(catalog.join("b")).unwrap();
    write_old(&catalog.join("a/catalog.json"), A);
    write_old(&catalog.join("b/catalog.json"), B);
    let cache = tmp.path().join("cache");
    Fixture {
        _tmp: tmp,
        catalog,
        cache,
    }
}

/// Writes `text`, its modification time an hour back.
fn write_old(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    set_old(path);
}

fn set_old(path: &Path) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

fn load(f: &Fixture, verify: bool) -> CatalogSet {
    let source = CatalogSource {
        name: "cat".into(),
        path: f.catalog.clone(),
        priority: 0,
    };
    let opts = LoadOptions {
        cache_dir: Some(f.cache.clone()),
        verify_cache: verify,
        ..LoadOptions::default()
    };
    CatalogSet::load(&[source], &opts).unwrap()
}

fn versions(set: &CatalogSet) -> Vec<String> {
    set.bundles
        .iter()
        .map(|b| format!("{} {}", b.name, b.version))
        .collect()
}

/// Loads until the files' fingerprints are trusted (the status-change time of a file
/// written by the test is recent, so the first fingerprint is within the racy window).
fn warm(f: &Fixture) -> CatalogSet {
    let cold = load(f, false);
    assert_eq!(cold.decoded_entries(), None);
    age_prints(f);
    load(f, false)
}

/// Moves every fingerprint entry's recorded writing time an hour forward, as if the
/// files had been fingerprinted long after they were written.
fn age_prints(f: &Fixture) {
    for e in std::fs::read_dir(&f.cache).unwrap() {
        let path = e.unwrap().path();
        let entry = std::fs::read(&path).unwrap();
        let Some(key) = super::super::fingerprint::key_of_entry(&entry) else {
            continue;
        };
        let payload = cache::check(&entry, &key).unwrap();
        let mut prints: super::super::fingerprint::Prints =
            cache::whole(payload, "prints").unwrap();
        prints.age(3600 * 1_000_000_000);
        let payload = postcard::to_allocvec(&prints).unwrap();
        std::fs::write(&path, cache::entry(&key, &payload)).unwrap();
    }
}

#[test]
fn an_unchanged_catalog_is_not_read() {
    let f = fixture();
    let warm = warm(&f);
    assert!(warm.decoded_entries().is_some(), "not from the cache");
    // Unreadable files are not read: their metadata say they are unchanged.
    use std::os::unix::fs::PermissionsExt;
    let file = f.catalog.join("a/catalog.json");
    let mode = std::fs::metadata(&file).unwrap().permissions();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    let unreadable = std::fs::read(&file).is_err();
    let again = load(&f, false);
    std::fs::set_permissions(&file, mode).unwrap();
    if unreadable {
        assert!(again.decoded_entries().is_some());
    }
    assert_eq!(versions(&again), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
}

/// The files the recorded listings of `f`'s catalog give without a walk (None when
/// they do not hold).
fn listed(f: &Fixture) -> Option<Vec<String>> {
    let prints = Fingerprints::read(&f.cache, &f.catalog);
    let files = prints.listed_files()?;
    Some(files.iter().map(|p| p.display().to_string()).collect())
}

/// The files a walk of `f`'s catalog finds.
fn walked(f: &Fixture) -> Vec<String> {
    let source = CatalogSource {
        name: "cat".into(),
        path: f.catalog.clone(),
        priority: 0,
    };
    let mut jobs = Vec::new();
    collect_files(0, &source, &mut jobs).unwrap();
    jobs.iter().map(|j| j.path.display().to_string()).collect()
}

/// Recorded listings stand for the walk while every directory is as recorded; a file
/// added, removed or renamed, or a directory renamed, changes a directory's times, so
/// the catalog is walked again and the load gives the new contents.
#[test]
fn directory_listings_stand_until_a_directory_changes() {
    let f = fixture();
    warm(&f);
    assert_eq!(listed(&f), Some(walked(&f)));
    let a = f.catalog.join("a");
    let changes: [(&str, &dyn Fn()); 4] = [
        ("a file added", &|| {
            write_old(&a.join("c.json"), &A.replace("\"a", "\"c"))
        }),
        ("a file renamed", &|| {
            std::fs::rename(a.join("c.json"), a.join("d.json")).unwrap()
        }),
        ("a file removed", &|| {
            std::fs::remove_file(a.join("d.json")).unwrap()
        }),
        ("a directory renamed", &|| {
            std::fs::rename(&a, f.catalog.join("e")).unwrap()
        }),
    ];
    for (what, change) in changes {
        change();
        assert_eq!(listed(&f), None, "{what}: the listings still held");
        // Removing the added file gives back files whose set is stored: a sound hit.
        let set = load(&f, false);
        let names: Vec<String> = set.bundles.iter().map(|b| b.name.clone()).collect();
        let expected: &[&str] = match what {
            "a file added" | "a file renamed" => &["a.v1.0.0", "b.v1.0.0", "c.v1.0.0"],
            _ => &["a.v1.0.0", "b.v1.0.0"],
        };
        assert_eq!(names, expected, "{what}");
        age_prints(&f);
        assert_eq!(
            listed(&f),
            Some(walked(&f)),
            "{what}: listings recorded again"
        );
    }
}

/// Listings recorded within the racy window of the directories' last change, or of a
/// catalog holding a link, are never trusted.
#[test]
fn racy_or_linked_listings_are_not_trusted() {
    let f = fixture();
    load(&f, false);
    assert_eq!(
        listed(&f),
        None,
        "listed right after the directories were made"
    );
    age_prints(&f);
    assert_eq!(listed(&f), Some(walked(&f)));
    std::os::unix::fs::symlink(f.catalog.join("b"), f.catalog.join("c")).unwrap();
    load(&f, false);
    age_prints(&f);
    assert_eq!(listed(&f), None, "a catalog with a link");
}

#[test]
fn an_edited_file_is_read_again() {
    let f = fixture();
    warm(&f);
    write_old(
        &f.catalog.join("a/catalog.json"),
        &A.replace("1.0.0", "1.0.10"),
    );
    let set = load(&f, false);
    assert_eq!(set.decoded_entries(), None);
    assert_eq!(versions(&set), ["a.v1.0.10 1.0.10", "b.v1.0.0 1.0.0"]);
}

#[test]
fn a_touched_file_is_hashed_not_parsed() {
    let f = fixture();
    warm(&f);
    let file = f.catalog.join("a/catalog.json");
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(60))
        .unwrap();
    let set = load(&f, false);
    assert!(
        set.decoded_entries().is_some(),
        "same contents: the stored set"
    );
    assert_eq!(versions(&set), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
}

#[test]
fn a_same_size_rewrite_is_caught_with_verify() {
    let f = fixture();
    warm(&f);
    // Same size, same modification time: only the contents differ.
    let file = f.catalog.join("a/catalog.json");
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, A.replace("1.0.0", "2.0.0")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let verified = load(&f, true);
    assert_eq!(verified.decoded_entries(), None);
    assert_eq!(versions(&verified), ["a.v2.0.0 2.0.0", "b.v1.0.0 1.0.0"]);
    // Without it, the status-change time (which no write can keep) gives it away too.
    assert_eq!(versions(&load(&f, false)), versions(&verified));
}

#[test]
fn a_replaced_file_is_read_again() {
    let f = fixture();
    warm(&f);
    let file = f.catalog.join("b/catalog.json");
    let other = f.catalog.join("b/new.tmp");
    write_old(&other, &B.replace("1.0.0", "3.0.0"));
    std::fs::rename(&other, &file).unwrap();
    let set = load(&f, false);
    assert_eq!(versions(&set), ["a.v1.0.0 1.0.0", "b.v3.0.0 3.0.0"]);
}

#[test]
fn a_deleted_file_is_gone() {
    let f = fixture();
    warm(&f);
    std::fs::remove_file(f.catalog.join("b/catalog.json")).unwrap();
    let set = load(&f, false);
    assert_eq!(versions(&set), ["a.v1.0.0 1.0.0"]);
    // And back: the stored set of both files is found again.
    write_old(&f.catalog.join("b/catalog.json"), B);
    let back = load(&f, false);
    assert_eq!(versions(&back), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
}

#[test]
fn a_given_content_key_stands_for_the_files() {
    let f = fixture();
    let opts = |k: &str| LoadOptions {
        cache_dir: Some(f.cache.clone()),
        content_keys: [(f.catalog.clone(), k.to_string())].into(),
        ..LoadOptions::default()
    };
    let source = CatalogSource {
        name: "cat".into(),
        path: f.catalog.clone(),
        priority: 0,
    };
    let load = |k: &str| CatalogSet::load(std::slice::from_ref(&source), &opts(k)).unwrap();
    assert_eq!(load("sha256:1").decoded_entries(), None);
    // The files are not looked at: the key says they are the same.
    std::fs::remove_file(f.catalog.join("b/catalog.json")).unwrap();
    let same = load("sha256:1");
    assert!(same.decoded_entries().is_some());
    assert_eq!(versions(&same), ["a.v1.0.0 1.0.0", "b.v1.0.0 1.0.0"]);
    assert_eq!(versions(&load("sha256:2")), ["a.v1.0.0 1.0.0"]);
}

/// Flips a byte of the first package entry of the stored set's entry; returns its path.
fn damage_set_entry(f: &Fixture) -> std::path::PathBuf {
    for e in std::fs::read_dir(&f.cache).unwrap() {
        let path = e.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        if !bytes.starts_with(b"deppy-catalog-set ") {
            continue;
        }
        let newline = bytes.iter().position(|b| *b == b'\n').unwrap();
        let header = String::from_utf8_lossy(&bytes[..newline]).into_owned();
        let head_len: usize = header.split(' ').nth(4).unwrap().parse().unwrap();
        bytes[newline + 1 + head_len + 2] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        return path;
    }
    panic!("no stored set");
}

#[test]
fn a_damaged_package_entry_is_loaded_again_from_the_files() {
    let f = fixture();
    let sound = versions(&warm(&f));
    let entry = damage_set_entry(&f);
    let damaged = load(&f, false);
    assert!(
        damaged.decoded_entries().is_some(),
        "not read from the entry"
    );
    assert_eq!(versions(&damaged), sound);
    assert_eq!(damaged.cache_damage(), None);
    assert!(entry.exists(), "the entry was not stored again");
    age_prints(&f);
    assert!(load(&f, false).decoded_entries().is_some());
    // Files that no longer give the stored set (changed since it was read) are not
    // taken for it: the damage is reported.
    damage_set_entry(&f);
    let damaged = load(&f, false);
    assert!(
        damaged.decoded_entries().is_some(),
        "not read from the entry"
    );
    std::fs::remove_file(f.catalog.join("b/catalog.json")).unwrap();
    let _ = versions(&damaged);
    let damage = damaged.cache_damage().unwrap_or_default();
    assert!(damage.contains("no longer give the stored set"), "{damage}");
}
