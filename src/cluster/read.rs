//! Reading a cluster dump: files and directories (walked in sorted order), each a stream of
//! YAML documents or JSON values, each an object or a `List` of them (the output of `kubectl
//! get -o yaml|json`, or a must-gather tree). Every document is read in one pass into the
//! typed parts of its kind; what deppy does not read is skipped without being built.

use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::custom::{self, Custom};
use super::error::StateError;
use super::object::{Kind, KindName, Object, Skipped, Source};
use super::pod::{self, CatalogPod};
use crate::catalog::walk::{self, Root};

/// What a dump holds: the objects deppy reads, and what it skipped (by kind).
#[derive(Debug, Default)]
pub struct Dump {
    /// Objects of the kinds deppy reads, in file, document and item order.
    pub objects: Vec<Object>,
    /// Objects of other kinds.
    pub skipped: Vec<Skipped>,
    /// Of those, the ones kept whole for the CRD checks (`super::custom`).
    pub custom: Vec<Custom>,
    /// Of those, CatalogSources' registry pods (`super::pod`).
    pub catalog_pods: Vec<CatalogPod>,
    /// Entries of a directory that were not read although their names say they would be (a
    /// FIFO, a dangling link, a link out of the directory named), in words.
    pub warnings: Vec<String>,
}

/// Reads every `.yaml`, `.yml` and `.json` file under `paths` (a file named is read
/// whatever its extension; `-` is standard input). Directories are walked depth first in
/// sorted name order, as catalog directories are: hidden entries are not looked at, and
/// what is not a regular file or a directory (a FIFO, a device, a dangling link, a link out
/// of the directory named) is never opened, with a warning when its name says it would
/// have been read. Files are parsed in parallel; the first error in path order is returned.
///
/// The example on [`crate::resolve_cluster`] reads a dump with it.
pub fn read_paths(paths: &[PathBuf]) -> Result<Dump, StateError> {
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for p in paths {
        collect_named(p, &mut files, &mut warnings)?;
    }
    let parsed = crate::parallel::parallel_map(&files, |f| read_file(f));
    let mut dump = Dump {
        warnings,
        ..Dump::default()
    };
    for d in parsed {
        let d = d?;
        dump.objects.extend(d.objects);
        dump.skipped.extend(d.skipped);
        dump.custom.extend(d.custom);
        dump.catalog_pods.extend(d.catalog_pods);
    }
    Ok(dump)
}

