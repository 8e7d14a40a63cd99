//! A bundle's properties, from its `olm.bundle` document to a [`BundleRec`]: the typed ones
//! (package, APIs, labels, requirements) checked and interned, constraints and alias forms
//! kept raw for the constraint parser, heavy ones dropped, kept or streamed as asked, the
//! rest opaque.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::convert::{BundleRec, Records};
use super::docs::{FlatProps, Kind, LooseStr, Prop, PropVal};
use super::heavy::{BUNDLE_OBJECT, Heavy};
use crate::catalog::error::{LoadError, WarningKind};
use crate::catalog::model::{OpaqueProperty, Origin, PackageRequirement};
use crate::range::VersionRange;
use crate::version::Version;

/// The field path of property `i`'s value.
pub(super) fn value_field(i: usize) -> String {
    format!("properties[{i}].value")
}

/// A required string inside a typed property's value.
fn flat_str<'a>(v: Option<LooseStr<'a>>, key: &str) -> Result<Cow<'a, str>, String> {
    match v {
        None => Err(format!("`{key}` is missing")),
        Some(LooseStr(Ok(s))) => Ok(s),
        Some(LooseStr(Err(found))) => Err(format!("`{key}` must be a string, found {found}")),
    }
}

/// A GVK property's value, interned in the file's table.
fn flat_gvk(recs: &mut Records, f: FlatProps<'_>) -> Result<u32, String> {
    let group = match f.group {
        None => Cow::Borrowed(""),
        g => flat_str(g, "group")?,
    };
    let version = flat_str(f.version, "version")?;
    let kind = flat_str(f.kind, "kind")?;
    Ok(recs.gvks.intern(&group, &version, &kind))
}

/// Accumulates a bundle's typed properties.
#[derive(Default)]
pub(super) struct BundleBuilder {
    /// (property index, packageName, version) of the `olm.package` property.
    pub(super) package: Option<(usize, String, String)>,
    provides: Vec<u32>,
    labels: Vec<String>,
    requires_packages: Vec<PackageRequirement>,
    requires_gvks: Vec<u32>,
    requires_labels: Vec<String>,
    constraints: Vec<Box<RawValue>>,
    constraint_sources: Vec<(String, String, Box<RawValue>)>,
    deprecated: bool,
    properties: Vec<OpaqueProperty>,
    /// Heavy values streamed so far (not in `properties`).
    streamed: usize,
}

impl BundleBuilder {
    pub(super) fn property(
        &mut self,
        recs: &mut Records,
        origin: &Origin,
        i: usize,
        p: Prop<'_>,
        heavy: &mut Heavy<'_>,
    ) -> Result<(), LoadError> {
        let Some(kind_name) = p.kind.filter(|k| !k.is_empty()) else {
            let msg = "property has no `type`; ignored".to_string();
            recs.warn(
                WarningKind::InvalidProperty,
                origin,
                format!("properties[{i}]"),
                msg,
            );
            return Ok(());
        };
        let kind = Kind::of(&kind_name);
        if kind == Kind::Deprecated {
            self.deprecated = true;
            return Ok(());
        }
        if matches!(p.value, PropVal::Missing) {
            let msg = format!("{kind_name} property has no value");
            recs.warn(
                WarningKind::PropertyWithoutValue,
                origin,
                value_field(i),
                msg,
            );
            if kind == Kind::Other {
                self.properties.push(OpaqueProperty {
                    kind: kind_name.into_owned(),
                    value: RawValue::NULL.to_owned(),
                });
            }
            return Ok(());
        }
        let alias = matches!(
            &*kind_name,
            "olm.all.required" | "olm.any.required" | "olm.none.required"
        );
        match kind {
            Kind::Constraint | Kind::Other if kind == Kind::Constraint || alias => {
                if let Some(raw) = p.value.into_raw() {
                    let field = format!("properties[{i}].value");
                    self.constraint_sources
                        .push((field, kind_name.to_string(), raw.clone()));
                    if kind == Kind::Constraint {
                        self.constraints.push(raw);
                    } else {
                        self.properties.push(OpaqueProperty {
                            kind: kind_name.into_owned(),
                            value: raw,
                        });
                    }
                }
                Ok(())
            }
            Kind::Constraint | Kind::Heavy | Kind::Other => {
                self.opaque(kind, kind_name, p.value, heavy, origin.document);
                Ok(())
            }
            _ => {
                let flat = p.value.into_flat();
                self.typed(recs, origin, (kind, &kind_name, i), flat)
            }
        }
    }

