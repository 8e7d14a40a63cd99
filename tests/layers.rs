//! The layer map at the top of `src/lib.rs` holds: every module of the library is in it, no
//! module imports from a higher layer, and within a layer neither top-level modules nor
//! files import each other in a circle. A fixture tree shows that the check reports each.
//!
//! An import is any `crate::…` or `super::…` path in code (a `use` line, `pub use` and
//! `pub(crate) use` included, or a path in an expression), outside comments and
//! `#[cfg(test)]` items. A path through a `pub use` re-export counts as a path to where the
//! item is defined; a module re-exporting its own submodules' items imports nothing by it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A module path below the crate root, e.g. `["resolve", "derive"]`; the root is `[]`.
type ModPath = Vec<String>;

/// The layer map: (module path, layer number, layer name).
fn layer_map(lib_rs: &str) -> Vec<(ModPath, usize, String)> {
    let mut map = Vec::new();
    let mut in_section = false;
    for line in lib_rs.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            if in_section {
                break;
            }
            continue;
        };
        let doc = doc.trim();
        if doc.starts_with('#') {
            in_section = doc == "# Layers";
            continue;
        }
        if !in_section {
            continue;
        }
        let Some((number, rest)) = doc.split_once(". ") else {
            continue;
        };
        let Ok(layer) = number.parse::<usize>() else {
            continue;
        };
        let (name, modules) = rest
            .split_once(':')
            .expect("a layer line reads `N. name: modules`");
        for module in modules.split('`').skip(1).step_by(2) {
            let path: ModPath = module.split("::").map(str::to_string).collect();
            map.push((path, layer, name.trim().to_string()));
        }
    }
    assert!(
        !map.is_empty(),
        "src/lib.rs has no `# Layers` section with numbered layers"
    );
    map
}

/// The entry of the map that holds `path`: the longest entry that is a prefix of it.
fn unit_of<'a>(
    map: &'a [(ModPath, usize, String)],
    path: &[String],
) -> Option<&'a (ModPath, usize, String)> {
    map.iter()
        .filter(|(p, _, _)| path.starts_with(p))
        .max_by_key(|(p, _, _)| p.len())
}

/// A source file: its module path and its code with comments, strings and test items removed.
struct Source {
    module: ModPath,
    /// `mod.rs`, `lib.rs` or a file with children: `super` is its parent, `self` itself.
    code: String,
}

/// The library's files (not the binary's `main.rs` and `cli/`), by module path.
fn sources(root: &Path) -> BTreeMap<ModPath, Source> {
    let mut files = Vec::new();
    collect(&root.join("src"), &mut files);
    let mut out = BTreeMap::new();
    let mut test_files = BTreeSet::new();
    for file in &files {
        let rel = file.strip_prefix(root.join("src")).unwrap();
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == "main.rs" || rel.starts_with("cli/") {
            continue;
        }
        let mut module: ModPath = rel
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_string)
            .collect();
        if module.last().is_some_and(|l| l == "mod" || l == "lib") {
            module.pop();
        }
        let text = fs::read_to_string(file).unwrap();
        let (code, tests) = strip(&text);
        for t in tests {
            let mut m = module.clone();
            m.push(t);
            test_files.insert(m);
        }
        out.insert(module.clone(), Source { module, code });
    }
    out.retain(|m, _| !test_files.contains(m));
    out
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code without comments, string and char literals and `#[cfg(test)]` items, and the
/// names of the `#[cfg(test)] mod name;` files it declares.
fn strip(text: &str) -> (String, Vec<String>) {
    drop_test_items(&strip_literals(text))
}

/// `text` with comments removed and string and char literals emptied.
fn strip_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |k: usize| chars.get(k).copied();
    let mut code = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], at(i + 1));
        let skip_to = if c == '/' && next == Some('/') {
            (i..chars.len())
                .find(|&k| chars[k] == '\n')
                .unwrap_or(chars.len())
        } else if c == '/' && next == Some('*') {
            (i + 2..chars.len())
                .find(|&k| chars[k] == '*' && at(k + 1) == Some('/'))
                .map_or(chars.len(), |k| k + 2)
        } else if let Some(end) = raw_string_end(&chars, i) {
            code.push_str("\"\"");
            end
        } else if c == '"' {
            let mut k = i + 1;
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            code.push_str("\"\"");
            k + 1
        } else if c == '\'' && (at(i + 2) == Some('\'') || next == Some('\\')) {
            let close = (i + 2..chars.len())
                .find(|&k| chars[k] == '\'')
                .unwrap_or(chars.len());
            code.push_str("' '");
            close + 1
        } else {
            code.push(c);
            i + 1
        };
        i = skip_to;
    }
    code
}

