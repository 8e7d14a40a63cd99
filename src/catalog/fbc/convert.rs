//! From parsed documents to owned per-catalog records, with warnings for tolerated mess and
//! errors for what cannot be loaded. A bundle's properties are converted in `bundle_props`.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::bundle_props::{BundleBuilder, value_field};
use super::docs::{Doc, EntryDoc, Prop};
use super::gvk_table::{GvkTable, shift};
use super::heavy::Heavy;
use super::parse::is_known_schema;
use crate::catalog::error::{LoadError, Warning, WarningKind};
use crate::catalog::model::{
    ChannelEntry, DeprecationRef, OpaqueProperty, Origin, PackageRequirement,
};
use crate::range::VersionRange;
use crate::version::Version;

/// An `olm.package` document.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct PackageRec {
    pub name: String,
    pub default_channel: Option<String>,
    pub origin: Origin,
}

/// An `olm.channel` document (entries' `bundle` not yet filled).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct ChannelRec {
    pub package: String,
    pub name: String,
    pub entries: Vec<ChannelEntry>,
    pub origin: Origin,
}

/// An `olm.bundle` document with typed properties; its GVKs are indices into the
/// [`Records::gvks`] table of the records holding it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct BundleRec {
    pub package: String,
    pub name: String,
    pub version: Version,
    pub image: Option<String>,
    pub provides: Vec<u32>,
    pub labels: Vec<String>,
    pub requires_packages: Vec<PackageRequirement>,
    pub requires_gvks: Vec<u32>,
    pub requires_labels: Vec<String>,
    #[serde(with = "super::cache::raw_values")]
    pub constraints: Vec<Box<RawValue>>,
    /// Every requirement-stating property to parse as a constraint: (field, type, raw value).
    #[serde(with = "super::cache::raw_sources")]
    pub constraint_sources: Vec<(String, String, Box<RawValue>)>,
    pub deprecated: bool,
    #[serde(with = "super::cache::raw_properties")]
    pub properties: Vec<OpaqueProperty>,
    pub origin: Origin,
}

/// One `olm.deprecations` entry.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct DeprecationRec {
    pub package: String,
    pub reference: DeprecationRef,
    pub message: String,
}

/// Everything read from the files of one catalog (or one file).
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Records {
    pub packages: Vec<PackageRec>,
    pub channels: Vec<ChannelRec>,
    /// Boxed: a record is large (hundreds of bytes), and records move from file to catalog
    /// to set and through a sort; a box moves as one pointer.
    #[allow(clippy::vec_box)]
    pub bundles: Vec<Box<BundleRec>>,
    pub deprecations: Vec<DeprecationRec>,
    pub warnings: Vec<Warning>,
    /// The GVKs the bundles provide or require, each once per file.
    pub gvks: GvkTable,
}

/// Adds `offset` to every GVK index of `b` (its file's table was appended after `offset`).
fn shift_gvks(b: &mut BundleRec, offset: u32) {
    if offset != 0 {
        shift(&mut b.provides, offset);
        shift(&mut b.requires_gvks, offset);
    }
}

