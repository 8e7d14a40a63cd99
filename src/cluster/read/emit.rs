//! A parsed document becomes an object: typed when deppy reads its kind, kept whole when
//! the CRD checks may need it, else only named and counted as skipped. Namespaced objects
//! without a namespace take the one given, as kubectl's `SetNamespace` visitor gives it;
//! names are made safe to print on one line.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::body::{Body, Spec, Status};
use super::doc::{Bodies, Doc, Reader};
use crate::cluster::budget::Stage;
use crate::cluster::custom::{self, Custom};
use crate::cluster::error::StateError;
use crate::cluster::object::{Kind, KindName, Object, Skipped, Source};

/// What one object costs besides its names and kept values: its place, its typed parts or
/// its entry among the skipped (measured: about 3 KiB a custom resource kept whole).
const OBJECT_COST: u64 = 1024;
/// What a kept value costs in memory for each byte counted of it (maps and their nodes).
const VALUE_COST: u64 = 8;

impl Reader<'_> {
    /// Turns a parsed document (or list item) into an object of the dump.
    pub(super) fn emit(&mut self, doc: Doc, source: Source) -> Result<(), StateError> {
        let Doc { head, bodies, size } = doc;
        let api_version = head.api_version.unwrap_or_default();
        let kind = head.kind.unwrap_or_default();
        let mut metadata = head.metadata.map(|m| *m).unwrap_or_default();
        escape_name(&mut metadata.name);
        escape_name(&mut metadata.namespace);
        let names = metadata.name.as_ref().map_or(0, String::len)
            + metadata.namespace.as_ref().map_or(0, String::len);
        let cost = size * VALUE_COST + names as u64 + source.file.len() as u64;
        let Some(which) = KindName::of(&api_version, &kind) else {
            let cost = cost + api_version.len() as u64 + kind.len() as u64;
            // Kept whole: its maps, its entry among the skipped, its identity (measured).
            let fixed = if custom::keeps(&api_version) {
                OBJECT_COST * 5 / 2
            } else {
                OBJECT_COST / 4
            };
            self.meter.take(Stage::Reading, cost + fixed)?;
            return self.other(api_version, kind, metadata, bodies, source);
        };
        self.meter.take(Stage::Reading, cost + OBJECT_COST)?;
        if which.is_namespaced() && metadata.namespace.as_deref().is_none_or(str::is_empty) {
            metadata.namespace = Some(self.default_namespace(which, &metadata, &source)?);
        }
        let object = describe(which, &metadata);
        let has_status = !matches!(bodies.status, Body::Absent);
        let fail = |e: String| StateError::Parse {
            at: Box::new(source.clone()),
            object: Some(object.clone()),
            message: e,
        };
        let mut kind = typed(which, bodies.spec, bodies.status).map_err(fail)?;
        escape_references(&mut kind);
        self.out.objects.push(Object {
            api_version,
            metadata,
            kind,
            source,
            has_status,
        });
        Ok(())
    }

    /// The namespace `-n` gives an object that names none; an error without one.
    fn default_namespace(
        &self,
        which: KindName,
        metadata: &ObjectMeta,
        source: &Source,
    ) -> Result<String, StateError> {
        self.opts.namespace.clone().ok_or_else(|| StateError::Invalid {
            at: Box::new(source.clone()),
            object: describe(which, metadata),
            field: "metadata.namespace".into(),
            message: format!(
                "missing: a {} is namespaced; give its namespace in the file, or with -n/--namespace NS as for `kubectl apply -n NS -f`",
                which.as_str()
            ),
        })
    }

    /// An object of a kind deppy does not read: counted as skipped, and kept whole when
    /// the CRD checks may need it.
    fn other(
        &mut self,
        api_version: String,
        kind: String,
        metadata: ObjectMeta,
        bodies: Bodies,
        source: Source,
    ) -> Result<(), StateError> {
        let name = match (&metadata.namespace, &metadata.name) {
            (Some(ns), Some(n)) => format!("{ns}/{n}"),
            (_, n) => n.clone().unwrap_or_default(),
        };
        if custom::keeps(&api_version) && !kind.is_empty() {
            let default = self.opts.namespace.clone();
            let c = whole(&api_version, &kind, &metadata, bodies, &source, default);
            self.out.custom.push(c);
        }
        self.out.skipped.push(Skipped {
            api_version,
            kind,
            name,
            source,
        });
        Ok(())
    }
}

/// An object kept whole (`crate::cluster::custom`).
fn whole(
    api_version: &str,
    kind: &str,
    metadata: &ObjectMeta,
    bodies: Bodies,
    source: &Source,
    default_namespace: Option<String>,
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
        namespace_default: default_namespace.filter(|_| namespace.is_empty()),
        namespace,
        name,
        revision: metadata.uid.clone().zip(metadata.resource_version.clone()),
        object: serde_json::Value::Object(object),
        source: source.clone(),
    }
}

