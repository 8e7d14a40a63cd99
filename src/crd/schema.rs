//! A CRD version's `openAPIV3Schema` as a JSON Schema (draft 4, which OpenAPI v3 schemas
//! follow), with Kubernetes' structural-schema rules applied, and custom resources checked
//! against it (docs/semantics.md §11):
//!
//! - `nullable: true` lets a value be `null` (else `null` fails the type);
//! - `x-kubernetes-int-or-string: true` takes an integer or a string;
//! - `x-kubernetes-preserve-unknown-fields` and unknown fields: a field the schema does not
//!   name is accepted (the API server prunes it, it does not reject it), so nothing is added;
//! - `x-kubernetes-embedded-resource: true`: its `metadata` is the API server's to check,
//!   not the schema's;
//! - at the root, `apiVersion`, `kind` and `metadata` are the API server's to check: the
//!   schema's words on them are left out;
//! - `format`, `x-kubernetes-validations` (CEL) and the other `x-kubernetes-*` keywords are
//!   not checked, as OLM's check of existing custom resources does not run them.

use serde_json::{Map, Value, json};

/// Keys whose value is one schema.
const ONE: &[&str] = &["items", "additionalProperties", "additionalItems", "not"];
/// Keys whose value is a list of schemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keys whose value maps names to schemas.
const MAP: &[&str] = &["properties", "patternProperties", "definitions"];
/// Keys kept as written (validation keywords of draft 4).
const KEPT: &[&str] = &[
    "type",
    "enum",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];
/// Fields at the root of every object that the API server checks itself.
const ROOT_FIELDS: &[&str] = &["apiVersion", "kind", "metadata"];

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The JSON Schema that checks what the API server's structural schema `schema` checks.
pub fn to_json_schema(schema: &Value) -> Value {
    let mut out = translate(schema);
    if let Value::Object(root) = &mut out {
        drop_fields(root, ROOT_FIELDS);
    }
    out
}

/// Removes `fields` from a node's `properties` and `required`.
fn drop_fields(node: &mut Map<String, Value>, fields: &[&str]) {
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        props.retain(|k, _| !fields.contains(&k.as_str()));
    }
    if let Some(Value::Array(req)) = node.get_mut("required") {
        req.retain(|r| r.as_str().is_none_or(|r| !fields.contains(&r)));
        if req.is_empty() {
            node.remove("required");
        }
    }
}

fn translate(schema: &Value) -> Value {
    let Value::Object(node) = schema else {
        // `true`/`false` schemas (additionalProperties) stay as they are.
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in node {
        let key = k.as_str();
        let value = if ONE.contains(&key) {
            match v {
                Value::Array(items) => Value::Array(items.iter().map(translate).collect()),
                v => translate(v),
            }
        } else if LIST.contains(&key) {
            match v {
                Value::Array(items) => Value::Array(items.iter().map(translate).collect()),
                v => v.clone(),
            }
        } else if MAP.contains(&key) {
            match v {
                Value::Object(m) => Value::Object(
                    m.iter()
                        .map(|(name, s)| (name.clone(), translate(s)))
                        .collect(),
                ),
                v => v.clone(),
            }
        } else if KEPT.contains(&key) {
            v.clone()
        } else if key == "pattern" {
            // Go's syntax, not JavaScript's: checked by `GoPattern`.
            out.insert(GO_PATTERN.into(), v.clone());
            continue;
        } else {
            continue;
        };
        out.insert(k.clone(), value);
    }
    if flag(node, "x-kubernetes-embedded-resource") {
        drop_fields(&mut out, &["metadata"]);
    }
    if flag(node, "x-kubernetes-int-or-string") {
        out.remove("type");
        let either = json!({"anyOf": [{"type": "integer"}, {"type": "string"}]});
        match out.get_mut("allOf") {
            Some(Value::Array(all)) => all.push(either),
            _ => {
                out.insert("allOf".into(), json!([either]));
            }
        }
    }
    let out = Value::Object(out);
    if flag(node, "nullable") {
        json!({"anyOf": [{"type": "null"}, out]})
    } else {
        out
    }
}

/// The keyword a `pattern` becomes: Kubernetes compiles it with Go's `regexp`.
const GO_PATTERN: &str = "x-deppy-go-pattern";

/// The longest value a message quotes; longer ones are cut, with their length.
pub const MAX_QUOTED: usize = 200;

/// The longest message kept whole (it may quote a value already cut).
const MAX_MESSAGE: usize = 4 * MAX_QUOTED;

/// `text` cut to [`MAX_QUOTED`] bytes (at a character boundary), saying how long it was.
pub fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    cut_to(text, MAX_QUOTED)
}

