//! Which errors are about a place in an input file, and where: catalog load errors, request
//! errors, YAML or JSON syntax, fields of cluster and pipeline files, invalid fields of
//! cluster state objects, failed pipeline nodes.
//! Each becomes a [`Diagnosed`] with its message, its source lines and a help line.

use std::fmt;
use std::ops::Range;
use std::path::Path;

use deppy::advanced::catalog::{LoadError, locate};
use deppy::advanced::cluster::StateError;
use deppy::advanced::request::RequestError;
use deppy::pipeline::{ConfigError, NodeError, NodeState, PipelineConfig, RunFailure};

use super::Diagnosed;

/// Labels longer than this are shortened to their last clause, or left out (the message
/// above says it all): a label is never cut in the middle.
const MAX_LABEL: usize = 60;

/// `reason` as a label under the carets: whole, or its last clause (after the last `: `)
/// when that is a sentence of its own, or its first (before the first `, `), or none.
fn label(reason: &str) -> &str {
    let fits = |s: &str| s.chars().count() <= MAX_LABEL;
    if fits(reason) {
        return reason;
    }
    if let Some((_, tail)) = reason.rsplit_once(": ")
        && fits(tail)
        && tail.starts_with(|c: char| c.is_alphabetic())
    {
        return tail;
    }
    match reason.split_once(", ") {
        Some((head, _)) if fits(head) && !head.contains(": ") => head,
        _ => "",
    }
}

/// The diagnostic of one error of a chain, when it is about a place in an input file.
pub(super) fn diagnosed(cause: &(dyn std::error::Error + 'static)) -> Option<Diagnosed> {
    if let Some(d) = cause.downcast_ref::<Diagnosed>() {
        return Some(d.clone());
    }
    if let Some(e) = cause.downcast_ref::<LoadError>() {
        return Some(load_error(e));
    }
    if let Some(e) = cause.downcast_ref::<RequestError>() {
        return Some(request_error(e));
    }
    if let Some(StateError::Invalid {
        at, field, message, ..
    }) = cause.downcast_ref::<StateError>()
    {
        // An object of a List is an item of its document.
        let field = match at.item {
            Some(i) => format!("items[{i}].{field}"),
            None => field.clone(),
        };
        return Some(Diagnosed::new(cause.to_string()).at_file(
            &at.file,
            |t| locate(&at.file, t, at.document, Some(&field)),
            label(message),
        ));
    }
    if let Some(
        f @ NodeFailed {
            error: NodeError::Load(e),
            ..
        },
    ) = cause.downcast_ref::<NodeFailed>()
    {
        // The message names the node, as without a diagnostic.
        let mut d = load_error(e);
        d.message = f.to_string();
        return Some(d);
    }
    None
}

/// Byte offset of 1-based `line` and `column` (characters; 0 = the line's start).
fn offset_of(text: &str, line: usize, column: usize) -> Option<Range<usize>> {
    if line == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|t| t.find('\n')) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    let rest = text.get(start..)?;
    let line_text = rest.split('\n').next().unwrap_or_default();
    if column == 0 {
        return Some(start..start + line_text.len());
    }
    let at = line_text
        .char_indices()
        .nth(column - 1)
        .map_or(line_text.len(), |(b, _)| b);
    // A word (a key, a plain scalar) is underlined whole; anything else one character.
    let rest = line_text.get(at..).unwrap_or_default();
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let len = match rest.chars().next() {
        Some(c) if c.is_alphanumeric() => rest.find(|c| !word(c)).unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
        None => 0,
    };
    Some(start + at..start + at + len)
}

/// A failed pipeline node, with the typed error kept for the diagnostic.
#[derive(Debug)]
pub struct NodeFailed {
    node: String,
    error: NodeError,
    others: Vec<String>,
}

impl NodeFailed {
    /// The failure of a run; `states` names the other nodes that did not succeed.
    pub fn new(f: RunFailure, states: &[(String, NodeState)]) -> NodeFailed {
        let others = states
            .iter()
            .filter(|(n, s)| *n != f.node && *s != NodeState::Successful)
            .map(|(n, s)| format!("{n} {}", s.name()))
            .collect();
        NodeFailed {
            node: f.node,
            error: f.error,
            others,
        }
    }
}