impl Records {
    /// Makes room for the records of `files` (to be appended next), so that appending them
    /// never regrows a vector.
    pub(crate) fn reserve_for<'a>(&mut self, files: impl Iterator<Item = &'a Records> + Clone) {
        let sum = |n: fn(&Records) -> usize| files.clone().map(n).sum::<usize>();
        self.packages.reserve_exact(sum(|r| r.packages.len()));
        self.channels.reserve_exact(sum(|r| r.channels.len()));
        self.bundles.reserve_exact(sum(|r| r.bundles.len()));
        self.deprecations
            .reserve_exact(sum(|r| r.deprecations.len()));
        self.warnings.reserve_exact(sum(|r| r.warnings.len()));
        self.gvks.list.reserve_exact(sum(|r| r.gvks.list.len()));
    }

    /// Appends copies of another file's records.
    pub(crate) fn extend_from(&mut self, other: &Records) {
        let offset = self.gvks.len();
        self.packages.extend_from_slice(&other.packages);
        self.channels.extend_from_slice(&other.channels);
        self.bundles.extend(other.bundles.iter().map(|b| {
            let mut b = b.clone();
            shift_gvks(&mut b, offset);
            b
        }));
        self.deprecations.extend_from_slice(&other.deprecations);
        self.warnings.extend_from_slice(&other.warnings);
        self.gvks.list.extend_from_slice(&other.gvks.list);
    }

    /// Appends another file's records.
    pub fn extend(&mut self, other: Records) {
        let offset = self.gvks.len();
        self.packages.extend(other.packages);
        self.channels.extend(other.channels);
        self.bundles.extend(other.bundles.into_iter().map(|mut b| {
            shift_gvks(&mut b, offset);
            b
        }));
        self.deprecations.extend(other.deprecations);
        self.warnings.extend(other.warnings);
        self.gvks.list.extend(other.gvks.list);
    }

    /// Ends reading a file.
    pub(crate) fn finish_file(&mut self) {
        self.gvks.finish();
    }

    pub(super) fn warn(
        &mut self,
        kind: WarningKind,
        origin: &Origin,
        field: String,
        message: String,
    ) {
        self.warnings
            .push(Warning::new(kind, origin, field, message));
    }

    /// Adds one document.
    pub fn add<'a, P: Into<Prop<'a>>>(
        &mut self,
        origin: Origin,
        doc: Doc<'a, P>,
        heavy: &mut Heavy<'_>,
    ) -> Result<(), LoadError> {
        let Some(schema) = doc.schema.as_deref() else {
            return Err(LoadError::MissingSchema { origin });
        };
        match schema {
            "olm.package" => self.add_package(origin, doc),
            "olm.channel" => self.add_channel(origin, doc),
            "olm.bundle" => self.add_bundle(origin, doc, heavy),
            "olm.deprecations" => self.add_deprecations(origin, doc),
            other => {
                debug_assert!(!is_known_schema(other));
                log::debug!("{origin}: skipping document of unknown schema {other:?}");
                Ok(())
            }
        }
    }

    fn add_package<P>(&mut self, origin: Origin, doc: Doc<'_, P>) -> Result<(), LoadError> {
        let name = required(&origin, "name", doc.name)?;
        let default_channel = doc.default_channel.filter(|c| !c.is_empty());
        if default_channel.is_none() {
            let msg = format!("package {name:?} has no default channel");
            self.warn(
                WarningKind::MissingDefaultChannel,
                &origin,
                "defaultChannel".into(),
                msg,
            );
        }
        self.packages.push(PackageRec {
            name,
            default_channel: default_channel.map(Cow::into_owned),
            origin,
        });
        Ok(())
    }

    fn add_channel<P>(&mut self, origin: Origin, doc: Doc<'_, P>) -> Result<(), LoadError> {
        let package = required(&origin, "package", doc.package)?;
        let name = required(&origin, "name", doc.name)?;
        let count = doc.entries.as_ref().map_or(0, Vec::len);
        if count > super::limits::MAX_CHANNEL_ENTRIES {
            return Err(LoadError::Invalid {
                origin,
                field: "entries".into(),
                message: format!(
                    "channel {name:?} of package {package:?} lists {} entries, over the limit of {} per channel",
                    super::limits::thousands(count as u64),
                    super::limits::thousands(super::limits::MAX_CHANNEL_ENTRIES as u64)
                ),
            });
        }
        let mut entries: Vec<ChannelEntry> = Vec::new();
        // Names as the document has them: borrowed from the file, not copied.
        let mut seen: rustc_hash::FxHashSet<Cow<'_, str>> = rustc_hash::FxHashSet::default();
        for (i, e) in doc.entries.unwrap_or_default().into_iter().enumerate() {
            let key = e.name.clone().unwrap_or_default();
            let entry = self.channel_entry(&origin, i, e)?;
            if !seen.insert(key) {
                let msg = format!(
                    "channel {name:?} lists {:?} twice; the first entry is kept",
                    entry.name
                );
                self.warn(
                    WarningKind::DuplicateEntry,
                    &origin,
                    format!("entries[{i}]"),
                    msg,
                );
                continue;
            }
            entries.push(entry);
        }
        self.channels.push(ChannelRec {
            package,
            name,
            entries,
            origin,
        });
        Ok(())
    }

    fn channel_entry(
        &mut self,
        origin: &Origin,
        i: usize,
        e: EntryDoc<'_>,
    ) -> Result<ChannelEntry, LoadError> {
        let name = required(origin, &format!("entries[{i}].name"), e.name)?;
        let skip_range = match e.skip_range.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => self.parse_skip_range(origin, i, &name, raw),
        };
        Ok(ChannelEntry {
            replaces: e.replaces.filter(|r| !r.is_empty()).map(Cow::into_owned),
            skips: e
                .skips
                .unwrap_or_default()
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect(),
            skip_range,
            bundle: None,
            name,
        })
    }

    fn parse_skip_range(
        &mut self,
        origin: &Origin,
        i: usize,
        name: &str,
        raw: &str,
    ) -> Option<VersionRange> {
        let field = format!("entries[{i}].skipRange");
        match VersionRange::parse_tolerant(raw) {
            Ok((range, repairs)) => {
                for r in repairs {
                    let msg = format!("entry {name:?}: skipRange {raw:?} repaired: {r}");
                    self.warn(WarningKind::RepairedRange, origin, field.clone(), msg);
                }
                Some(range)
            }
            Err(e) => {
                let msg = format!("entry {name:?}: skipRange ignored: {e}");
                self.warn(WarningKind::InvalidSkipRange, origin, field, msg);
                None
            }
        }
    }

    fn add_deprecations<P>(&mut self, origin: Origin, doc: Doc<'_, P>) -> Result<(), LoadError> {
        let package = required(&origin, "package", doc.package)?;
        for (i, e) in doc.entries.unwrap_or_default().into_iter().enumerate() {
            let field = format!("entries[{i}].reference");
            let reference = match e.reference {
                None => Err("entry has no reference".to_string()),
                Some(r) => deprecation_ref(r.schema.as_deref(), r.name),
            };
            match reference {
                Ok(reference) => self.deprecations.push(DeprecationRec {
                    package: package.clone(),
                    reference,
                    message: e.message.map(Cow::into_owned).unwrap_or_default(),
                }),
                Err(msg) => self.warn(WarningKind::InvalidDeprecation, &origin, field, msg),
            }
        }
        Ok(())
    }

    fn add_bundle<'a, P: Into<Prop<'a>>>(
        &mut self,
        origin: Origin,
        doc: Doc<'a, P>,
        heavy: &mut Heavy<'_>,
    ) -> Result<(), LoadError> {
        let package = required(&origin, "package", doc.package)?;
        let name = required(&origin, "name", doc.name)?;
        let mut b = BundleBuilder::default();
        for (i, p) in doc.properties.unwrap_or_default().into_iter().enumerate() {
            b.property(self, &origin, i, p.into(), heavy)?;
        }
        let Some((index, pkg_name, version)) = b.package.take() else {
            return Err(LoadError::Invalid {
                origin,
                field: "properties".into(),
                message: format!("bundle {name:?} has no olm.package property, so no version"),
            });
        };
        let version = Version::parse(&version).map_err(|e| LoadError::Invalid {
            origin: origin.clone(),
            field: format!("{}.version", value_field(index)),
            message: format!("bundle {name:?}: {e}"),
        })?;
        if pkg_name != package {
            let msg = format!(
                "bundle {name:?} is in package {package:?} but its olm.package property says {pkg_name:?}"
            );
            let field = format!("{}.packageName", value_field(index));
            self.warn(WarningKind::PackageNameMismatch, &origin, field, msg);
        }
        let rec = b.finish(package, name, version, doc.image, origin);
        self.bundles.push(Box::new(rec));
        Ok(())
    }
}

fn deprecation_ref(
    schema: Option<&str>,
    name: Option<Cow<'_, str>>,
) -> Result<DeprecationRef, String> {
    let name = name.filter(|n| !n.is_empty()).map(Cow::into_owned);
    match (schema, name) {
        (Some("olm.package"), _) => Ok(DeprecationRef::Package),
        (Some("olm.channel"), Some(n)) => Ok(DeprecationRef::Channel(n)),
        (Some("olm.bundle"), Some(n)) => Ok(DeprecationRef::Bundle(n)),
        (Some("olm.channel" | "olm.bundle"), None) => Err("reference has no name".into()),
        (other, _) => Err(format!("unknown reference schema {other:?}")),
    }
}

fn required(origin: &Origin, field: &str, v: Option<Cow<'_, str>>) -> Result<String, LoadError> {
    match v {
        Some(s) if !s.is_empty() => Ok(s.into_owned()),
        _ => Err(LoadError::Invalid {
            origin: origin.clone(),
            field: field.to_string(),
            message: "required field is missing or empty".into(),
        }),
    }
}