fn cut_to(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}… ({} bytes in all)", &text[..end], text.len()))
}

/// A `pattern`, as the API server checks it: Go's syntax, matched anywhere in a string.
struct GoPattern {
    pattern: String,
    re: super::gore::GoRegex,
}

impl<'i> jsonschema::Keyword<'i> for GoPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        if jsonschema::Keyword::is_valid(self, instance) {
            return Ok(());
        }
        Err(jsonschema::ValidationError::custom(format!(
            "{} does not match {:?}",
            cut(&instance.to_string()),
            self.pattern
        )))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        instance.as_str().is_none_or(|s| self.re.is_match(s))
    }
}

/// Compiles a `pattern` keyword; a pattern Go refuses makes the schema invalid.
fn go_pattern<'a>(
    _: &'a Map<String, Value>,
    value: &'a Value,
    _: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    let Some(pattern) = value.as_str() else {
        return Err(jsonschema::ValidationError::custom(format!(
            "pattern {} is not a string",
            cut(&value.to_string())
        )));
    };
    let re = super::gore::GoRegex::new(pattern)
        .map_err(|e| jsonschema::ValidationError::custom(format!("pattern: {e}")))?;
    Ok(Box::new(GoPattern {
        pattern: pattern.to_string(),
        re,
    }))
}

/// A compiled schema of one CRD version.
pub struct Schema {
    validator: jsonschema::Validator,
}

/// A custom resource the schema rejects: the failing field and why.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Rejection {
    /// The field, as a path from the object's root (`spec.replicas`, `spec.items[0]`);
    /// `(root)` for the object itself.
    pub field: String,
    /// What the schema says, in the validator's words.
    pub message: String,
}

impl Schema {
    /// Compiles a CRD version's `openAPIV3Schema` (structural rules applied); the
    /// validator's message when it cannot.
    pub fn compile(open_api_v3_schema: &Value) -> Result<Schema, String> {
        let schema = to_json_schema(open_api_v3_schema);
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .should_validate_formats(false)
            // Any other regular expression (`patternProperties`) in linear time too.
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .with_keyword(GO_PATTERN, go_pattern)
            .build(&schema)
            .map_err(|e| cut_to(&e.to_string(), MAX_MESSAGE).into_owned())?;
        Ok(Schema { validator })
    }

    /// Every way `object` fails the schema, sorted by field.
    pub fn rejections(&self, object: &Value) -> Vec<Rejection> {
        let mut out: Vec<Rejection> = self
            .validator
            .iter_errors(object)
            .map(|e| {
                let mut field = pointer_to_field(e.instance_path().as_str());
                if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind() {
                    let name = property
                        .as_str()
                        .map_or_else(|| property.to_string(), str::to_string);
                    field = match field.as_str() {
                        "(root)" => name,
                        f => format!("{f}.{name}"),
                    };
                }
                Rejection {
                    field,
                    message: cut_to(&e.to_string(), MAX_MESSAGE).into_owned(),
                }
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// True when `object` passes.
    pub fn accepts(&self, object: &Value) -> bool {
        self.validator.is_valid(object)
    }
}

/// `/spec/items/0/name` as `spec.items[0].name`; the empty pointer as `(root)`.
fn pointer_to_field(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    if out.is_empty() { "(root)".into() } else { out }
}

#[cfg(test)]
mod tests;
