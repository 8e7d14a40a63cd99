//! What the user asks for: catalogs, required packages, installed bundles, and options.
//! Read from YAML or JSON (`deppy resolve request.yaml`) or built in code.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::constraint::{AdminEntry, CelCache, Cluster as ClusterNode, ConstraintError, Limits};
use crate::range::VersionRange;

/// A resolution request.
///
/// Built in code, or read from a request file (`Request::from_file`, the format of
/// `deppy resolve --request`):
///
/// ```
/// use deppy::{Request, Requirement};
///
/// let request = Request {
///     require: vec![Requirement::from_spec("etcd/stable@>=0.9.0")?],
///     ..Request::default()
/// };
/// assert_eq!(request.require[0].channel.as_deref(), Some("stable"));
///
/// let from_file = Request::from_file("tests/scenarios/deprecated-only-provider-etcd/request.yaml".as_ref())?;
/// assert!(!from_file.require.is_empty());
/// # Ok::<(), deppy::advanced::request::RequestError>(())
/// ```
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Request {
    /// Accepted so a request reads like a Kubernetes object (`deppy.io/v1alpha1`).
    #[serde(default)]
    pub api_version: Option<String>,
    /// Accepted so a request reads like a Kubernetes object (`Request`).
    #[serde(default)]
    pub kind: Option<String>,
    /// Catalogs to load; paths are relative to the request file.
    #[serde(default)]
    pub catalogs: Vec<CatalogRef>,
    /// Packages that must be installed.
    #[serde(default)]
    pub require: Vec<Requirement>,
    /// What the cluster runs now.
    #[serde(default)]
    pub installed: Vec<InstalledBundle>,
    /// Every installed package stays installed (OLM v0 behaviour).
    #[serde(default)]
    pub keep_installed: bool,
    /// Admin constraints: `{action: require|conflict, failureMessage?, <predicate>}` or
    /// `{prohibit: {package|bundle|channel|catalog}}` (see [`crate::constraint::AdminEntry`]).
    #[serde(default)]
    pub constraints: Vec<serde_json::Value>,
    /// The cluster node: `{properties, constraints}` or the `olm-runtime-constraints`
    /// ConfigMap (see [`crate::constraint::Cluster`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<serde_json::Value>,
    /// Catalogs in the namespace being resolved. At equal priority, a dependency prefers
    /// them over every other catalog, as OLM prefers a Subscription's own namespace over the
    /// global catalog namespace (docs/semantics.md §5.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_catalogs: Vec<String>,
}

/// A catalog named in a request: a file or directory (`path`), or an image (`image`).
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CatalogRef {
    /// Name; defaults to the last path component, or the image repository's.
    #[serde(default)]
    pub name: Option<String>,
    /// File or directory (empty when `image` is given).
    #[serde(default, skip_serializing_if = "is_empty_path")]
    pub path: PathBuf,
    /// An image whose catalog to pull: `registry/repo:tag`, `registry/repo@sha256:…`, or with a
    /// transport (`docker://`, `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]`); instead of `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Priority; higher is preferred.
    #[serde(default)]
    pub priority: i32,
}

fn is_empty_path(p: &std::path::Path) -> bool {
    p.as_os_str().is_empty()
}

/// A required package.
///
/// ```
/// use deppy::Requirement;
///
/// let r = Requirement::from_spec("vault/stable@<1.1.0")?;
/// assert_eq!((r.package.as_str(), r.channel.as_deref()), ("vault", Some("stable")));
/// assert!(Requirement::from_spec("vault@not-a-range").is_err());
/// # Ok::<(), deppy::advanced::request::RequestError>(())
/// ```
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Requirement {
    /// Package name.
    pub package: String,
    /// Only this channel.
    #[serde(default)]
    pub channel: Option<String>,
    /// Only versions in this range (OLM range syntax).
    #[serde(default)]
    pub version_range: Option<VersionRange>,
    /// Exactly this bundle (by name; may be a skipped entry).
    #[serde(default)]
    pub bundle: Option<String>,
    /// Only from this catalog.
    #[serde(default)]
    pub catalog: Option<String>,
    /// How explanations name this requirement, e.g. `subscription operators/etcd`; without
    /// it they say "you require …".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The name of OLM's virtual catalog of installed CSVs. An installed bundle whose `catalog`
/// is `@existing` is never matched to a catalog bundle of the same name: it is a bundle of
/// its own, with the properties listed for it (docs/semantics.md §7).
pub const EXISTING_CATALOG: &str = "@existing";

/// An installed bundle.
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstalledBundle {
    /// Bundle name.
    pub bundle: String,
    /// Package name: optional when a catalog has the bundle or its properties carry an
    /// `olm.package` property.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Installed version: optional as `package` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<crate::version::Version>,
    /// Catalog it came from, when known; [`EXISTING_CATALOG`] for a bundle that is matched
    /// to no catalog bundle.
    #[serde(default)]
    pub catalog: Option<String>,
    /// Its properties (`{type, value}`), every one of which counts when no catalog has the
    /// bundle: provided APIs and labels, package, API and label requirements, constraints.
    #[serde(default)]
    pub properties: Vec<serde_json::Value>,
    /// It stays exactly as installed: no requirement moves it, whatever `keepInstalled`
    /// says (OLM: a CSV that no Subscription references).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
}

/// A request file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a valid request.
    #[error("{}", match location {
        Some((line, column)) => format!("{file}:{line}:{column}: {reason}"),
        None => format!("{file}: {message}"),
    })]
    Parse {
        /// The file.
        file: String,
        /// What is wrong, with line and field when known.
        message: String,
        /// 1-based line and column of the error, when the parser gives them.
        location: Option<(usize, usize)>,
        /// Path of the offending field, when known (e.g. `constraints[0].cel.rule`).
        field: Option<String>,
        /// What is wrong alone: no file, location or source snippet.
        reason: String,
    },
    /// The file could not be read: missing, too large, not UTF-8 (see [`crate::advanced::input`]).
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// A requirement string on the command line is malformed.
    #[error("invalid requirement {spec:?}: {message}")]
    Spec {
        /// The string.
        spec: String,
        /// What is wrong.
        message: String,
    },
    /// A request field is valid syntax but not supported by this version.
    #[error("{field}: {message}")]
    Unsupported {
        /// The field.
        field: String,
        /// Why.
        message: String,
    },
}

