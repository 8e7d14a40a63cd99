//! A document's `spec` and `status`, read straight into the typed parts of its kind when the
//! kind is known by then (as in everything `kubectl` writes), or kept as a value and
//! converted once the whole document is read.

use std::fmt;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny};

use super::{Head, record};
use crate::cluster::object::{
    CatalogSourceSpec, CsvSpec, CsvStatus, InstallPlanSpec, InstallPlanStatus, KindName,
    OperatorGroupSpec, OperatorGroupStatus, SubscriptionSpec, SubscriptionStatus,
};
use crate::cluster::v1::{
    ClusterCatalogSpec, ClusterCatalogStatus, ClusterExtensionSpec, ClusterExtensionStatus,
};

/// Which body a seed reads.
#[derive(Clone, Copy)]
pub(super) enum Part {
    Spec,
    Status,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Spec => "spec",
            Part::Status => "status",
        })
    }
}

/// A typed `spec`.
pub(super) enum Spec {
    Subscription(SubscriptionSpec),
    Csv(CsvSpec),
    CatalogSource(CatalogSourceSpec),
    OperatorGroup(OperatorGroupSpec),
    InstallPlan(InstallPlanSpec),
    ClusterCatalog(ClusterCatalogSpec),
    ClusterExtension(ClusterExtensionSpec),
}

/// A typed `status`.
pub(super) enum Status {
    Subscription(SubscriptionStatus),
    Csv(CsvStatus),
    OperatorGroup(OperatorGroupStatus),
    InstallPlan(InstallPlanStatus),
    ClusterExtension(ClusterExtensionStatus),
    ClusterCatalog(ClusterCatalogStatus),
    /// A kind whose status deppy does not read.
    Unread,
}

/// A body as read.
pub(super) enum Body {
    /// The document has none.
    Absent,
    /// Of a kind deppy does not read: skipped unbuilt.
    Ignored,
    /// Read into its kind's type.
    Spec(Spec),
    /// Read into its kind's type.
    Status(Status),
    /// Read before the document's kind was known: converted afterwards.
    Deferred(serde_json::Value),
}

/// The object's name for messages, from what the document said so far.
pub(super) fn head_name(head: &Head) -> Option<String> {
    let kind = head.kind.as_deref()?;
    let m = head.metadata.as_ref();
    let name = m.and_then(|m| m.name.as_deref()).unwrap_or("(no name)");
    Some(match m.and_then(|m| m.namespace.as_deref()) {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    })
}

/// Reads one body of the document whose head has been read so far.
pub(super) struct BodySeed<'h> {
    head: &'h Head,
    part: Part,
}

impl<'h> BodySeed<'h> {
    pub(super) fn new(head: &'h Head, part: Part) -> BodySeed<'h> {
        BodySeed { head, part }
    }

    /// The kind, when the document named both `apiVersion` and `kind` before this body;
    /// `Err` when it named them and deppy does not read that kind.
    fn kind(&self) -> Option<Result<KindName, ()>> {
        let (Some(a), Some(k)) = (&self.head.api_version, &self.head.kind) else {
            return None;
        };
        Some(KindName::of(a, k).ok_or(()))
    }
}

/// Deserializes `T`, recording the field that failed against the object.
fn typed<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    d: D,
    head: &Head,
    part: Part,
) -> Result<T, D::Error> {
    serde_path_to_error::deserialize(d).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." {
            part.to_string()
        } else {
            format!("{part}.{path}")
        };
        let inner = e.into_inner();
        record(head_name(head), field, inner.to_string());
        inner
    })
}

