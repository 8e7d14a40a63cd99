//! Serde structs for FBC documents: borrowed where the input allows it, lenient where real
//! catalogs are messy, and lazy on property values (a heavy value is skipped or kept raw,
//! never deep-parsed into a tree).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// One FBC document with the fields of every known schema merged: the schema is often the
/// last key (YAML written by opm sorts keys), so it cannot drive the parse.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "P: Deserialize<'de>"))]
pub(crate) struct Doc<'a, P> {
    #[serde(borrow, default)]
    pub schema: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub package: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub default_channel: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub image: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub entries: Option<Vec<EntryDoc<'a>>>,
    #[serde(default)]
    pub properties: Option<Vec<P>>,
}

/// Only the schema of a document, to tell an unknown schema from a broken known one.
#[derive(Deserialize)]
pub(crate) struct Header<'a> {
    #[serde(borrow, default)]
    pub schema: Option<Cow<'a, str>>,
}

/// An entry of `olm.channel` or of `olm.deprecations` (fields merged, like [`Doc`]).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EntryDoc<'a> {
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub replaces: Option<Cow<'a, str>>,
    #[serde(default)]
    pub skips: Option<Vec<String>>,
    #[serde(borrow, default)]
    pub skip_range: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub reference: Option<RefDoc<'a>>,
    #[serde(borrow, default)]
    pub message: Option<Cow<'a, str>>,
}

/// `reference` of an `olm.deprecations` entry.
#[derive(Deserialize)]
pub(crate) struct RefDoc<'a> {
    #[serde(borrow, default)]
    pub schema: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
}

/// A property's value as captured by the parser.
pub(crate) enum PropVal<'a> {
    /// No `value`, or `null`.
    Missing,
    /// JSON: the raw text, borrowed from the file (never parsed unless interpreted).
    Raw(&'a RawValue),
    /// YAML: a tree (opaque and constraint values, or any value seen before its `type`).
    Tree(serde_json::Value),
    /// YAML: a typed property's value, parsed directly.
    Flat(Loose<YamlFlatProps>),
    /// YAML: a heavy value skipped without building anything.
    Dropped,
}

/// A property with its value captured lazily.
pub(crate) struct Prop<'a> {
    pub kind: Option<Cow<'a, str>>,
    pub value: PropVal<'a>,
}

/// What deppy does with a property type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Package,
    Gvk,
    PackageRequired,
    GvkRequired,
    Label,
    LabelRequired,
    Constraint,
    Deprecated,
    Heavy,
    Other,
}

impl Kind {
    pub fn of(kind: &str) -> Kind {
        match kind {
            "olm.package" => Kind::Package,
            "olm.gvk" => Kind::Gvk,
            "olm.package.required" => Kind::PackageRequired,
            "olm.gvk.required" => Kind::GvkRequired,
            "olm.label" => Kind::Label,
            "olm.label.required" => Kind::LabelRequired,
            "olm.constraint" => Kind::Constraint,
            "olm.deprecated" => Kind::Deprecated,
            "olm.csv.metadata" | "olm.bundle.object" => Kind::Heavy,
            _ => Kind::Other,
        }
    }

    /// Typed properties whose value is a flat map of strings.
    pub(crate) fn is_flat(self) -> bool {
        matches!(
            self,
            Kind::Package
                | Kind::Gvk
                | Kind::PackageRequired
                | Kind::GvkRequired
                | Kind::Label
                | Kind::LabelRequired
        )
    }
}

/// A JSON property: the value stays raw text borrowed from the file.
#[derive(Deserialize)]
pub(crate) struct JsonProp<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub value: Option<&'a RawValue>,
}

impl<'a> From<JsonProp<'a>> for Prop<'a> {
    fn from(p: JsonProp<'a>) -> Prop<'a> {
        let value = match p.value {
            Some(raw) if raw.get() != "null" => PropVal::Raw(raw),
            _ => PropVal::Missing,
        };
        Prop {
            kind: p.kind,
            value,
        }
    }
}

/// A YAML property. YAML cannot hand out raw text, so the value is captured according to the
/// `type` read before it (opm writes `type` first): typed values straight into [`FlatProps`],
/// heavy ones skipped unless `KEEP`, the rest into a tree.
pub(crate) struct YamlProp<'a, const KEEP: bool>(pub Prop<'a>);

impl<'de: 'a, 'a, const KEEP: bool> Deserialize<'de> for YamlProp<'a, KEEP> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(YamlPropVisitor::<KEEP>(PhantomData))
    }
}

struct YamlPropVisitor<'a, const KEEP: bool>(PhantomData<&'a ()>);

impl<'de: 'a, 'a, const KEEP: bool> Visitor<'de> for YamlPropVisitor<'a, KEEP> {
    type Value = YamlProp<'a, KEEP>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property map with `type` and `value`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind: Option<Cow<'a, str>> = None;
        let mut value = PropVal::Missing;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => kind = map.next_value::<Option<Cow<'de, str>>>()?,
                "value" => value = capture_yaml_value::<A, KEEP>(&mut map, kind.as_deref())?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(YamlProp(Prop { kind, value }))
    }
}