fn read_error(path: &Path, e: impl fmt::Display) -> StateError {
    StateError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// True for the names a directory walk reads.
fn is_state_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// A path named on the command line: a directory is walked, anything else is read (a FIFO
/// too: `<(kubectl get ...)` is one).
fn collect_named(
    path: &Path,
    out: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    if crate::input::is_stdin(path) {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let meta = std::fs::metadata(path).map_err(|e| read_error(path, e))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    walk_dir(path, out, warnings)
}

/// The state files below `dir`, as the catalog walk lists them (`crate::catalog::walk`):
/// links are followed inside `dir` only, special files are never opened, and every
/// directory is entered once (by canonical path), so a link to an ancestor cannot loop.
fn walk_dir(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> Result<(), StateError> {
    let root = Root::directory(dir);
    let list = |d: &Path| {
        walk::list(d, &root).map_err(|e| match e {
            crate::catalog::LoadError::Io { path, source } => read_error(&path, source),
            other => read_error(d, other),
        })
    };
    let mut visited = std::collections::HashSet::new();
    visited.extend(std::fs::canonicalize(dir).ok());
    let mut stack = vec![list(dir)?.into_iter()];
    while let Some(top) = stack.last_mut() {
        let Some(entry) = top.next() else {
            stack.pop();
            continue;
        };
        match entry.kind {
            walk::Kind::Dir => {
                if let Ok(canonical) = std::fs::canonicalize(&entry.path)
                    && !visited.insert(canonical)
                {
                    continue;
                }
                stack.push(list(&entry.path)?.into_iter());
            }
            walk::Kind::File if is_state_file(&entry.path) => out.push(entry.path),
            walk::Kind::File => {}
            // Warned about where a file (or a directory) would have been read.
            walk::Kind::Skipped(_) => {
                if is_state_file(&entry.path) || entry.path.is_dir() {
                    warnings.extend(entry.skipped_warning());
                }
            }
        }
    }
    Ok(())
}

/// Reads one file: JSON when it ends in `.json` or its first non-blank character is `{`,
/// else YAML.
pub(crate) fn read_file(path: &Path) -> Result<Dump, StateError> {
    let text = crate::input::read_text(path)?;
    read_text(&path.display().to_string(), &text)
}

/// Reads the documents of one file's text (`file` names it in errors).
pub fn read_text(file: &str, text: &str) -> Result<Dump, StateError> {
    let json = file.ends_with(".json") || text.trim_start().starts_with('{');
    let mut dump = Dump::default();
    if json {
        let stream = serde_json::Deserializer::from_str(text).into_iter::<Doc>();
        FAILURE.with(|f| f.borrow_mut().take());
        for (i, doc) in stream.enumerate() {
            let source = Source {
                file: file.to_string(),
                document: i + 1,
                item: None,
            };
            let doc = doc.map_err(|e| parse_error(&source, e.to_string()))?;
            flatten(doc, source, &mut dump)?;
        }
    } else {
        for (i, chunk) in crate::catalog::split_yaml(text).iter().enumerate() {
            let source = Source {
                file: file.to_string(),
                document: i + 1,
                item: None,
            };
            let options = crate::catalog::limits::yaml_document_options(
                &crate::catalog::yaml_options(),
                chunk.text.len(),
            );
            FAILURE.with(|f| f.borrow_mut().take());
            let doc: Doc = serde_saphyr::from_str_with_options(chunk.text, options)
                .map_err(|e| parse_error(&source, yaml_message(&e, chunk.content_line)))?;
            flatten(doc, source, &mut dump)?;
        }
    }
    Ok(dump)
}

fn yaml_message(e: &serde_saphyr::Error, first_line: usize) -> String {
    let reason = crate::input::yaml_reason(e);
    match e.location() {
        Some(l) => format!(
            "{} (line {})",
            strip_location(&reason),
            first_line + usize::try_from(l.line()).unwrap_or(1).saturating_sub(1)
        ),
        None => reason,
    }
}

fn strip_location(m: &str) -> &str {
    m.split_once(" at line ").map_or(m, |(h, _)| h)
}

/// The error of a document that failed: the detail the visitor recorded (object and field),
/// else the parser's message.
fn parse_error(source: &Source, message: String) -> StateError {
    match FAILURE.with(|f| f.borrow_mut().take()) {
        Some(f) => StateError::Parse {
            at: Box::new(Source {
                item: f.item.or(source.item),
                ..source.clone()
            }),
            object: f.object,
            message: match f.field.as_str() {
                "" => strip_location(&f.message).to_string(),
                field => format!("{field}: {}", strip_location(&f.message)),
            },
        },
        None => StateError::Parse {
            at: Box::new(source.clone()),
            object: None,
            message,
        },
    }
}

/// Why a field of a document failed, recorded by the visitor (which knows the object and
/// the field) for the reader (which knows the file and document).
struct Failure {
    item: Option<usize>,
    object: Option<String>,
    field: String,
    message: String,
}

thread_local! {
    static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

fn record(object: Option<String>, field: String, message: String) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(Failure {
                item: None,
                object,
                field,
                message,
            });
        }
    });
}

/// Turns a parsed document into objects: the document itself, or each item of a list (an
/// item without `apiVersion`/`kind` takes the list's, as typed lists' items do).
fn flatten(doc: Doc, source: Source, out: &mut Dump) -> Result<(), StateError> {
    let Some(items) = doc.items else {
        return single(doc.head, doc.bodies, source, out);
    };
    let list_kind = doc
        .head
        .kind
        .as_deref()
        .and_then(|k| k.strip_suffix("List"));
    for (i, item) in items.into_iter().enumerate() {
        let mut head = item.head;
        if head.kind.is_none() {
            head.kind = list_kind.filter(|k| !k.is_empty()).map(str::to_string);
        }
        if head.api_version.is_none() {
            head.api_version = doc.head.api_version.clone();
        }
        let src = Source {
            item: Some(i),
            ..source.clone()
        };
        if item.items.is_some() {
            return Err(StateError::Parse {
                at: Box::new(src),
                object: None,
                message: "a list inside a list".into(),
            });
        }
        single(head, item.bodies, src, out)?;
    }
    Ok(())
}

