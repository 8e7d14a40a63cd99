//! Where a document, or a field of it, is in a file's text: byte ranges for error reports.
//! Used only after an error, so it may parse a document again; the loader's fast path
//! records no positions.

use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_saphyr::Spanned;

use super::parse::{Format, format_of};

/// One step of a field path such as `properties[2].value.version`.
#[derive(Debug, PartialEq, Eq)]
enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

/// `a.b[1][2].c` as steps; None for a path that is not of this form (e.g. `(document)`).
fn steps(field: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in field.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (part.get(..i)?, part.get(i..)?),
            None => (part, ""),
        };
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if (key.is_empty() && out.is_empty()) || !key.chars().all(word) {
            return None;
        }
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let (n, tail) = r.split_once(']')?;
            out.push(Step::Index(n.parse().ok()?));
            rest = tail;
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The byte range, in `text` (the contents of catalog file `file`), of document `document`
/// (1-based, counted as the loader counts them) or of the value of `field` inside it (a path
/// such as `properties[2].value.version`). When the field cannot be found (it is missing, or
/// the path is not a field path), the range covers the first line of the document. None when
/// the document cannot be found either.
///
/// This parses the document again: call it when reporting an error, not while loading.
pub fn locate(
    file: &str,
    text: &str,
    document: usize,
    field: Option<&str>,
) -> Option<Range<usize>> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = text.get(bom..)?;
    let format = format_of(Path::new(file)).unwrap_or_else(|| {
        match body.bytes().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => Format::Json,
            _ => Format::Yaml,
        }
    });
    let path = field.and_then(steps).unwrap_or_default();
    let range = match format {
        Format::Json => locate_json(body, document, &path),
        Format::Yaml => locate_yaml(body, document, &path),
    }?;
    Some(range.start + bom..range.end + bom)
}

/// Offset of `part` (a subslice of `whole`) in `whole`.
fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

/// The first line of `range` in `text`.
fn first_line(text: &str, range: Range<usize>) -> Range<usize> {
    let end = text
        .get(range.clone())
        .and_then(|s| s.find('\n'))
        .map_or(range.end, |i| range.start + i);
    range.start..end.max(range.start)
}

fn locate_json(text: &str, document: usize, path: &[Step<'_>]) -> Option<Range<usize>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let doc = stream.nth(document.checked_sub(1)?)?.ok()?;
    let mut here = doc;
    let mut found = false;
    for step in path {
        let next = match step {
            Step::Key(k) => json_member(here, k),
            Step::Index(i) => serde_json::from_str::<Vec<&RawValue>>(here.get())
                .ok()
                .and_then(|v| v.get(*i).copied()),
        };
        match next {
            Some(n) => {
                here = n;
                found = true;
            }
            None => break,
        }
    }
    let range = offset_in(text, here.get()).map(|s| s..s + here.get().len())?;
    // A missing field: the document's first line, not the whole document.
    Some(if found {
        range
    } else {
        first_line(text, range)
    })
}

/// The value of key `k` of a JSON object.
fn json_member<'a>(object: &'a RawValue, k: &str) -> Option<&'a RawValue> {
    let map: std::collections::BTreeMap<String, &'a RawValue> =
        serde_json::from_str(object.get()).ok()?;
    map.get(k).copied()
}

/// A YAML node with the location of every value below it.
enum Node {
    Map(Vec<(String, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Leaf,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

macro_rules! leaf {
    ($($name:ident: $t:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $t) -> Result<Node, E> { Ok(Node::Leaf) })*
    };
}

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    leaf!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128,
          visit_u128: u128, visit_f64: f64, visit_str: &str, visit_bytes: &[u8]);

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some(key) = map.next_key::<KeyText>()? {
            out.push((key.0, map.next_value::<Spanned<Node>>()?));
        }
        Ok(Node::Map(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            out.push(item);
        }
        Ok(Node::Seq(out))
    }
}

/// A mapping key as text (`1` and `true` keys included); complex keys become empty.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyText, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Ok(KeyText(match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            _ => String::new(),
        }))
    }
}