    fn opaque(
        &mut self,
        kind: Kind,
        kind_name: Cow<'_, str>,
        value: PropVal<'_>,
        heavy: &mut Heavy<'_>,
        document: usize,
    ) {
        if kind == Kind::Heavy {
            match heavy {
                Heavy::Keep => {}
                Heavy::KeepObjects if kind_name == BUNDLE_OBJECT => {}
                Heavy::Drop | Heavy::KeepObjects => return,
                Heavy::Stream(sink) => {
                    if let PropVal::Raw(raw) = value {
                        let position = self.properties.len() + self.streamed;
                        sink.value(document, position, &kind_name, raw.get());
                        self.streamed += 1;
                    }
                    return;
                }
            }
        }
        let Some(raw) = value.into_raw() else { return };
        if kind == Kind::Constraint {
            self.constraints.push(raw);
        } else {
            self.properties.push(OpaqueProperty {
                kind: kind_name.into_owned(),
                value: raw,
            });
        }
    }

    fn typed(
        &mut self,
        recs: &mut Records,
        origin: &Origin,
        (kind, kind_name, i): (Kind, &str, usize),
        flat: Result<FlatProps<'_>, String>,
    ) -> Result<(), LoadError> {
        let message = match flat.and_then(|f| self.apply(recs, kind, f, i)) {
            Ok(repairs) => {
                for r in repairs {
                    let msg = format!("{kind_name} versionRange repaired: {r}");
                    let field = format!("{}.versionRange", value_field(i));
                    recs.warn(WarningKind::RepairedRange, origin, field, msg);
                }
                return Ok(());
            }
            Err(message) => message,
        };
        let field = value_field(i);
        let provided = matches!(kind, Kind::Gvk | Kind::Label);
        if provided {
            let msg = format!("{kind_name} property ignored: {message}");
            recs.warn(WarningKind::InvalidProperty, origin, field, msg);
            return Ok(());
        }
        Err(LoadError::Invalid {
            origin: origin.clone(),
            field,
            message: format!("invalid {kind_name} property: {message}"),
        })
    }

    /// Records a typed property; returns the repairs made to its version range.
    fn apply(
        &mut self,
        recs: &mut Records,
        kind: Kind,
        f: FlatProps<'_>,
        i: usize,
    ) -> Result<Vec<String>, String> {
        match kind {
            Kind::Package => {
                let name = flat_str(f.package_name, "packageName")?.into_owned();
                let version = flat_str(f.version, "version")?.into_owned();
                match &self.package {
                    None => self.package = Some((i, name, version)),
                    Some((_, n, v)) if *n == name && *v == version => {}
                    Some((first, ..)) => {
                        return Err(format!(
                            "more than one olm.package property (first at properties[{first}])"
                        ));
                    }
                }
            }
            Kind::Gvk => self.provides.push(flat_gvk(recs, f)?),
            Kind::GvkRequired => self.requires_gvks.push(flat_gvk(recs, f)?),
            Kind::Label => self.labels.push(flat_str(f.label, "label")?.into_owned()),
            Kind::LabelRequired => {
                let label = flat_str(f.label, "label")?.into_owned();
                self.requires_labels.push(label);
            }
            Kind::PackageRequired => {
                let package = flat_str(f.package_name, "packageName")?.into_owned();
                let raw = flat_str(f.version_range, "versionRange")?;
                let (range, repairs) =
                    VersionRange::parse_tolerant(&raw).map_err(|e| e.to_string())?;
                self.requires_packages
                    .push(PackageRequirement { package, range });
                return Ok(repairs);
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    pub(super) fn finish(
        mut self,
        package: String,
        name: String,
        version: Version,
        image: Option<Cow<'_, str>>,
        origin: Origin,
    ) -> BundleRec {
        for v in [&mut self.provides, &mut self.requires_gvks] {
            v.sort();
            v.dedup();
        }
        for v in [&mut self.labels, &mut self.requires_labels] {
            v.sort();
            v.dedup();
        }
        BundleRec {
            package,
            name,
            version,
            image: image.filter(|i| !i.is_empty()).map(Cow::into_owned),
            provides: self.provides,
            labels: self.labels,
            requires_packages: self.requires_packages,
            requires_gvks: self.requires_gvks,
            requires_labels: self.requires_labels,
            constraints: self.constraints,
            constraint_sources: self.constraint_sources,
            deprecated: self.deprecated,
            properties: self.properties,
            origin,
        }
    }
}