impl Request {
    /// Reads a request from a YAML or JSON file; catalog paths become relative to its folder.
    pub fn from_file(path: &Path) -> Result<Request, RequestError> {
        let file = path.display().to_string();
        let text = crate::input::read_text(path)?;
        let mut req = Request::parse_detailed(&text).map_err(|p| RequestError::Parse {
            message: p.message.replace("<input>", &file),
            file: file.clone(),
            location: p.location,
            field: p.field,
            reason: p.reason,
        })?;
        let base = path.parent().unwrap_or(Path::new(""));
        for c in &mut req.catalogs {
            if c.path.is_relative() && !c.path.as_os_str().is_empty() {
                let rel: PathBuf = c
                    .path
                    .components()
                    .filter(|x| !matches!(x, std::path::Component::CurDir))
                    .collect();
                c.path = base.join(rel);
            }
        }
        Ok(req)
    }

    /// Parses request text (JSON when it starts with `{`, else YAML).
    pub fn parse(text: &str) -> Result<Request, String> {
        Request::parse_detailed(text).map_err(|p| p.message)
    }

    /// As [`Request::parse`], with the error's location or field.
    fn parse_detailed(text: &str) -> Result<Request, ParseProblem> {
        let req: Request = if text.trim_start().starts_with('{') {
            crate::input::check_json_keys(text)
                .and_then(|()| serde_json::from_str(text))
                .map_err(|e| {
                    let message = e.to_string();
                    ParseProblem {
                        location: (e.line() > 0).then(|| (e.line(), e.column())),
                        field: None,
                        reason: strip_at_line(&message),
                        message,
                    }
                })?
        } else {
            let options = crate::input::yaml_options(text.len());
            serde_saphyr::from_str_with_options(text, options).map_err(|e| {
                let location = e.location().and_then(|l| {
                    let line = usize::try_from(l.line()).ok()?;
                    let column = usize::try_from(l.column()).ok()?;
                    (line > 0).then_some((line, column))
                });
                let reason = crate::input::yaml_reason(&e);
                ParseProblem {
                    message: match location {
                        Some((line, column)) => format!("{reason} at line {line} column {column}"),
                        None => reason.clone(),
                    },
                    location,
                    field: None,
                    reason,
                }
            })?
        };
        req.check_supported()?;
        Ok(req)
    }

    /// Checks the admin and cluster constraints parse (errors name the field).
    fn check_supported(&self) -> Result<(), ParseProblem> {
        let problem = |e: ConstraintError| ParseProblem {
            message: e.to_string(),
            location: None,
            field: e.path().map(str::to_string),
            reason: e.to_string(),
        };
        self.admin_constraints().map_err(problem)?;
        self.cluster_node().map_err(problem)?;
        for (i, c) in self.catalogs.iter().enumerate() {
            let message = match (c.path.as_os_str().is_empty(), &c.image) {
                (true, None) => "a catalog needs `path` or `image`".to_string(),
                (false, Some(_)) => "a catalog has `path` or `image`, not both".to_string(),
                (true, Some(image)) => match crate::image::ImageRef::parse(image) {
                    Ok(_) => continue,
                    Err(e) => e.to_string(),
                },
                (false, None) => continue,
            };
            return Err(ParseProblem {
                field: Some(format!("catalogs[{i}]")),
                reason: message.clone(),
                message: format!("catalogs[{i}]: {message}"),
                location: None,
            });
        }
        Ok(())
    }

    /// The request's admin constraints, parsed.
    pub fn admin_constraints(&self) -> Result<Vec<AdminEntry>, ConstraintError> {
        let mut cache = CelCache::new();
        AdminEntry::list_from_values(&self.constraints, &Limits::default(), &mut cache)
            .map_err(|e| e.prefixed("constraints"))
    }

