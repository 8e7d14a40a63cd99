//! Applying an image's layers, in order, to the one directory a catalog image serves: the
//! path its `operators.operatorframework.io.index.configs.v1` label names. Layers are tar
//! streams (plain, gzip or zstd, told by their first bytes) with OCI whiteouts
//! (`.wh.NAME` deletes NAME of the layers below, `.wh..wh..opq` empties a directory of
//! them). Everything outside the catalog's path is read past and dropped.
//!
//! Nothing is written while layers are applied: the catalog is held in memory (within the
//! size budget) and written by [`Tree::write`] once every layer has been read and verified.
//! An entry that could write outside the catalog is refused, naming the image and the entry:
//! an absolute path or a `..` component anywhere in a layer; under the catalog's path, a link
//! pointing out of it, a device or a FIFO; and a link at the catalog's path or above it.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

use super::error::{ImageError, PullBudget};

/// The budgets of one image's layers.
#[derive(Clone, Copy, Debug)]
pub struct LayerBudget {
    /// Uncompressed bytes of all layers together.
    pub max_layer_bytes: u64,
    /// Bytes of the catalog kept in memory.
    pub max_catalog_bytes: u64,
    /// Entries of all layers together.
    pub max_entries: u64,
    /// When to give up.
    pub deadline: Option<Instant>,
}

/// A node of the catalog tree, with the layer that wrote it (whiteouts delete only what
/// layers below them wrote).
#[derive(Clone, Debug)]
enum Node {
    Dir {
        layer: usize,
    },
    File {
        layer: usize,
        data: Vec<u8>,
    },
    /// A link, with its target as a path from the root of the image (checked to be inside
    /// the catalog).
    Link {
        layer: usize,
        target: String,
    },
}

impl Node {
    fn layer(&self) -> usize {
        match self {
            Node::Dir { layer } | Node::File { layer, .. } | Node::Link { layer, .. } => *layer,
        }
    }

    fn size(&self) -> u64 {
        match self {
            Node::File { data, .. } => data.len() as u64,
            _ => 0,
        }
    }
}

/// The catalog's directory as the layers applied so far leave it.
#[derive(Debug)]
pub struct Tree {
    /// The catalog's path from the image root, without a leading `/` (`configs`); empty for
    /// the root itself.
    root: String,
    /// Nodes at or below `root`, by path from the image root.
    nodes: BTreeMap<String, Node>,
    kept: u64,
    layer_bytes: u64,
    entries: u64,
}

/// Where an entry is, for errors.
struct At<'a> {
    image: &'a str,
    layer: &'a str,
}

impl At<'_> {
    fn refuse(&self, entry: &str, message: impl Into<String>) -> ImageError {
        ImageError::Entry {
            image: self.image.to_string(),
            layer: self.layer.to_string(),
            entry: entry.to_string(),
            message: message.into(),
        }
    }

    fn budget(&self, budget: PullBudget, message: String) -> ImageError {
        ImageError::Budget {
            image: self.image.to_string(),
            budget,
            message,
        }
    }
}

/// Normalises a path as a layer names it: leading `./` and `/` and `.` components dropped
/// (the caller refuses absolute names first); `None` when a component is `..`.
fn normalise(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => return None,
            c => out.push(c),
        }
    }
    Some(out.join("/"))
}

/// Resolves a link's target as the image would, from the directory holding the link;
/// `None` when it climbs above the image root.
fn resolve_link(dir: &str, target: &str) -> Option<String> {
    let mut out: Vec<&str> = if target.starts_with('/') {
        Vec::new()
    } else {
        dir.split('/').filter(|c| !c.is_empty()).collect()
    };
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            c => out.push(c),
        }
    }
    Some(out.join("/"))
}