fn single(head: Head, bodies: Bodies, source: Source, out: &mut Dump) -> Result<(), StateError> {
    let api_version = head.api_version.unwrap_or_default();
    let kind = head.kind.unwrap_or_default();
    let metadata = head.metadata.unwrap_or_default();
    let Bodies {
        spec,
        status,
        extra,
    } = bodies;
    let Some(which) = KindName::of(&api_version, &kind) else {
        let name = match (&metadata.namespace, &metadata.name) {
            (Some(ns), Some(n)) => format!("{ns}/{n}"),
            (_, n) => n.clone().unwrap_or_default(),
        };
        if pod::is_pod(&api_version, &kind) {
            let status = match &status {
                Body::Deferred(v) => Some(v.clone()),
                _ => None,
            };
            out.catalog_pods
                .extend(pod::catalog_pod(&metadata, status, &source));
        }
        if custom::keeps(&api_version) && !kind.is_empty() {
            let bodies = Bodies {
                spec,
                status,
                extra,
            };
            out.custom
                .push(whole(&api_version, &kind, &metadata, bodies, &source));
        }
        out.skipped.push(Skipped {
            api_version,
            kind,
            name,
            source,
        });
        return Ok(());
    };
    let object = describe(which, &metadata);
    let has_status = !matches!(status, Body::Absent);
    let fail = |e: String| StateError::Parse {
        at: Box::new(source.clone()),
        object: Some(object.clone()),
        message: e,
    };
    let kind = typed(which, spec, status).map_err(fail)?;
    out.objects.push(Object {
        api_version,
        metadata,
        kind,
        source,
        has_status,
    });
    Ok(())
}

/// An object kept whole (`super::custom`).
fn whole(
    api_version: &str,
    kind: &str,
    metadata: &ObjectMeta,
    bodies: Bodies,
    source: &Source,
) -> Custom {
    let (namespace, name) = (
        metadata.namespace.clone().unwrap_or_default(),
        metadata.name.clone().unwrap_or_default(),
    );
    let mut object = serde_json::Map::new();
    object.insert("apiVersion".into(), api_version.into());
    object.insert("kind".into(), kind.into());
    let mut meta = serde_json::Map::new();
    meta.insert("name".into(), name.clone().into());
    if !namespace.is_empty() {
        meta.insert("namespace".into(), namespace.clone().into());
    }
    object.insert("metadata".into(), meta.into());
    for (key, body) in [("spec", bodies.spec), ("status", bodies.status)] {
        if let Body::Deferred(v) = body {
            object.insert(key.into(), v);
        }
    }
    object.extend(bodies.extra);
    Custom {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        namespace,
        name,
        revision: metadata.uid.clone().zip(metadata.resource_version.clone()),
        object: serde_json::Value::Object(object),
        source: source.clone(),
    }
}

/// `Kind namespace/name`, for messages.
pub(super) fn describe(kind: KindName, m: &ObjectMeta) -> String {
    let name = m.name.as_deref().unwrap_or("(no name)");
    match m.namespace.as_deref() {
        Some(ns) => format!("{} {ns}/{name}", kind.as_str()),
        None => format!("{} {name}", kind.as_str()),
    }
}

/// The typed parts of an object of `kind` from its bodies (deferred ones are converted now).
fn typed(kind: KindName, spec: Body, status: Body) -> Result<Kind, String> {
    let spec = spec.into_spec(kind)?;
    let status = status.into_status(kind)?;
    Ok(match (spec, status) {
        (Spec::Subscription(s), Status::Subscription(t)) => Kind::Subscription(s, t),
        (Spec::Csv(s), Status::Csv(t)) => Kind::ClusterServiceVersion(s, t),
        (Spec::CatalogSource(s), Status::Unread) => Kind::CatalogSource(s),
        (Spec::OperatorGroup(s), Status::OperatorGroup(t)) => Kind::OperatorGroup(s, t),
        (Spec::InstallPlan(s), Status::InstallPlan(t)) => Kind::InstallPlan(s, t),
        (Spec::ClusterCatalog(s), Status::ClusterCatalog(t)) => Kind::ClusterCatalog(s, t),
        (Spec::ClusterExtension(s), Status::ClusterExtension(t)) => Kind::ClusterExtension(s, t),
        _ => return Err("spec and status of different kinds".into()),
    })
}

