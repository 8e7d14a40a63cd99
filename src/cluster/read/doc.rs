//! One file's documents, parsed in one pass: each document (or `List` item, at any depth) is
//! handed to [`Reader::emit`] as soon as it is read, so a list of a million items never
//! holds a million parsed documents. An item that names no `apiVersion` or `kind` waits for
//! its list's (a typed list such as `SubscriptionList` may put its `kind` after `items`).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::body::{Body, BodySeed, Part};
use super::value::{Counted, Counter};
use super::{Dump, MAX_DOCUMENTS_PER_FILE, MAX_OBJECT_SIZE, MAX_OBJECTS_PER_DOCUMENT, ReadOptions};
use crate::cluster::budget::{Exhausted, Meter, OUT_OF_TIME, Stage};
use crate::cluster::error::StateError;
use crate::cluster::object::{KindName, Source};

/// The state of reading one file.
pub(in crate::cluster) struct Reader<'a> {
    pub(super) file: &'a str,
    pub(super) opts: &'a ReadOptions,
    pub(super) meter: &'a Meter,
    pub(super) out: Dump,
    /// The document being read (1-based).
    pub(super) document: usize,
    /// Objects of this document so far.
    objects: usize,
    /// An error raised while an object was handled inside the parser.
    error: Option<StateError>,
}

impl<'a> Reader<'a> {
    pub(in crate::cluster) fn new(file: &'a str, opts: &'a ReadOptions, meter: &'a Meter) -> Self {
        Reader {
            file,
            opts,
            meter,
            out: Dump::default(),
            document: 0,
            objects: 0,
            error: None,
        }
    }

    pub(in crate::cluster) fn finish(self) -> Dump {
        self.out
    }

    /// Where the item at `path` (list indices, outermost first) of this document is.
    pub(super) fn source(&self, path: &[usize]) -> Source {
        Source {
            file: self.file.to_string(),
            document: self.document,
            item: path.first().copied(),
            nested: path.get(1..).unwrap_or_default().to_vec(),
        }
    }

    fn start(&mut self, document: usize) -> Result<(), StateError> {
        self.document = document;
        self.objects = 0;
        self.error = None;
        FAILURE.with(|f| f.borrow_mut().take());
        self.meter.check_time(Stage::Reading)
    }

    /// The error of a document that failed: a budget that ran out, an error raised while an
    /// object was handled, else what the parser or the visitor recorded.
    fn failed(&mut self, message: String) -> StateError {
        if let Some(e) = self.error.take() {
            return e;
        }
        if self.meter.out_of_time() {
            return StateError::Budget {
                stage: Stage::Reading,
                exhausted: Exhausted::Time,
                detail: format!("in {}", self.source(&[])),
            };
        }
        parse_error(&self.source(&[]), message)
    }

    /// Handles one parsed document or item: a parsed document becomes objects.
    fn handle<E: de::Error>(&mut self, doc: Doc, path: &[usize]) -> Result<(), E> {
        let source = self.source(path);
        match self.emit(doc, source) {
            Ok(()) => Ok(()),
            Err(e) => {
                let message = e.to_string();
                self.error = Some(e);
                Err(E::custom(message))
            }
        }
    }
}

