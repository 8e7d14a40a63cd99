//! File-Based Catalog documents read as plain JSON values (docs/semantics.md §1, §4):
//! packages, channels with their upgrade order, bundles with their properties in document
//! order, and `olm.deprecations` entries.

use serde_json::Value;

/// One catalog as the checker receives it.
#[derive(Clone, Debug)]
pub struct CatalogInput {
    pub name: String,
    pub priority: i32,
    pub docs: Vec<Value>,
}

/// The documents of a catalog file: a JSON stream, or YAML documents separated by `---`.
pub fn documents(text: &str) -> Result<Vec<Value>, String> {
    if text.trim_start().starts_with('{') {
        serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())
    } else {
        // YAML 1.2 booleans only: a package named `y` is a name, not `true`.
        let mut options = serde_saphyr::Options::default();
        options.strict_booleans = true;
        let docs: Vec<Value> =
            serde_saphyr::from_multiple_with_options(text, options).map_err(|e| e.to_string())?;
        Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
    }
}

/// Every catalog file under `path` (a file or a directory), in name order.
pub fn read_tree(path: &std::path::Path) -> Result<Vec<Value>, String> {
    let mut files = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            let entries = std::fs::read_dir(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            for e in entries {
                stack.push(e.map_err(|e| e.to_string())?.path());
            }
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("json" | "yaml" | "yml")
        ) {
            files.push(p);
        }
    }
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        docs.extend(documents(&text).map_err(|e| format!("{}: {e}", f.display()))?);
    }
    Ok(docs)
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub replaces: Option<String>,
    pub skips: Vec<String>,
    pub skip_range: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Channel {
    pub package: String,
    pub name: String,
    pub entries: Vec<Entry>,
}

impl Channel {
    /// The upgrade order (entry names, head first) with each entry's distance from the head:
    /// the head is the one entry no other entry replaces or skips; the order follows
    /// `replaces` and leaves out entries named in any `skips`. None when the channel has no
    /// head, several, or a `replaces` cycle.
    pub fn order(&self) -> Option<Vec<(String, u32)>> {
        let mut index: std::collections::HashMap<&str, usize> = Default::default();
        for (i, e) in self.entries.iter().enumerate() {
            index.entry(e.name.as_str()).or_insert(i);
        }
        let next = |i: usize| -> Option<usize> {
            let r = self.entries[i].replaces.as_deref()?;
            index.get(r).copied()
        };
        let mut pointed = std::collections::HashSet::new();
        let mut skipped = std::collections::HashSet::new();
        for e in &self.entries {
            pointed.extend(e.replaces.iter().map(String::as_str));
            for s in &e.skips {
                pointed.insert(s.as_str());
                skipped.insert(s.as_str());
            }
        }
        let heads: Vec<usize> = (0..self.entries.len())
            .filter(|&i| !pointed.contains(self.entries[i].name.as_str()))
            .collect();
        // A replaces cycle anywhere in the channel: walk each chain, colouring entries.
        let mut state = vec![0u8; self.entries.len()];
        for start in 0..self.entries.len() {
            let mut path = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                match state[i] {
                    1 => return None,
                    2 => break,
                    _ => {}
                }
                state[i] = 1;
                path.push(i);
                at = next(i);
            }
            for i in path {
                state[i] = 2;
            }
        }
        let [head] = heads.as_slice() else {
            return None;
        };
        let mut out = Vec::new();
        let mut at = Some(*head);
        let mut hops = 0u32;
        while let Some(i) = at {
            let e = &self.entries[i];
            if !skipped.contains(e.name.as_str()) {
                out.push((e.name.clone(), hops));
            }
            hops += 1;
            at = next(i);
        }
        Some(out)
    }

    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

#[derive(Clone, Debug)]
pub struct RawBundle {
    pub package: String,
    pub name: String,
    pub properties: Vec<(String, Value)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deprecated {
    Package,
    Channel(String),
    Bundle(String),
}

/// One catalog's documents, sorted by kind.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    pub name: String,
    pub priority: i32,
    /// Package name and default channel.
    pub packages: Vec<(String, Option<String>)>,
    pub channels: Vec<Channel>,
    pub bundles: Vec<RawBundle>,
    /// (package, what).
    pub deprecations: Vec<(String, Deprecated)>,
}

/// A scalar field as text (YAML reads `1.1` or `16` as numbers; a catalog means the name).
fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Catalog {
    pub fn read(input: &CatalogInput) -> Result<Catalog, String> {
        let mut c = Catalog {
            name: input.name.clone(),
            priority: input.priority,
            ..Catalog::default()
        };
        for d in &input.docs {
            match d.get("schema").and_then(Value::as_str) {
                // A package document without a name names nothing a rule can use.
                Some("olm.package") => c.packages.extend(
                    text(d, "name")
                        .map(|n| (n, text(d, "defaultChannel").filter(|s| !s.is_empty()))),
                ),
                Some("olm.channel") => {
                    let entries = d
                        .get("entries")
                        .and_then(Value::as_array)
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                        .iter()
                        .map(|e| Entry {
                            name: text(e, "name").unwrap_or_default(),
                            replaces: text(e, "replaces").filter(|s| !s.is_empty()),
                            skips: e
                                .get("skips")
                                .and_then(Value::as_array)
                                .map(|l| {
                                    l.iter()
                                        .filter_map(|s| s.as_str().map(str::to_string))
                                        .collect()
                                })
                                .unwrap_or_default(),
                            skip_range: text(e, "skipRange").filter(|s| !s.is_empty()),
                        })
                        .collect();
                    // docs/catalog-input.md: an entry listed twice in a channel keeps the first.
                    let mut entries: Vec<Entry> = entries;
                    let mut seen = std::collections::HashSet::new();
                    entries.retain(|e| seen.insert(e.name.clone()));
                    c.channels.push(Channel {
                        package: text(d, "package").ok_or("a channel without package")?,
                        name: text(d, "name").ok_or("a channel without name")?,
                        entries,
                    });
                }
                Some("olm.bundle") => {
                    let properties = d
                        .get("properties")
                        .and_then(Value::as_array)
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|p| {
                            Some((
                                text(p, "type")?,
                                p.get("value").cloned().unwrap_or(Value::Null),
                            ))
                        })
                        .collect();
                    c.bundles.push(RawBundle {
                        package: text(d, "package").ok_or("a bundle without package")?,
                        name: text(d, "name").ok_or("a bundle without name")?,
                        properties,
                    });
                }
                Some("olm.deprecations") => {
                    let package = text(d, "package").ok_or("deprecations without package")?;
                    for e in d
                        .get("entries")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let r = e.get("reference").unwrap_or(&Value::Null);
                        let what = match (r.get("schema").and_then(Value::as_str), text(r, "name"))
                        {
                            (Some("olm.package"), _) => Deprecated::Package,
                            (Some("olm.channel"), Some(n)) => Deprecated::Channel(n),
                            (Some("olm.bundle"), Some(n)) => Deprecated::Bundle(n),
                            _ => continue,
                        };
                        c.deprecations.push((package.clone(), what));
                    }
                }
                _ => {}
            }
        }
        Ok(c)
    }
}
