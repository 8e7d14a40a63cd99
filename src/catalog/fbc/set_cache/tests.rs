use super::*;
use crate::catalog::fbc::SourceFile;
use crate::catalog::table::UnitSource;
use crate::catalog::{CatalogSource, LoadOptions};

const DOC: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"stable"}
{"schema":"olm.channel","package":"a","name":"stable","entries":[{"name":"a.v1.0.0"},{"name":"a.v1.1.0","replaces":"a.v1.0.0","skipRange":"<1.1.0"},{"name":"a.v0.9.0"}]}
{"schema":"olm.channel","package":"a","name":"loop","entries":[{"name":"a.v1.0.0","replaces":"a.v1.1.0"},{"name":"a.v1.1.0","replaces":"a.v1.0.0"}]}
{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","image":"i","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}},{"type":"olm.package.required","value":{"packageName":"b","versionRange":">=1.0.0 <2"}},{"type":"olm.maxOpenShiftVersion","value":"4.22"}]}
{"schema":"olm.bundle","name":"a.v1.1.0","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.1.0"}},{"type":"olm.deprecated","value":{}},{"type":"olm.gvk.required","value":{"group":"h","kind":"H","version":"v1"}}]}
{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1.0.0"},"message":"old"}]}
{"schema":"olm.bundle","name":"b.v1.0.0","package":"b","properties":[{"type":"olm.package","value":{"packageName":"b","version":"1.0.0"}},{"type":"olm.label","value":{"label":"x"}},{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}}]}
{"schema":"olm.package","name":"c","defaultChannel":"stable"}
"#;

const CONSTRAINED: &str = r#"{"schema":"olm.bundle","name":"c.v1.0.0","package":"c","properties":[{"type":"olm.package","value":{"packageName":"c","version":"1.0.0"}},{"type":"olm.constraint","value":{"failureMessage":"m","package":{"packageName":"a","versionRange":">=1.0.0"}}}]}
"#;

fn files(text: &str) -> Vec<SourceFile> {
    vec![SourceFile {
        path: "cat/catalog.json".into(),
        text: text.into(),
    }]
}

fn source() -> CatalogSource {
    CatalogSource {
        name: "cat".into(),
        path: "cat".into(),
        priority: 3,
    }
}

/// Everything a set holds, as text, looked up the way the resolver looks (by id, position,
/// name and API) and then walked whole.
fn summary(set: &CatalogSet) -> String {
    let by_id: Vec<String> = (0..set.bundles.len())
        .map(|i| format!("{:?}", set.bundle(BundleId(i as u32))))
        .collect();
    let by_position: Vec<String> = (0..set.packages.len())
        .map(|i| format!("{:?}", set.packages.get(i)))
        .collect();
    let providers: Vec<_> = (0..set.gvks.len())
        .map(|g| set.providers(GvkId(g as u32)).to_vec())
        .collect();
    format!(
        "{by_id:?}\n{by_position:?}\n{providers:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        set.catalogs,
        set.package_names.values(),
        set.gvks.values(),
        set.packages,
        set.bundles,
        set.deprecations,
        set.warnings,
        set.package_names()
            .iter()
            .map(|p| {
                let id = set.package_id(p).unwrap_or(PackageId(0));
                (set.bundles_of(id).to_vec(), set.package_entries(id).count())
            })
            .collect::<Vec<_>>(),
    )
}

fn opts(dir: &Path) -> LoadOptions {
    LoadOptions {
        cache_dir: Some(dir.to_path_buf()),
        ..LoadOptions::default()
    }
}

fn load(dir: &Path, text: &str) -> CatalogSet {
    let (src, files) = (source(), files(text));
    CatalogSet::load_file_slices(&[(&src, files.as_slice())], &opts(dir)).unwrap()
}

fn the_key(text: &str) -> blake3::Hash {
    let info = CatalogInfo::of(&source());
    let files = files(text);
    let contents = Contents::Files(
        files
            .iter()
            .map(|f| (f.path.as_str(), blake3::hash(f.text.as_bytes())))
            .collect(),
    );
    key(&[(&info, contents)], Keep::None)
}