/// Reads the JSON values of `text`, each an object or a list.
pub(in crate::cluster) fn read_json(r: &mut Reader<'_>, text: &str) -> Result<(), StateError> {
    // serde_json keeps the last of a key given twice: refuse it first, in any value.
    if let Err((i, e)) = crate::input::check_json_stream_keys(text) {
        r.document = i + 1;
        return Err(parse_error(&r.source(&[]), e.to_string()));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let mut document = 0;
    while de.end().is_err() {
        document += 1;
        if document > MAX_DOCUMENTS_PER_FILE {
            r.document = document;
            return Err(too_many_documents(r));
        }
        r.start(document)?;
        let parsed = DocSeed {
            r,
            path: Vec::new(),
        }
        .deserialize(&mut de);
        match parsed {
            Ok(Parsed::Doc(doc)) => r.handle::<serde_json::Error>(*doc, &[]).map_err(|e| {
                let m = e.to_string();
                r.failed(m)
            })?,
            Ok(Parsed::List) => {}
            Err(e) => return Err(r.failed(e.to_string())),
        }
    }
    Ok(())
}

/// Reads the YAML documents of `text`, each an object or a list.
pub(in crate::cluster) fn read_yaml(r: &mut Reader<'_>, text: &str) -> Result<(), StateError> {
    let chunks = match crate::catalog::split_yaml_bounded(text, MAX_DOCUMENTS_PER_FILE) {
        Ok(chunks) => chunks,
        Err(n) => {
            r.document = n;
            return Err(too_many_documents(r));
        }
    };
    let base = crate::catalog::yaml_options();
    for (i, chunk) in chunks.iter().enumerate() {
        r.start(i + 1)?;
        let options = crate::catalog::limits::yaml_document_options(&base, chunk.text.len());
        let parsed =
            serde_saphyr::with_deserializer_from_str_with_options(chunk.text, options, |d| {
                DocSeed {
                    r: &mut *r,
                    path: Vec::new(),
                }
                .deserialize(d)
            });
        let doc = match parsed {
            Ok(Parsed::Doc(doc)) => *doc,
            Ok(Parsed::List) => continue,
            Err(e) => {
                let message = super::emit::yaml_message(&e, chunk.content_line);
                return Err(r.failed(message));
            }
        };
        let handled: Result<(), serde_json::Error> = r.handle(doc, &[]);
        if let Err(e) = handled {
            return Err(r.failed(e.to_string()));
        }
    }
    Ok(())
}

/// A file past [`MAX_DOCUMENTS_PER_FILE`], at its first document past the limit.
fn too_many_documents(r: &Reader<'_>) -> StateError {
    StateError::Parse {
        at: Box::new(r.source(&[])),
        object: None,
        message: format!(
            "more than {} documents in this file (the limit per file)",
            crate::yaml::thousands(MAX_DOCUMENTS_PER_FILE as u64)
        ),
    }
}

/// The error of a document from what the visitor recorded (object and field), else the
/// parser's message.
fn parse_error(source: &Source, message: String) -> StateError {
    match FAILURE.with(|f| f.borrow_mut().take()) {
        Some(f) => {
            let path = f.path.unwrap_or_default();
            let at = Source {
                item: path.first().copied().or(source.item),
                nested: path.get(1..).unwrap_or_default().to_vec(),
                ..source.clone()
            };
            // A safety limit of the parser says more than what the visitor saw of it.
            let message = if message.starts_with("YAML safety limit") {
                message
            } else {
                super::emit::clean(&f.message)
            };
            StateError::Parse {
                at: Box::new(at),
                object: f.object,
                message: match f.field.as_str() {
                    "" => message,
                    field => format!("{field}: {message}"),
                },
            }
        }
        None => StateError::Parse {
            at: Box::new(source.clone()),
            object: None,
            message: super::emit::clean(&message),
        },
    }
}

/// Why a field of a document failed, recorded by the visitor (which knows the object and
/// the field) for the reader (which knows the file and document).
struct Failure {
    path: Option<Vec<usize>>,
    object: Option<String>,
    field: String,
    message: String,
}

thread_local! {
    static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

pub(super) fn record(object: Option<String>, field: String, message: String) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(Failure {
                path: None,
                object,
                field: field.trim_end_matches(".?").to_string(),
                message,
            });
        }
    });
}

/// Records the list item a failure happened in (the innermost, as it is recorded first).
fn record_item(path: &[usize], message: &str) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        let f = f.get_or_insert_with(|| Failure {
            path: None,
            object: None,
            field: String::new(),
            message: message.to_string(),
        });
        f.path.get_or_insert_with(|| path.to_vec());
    });
}

/// `apiVersion`, `kind` and `metadata` of a document.
#[derive(Default)]
pub(super) struct Head {
    pub(super) api_version: Option<String>,
    pub(super) kind: Option<String>,
    pub(super) metadata: Option<Box<k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta>>,
}

/// A parsed document that is not a list: its head and bodies.
pub(super) struct Doc {
    pub(super) head: Head,
    pub(super) bodies: Bodies,
    /// The counted size of what it keeps as values (`super::value`).
    pub(super) size: u64,
}

/// A document's `spec`, `status`, and other top-level fields (kept only for objects kept
/// whole, `super::super::custom`).
pub(super) struct Bodies {
    pub(super) spec: Body,
    pub(super) status: Body,
    pub(super) extra: Vec<(String, serde_json::Value)>,
}

/// What a document or item was.
enum Parsed {
    /// An object.
    Doc(Box<Doc>),
    /// A list, whose items were handled as they were read.
    List,
}