/// Where the raw string `r"…"` or `r#"…"#` starting at `i` ends, if one starts there.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    if chars[i] != 'r' || ident_before(chars, i) {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    if chars.get(i + 1 + hashes) != Some(&'"') {
        return None;
    }
    let closes = |k: usize| chars[k] == '"' && (1..=hashes).all(|h| chars.get(k + h) == Some(&'#'));
    let start = i + 2 + hashes;
    Some(
        (start..chars.len())
            .find(|&k| closes(k))
            .map_or(chars.len(), |k| k + 1 + hashes),
    )
}

/// `code` without its `#[cfg(test)]` items (`mod name;`, a braced item, or a statement),
/// and the names of the test files declared by `mod name;`.
fn drop_test_items(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut tests = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let end_stmt = after.find(';').unwrap_or(after.len());
        let open = after.find('{').unwrap_or(after.len());
        if end_stmt < open {
            if let Some(name) = after[..end_stmt].trim().strip_prefix("mod ") {
                tests.push(name.trim().to_string());
            }
            rest = &after[(end_stmt + 1).min(after.len())..];
        } else {
            let mut depth = 0;
            let close = after[open..].char_indices().find(|&(_, ch)| {
                depth += match ch {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                depth == 0
            });
            rest = close.map_or("", |(k, _)| &after[open + k + 1..]);
        }
    }
    out.push_str(rest);
    (out, tests)
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// One import: the path as written, resolved to a path from the crate root.
struct Import {
    written: String,
    path: ModPath,
    public: bool,
    /// Written from the importing module (`use child::x`): an import only if `child` is
    /// one of the crate's modules, not an external crate.
    relative: bool,
}

impl Import {
    /// `written` in `module`: from the crate root, or relative to the module.
    fn new(written: String, module: &[String], public: bool) -> Import {
        match resolve_written(&written, module) {
            Some(path) => Import {
                written,
                path,
                public,
                relative: false,
            },
            None => {
                let mut path = module.to_vec();
                path.extend(written.split("::").map(str::to_string));
                Import {
                    written,
                    path,
                    public,
                    relative: true,
                }
            }
        }
    }
}

/// The imports of one file's code, with `super`/`self` resolved against the module path
/// (and inline `mod name { … }` blocks).
fn imports(source: &Source) -> Vec<Import> {
    let chars: Vec<char> = source.code.chars().collect();
    let word_end = |from: usize, colons: bool| {
        (from..chars.len())
            .find(|&k| {
                !(chars[k].is_alphanumeric() || chars[k] == '_' || colons && chars[k] == ':')
            })
            .unwrap_or(chars.len())
    };
    let mut out = Vec::new();
    // inline modules: (name, brace depth at which it opened)
    let mut inline: Vec<(String, i32)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' || c == '}' {
            depth += if c == '{' { 1 } else { -1 };
            if c == '}' && inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            i += 1;
            continue;
        }
        if !(c.is_alphabetic() || c == '_') || ident_before(&chars, i) {
            i += 1;
            continue;
        }
        let (start, j) = (i, word_end(i, false));
        let word: String = chars[start..j].iter().collect();
        let mut module = source.module.clone();
        module.extend(inline.iter().map(|(n, _)| n.clone()));
        i = j;
        if word == "mod" {
            let rest: String = chars[j..].iter().take(200).collect();
            let rest = rest.trim_start();
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if rest[name.len()..].trim_start().starts_with('{') {
                inline.push((name, depth));
            }
        } else if word == "use" {
            let end = (j..chars.len())
                .find(|&k| chars[k] == ';')
                .unwrap_or(chars.len());
            let stmt: String = chars[j..end].iter().collect();
            let before: String = chars[j.saturating_sub(15)..j].iter().collect();
            let public = before.trim_end().ends_with("pub use") || before.contains("pub(");
            out.extend(
                expand(&stmt)
                    .into_iter()
                    .map(|w| Import::new(w, &module, public)),
            );
            i = end;
        } else if word == "crate" || word == "super" {
            // a path in an expression, a type or an attribute
            let k = word_end(start, true);
            let written: String = chars[start..k].iter().collect();
            let written = written.trim_end_matches(':').to_string();
            if written.contains("::") && resolve_written(&written, &module).is_some() {
                out.push(Import::new(written, &module, false));
            }
            i = k;
        }
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e` (aliases and globs dropped).
fn expand(stmt: &str) -> Vec<String> {
    let stmt: String = stmt
        .chars()
        .filter(|c| !c.is_whitespace() || *c == ' ')
        .collect();
    let stmt = stmt.replace('\n', " ");
    fn go(prefix: &str, s: &str, out: &mut Vec<String>) {
        let s = s.trim();
        if let Some(open) = s.find('{') {
            let head = s[..open].trim().trim_end_matches("::");
            let inner = &s[open + 1..s.rfind('}').unwrap_or(s.len())];
            let mut depth = 0;
            let mut start = 0;
            let mut parts = Vec::new();
            for (k, ch) in inner.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        parts.push(&inner[start..k]);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            parts.push(&inner[start..]);
            let joined = join(prefix, head);
            for part in parts {
                if !part.trim().is_empty() {
                    go(&joined, part, out);
                }
            }
        } else {
            let s = s.split(" as ").next().unwrap_or(s).trim();
            let s = s.trim_end_matches("::*");
            if s == "self" {
                out.push(prefix.to_string());
            } else if !s.is_empty() && s != "*" {
                out.push(join(prefix, s));
            }
        }
    }
    fn join(a: &str, b: &str) -> String {
        match (a.is_empty(), b.is_empty()) {
            (true, _) => b.to_string(),
            (_, true) => a.to_string(),
            _ => format!("{a}::{b}"),
        }
    }
    let mut out = Vec::new();
    go("", &stmt, &mut out);
    out
}

/// `crate::a::b` → `[a, b]`; `super::x` and `self::x` against `module`; other paths
/// (external crates, local modules named without `self`) → `None`.
fn resolve_written(written: &str, module: &[String]) -> Option<ModPath> {
    let mut segments = written.split("::").filter(|s| !s.is_empty());
    let first = segments.next()?;
    let mut path: ModPath = match first {
        "crate" => Vec::new(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        "self" => module.to_vec(),
        _ => return None,
    };
    for s in segments {
        if s == "super" {
            path.pop()?;
        } else {
            path.push(s.to_string());
        }
    }
    Some(path)
}

/// Where `path` leads: through `pub use` re-exports to the module that defines the item.
fn target(path: &[String], sources: &BTreeMap<ModPath, Source>, exports: &Exports) -> ModPath {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let module_len = (0..=path.len())
            .rev()
            .find(|&n| sources.contains_key(&path[..n]))
            .unwrap_or(0);
        let (module, rest) = path.split_at(module_len);
        let Some(name) = rest.first() else {
            return path;
        };
        match exports.get(&(module.to_vec(), name.clone())) {
            Some(to) => {
                let mut next = to.clone();
                next.extend(rest[1..].iter().cloned());
                path = next;
            }
            None => return module.to_vec(),
        }
    }
    path
}

/// `(module, name)` → the path a `pub use` in that module re-exports under that name.
type Exports = BTreeMap<(ModPath, String), ModPath>;

fn exports(sources: &BTreeMap<ModPath, Source>) -> Exports {
    let mut out = Exports::new();
    for source in sources.values() {
        for import in imports(source).into_iter().filter(|i| i.public) {
            if !in_crate(&import, &source.module, sources) {
                continue;
            }
            let name = import.written.rsplit("::").next().unwrap_or("");
            out.insert(
                (source.module.clone(), name.to_string()),
                import.path.clone(),
            );
        }
    }
    out
}

/// Whether the import names something of this crate.
fn in_crate(import: &Import, module: &[String], sources: &BTreeMap<ModPath, Source>) -> bool {
    !import.relative
        || import.path.len() > module.len() && sources.contains_key(&import.path[..=module.len()])
}

fn show(path: &[String]) -> String {
    if path.is_empty() {
        "crate".into()
    } else {
        path.join("::")
    }
}

/// What does not hold in the tree at `root` (its `src/lib.rs` layer map and `src/`): modules
/// missing from the map, imports from a later layer, and circles between the top-level
/// modules of a layer or between the files of a layer.
///
/// Every import counts, `pub use` and `pub(crate) use` included, except a module's re-export
/// of its own submodules' items (a parent naming its children is structure, not a
/// dependency); any path through a re-export is followed to where the item is defined.
fn check(root: &Path) -> Vec<String> {
    let lib_rs = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let map = layer_map(&lib_rs);
    let sources = sources(root);
    let exports = exports(&sources);

    let mut problems = Vec::new();
    // top-level module → top-level modules of the same layer it imports
    let mut modules: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    // file → files of the same layer it imports
    let mut files: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for source in sources.values() {
        if source.module.is_empty() {
            continue; // lib.rs: module declarations and the curated re-exports
        }
        let Some((unit, layer, name)) = unit_of(&map, &source.module) else {
            problems.push(format!(
                "module {} is not in the layer map of src/lib.rs",
                show(&source.module)
            ));
            continue;
        };
        for import in imports(source) {
            if !in_crate(&import, &source.module, &sources)
                || import.public && import.path.starts_with(&source.module)
            {
                continue;
            }
            let to = target(&import.path, &sources, &exports);
            if to.is_empty() || to == source.module {
                continue;
            }
            let Some((to_unit, to_layer, to_name)) = unit_of(&map, &to) else {
                problems.push(format!(
                    "{} imports {} ({}), which is not in the layer map",
                    show(&source.module),
                    import.written,
                    show(&to)
                ));
                continue;
            };
            if to_layer > layer {
                problems.push(format!(
                    "{} (layer {layer}, {name}) imports {} from {} (layer {to_layer}, {to_name})",
                    show(&source.module),
                    import.written,
                    show(&to)
                ));
            } else if to_layer == layer {
                files
                    .entry(source.module.clone())
                    .or_default()
                    .insert(to.clone());
                if to_unit[..1] != unit[..1] {
                    modules
                        .entry(unit[..1].to_vec())
                        .or_default()
                        .insert(to_unit[..1].to_vec());
                }
            }
        }
    }
    for (what, edges) in [("modules", &modules), ("files", &files)] {
        for circle in circles(edges) {
            let names: Vec<String> = circle.iter().map(|p| show(p)).collect();
            problems.push(format!(
                "{what} import each other in a circle: {}",
                names.join(" -> ")
            ));
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// Circles between the files of one module that the code still has, each to be broken (a
/// type moved to the file both use, as `cluster::binding` was): the check fails on any other
/// circle, and on one of these once it is gone, so the list only shrinks.
const KNOWN_FILE_CIRCLES: &[&str] = &[
    "files import each other in a circle: catalog::bundle_dir -> catalog::fbc::files -> catalog::fbc -> catalog::bundle_dir",
    "files import each other in a circle: catalog::error -> catalog::fbc::limits -> catalog::error",
    "files import each other in a circle: catalog::fbc::bundle_props -> catalog::fbc::convert -> catalog::fbc::bundle_props",
    "files import each other in a circle: cluster::budget -> cluster::error -> cluster::budget",
    "files import each other in a circle: cluster::custom -> cluster::object -> cluster::read::emit -> cluster::custom",
    "files import each other in a circle: cluster::read -> cluster::object -> cluster::read::emit -> cluster::read::doc -> cluster::read",
    "files import each other in a circle: cluster::read::body -> cluster::read::doc -> cluster::read::body",
    "files import each other in a circle: cluster::read::meta -> cluster::read::doc -> cluster::read::meta",
    "files import each other in a circle: cluster::read::value -> cluster::budget -> cluster::error -> cluster::object -> cluster::read::emit -> cluster::read::body -> cluster::read::value",
    "files import each other in a circle: pipeline -> pipeline::nodes -> pipeline",
    "files import each other in a circle: range -> range::parse -> range",
    "files import each other in a circle: resolve::constraints -> resolve::universe -> resolve::installed -> resolve::constraints",
    "files import each other in a circle: resolve::lazy -> resolve::resolver -> resolve::lazy",
    "files import each other in a circle: solver::index -> solver::problem -> solver::index",
];

#[test]
fn imports_point_down_the_layer_map() {
    let problems = check(Path::new(env!("CARGO_MANIFEST_DIR")));
    let new: Vec<&String> = problems
        .iter()
        .filter(|p| !KNOWN_FILE_CIRCLES.contains(&p.as_str()))
        .collect();
    let gone: Vec<&&str> = KNOWN_FILE_CIRCLES
        .iter()
        .filter(|k| !problems.iter().any(|p| p == **k))
        .collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "the layer map of src/lib.rs does not hold:\n  {}\nknown circles no longer found (remove them from KNOWN_FILE_CIRCLES):\n  {}",
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
        gone.iter().map(|s| **s).collect::<Vec<_>>().join("\n  ")
    );
}

/// The check reports what it is there for: a small tree with an import from a later layer
/// (one by `use`, one by a `pub(crate) use` re-export) and two files of one layer that import
/// each other.
#[test]
fn the_check_reports_an_up_arrow_and_a_circle() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layers-fixture");
    let _ = fs::remove_dir_all(&root);
    let files = [
        (
            "lib.rs",
            "//! # Layers\n//!\n//! 1. low: `a`, `b`\n//! 2. high: `c`\n\npub mod a;\npub mod b;\npub mod c;\n",
        ),
        ("a/mod.rs", "mod x;\nmod y;\npub use x::X;\n"),
        ("a/x.rs", "use super::y::Y;\npub struct X(pub Y);\n"),
        (
            "a/y.rs",
            "pub struct Y;\npub fn x() -> Option<super::x::X> { None }\n",
        ),
        ("b.rs", "use crate::c::C;\npub fn f(_: C) {}\n"),
        ("c.rs", "pub(crate) use crate::a::X;\npub struct C;\n"),
        ("d.rs", ""),
    ];
    for (path, text) in files {
        let path = root.join("src").join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let problems = check(&root);
    assert_eq!(
        problems,
        [
            "b (layer 1, low) imports crate::c::C from c (layer 2, high)",
            "files import each other in a circle: a::x -> a::y -> a::x",
            "module d is not in the layer map of src/lib.rs",
        ],
    );
    // A re-export from a later layer is an import too.
    fs::write(
        root.join("src/a/mod.rs"),
        "mod x;\nmod y;\npub(crate) use crate::c::C;\n",
    )
    .unwrap();
    let problems = check(&root);
    assert!(
        problems
            .contains(&"a (layer 1, low) imports crate::c::C from c (layer 2, high)".to_string()),
        "{problems:?}"
    );
}

/// One circle through each strongly connected group of more than one unit.
fn circles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for start in edges.keys() {
        if seen.contains(start) {
            continue;
        }
        // breadth-first path from each neighbour back to start
        let mut parent: BTreeMap<ModPath, ModPath> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut found = None;
        while let Some(at) = queue.pop_front() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    found = Some(at.clone());
                    break;
                }
                if !parent.contains_key(next) {
                    parent.insert(next.clone(), at.clone());
                    queue.push_back(next.clone());
                }
            }
            if found.is_some() {
                break;
            }
        }
        if let Some(mut at) = found {
            let mut circle = vec![at.clone()];
            while &at != start {
                at = parent[&at].clone();
                circle.push(at.clone());
            }
            circle.reverse();
            circle.push(start.clone());
            seen.extend(circle.iter().cloned());
            out.push(circle);
        }
    }
    out
}

#[test]
fn the_stripper_keeps_code_and_drops_the_rest() {
    let (code, tests) = strip(
        "use crate::a; // crate::b\n/* crate::c */ let s = \"crate::d\";\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod t { use crate::e; }\nfn f() { crate::g::h(); }",
    );
    assert_eq!(tests, vec!["tests".to_string()]);
    assert!(code.contains("crate::a") && code.contains("crate::g::h"));
    for gone in ["crate::b", "crate::c", "crate::d", "crate::e"] {
        assert!(!code.contains(gone), "{gone} left in {code}");
    }
    assert_eq!(
        expand("crate::{a::{b, c as d}, e::*, self}"),
        vec!["crate::a::b", "crate::a::c", "crate::e", "crate"]
    );
}
