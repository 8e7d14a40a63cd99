//! A heads-only cut of a File-Based Catalog, as a heads-only mirror (`oc-mirror`, opm's old
//! `alpha diff --heads-only`) ships it: each channel keeps only its head entry (with its
//! `replaces`, `skips` and `skipRange`), and only the bundles that head a channel stay;
//! packages, deprecations and other documents stay as they are. A channel without exactly one
//! head is kept whole. Read straight from the documents, sharing no code with deppy.
//!
//! Used by the `catalog_diff` benchmark and by the test that keeps the shipped
//! `catalogs/community-v4.22-heads/` equal to this cut of `catalogs/community-v4.22/`.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The documents of one catalog file (a JSON stream, or YAML documents).
pub fn documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    } else {
        // YAML 1.2 booleans only: a name `y` stays a name.
        let mut options = serde_saphyr::Options::default();
        options.strict_booleans = true;
        let docs: Vec<Value> = serde_saphyr::from_multiple_with_options(&text, options)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        docs.into_iter().filter(|d| !d.is_null()).collect()
    }
}

/// The catalog files under `dir` (`.json`, `.yaml`, `.yml`), sorted, relative to `dir`.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())) {
                stack.push(e.expect("a directory entry").path());
            }
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("json" | "yaml" | "yml")
        ) {
            out.push(p.strip_prefix(dir).expect("under dir").to_path_buf());
        }
    }
    out.sort();
    out
}

/// The one entry of a channel that no entry replaces or skips, if there is exactly one.
fn head(channel: &Value) -> Option<&Value> {
    let entries = channel.get("entries")?.as_array()?;
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for e in entries {
        named.extend(e.get("replaces").and_then(Value::as_str));
        let skips = e.get("skips").and_then(Value::as_array);
        named.extend(skips.into_iter().flatten().filter_map(Value::as_str));
    }
    let mut heads = entries.iter().filter(|e| {
        e.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| !named.contains(n))
    });
    match (heads.next(), heads.next()) {
        (Some(h), None) => Some(h),
        _ => None,
    }
}

/// The heads-only cut of one file's documents.
pub fn cut(docs: &[Value]) -> Vec<Value> {
    let mut heads: BTreeSet<(String, String)> = BTreeSet::new();
    let key = |d: &Value, field: &str| d.get(field).and_then(Value::as_str).map(str::to_string);
    for d in docs.iter().filter(|d| d["schema"] == "olm.channel") {
        let package = key(d, "package").unwrap_or_default();
        match head(d) {
            Some(h) => heads.extend(key(h, "name").map(|n| (package.clone(), n))),
            None => {
                let all = d["entries"].as_array().into_iter().flatten();
                heads.extend(
                    all.filter_map(|e| key(e, "name"))
                        .map(|n| (package.clone(), n)),
                );
            }
        }
    }
    let mut out = Vec::new();
    for d in docs {
        match d["schema"].as_str() {
            Some("olm.channel") => {
                let mut d = d.clone();
                if let Some(h) = head(&d).cloned() {
                    d["entries"] = Value::Array(vec![h]);
                }
                out.push(d);
            }
            Some("olm.bundle") => {
                let k = (
                    key(d, "package").unwrap_or_default(),
                    key(d, "name").unwrap_or_default(),
                );
                if heads.contains(&k) {
                    out.push(d.clone());
                }
            }
            _ => out.push(d.clone()),
        }
    }
    out
}

/// The heads-only cut of every file under `dir`: (path relative to `dir` with a `.json`
/// extension, the file's text: one JSON document per line).
pub fn cut_dir(dir: &Path) -> Vec<(PathBuf, String)> {
    files(dir)
        .into_iter()
        .map(|rel| {
            let docs = cut(&documents(&dir.join(&rel)));
            let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
            (rel.with_extension("json"), text)
        })
        .collect()
}

/// Writes the cut of `from` under `to` (which must not exist yet or be empty of other files).
pub fn write_cut(from: &Path, to: &Path) {
    for (rel, text) in cut_dir(from) {
        let path = to.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a directory");
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