/// True when the document's other top-level fields are kept: its kind is not known yet,
/// or it is kept whole.
fn keeps_other(head: &Head) -> bool {
    match (&head.api_version, &head.kind) {
        (Some(a), Some(k)) => KindName::of(a, k).is_none() && crate::cluster::custom::keeps(a),
        _ => true,
    }
}

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

impl<'de> serde::Deserialize<'de> for Key {
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

/// A document or an item at `path` (list indices, outermost first).
struct DocSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
    path: Vec<usize>,
}

impl<'de> DeserializeSeed<'de> for DocSeed<'_, '_> {
    type Value = Parsed;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parsed, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DocSeed<'_, '_> {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object (a map with apiVersion and kind)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let r = self.r;
        let meter = r.meter;
        let mut head = Head::default();
        let (mut spec, mut status) = (Body::Absent, Body::Absent);
        let mut pending: Option<Pending> = None;
        let mut extra = Vec::new();
        let mut seen: Vec<&'static str> = Vec::new();
        let counter = Counter::new(MAX_OBJECT_SIZE, meter);
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
                    let m = map.next_value_seed(super::meta::MetaSeed { head: &head })?;
                    head.metadata = Some(Box::new(m));
                }
                Key::Spec => {
                    spec = map.next_value_seed(BodySeed::new(&head, Part::Spec, &counter))?;
                }
                Key::Status => {
                    status = map.next_value_seed(BodySeed::new(&head, Part::Status, &counter))?;
                }
                Key::Items => {
                    let mut list = Vec::new();
                    map.next_value_seed(ItemsSeed {
                        r: &mut *r,
                        path: &self.path,
                        pending: &mut list,
                    })?;
                    pending = Some(list);
                }
                Key::Other(name) if keeps_other(&head) => {
                    let v = map.next_value_seed(Counted(&counter))?;
                    extra.push((name, v));
                }
                Key::Other(_) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let bodies = Bodies {
            spec,
            status,
            extra,
        };
        let Some(pending) = pending else {
            let size = counter.used();
            return Ok(Parsed::Doc(Box::new(Doc { head, bodies, size })));
        };
        // The items that waited for the list's apiVersion and kind.
        let kind = head.kind.as_deref().and_then(|k| k.strip_suffix("List"));
        for (path, mut item) in pending {
            if item.head.kind.is_none() {
                item.head.kind = kind.filter(|k| !k.is_empty()).map(str::to_string);
            }
            if item.head.api_version.is_none() {
                item.head.api_version.clone_from(&head.api_version);
            }
            r.handle(item, &path)?;
        }
        Ok(Parsed::List)
    }
}

/// Items of a list that name no apiVersion or kind, with their paths.
type Pending = Vec<(Vec<usize>, Doc)>;

/// A list's `items`: each is handled as soon as it is read (or kept in `pending`), a list
/// inside it flattened in place.
struct ItemsSeed<'r, 'a, 'p> {
    r: &'r mut Reader<'a>,
    path: &'p [usize],
    pending: &'p mut Pending,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of Kubernetes objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let r = self.r;
        for i in 0usize.. {
            r.objects += 1;
            if r.objects > MAX_OBJECTS_PER_DOCUMENT {
                return Err(de::Error::custom(format!(
                    "more than {} objects in this document (the limit per document)",
                    crate::yaml::thousands(MAX_OBJECTS_PER_DOCUMENT as u64)
                )));
            }
            if r.meter.out_of_time() {
                return Err(de::Error::custom(OUT_OF_TIME));
            }
            let mut path = self.path.to_vec();
            path.push(i);
            let seed = DocSeed {
                r: &mut *r,
                path: path.clone(),
            };
            match seq.next_element_seed(seed) {
                Ok(Some(Parsed::Doc(doc))) => {
                    let doc = *doc;
                    let known = doc.head.api_version.is_some() && doc.head.kind.is_some();
                    if known {
                        r.handle(doc, &path)?;
                    } else {
                        if let Err(e) = r.meter.take(Stage::Reading, 256) {
                            let message = e.to_string();
                            r.error = Some(e);
                            return Err(de::Error::custom(message));
                        }
                        self.pending.push((path, doc));
                    }
                }
                Ok(Some(Parsed::List)) => {}
                Ok(None) => return Ok(()),
                Err(e) => {
                    record_item(&path, &e.to_string());
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}