/// `apiVersion`, `kind` and `metadata` of a document.
#[derive(Default)]
struct Head {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<ObjectMeta>,
}

/// A parsed document: its head, bodies, and list items.
struct Doc {
    head: Head,
    bodies: Bodies,
    items: Option<Vec<Doc>>,
}

/// A document's `spec`, `status`, and other top-level fields (kept only for objects kept
/// whole, `super::custom`).
struct Bodies {
    spec: Body,
    status: Body,
    extra: Vec<(String, serde_json::Value)>,
}

/// True when the document's other top-level fields are kept: its kind is not known yet,
/// or it is kept whole.
fn keeps_other(head: &Head) -> bool {
    match (&head.api_version, &head.kind) {
        (Some(a), Some(k)) => KindName::of(a, k).is_none() && custom::keeps(a),
        _ => true,
    }
}

mod body;
use body::{Body, BodySeed, Part, Spec, Status};

/// The top-level keys deppy looks at.
enum Key {
    ApiVersion,
    Kind,
    Metadata,
    Spec,
    Status,
    Items,
    Other(String),
}

impl Key {
    /// The key as written, for the keys deppy reads.
    fn name(&self) -> Option<&'static str> {
        Some(match self {
            Key::ApiVersion => "apiVersion",
            Key::Kind => "kind",
            Key::Metadata => "metadata",
            Key::Spec => "spec",
            Key::Status => "status",
            Key::Items => "items",
            Key::Other(_) => return None,
        })
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "apiVersion" => Key::ApiVersion,
                    "kind" => Key::Kind,
                    "metadata" => Key::Metadata,
                    "spec" => Key::Spec,
                    "status" => Key::Status,
                    "items" => Key::Items,
                    other => Key::Other(other.to_string()),
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        d.deserialize_map(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object (a map with apiVersion and kind)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut head = Head::default();
        let (mut spec, mut status, mut items) = (Body::Absent, Body::Absent, None);
        let mut extra = Vec::new();
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key::<Key>()? {
            // A key given twice would silently replace the first (in JSON; YAML refuses it).
            if let Some(name) = key.name() {
                if seen.contains(&name) {
                    return Err(de::Error::custom(format!("duplicate key `{name}`")));
                }
                seen.push(name);
            }
            match key {
                Key::ApiVersion => head.api_version = Some(map.next_value()?),
                Key::Kind => head.kind = Some(map.next_value()?),
                Key::Metadata => {
                    let m = map.next_value_seed(MetaSeed { head: &head })?;
                    head.metadata = Some(m);
                }
                Key::Spec => spec = map.next_value_seed(BodySeed::new(&head, Part::Spec))?,
                Key::Status => status = map.next_value_seed(BodySeed::new(&head, Part::Status))?,
                Key::Items => items = Some(map.next_value_seed(ItemsSeed)?),
                Key::Other(name) if keeps_other(&head) => {
                    extra.push((name, map.next_value()?));
                }
                Key::Other(_) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Doc {
            head,
            bodies: Bodies {
                spec,
                status,
                extra,
            },
            items,
        })
    }
}

/// `metadata`, with a failure recorded against the field that broke.
struct MetaSeed<'h> {
    head: &'h Head,
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ObjectMeta;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ObjectMeta, D::Error> {
        serde_path_to_error::deserialize(d).map_err(|e| {
            let field = format!("metadata.{}", e.path());
            let object = body::head_name(self.head);
            let inner = e.into_inner();
            record(object, field, inner.to_string());
            inner
        })
    }
}

/// A list's `items`, each a document; a failure inside one records its index.
struct ItemsSeed;

impl<'de> DeserializeSeed<'de> for ItemsSeed {
    type Value = Vec<Doc>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Doc>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed {
    type Value = Vec<Doc>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of Kubernetes objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Doc>, A::Error> {
        let mut out = Vec::new();
        loop {
            match seq.next_element::<Doc>() {
                Ok(Some(doc)) => out.push(doc),
                Ok(None) => return Ok(out),
                Err(e) => {
                    let i = out.len();
                    record(None, String::new(), e.to_string());
                    FAILURE.with(|f| {
                        if let Some(f) = f.borrow_mut().as_mut() {
                            f.item.get_or_insert(i);
                        }
                    });
                    return Err(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