/// True when `path` is `root` or below it.
fn within(root: &str, path: &str) -> bool {
    root.is_empty()
        || path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// True when `path` is strictly above `root`.
fn above(root: &str, path: &str) -> bool {
    path != root && within(path, root)
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

/// Counts the uncompressed bytes a layer's tar reader takes, and stops it past the budget
/// or the deadline (the flag says which).
struct Counted<R> {
    inner: R,
    read: Rc<Cell<u64>>,
    limit: u64,
    deadline: Option<Instant>,
    tripped: Rc<Cell<Option<PullBudget>>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.tripped.set(Some(PullBudget::Time));
            return Err(io::Error::other("time budget"));
        }
        let n = self.inner.read(buf)?;
        let total = self.read.get() + n as u64;
        self.read.set(total);
        if total > self.limit {
            self.tripped.set(Some(PullBudget::Size));
            return Err(io::Error::other("size budget"));
        }
        Ok(n)
    }
}

/// The decompressed stream of a layer, told by its first bytes: gzip, zstd, or plain tar.
fn decompress<'a, R: io::BufRead + 'a>(mut r: R) -> io::Result<Box<dyn Read + 'a>> {
    let head = r.fill_buf()?;
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::bufread::MultiGzDecoder::new(r))
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Box::new(Zstd::new(r))
    } else {
        Box::new(r)
    })
}

/// A zstd stream of one or more frames.
struct Zstd<R: Read> {
    decoder: Option<ruzstd::decoding::StreamingDecoder<Peek<R>, ruzstd::decoding::FrameDecoder>>,
}

/// A reader that can say whether anything is left.
struct Peek<R> {
    inner: R,
    first: Option<u8>,
}

impl<R: Read> Read for Peek<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (self.first.take(), buf.first_mut()) {
            (Some(b), Some(slot)) => {
                *slot = b;
                Ok(1)
            }
            (first, _) => {
                self.first = first;
                self.inner.read(buf)
            }
        }
    }
}

impl<R: Read> Peek<R> {
    fn at_end(&mut self) -> io::Result<bool> {
        if self.first.is_some() {
            return Ok(false);
        }
        let mut b = [0u8; 1];
        loop {
            match self.inner.read(&mut b) {
                Ok(0) => return Ok(true),
                Ok(_) => {
                    let [byte] = b;
                    self.first = Some(byte);
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl<R: Read> Zstd<R> {
    fn new(inner: R) -> Zstd<R> {
        let peek = Peek { inner, first: None };
        Zstd {
            decoder: ruzstd::decoding::StreamingDecoder::new(peek).ok(),
        }
    }
}

impl<R: Read> Read for Zstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(d) = self.decoder.as_mut() else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "not a zstd frame",
                ));
            };
            let n = d.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // End of a frame: another may follow.
            let mut inner = self.decoder.take().map(|d| d.into_inner());
            let Some(peek) = inner.as_mut() else {
                return Ok(0);
            };
            if peek.at_end()? {
                return Ok(0);
            }
            let Some(peek) = inner else { return Ok(0) };
            self.decoder = Some(
                ruzstd::decoding::StreamingDecoder::new(peek)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?,
            );
        }
    }
}

impl Tree {
    /// An empty tree for a catalog at `configs` (the label's value, e.g. `/configs`).
    pub fn new(configs: &str) -> Result<Tree, String> {
        let root = normalise(configs)
            .ok_or_else(|| format!("the catalog's path {configs:?} has a `..` component"))?;
        Ok(Tree {
            root,
            nodes: BTreeMap::new(),
            kept: 0,
            layer_bytes: 0,
            entries: 0,
        })
    }