fn capture_yaml_value<'de, A: MapAccess<'de>, const KEEP: bool>(
    map: &mut A,
    kind: Option<&str>,
) -> Result<PropVal<'static>, A::Error> {
    let kind = kind.map_or(Kind::Other, Kind::of);
    let skip = kind == Kind::Deprecated || (kind == Kind::Heavy && !KEEP);
    Ok(if kind.is_flat() {
        match map.next_value::<Option<Loose<YamlFlatProps>>>()? {
            Some(v) => PropVal::Flat(v),
            None => PropVal::Missing,
        }
    } else if skip {
        match map.next_value::<Option<IgnoredAny>>()? {
            Some(_) => PropVal::Dropped,
            None => PropVal::Missing,
        }
    } else {
        match map.next_value::<serde_json::Value>()? {
            serde_json::Value::Null => PropVal::Missing,
            v => PropVal::Tree(v),
        }
    })
}

/// The flat string fields of the typed properties (`olm.package`, `olm.gvk`,
/// `olm.package.required`, `olm.gvk.required`, `olm.label`, `olm.label.required`); other keys
/// are tolerated and ignored. Strings are borrowed from the file where they can be.
#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FlatProps<'a> {
    #[serde(borrow, default)]
    pub package_name: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub version: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub version_range: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub group: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub kind: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub label: Option<LooseStr<'a>>,
}

/// [`FlatProps`] read from YAML, where a plain scalar is taken as written (`version: 1.10`
/// stays `1.10`, where a number would become `1.1`); a map or list there is a document error.
#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct YamlFlatProps {
    #[serde(default)]
    pub package_name: Option<YamlText>,
    #[serde(default)]
    pub version: Option<YamlText>,
    #[serde(default)]
    pub version_range: Option<YamlText>,
    #[serde(default)]
    pub group: Option<YamlText>,
    #[serde(default)]
    pub kind: Option<YamlText>,
    #[serde(default)]
    pub label: Option<YamlText>,
}

impl From<YamlFlatProps> for FlatProps<'static> {
    fn from(y: YamlFlatProps) -> FlatProps<'static> {
        let s = |v: Option<YamlText>| v.map(|t| LooseStr(Ok(Cow::Owned(t.0))));
        FlatProps {
            package_name: s(y.package_name),
            version: s(y.version),
            version_range: s(y.version_range),
            group: s(y.group),
            kind: s(y.kind),
            label: s(y.label),
        }
    }
}

/// A YAML scalar as written.
#[derive(Debug)]
pub(crate) struct YamlText(pub String);

impl<'de> Deserialize<'de> for YamlText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(LooseStrVisitor(PhantomData))
            .and_then(|l| match l.0 {
                Ok(s) => Ok(YamlText(s.into_owned())),
                Err(found) => Err(de::Error::custom(format!(
                    "expected a string, found {found}"
                ))),
            })
    }
}

/// A scalar read as text (numbers keep their text), or the kind of non-scalar found instead.
#[derive(Debug)]
pub(crate) struct LooseStr<'a>(pub Result<Cow<'a, str>, &'static str>);

impl<'de: 'a, 'a> Deserialize<'de> for LooseStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseStrVisitor(PhantomData))
    }
}

struct LooseStrVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LooseStrVisitor<'a> {
    type Value = LooseStr<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Ok(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Ok(Cow::Owned(v.to_string()))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Ok(Cow::Owned(v))))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Ok(Cow::Owned(v.to_string()))))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Ok(Cow::Owned(v.to_string()))))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Ok(Cow::Owned(v.to_string()))))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Err("a boolean")))
    }
    fn visit_unit<E: de::Error>(self) -> Result<LooseStr<'a>, E> {
        Ok(LooseStr(Err("null")))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LooseStr<'a>, A::Error> {
        IgnoredAny::deserialize(MapAccessDeserializer::new(map))?;
        Ok(LooseStr(Err("a map")))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<LooseStr<'a>, A::Error> {
        IgnoredAny::deserialize(SeqAccessDeserializer::new(seq))?;
        Ok(LooseStr(Err("a list")))
    }
}

/// A value that should be a map: `Map` when it is, else the kind of value found.
#[derive(Debug)]
pub(crate) enum Loose<T> {
    Map(T),
    NotMap(&'static str),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor(PhantomData))
    }
}