/// Byte range of a located YAML value, in the chunk it was parsed from.
fn yaml_range(s: &Spanned<Node>) -> Option<Range<usize>> {
    let span = s.referenced.span();
    let start = usize::try_from(span.byte_offset()?).ok()?;
    // A mapping or sequence has an empty span: its start only.
    let len = usize::try_from(span.byte_len().unwrap_or(0)).ok()?;
    Some(start..start + len)
}

fn locate_yaml(text: &str, document: usize, path: &[Step<'_>]) -> Option<Range<usize>> {
    let chunks = super::yaml::split_yaml(text);
    let chunk = chunks.get(document.checked_sub(1)?)?;
    let base = offset_in(text, chunk.text)?;
    let line_start = text
        .split_inclusive('\n')
        .take(chunk.content_line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let doc_line = first_line(text, line_start..text.len());
    // The loader's budgets: the document may be the alias bomb being reported.
    let options = super::limits::yaml_document_options(&super::yaml_options(), chunk.text.len());
    let Ok(root) = serde_saphyr::from_str_with_options::<Spanned<Node>>(chunk.text, options) else {
        return Some(doc_line);
    };
    let mut here: Option<&Spanned<Node>> = None;
    let mut node = &root.value;
    for step in path {
        let next = match (step, node) {
            (Step::Key(k), Node::Map(m)) => m.iter().find(|(key, _)| key == k).map(|(_, v)| v),
            (Step::Index(i), Node::Seq(s)) => s.get(*i),
            _ => None,
        };
        let Some(next) = next else { break };
        here = Some(next);
        node = &next.value;
    }
    let Some(found) = here.and_then(yaml_range) else {
        return Some(doc_line);
    };
    let start = base + found.start;
    let end = if found.is_empty() {
        text.len()
    } else {
        base + found.end
    };
    // A block value spans lines: point at its first line.
    Some(first_line(text, start..end.min(text.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, r: Option<Range<usize>>) -> &str {
        r.and_then(|r| text.get(r)).unwrap_or("<none>")
    }

    #[test]
    fn field_paths() {
        assert_eq!(
            steps("properties[2].value.version"),
            Some(vec![
                Step::Key("properties"),
                Step::Index(2),
                Step::Key("value"),
                Step::Key("version")
            ])
        );
        assert_eq!(steps("(document)"), None);
        assert_eq!(steps("a[x]"), None);
    }

    #[test]
    fn json_fields_and_documents() {
        let text = "{\"schema\":\"olm.package\",\"name\":\"a\"}\n{\"schema\":\"olm.bundle\",\n \"properties\":[{\"type\":\"x\"},{\"type\":\"olm.package\",\"value\":{\"version\":\"one.two\"}}]}\n";
        let field = Some("properties[1].value.version");
        assert_eq!(at(text, locate("a.json", text, 2, field)), "\"one.two\"");
        assert_eq!(
            at(text, locate("a.json", text, 2, Some("nope"))),
            "{\"schema\":\"olm.bundle\","
        );
        assert_eq!(
            at(text, locate("a.json", text, 1, None)),
            "{\"schema\":\"olm.package\",\"name\":\"a\"}"
        );
        assert_eq!(locate("a.json", text, 3, None), None);
    }

    #[test]
    fn yaml_fields_and_documents() {
        let text = "---\nschema: olm.package\nname: a\n---\n# bundle\nschema: olm.bundle\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: one.two\n";
        let field = Some("properties[0].value.version");
        assert_eq!(at(text, locate("a.yaml", text, 2, field)), "one.two");
        assert_eq!(
            at(text, locate("a.yaml", text, 2, Some("properties[0].value"))),
            "packageName: a"
        );
        assert_eq!(
            at(text, locate("a.yaml", text, 2, None)),
            "schema: olm.bundle"
        );
        assert_eq!(
            at(text, locate("a.yaml", text, 1, None)),
            "schema: olm.package"
        );
    }
}