#[test]
fn a_warm_load_decodes_only_what_is_looked_up() {
    let dir = tempfile::tempdir().unwrap();
    let cold = load(dir.path(), DOC);
    assert_eq!(cold.decoded_entries(), None, "a cold load is assembled");
    assert!(!cold.warnings.is_empty(), "the test catalog warns");
    let warm = load(dir.path(), DOC);
    assert_eq!(warm.decoded_entries(), Some((0, 3)), "nothing decoded yet");
    let b = warm.find_bundle(CatalogId(0), "b.v1.0.0").unwrap();
    assert_eq!(warm.decoded_entries(), Some((0, 3)), "names need no entry");
    let packages: Vec<_> = (0..cold.bundles.len())
        .map(|i| warm.bundles.package_of(i))
        .collect();
    let expected: Vec<_> = cold.bundles.iter().map(|x| Some(x.package)).collect();
    assert_eq!(packages, expected);
    assert_eq!(warm.bundles.package_of(cold.bundles.len()), None);
    assert_eq!(
        warm.decoded_entries(),
        Some((0, 3)),
        "a bundle's package needs no entry"
    );
    assert_eq!(warm.bundle(b).unwrap().labels, ["x"]);
    assert_eq!(warm.decoded_entries(), Some((1, 3)));
    let gvk = Gvk {
        group: "g".into(),
        version: "v1".into(),
        kind: "K".into(),
    };
    let g = warm.gvk_id(&gvk).unwrap();
    assert_eq!(warm.providers(g), cold.providers(g));
    assert_eq!(
        warm.decoded_entries(),
        Some((1, 3)),
        "providers need no entry"
    );
    assert_eq!(warm.broken_channel_hint(), Some(&[0usize][..]));
    assert_eq!(summary(&warm), summary(&cold));
    assert_eq!(warm.cache_damage(), None);
}

#[test]
fn a_changed_file_or_source_misses() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), DOC);
    let changed = load(dir.path(), &DOC.replace("4.22", "4.23"));
    assert_eq!(changed.decoded_entries(), None, "served a stale set");
    let info = CatalogInfo::of(&CatalogSource {
        priority: 4,
        ..source()
    });
    let files = files(DOC);
    let contents = Contents::Files(vec![(files[0].path.as_str(), blake3::hash(b"x"))]);
    assert_ne!(key(&[(&info, contents)], Keep::None), the_key(DOC));
    let given = |k: &'static str| key(&[(&info, Contents::Given(k))], Keep::None);
    assert_ne!(given("sha256:1"), given("sha256:2"));
}

#[test]
fn a_set_with_constraints_is_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{DOC}{CONSTRAINED}");
    let first = load(dir.path(), &text);
    let second = load(dir.path(), &text);
    assert_eq!(
        second.decoded_entries(),
        None,
        "compiled constraints came back"
    );
    assert_eq!(summary(&first), summary(&second));
    assert!(second.has_constraints());
}

#[test]
fn a_corrupt_head_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let cold = load(dir.path(), DOC);
    let path = cache::entry_path(dir.path(), &the_key(DOC));
    let good = std::fs::read(&path).unwrap();
    let newline = good.iter().position(|b| *b == b'\n').unwrap();
    let mut flipped = good.clone();
    flipped[newline + 3] ^= 1;
    for bad in [flipped, good[..good.len() / 2].to_vec(), b"junk\n".to_vec()] {
        std::fs::write(&path, &bad).unwrap();
        let set = load(dir.path(), DOC);
        assert_eq!(set.decoded_entries(), None, "a bad entry was trusted");
        assert_eq!(summary(&set), summary(&cold));
        assert_eq!(std::fs::read(&path).unwrap(), good, "entry not rebuilt");
    }
}

#[test]
fn a_damaged_unit_is_reported_and_the_entry_removed() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), DOC);
    let path = cache::entry_path(dir.path(), &the_key(DOC));
    let mut bytes = std::fs::read(&path).unwrap();
    // The body's first unit lies right after the head: one of its bytes is flipped.
    let newline = bytes.iter().position(|b| *b == b'\n').unwrap();
    let words: Vec<String> = String::from_utf8_lossy(&bytes[..newline])
        .split(' ')
        .map(String::from)
        .collect();
    let body_at = newline + 1 + words[4].parse::<usize>().unwrap();
    bytes[body_at + 2] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let warm = load(dir.path(), DOC);
    assert!(warm.decoded_entries().is_some());
    let _ = warm.bundles.iter().count();
    assert!(warm.cache_damage().is_some(), "damage went unnoticed");
    assert!(!path.exists(), "the damaged entry was kept");
    let again = load(dir.path(), DOC);
    assert_eq!(again.decoded_entries(), None, "rebuilt from the files");
}

#[test]
fn units_out_of_order_reject_the_entry() {
    struct Nothing;
    impl UnitSource for Nothing {
        fn decode(&self, _: usize) -> Result<Unit, String> {
            Err("none".into())
        }
        fn names(&self) -> Result<Vec<String>, String> {
            Err("none".into())
        }
        fn damaged(&self, _: &str) {}
    }
    let span = |first, count| UnitSpan {
        package: PackageId(0),
        catalog: CatalogId(0),
        first,
        count,
    };
    assert!(Units::new(Box::new(Nothing), vec![span(0, 2), span(2, 1)]).is_some());
    assert!(Units::new(Box::new(Nothing), vec![span(0, 2), span(3, 1)]).is_none());
    assert!(Units::new(Box::new(Nothing), vec![span(1, 2)]).is_none());
}
