//! Special files and links in catalog directories (one walk for File-Based Catalog trees and
//! bundle directories): a FIFO, a socket or a device is never opened (a FIFO used to hang the
//! load), a dangling link is ignored where a regular file of its name would be, and a link
//! out of the catalog (to `..`) is not followed. Each run has a time limit: a hang fails.

#![cfg(unix)]

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;
use std::time::Duration;

use cli::{deppy, one_bundle_catalog};

const LIMIT: Duration = Duration::from_secs(30);

fn mkfifo(path: &Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

/// A catalog directory holding `good.json` (package `good`).
fn catalog_dir(parent: &Path) -> std::path::PathBuf {
    let dir = parent.join("catalog");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("good.json"), one_bundle_catalog("good")).expect("write");
    dir
}

#[test]
fn a_fifo_in_a_catalog_is_skipped_with_a_warning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = catalog_dir(tmp.path());
    if !mkfifo(&dir.join("pipe.json")) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let d = dir.to_str().expect("utf8");
    for args in [
        vec!["catalog", "inspect", d],
        vec!["resolve", "--catalog", d, "--require", "good"],
    ] {
        let ran = deppy(&args).within(LIMIT).run();
        ran.expect(0);
        assert!(
            ran.stderr.contains("pipe.json: skipped: it is a FIFO"),
            "{args:?}: {}",
            ran.stderr
        );
    }
    // A FIFO whose name a regular file would not be read under is ignored silently.
    std::fs::remove_file(dir.join("pipe.json")).expect("rm");
    assert!(mkfifo(&dir.join("NOTES.txt")));
    let ran = deppy(&["catalog", "inspect", d]).within(LIMIT).run();
    ran.expect(0);
    assert!(!ran.stderr.contains("NOTES.txt"), "{}", ran.stderr);
}

#[test]
fn a_dangling_link_is_ignored_like_the_file_it_names() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = catalog_dir(tmp.path());
    symlink("nowhere", &dir.join("NOTES.txt"));
    let d = dir.to_str().expect("utf8");
    let ran = deppy(&["catalog", "inspect", d]).within(LIMIT).run();
    ran.expect(0);
    assert!(!ran.stderr.contains("NOTES.txt"), "{}", ran.stderr);
    // One the walk would read is skipped, with a warning.
    symlink("nowhere", &dir.join("more.json"));
    let ran = deppy(&["catalog", "inspect", d]).within(LIMIT).run();
    ran.expect(0);
    assert!(
        ran.stderr
            .contains("more.json: skipped: it is a link whose target does not exist"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_link_out_of_the_catalog_is_not_followed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = catalog_dir(tmp.path());
    // A sibling directory the catalog must not read: it holds a broken file.
    let sibling = tmp.path().join("sibling");
    std::fs::create_dir(&sibling).expect("mkdir");
    std::fs::write(sibling.join("broken.json"), "{ not json").expect("write");
    symlink("..", &dir.join("up"));
    symlink("../sibling/broken.json", &dir.join("other.json"));
    let d = dir.to_str().expect("utf8");
    let ran = deppy(&["catalog", "inspect", d]).within(LIMIT).run();
    ran.expect(0);
    assert!(ran.stdout.contains("good"), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("up: skipped: it is a link out of the catalog"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("malformed"), "{}", ran.stderr);
    // A link that stays inside the catalog is followed.
    std::fs::create_dir(dir.join("real")).expect("mkdir");
    std::fs::write(dir.join("real/more.json"), one_bundle_catalog("more")).expect("write");
    symlink("real", &dir.join("alias"));
    let ran = deppy(&["catalog", "inspect", d]).within(LIMIT).run();
    ran.expect(0);
    assert!(ran.stdout.contains("more"), "{}", ran.stdout);
}

/// The bundle-directory reader walks as the FBC walk does: a FIFO among the manifests is
/// skipped with a warning, not read.
#[test]
fn bundle_directories_are_walked_alike() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bundle = tmp.path().join("bundle");
    let src = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/catalogs/bundle-dirs/my-bundle"
    ));
    for sub in ["manifests", "metadata"] {
        std::fs::create_dir_all(bundle.join(sub)).expect("mkdir");
        for e in std::fs::read_dir(src.join(sub)).expect("ls") {
            let e = e.expect("entry");
            std::fs::copy(e.path(), bundle.join(sub).join(e.file_name())).expect("copy");
        }
    }
    if !mkfifo(&bundle.join("manifests/zz-pipe.yaml")) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    symlink("/etc/hostname", &bundle.join("manifests/zz-out.yaml"));
    let b = bundle.to_str().expect("utf8");
    let ran = deppy(&["catalog", "render", b]).within(LIMIT).run();
    ran.expect(0);
    assert!(
        ran.stderr.contains("zz-pipe.yaml: skipped: it is a FIFO"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("zz-out.yaml: skipped: it is a link out of the catalog"),
        "{}",
        ran.stderr
    );
    let ran = deppy(&["catalog", "inspect", b]).within(LIMIT).run();
    ran.expect(0);
    assert!(
        ran.stderr.contains("zz-pipe.yaml: skipped"),
        "{}",
        ran.stderr
    );
}

/// A FIFO planted where the catalog cache keeps an entry is not read: the entry is rebuilt.
#[test]
fn a_fifo_in_the_cache_directory_does_not_hang() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = catalog_dir(tmp.path());
    let cache = tmp.path().join("cache");
    let d = dir.to_str().expect("utf8");
    let c = cache.to_str().expect("utf8");
    deppy(&["--cache-dir", c, "catalog", "inspect", d])
        .within(LIMIT)
        .run()
        .expect(0);
    let entry = std::fs::read_dir(&cache)
        .expect("cache")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"))
        .expect("an entry");
    std::fs::remove_file(&entry).expect("rm");
    if !mkfifo(&entry) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let ran = deppy(&["--cache-dir", c, "catalog", "inspect", d])
        .within(LIMIT)
        .run();
    ran.expect(0);
    assert!(ran.stdout.contains("good"), "{}", ran.stdout);
}

/// `deppy test` does not hang on a scenario whose `expected.txt` is a FIFO: the scenario
/// fails, naming the file.
#[test]
fn a_fifo_as_expected_output_does_not_hang() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("s");
    std::fs::create_dir(&scenario).expect("mkdir");
    std::fs::write(
        scenario.join("problem.yaml"),
        "variables:\n  - {id: a, constraints: [{mandatory: {}}]}\n",
    )
    .expect("write");
    if !mkfifo(&scenario.join("expected.txt")) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let s = scenario.to_str().expect("utf8");
    let ran = deppy(&["test", s]).within(LIMIT).run();
    ran.expect(1);
    assert!(
        ran.stdout.contains("expected.txt is not a regular file"),
        "{}",
        ran.stdout
    );
}