/// `Kind namespace/name`, for messages.
pub(in crate::cluster) fn describe(kind: KindName, m: &ObjectMeta) -> String {
    let name = m.name.as_deref().unwrap_or("(no name)");
    match m.namespace.as_deref().filter(|ns| !ns.is_empty()) {
        Some(ns) => format!("{} {ns}/{name}", kind.as_str()),
        None => format!("{} {name}", kind.as_str()),
    }
}

/// `text` with each line break written as `\n` (and a carriage return as `\r`), so that a
/// name printed in a line stays on it.
pub(in crate::cluster) fn escape_newlines(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_string();
    }
    text.replace('\n', "\\n").replace('\r', "\\r")
}

fn escape_name(name: &mut Option<String>) {
    if let Some(n) = name.as_mut().filter(|n| n.contains(['\n', '\r'])) {
        *n = escape_newlines(n);
    }
}

fn escape(text: &mut String) {
    if text.contains(['\n', '\r']) {
        *text = escape_newlines(text);
    }
}

/// The names an object gives of others (a package, a catalog, a CSV), escaped as names are,
/// so that references still meet the objects they name.
fn escape_references(kind: &mut Kind) {
    let opt = |s: &mut Option<String>| {
        if let Some(s) = s {
            escape(s);
        }
    };
    match kind {
        Kind::Subscription(spec, status) => {
            for s in [
                &mut spec.name,
                &mut spec.channel,
                &mut spec.source,
                &mut spec.source_namespace,
                &mut spec.starting_csv,
                &mut status.installed_csv,
                &mut status.current_csv,
            ] {
                opt(s);
            }
            for r in [&mut status.install_plan_ref, &mut status.installplan]
                .into_iter()
                .flatten()
            {
                opt(&mut r.name);
            }
            for c in &mut status.conditions {
                opt(&mut c.message);
            }
        }
        Kind::ClusterServiceVersion(spec, _) => {
            opt(&mut spec.replaces);
            spec.skips.iter_mut().for_each(escape);
        }
        Kind::InstallPlan(spec, _) => spec.csv_names.iter_mut().for_each(escape),
        Kind::ClusterExtension(spec, status) => {
            opt(&mut spec.package_name);
            if let Some(c) = spec.source.as_mut().and_then(|s| s.catalog.as_mut()) {
                opt(&mut c.package_name);
                c.channels.iter_mut().for_each(escape);
            }
            for b in [
                status.install.as_mut().and_then(|i| i.bundle.as_mut()),
                status.installed_bundle.as_mut(),
            ]
            .into_iter()
            .flatten()
            {
                escape(&mut b.name);
            }
        }
        Kind::CatalogSource(_) | Kind::OperatorGroup(..) | Kind::ClusterCatalog(_) => {}
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
        (Spec::ClusterCatalog(s), Status::Unread) => Kind::ClusterCatalog(s),
        (Spec::ClusterExtension(s), Status::ClusterExtension(t)) => Kind::ClusterExtension(s, t),
        _ => return Err("spec and status of different kinds".into()),
    })
}

/// A parser's or visitor's message in deppy's words: serde-saphyr's advice about its own
/// options left out, a duplicate key named as everywhere else, and positions that point
/// inside a document (an alias's "defined at") dropped.
pub(super) fn clean(message: &str) -> String {
    let m = message.lines().next().unwrap_or_default().trim();
    let m = m.split(" (defined at line ").next().unwrap_or_default();
    let m = m.split(" (used at line ").next().unwrap_or_default();
    let m = strip_location(m);
    let m = m
        .strip_suffix(", set DuplicateKeyPolicy in Options if acceptable")
        .unwrap_or(m);
    match m.strip_prefix("duplicate mapping key: ") {
        Some(key) => format!("duplicate key `{key}`"),
        None => m.to_string(),
    }
}

fn strip_location(m: &str) -> &str {
    m.split_once(" at line ").map_or(m, |(h, _)| h)
}

/// A YAML document's error: a safety limit in words, else the parser's message with the
/// line in the file (`first_line` is the document's first line).
pub(super) fn yaml_message(e: &serde_saphyr::Error, first_line: usize) -> String {
    if crate::yaml::is_budget_breach(e) {
        return crate::yaml::budget_message(e);
    }
    let reason = clean(&crate::input::yaml_reason(e));
    match e.location() {
        Some(l) => format!(
            "{reason} (line {})",
            first_line + usize::try_from(l.line()).unwrap_or(1).saturating_sub(1)
        ),
        None => reason,
    }
}