struct LooseVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for LooseVisitor<T> {
    type Value = Loose<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Loose<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Loose::Map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Loose<T>, A::Error> {
        IgnoredAny::deserialize(SeqAccessDeserializer::new(seq))?;
        Ok(Loose::NotMap("a list"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Loose<T>, E> {
        Ok(Loose::NotMap("a string"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Loose<T>, E> {
        Ok(Loose::NotMap("a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Loose<T>, E> {
        Ok(Loose::NotMap("a number"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Loose<T>, E> {
        Ok(Loose::NotMap("a number"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Loose<T>, E> {
        Ok(Loose::NotMap("a number"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Loose<T>, E> {
        Ok(Loose::NotMap("null"))
    }
}

impl<'a> PropVal<'a> {
    /// The value as the flat map of a typed property.
    pub(crate) fn into_flat(self) -> Result<FlatProps<'a>, String> {
        let loose = match self {
            PropVal::Flat(Loose::Map(m)) => Loose::Map(m.into()),
            PropVal::Flat(Loose::NotMap(found)) => Loose::NotMap(found),
            PropVal::Raw(raw) => match flat_fast(raw.get()) {
                Some(flat) => Loose::Map(flat),
                None => serde_json::from_str(raw.get()).map_err(|e| e.to_string())?,
            },
            PropVal::Tree(v) => Loose::deserialize(v).map_err(|e| e.to_string())?,
            PropVal::Missing | PropVal::Dropped => return Err("no value".to_string()),
        };
        match loose {
            Loose::Map(m) => Ok(m),
            Loose::NotMap(found) => Err(format!("expected a map, found {found}")),
        }
    }

    /// The value as owned raw JSON (None when missing or dropped).
    pub(crate) fn into_raw(self) -> Option<Box<RawValue>> {
        match self {
            PropVal::Raw(raw) => Some(raw.to_owned()),
            PropVal::Tree(v) => serde_json::value::to_raw_value(&v).ok(),
            PropVal::Missing | PropVal::Dropped | PropVal::Flat(_) => None,
        }
    }
}

impl<'a, const KEEP: bool> From<YamlProp<'a, KEEP>> for Prop<'a> {
    fn from(p: YamlProp<'a, KEEP>) -> Prop<'a> {
        p.0
    }
}

/// [`FlatProps`] from the raw JSON of a typed property's value, without serde, in the
/// common case: an object whose values are all strings without escapes and whose known keys
/// are not repeated. Anything else (escapes, numbers, nested values, a repeated key, not an
/// object) is `None`, and serde reads it: the result, errors included, is always what serde
/// gives. `raw` is valid JSON (serde_json checked it while capturing it).
fn flat_fast(raw: &str) -> Option<FlatProps<'_>> {
    let b = raw.as_bytes();
    let ws = |mut i: usize| {
        while b
            .get(i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            i += 1;
        }
        i
    };
    // A string starting at `i` (on its quote) without escapes: its contents and the index
    // after the closing quote.
    let string = |i: usize| -> Option<(&str, usize)> {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let len = b
            .get(i + 1..)?
            .iter()
            .position(|&c| c == b'"' || c == b'\\')?;
        if b.get(i + 1 + len) != Some(&b'"') {
            return None;
        }
        Some((raw.get(i + 1..i + 1 + len)?, i + 2 + len))
    };
    let mut f = FlatProps::default();
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(i + 1);
    if b.get(i) == Some(&b'}') {
        return (ws(i + 1) == b.len()).then_some(f);
    }
    loop {
        let (key, next) = string(i)?;
        i = ws(next);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let (value, next) = string(ws(i + 1))?;
        let slot = match key {
            "packageName" => &mut f.package_name,
            "version" => &mut f.version,
            "versionRange" => &mut f.version_range,
            "group" => &mut f.group,
            "kind" => &mut f.kind,
            "label" => &mut f.label,
            _ => &mut None,
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(LooseStr(Ok(Cow::Borrowed(value))));
        i = ws(next);
        match b.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b'}') => return (ws(i + 1) == b.len()).then_some(f),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path gives what serde gives, or steps aside.
    #[test]
    fn flat_fast_agrees_with_serde() {
        let cases = [
            r#"{"packageName":"etcd","version":"0.9.4"}"#,
            r#" { "group" : "g.io" ,"version":"v1", "kind":"Foo","plural":"foos" } "#,
            r#"{}"#,
            r#"{"label":""}"#,
            r#"{"packageName":"a","packageName":"b"}"#,
            r#"{"other":"x","other":"y","version":"1"}"#,
            r#"{"version":1.10}"#,
            r#"{"version":"1\u002e0"}"#,
            r#"{"vers\u0069on":"1"}"#,
            r#"{"version":null,"kind":true}"#,
            r#"{"x":{"y":"z"},"version":"1"}"#,
            r#"["a"]"#,
            r#""a""#,
        ];
        for raw in cases {
            let serde: Result<Loose<FlatProps>, _> = serde_json::from_str(raw);
            if let Some(fast) = flat_fast(raw) {
                let Ok(Loose::Map(slow)) = serde else {
                    panic!("{raw}: the fast path accepted what serde does not read as a map");
                };
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{raw}");
            }
        }
        assert!(flat_fast(r#"{"packageName":"etcd","version":"0.9.4"}"#).is_some());
        assert!(flat_fast(r#"{"packageName":"a","packageName":"b"}"#).is_none());
        assert!(flat_fast(r#"{"version":1.10}"#).is_none());
    }
}