impl fmt::Display for NodeFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pipeline node {:?} failed: {}", self.node, self.error)?;
        if !self.others.is_empty() {
            write!(f, " (other nodes: {})", self.others.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for NodeFailed {}

/// A help line for an invalid catalog field.
fn field_help(field: &str, message: &str) -> Option<String> {
    let help = if field.ends_with(".version") {
        "a bundle's version is a semantic version, e.g. 1.2.3 or 1.2.3-rc.1"
    } else if field.ends_with("versionRange") || field.ends_with("skipRange") {
        "a version range is written as OLM writes it, e.g. \">=1.0.0 <2.0.0\""
    } else if field == "properties" && message.contains("olm.package") {
        "a bundle needs a property {type: olm.package, value: {packageName, version}}"
    } else if message.contains("required field") {
        "see https://olm.operatorframework.io/docs/reference/file-based-catalogs/ for the fields of each schema"
    } else {
        return None;
    };
    Some(help.to_string())
}

fn load_error(e: &LoadError) -> Diagnosed {
    let message = e.to_string();
    match e {
        LoadError::Syntax {
            file,
            format,
            line,
            column,
            message: reason,
            ..
        } => {
            let help = if *format == "JSON" {
                "a .json catalog file holds JSON objects one after the other, one per document"
            } else {
                "a .yaml catalog file holds YAML documents separated by `---` lines"
            };
            Diagnosed::new(message)
                .at_file(file, |t| offset_of(t, *line, *column), label(reason))
                .help(help)
        }
        LoadError::Invalid {
            origin,
            field,
            message: reason,
        } => Diagnosed::new(message)
            .at_file(
                &origin.file,
                |t| locate(&origin.file, t, origin.document, Some(field)),
                label(reason),
            )
            .help_opt(field_help(field, reason)),
        LoadError::MissingSchema { origin } => Diagnosed::new(message)
            .at_file(
                &origin.file,
                |t| locate(&origin.file, t, origin.document, None),
                "this document has no `schema`",
            )
            .help(
                "give it `schema: olm.package`, `olm.channel`, `olm.bundle` or \
                 `olm.deprecations`; documents of other schemas are skipped",
            ),
        LoadError::Conflict { origin, first, .. } => Diagnosed::new(message)
            .at_file(
                &origin.file,
                |t| locate(&origin.file, t, origin.document, None),
                "defined again here",
            )
            .help(format!(
                "the first definition is at {first}; remove one of them"
            )),
        LoadError::MissingPath { .. } => Diagnosed::new(message)
            .help("a catalog is a .json or .yaml file, a directory of them, or bundle directories"),
        _ => Diagnosed::new(message),
    }
}

fn request_error(e: &RequestError) -> Diagnosed {
    match e {
        RequestError::Parse {
            file,
            location,
            field,
            reason,
            ..
        } => {
            let message = match location {
                Some((line, column)) => format!("{file}:{line}:{column}: {reason}"),
                None => format!("{file}: {reason}"),
            };
            let help = if reason.contains("unknown field") {
                Some("see \"Request file\" in docs/cli.md for the fields a request takes")
            } else if reason.contains("version range") {
                Some("a version range is written as OLM writes it, e.g. \">=1.0.0 <2.0.0\"")
            } else {
                None
            };
            Diagnosed::new(message)
                .at_file(
                    file,
                    |t| match (location, field) {
                        (Some((line, column)), _) => offset_of(t, *line, *column),
                        (None, Some(field)) => locate(file, t, 1, Some(field)),
                        (None, None) => None,
                    },
                    label(reason),
                )
                .help_opt(help.map(str::to_string))
        }
        RequestError::Spec { .. } => Diagnosed::new(e.to_string())
            .help("write PKG[/CHANNEL][@RANGE], e.g. etcd/alpha@\">=0.9.0 <1.0.0\""),
        _ => Diagnosed::new(e.to_string()),
    }
}

/// The diagnostic for a YAML or JSON file (`what` it should be) that does not parse.
pub fn yaml_syntax(file: &Path, text: &str, what: &str, e: &serde_saphyr::Error) -> Diagnosed {
    let name = file.display().to_string();
    let reason = deppy::advanced::input::yaml_reason(e);
    let range = e.location().and_then(|l| {
        let line = usize::try_from(l.line()).ok()?;
        let column = usize::try_from(l.column()).ok()?;
        offset_of(text, line, column)
    });
    Diagnosed::new(format!("{name}: not {what}: {reason}")).at(&name, text, range, label(&reason))
}

/// The diagnostic for a field of a YAML or JSON file: `field` is a path such as
/// `properties[0].value`, relative to the file's root.
pub fn field_error(file: &Path, text: &str, field: Option<&str>, message: String) -> Diagnosed {
    let name = file.display().to_string();
    let range = locate(&name, text, 1, field);
    Diagnosed::new(format!("{name}: {message}")).at(&name, text, range, field.map_or("here", |f| f))
}

/// The diagnostic for a pipeline configuration file that is not valid.
pub fn config_error(file: &Path, text: &str, e: &ConfigError) -> Diagnosed {
    if let ConfigError::Syntax(_) = e
        && let Err(se) = serde_saphyr::from_str_with_options::<PipelineConfig>(
            text,
            deppy::advanced::input::yaml_options(text.len()),
        )
    {
        return yaml_syntax(file, text, "a pipeline configuration", &se);
    }
    let node = match e {
        ConfigError::DuplicateName(n)
        | ConfigError::ProducerWithInputs(n)
        | ConfigError::Cycle(n)
        | ConfigError::Unfed(n, _) => Some((n, "name".to_string())),
        ConfigError::UnknownType { node, .. } => Some((node, "type".to_string())),
        ConfigError::Params { node, .. }
        | ConfigError::Missing { node, .. }
        | ConfigError::UnknownInput { node, .. }
        | ConfigError::ConsumerAsInput { node, .. }
        | ConfigError::Mismatch { node, .. } => Some((node, String::new())),
        _ => None,
    };
    let config = serde_saphyr::from_str_with_options::<PipelineConfig>(
        text,
        deppy::advanced::input::yaml_options(text.len()),
    )
    .ok();
    let field = node.and_then(|(name, sub)| {
        let nodes = &config.as_ref()?.nodes;
        let i = nodes.iter().rposition(|n| &n.name == name)?;
        let input = match e {
            ConfigError::UnknownInput { input, .. }
            | ConfigError::ConsumerAsInput { input, .. }
            | ConfigError::Mismatch { input, .. } => nodes
                .get(i)
                .and_then(|n| n.inputs.iter().position(|x| x == input))
                .map(|j| format!("inputs[{j}]")),
            _ => None,
        };
        Some(match (input, sub.is_empty()) {
            (Some(inp), _) => format!("nodes[{i}].{inp}"),
            (None, false) => format!("nodes[{i}].{sub}"),
            (None, true) => format!("nodes[{i}]"),
        })
    });
    let label = match e {
        ConfigError::UnknownType { .. } => "unknown type",
        ConfigError::UnknownInput { .. } => "names no node",
        ConfigError::ConsumerAsInput { .. } | ConfigError::Mismatch { .. } => "this input",
        _ => "this node",
    };
    let name = file.display().to_string();
    let range = locate(&name, text, 1, field.as_deref());
    Diagnosed::new(format!("{name}: {e}"))
        .at(&name, text, range.filter(|_| field.is_some()), label)
        .help("`deppy pipeline show` prints the default configuration to start from")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_of_lines_and_columns() {
        let t = "ab\ncdé\nf";
        assert_eq!(offset_of(t, 2, 3), Some(5..7));
        assert_eq!(offset_of("a: key_1 x", 1, 4), Some(3..8));
        assert_eq!(offset_of(t, 2, 0), Some(3..7));
        assert_eq!(offset_of(t, 3, 1), Some(8..9));
        assert_eq!(offset_of(t, 0, 1), None);
    }
}