    /// The request's cluster node, parsed (None when the request names none).
    pub fn cluster_node(&self) -> Result<Option<ClusterNode>, ConstraintError> {
        let Some(v) = self.cluster.as_ref().filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let mut cache = CelCache::new();
        ClusterNode::from_value(v, &Limits::default(), &mut cache)
            .map(Some)
            .map_err(|e| e.prefixed("cluster"))
    }
}

/// Why request text does not parse (see [`RequestError::Parse`]).
struct ParseProblem {
    message: String,
    location: Option<(usize, usize)>,
    field: Option<String>,
    reason: String,
}

/// A parser's message without its trailing ` at line L, column C` (or ` at line L column C`).
fn strip_at_line(message: &str) -> String {
    match message.rsplit_once(" at line ") {
        Some((head, tail)) if tail.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            head.to_string()
        }
        _ => message.to_string(),
    }
}

impl Requirement {
    /// Parses `PKG[/CHANNEL][@RANGE]` as given to `--require`.
    pub fn from_spec(spec: &str) -> Result<Requirement, RequestError> {
        let err = |message: &str| RequestError::Spec {
            spec: spec.to_string(),
            message: message.to_string(),
        };
        let (head, range) = match spec.split_once('@') {
            Some((h, r)) => (h, Some(r)),
            None => (spec, None),
        };
        let (package, channel) = match head.split_once('/') {
            Some((p, c)) => (p, Some(c)),
            None => (head, None),
        };
        if package.is_empty() {
            return Err(err("the package name is empty"));
        }
        if channel.is_some_and(str::is_empty) {
            return Err(err("the channel name after '/' is empty"));
        }
        let version_range = range
            .map(|r| VersionRange::parse(r).map_err(|e| err(&e.to_string())))
            .transpose()?;
        Ok(Requirement {
            package: package.to_string(),
            channel: channel.map(str::to_string),
            version_range,
            ..Requirement::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_request() {
        let text = r#"
apiVersion: deppy.io/v1alpha1
kind: Request
catalogs:
  - {name: community, path: ./community, priority: 0}
require:
  - package: etcd
    channel: stable
    versionRange: ">=0.9.0 <1.0.0"
    bundle: etcdoperator.v0.9.4
    catalog: community
installed:
  - {bundle: etcdoperator.v0.9.2, package: etcd, version: 0.9.2, catalog: community, properties: []}
keepInstalled: false
constraints: []
cluster: {properties: [], constraints: []}
"#;
        let r = Request::parse(text).unwrap();
        assert_eq!(r.require[0].package, "etcd");
        assert_eq!(r.require[0].channel.as_deref(), Some("stable"));
        assert_eq!(
            r.installed[0].version.as_ref().map(ToString::to_string),
            Some("0.9.2".to_string())
        );
        assert_eq!(r.catalogs[0].name.as_deref(), Some("community"));
    }

    #[test]
    fn json_requests_work_too() {
        let r =
            Request::parse(r#"{"require": [{"package": "a"}], "keepInstalled": true}"#).unwrap();
        assert!(r.keep_installed);
    }

    #[test]
    fn unknown_fields_are_named() {
        let e = Request::parse("require:\n  - package: a\n    chanel: x\n").unwrap_err();
        assert!(e.contains("chanel"), "{e}");
    }

    #[test]
    fn file_errors_carry_location_field_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.yaml");
        std::fs::write(&path, "require:\n  - package: a\n    chanel: x\n").unwrap();
        match Request::from_file(&path).unwrap_err() {
            RequestError::Parse {
                location, reason, ..
            } => {
                assert_eq!(location, Some((3, 5)));
                assert!(reason.starts_with("unknown field `chanel`"), "{reason}");
                assert!(!reason.contains("line 3"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let cel = "constraints:\n  - {action: require, cel: {rule: '1 +'}}\n";
        std::fs::write(&path, cel).unwrap();
        match Request::from_file(&path).unwrap_err() {
            RequestError::Parse {
                location, field, ..
            } => {
                assert_eq!(location, None);
                assert_eq!(field.as_deref(), Some("constraints[0].cel.rule"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_ranges_are_errors() {
        let e = Request::parse("require:\n  - package: a\n    versionRange: '>=>1'\n").unwrap_err();
        assert!(e.contains("versionRange") || e.contains(">=>1"), "{e}");
    }

    #[test]
    fn specs() {
        let r = Requirement::from_spec("etcd/alpha@>=0.9.0 <1.0.0").unwrap();
        assert_eq!(r.package, "etcd");
        assert_eq!(r.channel.as_deref(), Some("alpha"));
        assert_eq!(r.version_range.unwrap().raw(), ">=0.9.0 <1.0.0");
        assert!(Requirement::from_spec("/x").is_err());
        assert!(Requirement::from_spec("a@>>").is_err());
    }
}