    /// Applies the layer `index` (a tar stream, compressed or not) read from `r`.
    pub fn apply(
        &mut self,
        r: impl Read,
        index: usize,
        image: &str,
        layer: &str,
        budget: &LayerBudget,
    ) -> Result<(), ImageError> {
        let at = At { image, layer };
        let read = Rc::new(Cell::new(self.layer_bytes));
        let tripped = Rc::new(Cell::new(None));
        let decompressed = decompress(io::BufReader::with_capacity(1 << 16, r))
            .map_err(|e| self.layer_error(&at, &e, tripped.get(), budget))?;
        let counted = Counted {
            inner: decompressed,
            read: read.clone(),
            limit: budget.max_layer_bytes,
            deadline: budget.deadline,
            tripped: tripped.clone(),
        };
        let mut archive = tar::Archive::new(counted);
        let result = self.entries(&mut archive, index, &at, budget);
        let result = result.and_then(|()| {
            // Read to the end, so the caller's digest covers the whole blob.
            io::copy(&mut archive.into_inner(), &mut io::sink())
                .map(|_| ())
                .map_err(|e| self.layer_error(&at, &e, tripped.get(), budget))
        });
        self.layer_bytes = read.get();
        result.map_err(|e| match (tripped.get(), e) {
            (Some(b), ImageError::Layer { .. }) => at.budget(b, self.budget_text(b, budget)),
            (_, e) => e,
        })
    }

    fn budget_text(&self, b: PullBudget, budget: &LayerBudget) -> String {
        match b {
            PullBudget::Time => "the time budget ran out while reading its layers".into(),
            PullBudget::Size => format!(
                "its layers uncompress to more than {} bytes (the budget: 8 × --max-memory); a compression bomb?",
                budget.max_layer_bytes
            ),
            PullBudget::Entries => {
                format!("its layers hold more than {} entries", budget.max_entries)
            }
        }
    }

    fn layer_error(
        &self,
        at: &At<'_>,
        e: &io::Error,
        tripped: Option<PullBudget>,
        budget: &LayerBudget,
    ) -> ImageError {
        match tripped {
            Some(b) => at.budget(b, self.budget_text(b, budget)),
            None => ImageError::Layer {
                image: at.image.to_string(),
                layer: at.layer.to_string(),
                message: format!("not a readable tar stream: {e}"),
            },
        }
    }

    fn entries<R: Read>(
        &mut self,
        archive: &mut tar::Archive<R>,
        index: usize,
        at: &At<'_>,
        budget: &LayerBudget,
    ) -> Result<(), ImageError> {
        let layer_err = |e: io::Error| ImageError::Layer {
            image: at.image.to_string(),
            layer: at.layer.to_string(),
            message: format!("not a readable tar stream: {e}"),
        };
        for entry in archive.entries().map_err(layer_err)? {
            let mut entry = entry.map_err(layer_err)?;
            self.entries += 1;
            if self.entries > budget.max_entries {
                return Err(at.budget(
                    PullBudget::Entries,
                    self.budget_text(PullBudget::Entries, budget),
                ));
            }
            self.entry(&mut entry, index, at, budget)?;
        }
        Ok(())
    }