impl<'de> DeserializeSeed<'de> for BodySeed<'_> {
    type Value = Body;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Body, D::Error> {
        let kind = match self.kind() {
            None => return Ok(Body::Deferred(typed(d, self.head, self.part)?)),
            Some(Err(())) => {
                let api = self.head.api_version.as_deref().unwrap_or_default();
                let kind = self.head.kind.as_deref().unwrap_or_default();
                // A Pod's status may name the digest a registry pod ran (`super::pod`).
                let pod_status =
                    matches!(self.part, Part::Status) && crate::cluster::pod::is_pod(api, kind);
                let keep = crate::cluster::custom::keeps(api) || pod_status;
                if keep {
                    return Ok(Body::Deferred(typed(d, self.head, self.part)?));
                }
                IgnoredAny::deserialize(d)?;
                return Ok(Body::Ignored);
            }
            Some(Ok(k)) => k,
        };
        let (h, p) = (self.head, self.part);
        Ok(match (self.part, kind) {
            (Part::Spec, KindName::Subscription) => Body::Spec(Spec::Subscription(typed(d, h, p)?)),
            (Part::Spec, KindName::ClusterServiceVersion) => Body::Spec(Spec::Csv(typed(d, h, p)?)),
            (Part::Spec, KindName::CatalogSource) => {
                Body::Spec(Spec::CatalogSource(typed(d, h, p)?))
            }
            (Part::Spec, KindName::OperatorGroup) => {
                Body::Spec(Spec::OperatorGroup(typed(d, h, p)?))
            }
            (Part::Spec, KindName::InstallPlan) => Body::Spec(Spec::InstallPlan(typed(d, h, p)?)),
            (Part::Status, KindName::Subscription) => {
                Body::Status(Status::Subscription(typed(d, h, p)?))
            }
            (Part::Status, KindName::ClusterServiceVersion) => {
                Body::Status(Status::Csv(typed(d, h, p)?))
            }
            (Part::Status, KindName::OperatorGroup) => {
                Body::Status(Status::OperatorGroup(typed(d, h, p)?))
            }
            (Part::Status, KindName::InstallPlan) => {
                Body::Status(Status::InstallPlan(typed(d, h, p)?))
            }
            (Part::Spec, KindName::ClusterCatalog) => {
                Body::Spec(Spec::ClusterCatalog(typed(d, h, p)?))
            }
            (Part::Spec, KindName::ClusterExtension) => {
                Body::Spec(Spec::ClusterExtension(typed(d, h, p)?))
            }
            (Part::Status, KindName::ClusterExtension) => {
                Body::Status(Status::ClusterExtension(typed(d, h, p)?))
            }
            (Part::Status, KindName::ClusterCatalog) => {
                Body::Status(Status::ClusterCatalog(typed(d, h, p)?))
            }
            (Part::Status, KindName::CatalogSource) => {
                IgnoredAny::deserialize(d)?;
                Body::Status(Status::Unread)
            }
        })
    }
}

use serde::Deserialize;

fn convert<T: DeserializeOwned + Default>(
    v: Option<serde_json::Value>,
    part: Part,
) -> Result<T, String> {
    match v {
        None => Ok(T::default()),
        Some(v) => serde_path_to_error::deserialize(v).map_err(|e| {
            let path = e.path().to_string();
            if path == "." {
                format!("{part}: {}", e.inner())
            } else {
                format!("{part}.{path}: {}", e.inner())
            }
        }),
    }
}

impl Body {
    /// The typed spec of an object of `kind` (an absent spec is the default one).
    pub(super) fn into_spec(self, kind: KindName) -> Result<Spec, String> {
        let v = match self {
            Body::Spec(s) => return Ok(s),
            Body::Absent | Body::Ignored => None,
            Body::Deferred(v) => Some(v),
            Body::Status(_) => return Err("spec is not a spec".into()),
        };
        let p = Part::Spec;
        Ok(match kind {
            KindName::Subscription => Spec::Subscription(convert(v, p)?),
            KindName::ClusterServiceVersion => Spec::Csv(convert(v, p)?),
            KindName::CatalogSource => Spec::CatalogSource(convert(v, p)?),
            KindName::OperatorGroup => Spec::OperatorGroup(convert(v, p)?),
            KindName::InstallPlan => Spec::InstallPlan(convert(v, p)?),
            KindName::ClusterCatalog => Spec::ClusterCatalog(convert(v, p)?),
            KindName::ClusterExtension => Spec::ClusterExtension(convert(v, p)?),
        })
    }

    /// The typed status of an object of `kind` (an absent status is the default one).
    pub(super) fn into_status(self, kind: KindName) -> Result<Status, String> {
        let v = match self {
            Body::Status(s) => return Ok(s),
            Body::Absent | Body::Ignored => None,
            Body::Deferred(v) => Some(v),
            Body::Spec(_) => return Err("status is not a status".into()),
        };
        let p = Part::Status;
        Ok(match kind {
            KindName::Subscription => Status::Subscription(convert(v, p)?),
            KindName::ClusterServiceVersion => Status::Csv(convert(v, p)?),
            KindName::CatalogSource => Status::Unread,
            KindName::ClusterCatalog => Status::ClusterCatalog(convert(v, p)?),
            KindName::ClusterExtension => Status::ClusterExtension(convert(v, p)?),
            KindName::OperatorGroup => Status::OperatorGroup(convert(v, p)?),
            KindName::InstallPlan => Status::InstallPlan(convert(v, p)?),
        })
    }
}
