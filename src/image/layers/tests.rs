use super::*;
use std::io::Write;

/// A tar entry written byte for byte (the `tar` crate's builder refuses `..` and absolute
/// names, which these tests need).
fn raw(b: &mut tar::Builder<Vec<u8>>, name: &str, kind: tar::EntryType, link: &str, data: &[u8]) {
    let mut h = tar::Header::new_old();
    let old = h.as_old_mut();
    old.name[..name.len()].copy_from_slice(name.as_bytes());
    old.linkname[..link.len()].copy_from_slice(link.as_bytes());
    h.set_entry_type(kind);
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    b.append(&h, data).unwrap();
}

fn layer(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in entries {
        let (kind, link) = match data.strip_prefix("->") {
            Some(t) => (tar::EntryType::Symlink, t),
            None if name.ends_with('/') => (tar::EntryType::Directory, ""),
            None => (tar::EntryType::Regular, ""),
        };
        let body: &[u8] = if kind == tar::EntryType::Regular {
            data.as_bytes()
        } else {
            b""
        };
        raw(&mut b, name, kind, link, body);
    }
    b.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

const BUDGET: LayerBudget = LayerBudget {
    max_layer_bytes: 1 << 30,
    max_catalog_bytes: 1 << 30,
    max_entries: 1 << 20,
    deadline: None,
};

fn apply(configs: &str, layers: &[Vec<u8>]) -> Result<Tree, ImageError> {
    apply_with(configs, layers, &BUDGET)
}

fn apply_with(configs: &str, layers: &[Vec<u8>], budget: &LayerBudget) -> Result<Tree, ImageError> {
    let mut t = Tree::new(configs).unwrap();
    for (i, l) in layers.iter().enumerate() {
        t.apply(&l[..], i, "img", &format!("l{i}"), budget)?;
    }
    Ok(t)
}

fn files(t: &Tree) -> Vec<(String, String)> {
    t.files()
        .map(|(p, d)| (p.to_string(), String::from_utf8_lossy(d).into_owned()))
        .collect()
}

#[test]
fn only_the_catalog_path_is_kept_from_every_compression() {
    let l = layer(&[
        ("bin/opm", "binary"),
        ("configs/", ""),
        ("configs/a/catalog.json", "{}"),
        ("./configs/b/catalog.yaml", "x: 1"),
        ("configsX/c.json", "no"),
    ]);
    for bytes in [l.clone(), gzip(&l), zstd(&l)] {
        let t = apply("/configs", &[bytes]).unwrap();
        assert_eq!(
            files(&t),
            [
                ("a/catalog.json".into(), "{}".into()),
                ("b/catalog.yaml".into(), "x: 1".into())
            ]
        );
    }
    // Two zstd frames and two gzip members, one after the other.
    let (a, b) = (layer(&[("configs/a.json", "1")]), layer(&[]));
    let mut two = zstd(&a[..a.len() - 1024]);
    two.extend(zstd(&b));
    assert_eq!(files(&apply("/configs", &[two]).unwrap()).len(), 1);
    let mut two = gzip(&a[..a.len() - 1024]);
    two.extend(gzip(&b));
    assert_eq!(files(&apply("/configs", &[two]).unwrap()).len(), 1);
}

#[test]
fn whiteouts_delete_what_layers_below_wrote() {
    let base = layer(&[
        ("configs/a/catalog.json", "a"),
        ("configs/b/catalog.json", "b"),
        ("configs/c/catalog.json", "c"),
        ("configs/c/extra.json", "e"),
    ]);
    let top = layer(&[
        ("configs/.wh.a", ""),
        ("configs/c/.wh..wh..opq", ""),
        ("configs/c/new.json", "n"),
    ]);
    let t = apply("/configs", &[base.clone(), top]).unwrap();
    assert_eq!(
        files(&t),
        [
            ("b/catalog.json".into(), "b".into()),
            ("c/new.json".into(), "n".into())
        ]
    );
    // A whiteout of the catalog's directory, or an opaque root, drops every layer below.
    for top in [
        layer(&[(".wh.configs", "")]),
        layer(&[("./.wh..wh..opq", "")]),
    ] {
        let t = apply(
            "/configs",
            &[base.clone(), top, layer(&[("configs/z.json", "z")])],
        )
        .unwrap();
        assert_eq!(files(&t), [("z.json".into(), "z".into())]);
    }
    // A file replaces a directory of a layer below, and the other way round.
    let t = apply("/configs", &[base.clone(), layer(&[("configs/a", "file")])]).unwrap();
    assert!(files(&t).contains(&("a".into(), "file".into())));
    assert!(!files(&t).iter().any(|(p, _)| p == "a/catalog.json"));
}

#[test]
fn another_configs_label_keeps_that_path() {
    let l = layer(&[("configs/a.json", "no"), ("srv/fbc/a.json", "yes")]);
    let t = apply("/srv/fbc/", &[l]).unwrap();
    assert_eq!(files(&t), [("a.json".into(), "yes".into())]);
}

#[test]
fn entries_that_would_write_outside_are_refused() {
    for (entries, want) in [
        (layer(&[("../etc/passwd", "x")]), "`..`"),
        (layer(&[("configs/../../x", "x")]), "`..`"),
        (layer(&[("/etc/passwd", "x")]), "absolute"),
        (layer(&[("configs/a", "->../../etc/passwd")]), "outside"),
        (layer(&[("configs/a", "->/etc/passwd")]), "outside"),
        (layer(&[("configs", "->/srv")]), "link"),
        (layer(&[("configs/a", "->..")]), "outside"),
    ] {
        let e = apply("/configs", &[entries]).unwrap_err().to_string();
        assert!(
            e.contains(want) && e.contains("image img") && e.contains("layer l0"),
            "{e}"
        );
    }
    let mut b = tar::Builder::new(Vec::new());
    raw(&mut b, "configs/dev", tar::EntryType::Char, "", b"");
    let e = apply("/configs", &[b.into_inner().unwrap()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("device"), "{e}");
    let mut b = tar::Builder::new(Vec::new());
    raw(&mut b, "configs/h", tar::EntryType::Link, "etc/passwd", b"");
    let e = apply("/configs", &[b.into_inner().unwrap()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("outside"), "{e}");
    // Links outside the catalog's path are none of its business.
    let t = apply(
        "/configs",
        &[layer(&[("bin/x", "->/usr/bin/x"), ("configs/a.json", "1")])],
    )
    .unwrap();
    assert_eq!(files(&t).len(), 1);
}

#[test]
fn links_inside_the_catalog_are_kept_and_written_relative() {
    let mut b = tar::Builder::new(Vec::new());
    raw(
        &mut b,
        "configs/a/catalog.json",
        tar::EntryType::Regular,
        "",
        b"{}",
    );
    raw(
        &mut b,
        "configs/b/catalog.json",
        tar::EntryType::Symlink,
        "/configs/a/catalog.json",
        b"",
    );
    raw(
        &mut b,
        "configs/c.json",
        tar::EntryType::Link,
        "configs/a/catalog.json",
        b"",
    );
    let t = apply("/configs", &[b.into_inner().unwrap()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    t.write(dir.path()).unwrap();
    let link = std::fs::read_link(dir.path().join("b/catalog.json")).unwrap();
    assert_eq!(link, Path::new("../a/catalog.json"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b/catalog.json")).unwrap(),
        "{}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("c.json")).unwrap(),
        "{}"
    );
}

#[test]
fn budgets_stop_a_bomb() {
    let big = vec![0u8; 4 << 20];
    let mut b = tar::Builder::new(Vec::new());
    raw(
        &mut b,
        "configs/big.json",
        tar::EntryType::Regular,
        "",
        &big,
    );
    let bomb = gzip(&b.into_inner().unwrap());
    assert!(bomb.len() < 64 << 10, "{}", bomb.len());
    let small = LayerBudget {
        max_catalog_bytes: 1 << 20,
        ..BUDGET
    };
    let e = apply_with("/configs", std::slice::from_ref(&bomb), &small).unwrap_err();
    assert!(
        e.is_budget() && e.to_string().contains("--max-memory"),
        "{e}"
    );
    let stream = LayerBudget {
        max_layer_bytes: 1 << 20,
        ..BUDGET
    };
    let e = apply_with("/outside", &[bomb], &stream).unwrap_err();
    assert!(e.is_budget() && e.to_string().contains("bomb"), "{e}");
    let few = LayerBudget {
        max_entries: 2,
        ..BUDGET
    };
    let l = layer(&[("a", "1"), ("b", "2"), ("c", "3")]);
    assert!(apply_with("/configs", &[l], &few).unwrap_err().is_budget());
    let past = LayerBudget {
        deadline: Some(Instant::now()),
        ..BUDGET
    };
    let e = apply_with("/configs", &[layer(&[("a", "1")])], &past).unwrap_err();
    assert!(e.is_budget() && e.to_string().contains("time"), "{e}");
}

#[test]
fn a_stream_that_is_not_tar_is_an_error_naming_the_layer() {
    let e = apply("/configs", &[gzip(b"not a tar at all, just some bytes")]).unwrap_err();
    assert!(e.to_string().contains("layer l0"), "{e}");
}

#[test]
fn relative_links() {
    assert_eq!(relative_link("b", "a/catalog.json"), "../a/catalog.json");
    assert_eq!(relative_link("", "a.json"), "a.json");
    assert_eq!(relative_link("a/b", "a/c"), "../c");
}