    /// One tar entry.
    fn entry<R: Read>(
        &mut self,
        entry: &mut tar::Entry<'_, R>,
        layer: usize,
        at: &At<'_>,
        budget: &LayerBudget,
    ) -> Result<(), ImageError> {
        let kind = entry.header().entry_type();
        if matches!(
            kind,
            tar::EntryType::XGlobalHeader | tar::EntryType::XHeader
        ) {
            return Ok(());
        }
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if raw.starts_with('/') {
            return Err(at.refuse(&raw, "an absolute path"));
        }
        let path = normalise(&raw).ok_or_else(|| at.refuse(&raw, "a `..` component"))?;
        let name = path.rsplit('/').next().unwrap_or(&path);
        if let Some(whited) = name.strip_prefix(".wh.") {
            self.whiteout(parent(&path), whited, layer);
            return Ok(());
        }
        let inside = within(&self.root, &path);
        if !inside && !above(&self.root, &path) {
            return Ok(());
        }
        match kind {
            tar::EntryType::Directory if inside => self.put(path, Node::Dir { layer }),
            tar::EntryType::Directory => {}
            tar::EntryType::Regular | tar::EntryType::Continuous | tar::EntryType::GNUSparse
                if inside =>
            {
                let size = entry.header().size().unwrap_or(0);
                let old = self.nodes.get(&path).map_or(0, Node::size);
                if self.kept.saturating_sub(old).saturating_add(size) > budget.max_catalog_bytes {
                    return Err(at.budget(
                        PullBudget::Size,
                        format!(
                            "its catalog is larger than {} bytes (the budget: --max-memory)",
                            budget.max_catalog_bytes
                        ),
                    ));
                }
                let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 24));
                entry
                    .read_to_end(&mut data)
                    .map_err(|e| ImageError::Layer {
                        image: at.image.to_string(),
                        layer: at.layer.to_string(),
                        message: format!("entry {raw:?}: {e}"),
                    })?;
                self.put(path, Node::File { layer, data });
            }
            tar::EntryType::Symlink | tar::EntryType::Link => {
                self.link(entry, &raw, path, kind == tar::EntryType::Link, layer, at)?;
            }
            tar::EntryType::Char | tar::EntryType::Block | tar::EntryType::Fifo if inside => {
                return Err(at.refuse(&raw, "a device or FIFO in the catalog"));
            }
            // A file, device or other entry above the catalog's path replaces the directory
            // the catalog is in: nothing of the layers below is left.
            _ if !inside => self.remove_below(layer, |_| true),
            _ => {}
        }
        Ok(())
    }

    fn link<R: Read>(
        &mut self,
        entry: &tar::Entry<'_, R>,
        raw: &str,
        path: String,
        hard: bool,
        layer: usize,
        at: &At<'_>,
    ) -> Result<(), ImageError> {
        if !within(&self.root, &path) {
            return Err(at.refuse(
                raw,
                format!("a link above the catalog's path /{}", self.root),
            ));
        }
        if path == self.root {
            return Err(at.refuse(raw, "the catalog's path is a link"));
        }
        let target = entry
            .link_name_bytes()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        // A hard link names its target from the image root; a symbolic one from its
        // directory (or the root, when absolute).
        let resolved = if hard {
            if target.starts_with('/') {
                None
            } else {
                normalise(&target)
            }
        } else {
            resolve_link(parent(&path), &target)
        };
        let Some(resolved) = resolved.filter(|r| within(&self.root, r) && *r != path) else {
            return Err(at.refuse(
                raw,
                format!(
                    "a link to {target:?}, outside the catalog's path /{}",
                    self.root
                ),
            ));
        };
        if hard {
            let Some(Node::File { data, .. }) = self.nodes.get(&resolved) else {
                return Err(at.refuse(
                    raw,
                    format!("a hard link to {target:?}, which is not a file of the catalog"),
                ));
            };
            let data = data.clone();
            self.put(path, Node::File { layer, data });
        } else {
            self.put(
                path,
                Node::Link {
                    layer,
                    target: resolved,
                },
            );
        }
        Ok(())
    }

    /// Adds a node: it hides whatever was at its path (and below it), and a file or link
    /// above it becomes a directory.
    fn put(&mut self, path: String, node: Node) {
        if !matches!(node, Node::Dir { .. }) {
            self.remove_tree(&path, |_| true);
        }
        let mut p = parent(&path);
        while within(&self.root, p) && !p.is_empty() {
            if matches!(
                self.nodes.get(p),
                Some(Node::File { .. } | Node::Link { .. })
            ) {
                self.remove_node(p);
            }
            p = parent(p);
        }
        self.kept += node.size();
        if let Some(old) = self.nodes.insert(path, node) {
            self.kept -= old.size();
        }
    }

    fn remove_node(&mut self, path: &str) {
        if let Some(old) = self.nodes.remove(path) {
            self.kept -= old.size();
        }
    }

    /// Removes `path` and everything below it that `keep_if_not` selects.
    fn remove_tree(&mut self, path: &str, select: impl Fn(&Node) -> bool) {
        let below = format!("{path}/");
        let end = format!("{path}0");
        let mut doomed: Vec<String> = self
            .nodes
            .range(below..end)
            .filter(|(_, n)| select(n))
            .map(|(k, _)| k.clone())
            .collect();
        if self.nodes.get(path).is_some_and(&select) {
            doomed.push(path.to_string());
        }
        for k in doomed {
            self.remove_node(&k);
        }
    }

    /// Removes every node written by a layer below `layer` that `select` selects.
    fn remove_below(&mut self, layer: usize, select: impl Fn(&str) -> bool) {
        let doomed: Vec<String> = self
            .nodes
            .iter()
            .filter(|(k, n)| n.layer() < layer && select(k))
            .map(|(k, _)| k.clone())
            .collect();
        for k in doomed {
            self.remove_node(&k);
        }
    }

    /// A whiteout in `dir`: `.wh..wh..opq` empties it, `.wh.NAME` deletes NAME, of the
    /// layers below `layer`.
    fn whiteout(&mut self, dir: &str, whited: &str, layer: usize) {
        if whited == ".wh..opq" {
            if above(&self.root, dir) || dir == self.root {
                self.remove_below(layer, |_| true);
            } else if within(&self.root, dir) {
                self.remove_tree_below_layer(dir, layer, false);
            }
            return;
        }
        if whited.starts_with(".wh.") {
            // Other `.wh..wh.` names are metadata of the layer format, not deletions.
            return;
        }
        let target = if dir.is_empty() {
            whited.to_string()
        } else {
            format!("{dir}/{whited}")
        };
        if above(&self.root, &target) || target == self.root {
            self.remove_below(layer, |_| true);
        } else if within(&self.root, &target) {
            self.remove_tree_below_layer(&target, layer, true);
        }
    }

    fn remove_tree_below_layer(&mut self, path: &str, layer: usize, with_self: bool) {
        let below = format!("{path}/");
        let end = format!("{path}0");
        let mut doomed: Vec<String> = self
            .nodes
            .range(below..end)
            .filter(|(_, n)| n.layer() < layer)
            .map(|(k, _)| k.clone())
            .collect();
        if with_self && self.nodes.get(path).is_some_and(|n| n.layer() < layer) {
            doomed.push(path.to_string());
        }
        for k in doomed {
            self.remove_node(&k);
        }
    }

    /// The files of the catalog, by path below the catalog's root.
    #[cfg(test)]
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.nodes.iter().filter_map(|(k, n)| match n {
            Node::File { data, .. } => Some((self.relative(k), data.as_slice())),
            _ => None,
        })
    }

    fn relative<'a>(&self, path: &'a str) -> &'a str {
        if self.root.is_empty() {
            return path;
        }
        path.strip_prefix(self.root.as_str())
            .map_or(path, |r| r.trim_start_matches('/'))
    }

    /// Writes the catalog into `dir` (which exists and is empty): its directories, files, and
    /// links (as relative links, each checked to stay inside).
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        for (k, node) in &self.nodes {
            let rel = self.relative(k);
            if rel.is_empty() {
                continue;
            }
            let dest = dir.join(rel);
            if let Some(p) = dest.parent() {
                std::fs::create_dir_all(p)?;
            }
            match node {
                Node::Dir { .. } => std::fs::create_dir_all(&dest)?,
                Node::File { data, .. } => std::fs::write(&dest, data)?,
                Node::Link { target, .. } => {
                    let from = parent(rel);
                    let to = self.relative(target);
                    symlink(&relative_link(from, to), &dest)?;
                }
            }
        }
        Ok(())
    }
}

/// The relative path from directory `from` to `to`, both below one root.
fn relative_link(from: &str, to: &str) -> String {
    let f: Vec<&str> = from.split('/').filter(|c| !c.is_empty()).collect();
    let t: Vec<&str> = to.split('/').filter(|c| !c.is_empty()).collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; f.len() - common];
    parts.extend(t.iter().skip(common));
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(unix)]
fn symlink(target: &str, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn symlink(_target: &str, _at: &Path) -> io::Result<()> {
    Err(io::Error::other(
        "links in a catalog image are written on Unix only",
    ))
}

#[cfg(test)]
mod tests;
