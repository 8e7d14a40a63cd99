//! A document's `spec` and `status`, read straight into the typed parts of its kind when the
//! kind is known by then (as in everything `kubectl` writes), or kept as a value and
//! converted once the whole document is read.

use std::fmt;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny};

use super::doc::{Head, record};
use super::value::{Counted, Counter};
use crate::cluster::object::{
    CatalogSourceSpec, CsvSpec, CsvStatus, InstallPlanSpec, InstallPlanStatus, KindName,
    OperatorGroupSpec, OperatorGroupStatus, SubscriptionSpec, SubscriptionStatus,
};
use crate::cluster::v1::{ClusterCatalogSpec, ClusterExtensionSpec, ClusterExtensionStatus};

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
    /// A kind whose status deppy does not read.
    Unread,
}

/// A body as read.
pub(super) enum Body {
    /// The document has none.
    Absent,
    /// Of a kind deppy does not read: skipped unbuilt.
    Ignored,
    /// Read into its kind's type (boxed: a document waiting in a list stays small).
    Spec(Box<Spec>),
    /// Read into its kind's type.
    Status(Box<Status>),
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

/// Reads one body of the document whose head has been read so far; a body kept as a
/// value counts against the object's size budget.
pub(super) struct BodySeed<'h, 'c, 'm> {
    head: &'h Head,
    part: Part,
    counter: &'c Counter<'m>,
}

impl<'h, 'c, 'm> BodySeed<'h, 'c, 'm> {
    pub(super) fn new(head: &'h Head, part: Part, counter: &'c Counter<'m>) -> Self {
        BodySeed {
            head,
            part,
            counter,
        }
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

/// The field `path` of body `part`, for messages.
fn field_of(part: Part, path: &serde_path_to_error::Path) -> String {
    let path = path.to_string();
    if path == "." {
        part.to_string()
    } else {
        format!("{part}.{path}")
    }
}

/// Deserializes `T`, recording the field that failed against the object.
fn typed<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    d: D,
    head: &Head,
    part: Part,
) -> Result<T, D::Error> {
    serde_path_to_error::deserialize(d).map_err(|e| {
        let field = field_of(part, e.path());
        let inner = e.into_inner();
        record(head_name(head), field, inner.to_string());
        inner
    })
}

/// Reads a body as a value within the object's size budget, recording the field that
/// failed against the object.
fn counted<'de, D: Deserializer<'de>>(
    d: D,
    head: &Head,
    part: Part,
    counter: &Counter<'_>,
) -> Result<serde_json::Value, D::Error> {
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(d, &mut track);
    let read = Counted(counter).deserialize(tracked);
    read.inspect_err(move |e| {
        let field = field_of(part, &track.path());
        record(head_name(head), field, e.to_string());
    })
}

impl<'de> DeserializeSeed<'de> for BodySeed<'_, '_, '_> {
    type Value = Body;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Body, D::Error> {
        let deferred = |d: D| counted(d, self.head, self.part, self.counter).map(Body::Deferred);
        let kind = match self.kind() {
            None => return deferred(d),
            Some(Err(())) => {
                let keep = self
                    .head
                    .api_version
                    .as_deref()
                    .is_some_and(crate::cluster::custom::keeps);
                if keep {
                    return deferred(d);
                }
                IgnoredAny::deserialize(d)?;
                return Ok(Body::Ignored);
            }
            Some(Ok(k)) => k,
        };
        let (h, p) = (self.head, self.part);
        Ok(match (self.part, kind) {
            (Part::Spec, KindName::Subscription) => {
                Body::Spec(Box::new(Spec::Subscription(typed(d, h, p)?)))
            }
            (Part::Spec, KindName::ClusterServiceVersion) => {
                Body::Spec(Box::new(Spec::Csv(typed(d, h, p)?)))
            }
            (Part::Spec, KindName::CatalogSource) => {
                Body::Spec(Box::new(Spec::CatalogSource(typed(d, h, p)?)))
            }
            (Part::Spec, KindName::OperatorGroup) => {
                Body::Spec(Box::new(Spec::OperatorGroup(typed(d, h, p)?)))
            }
            (Part::Spec, KindName::InstallPlan) => {
                Body::Spec(Box::new(Spec::InstallPlan(typed(d, h, p)?)))
            }
            (Part::Status, KindName::Subscription) => {
                Body::Status(Box::new(Status::Subscription(typed(d, h, p)?)))
            }
            (Part::Status, KindName::ClusterServiceVersion) => {
                Body::Status(Box::new(Status::Csv(typed(d, h, p)?)))
            }
            (Part::Status, KindName::OperatorGroup) => {
                Body::Status(Box::new(Status::OperatorGroup(typed(d, h, p)?)))
            }
            (Part::Status, KindName::InstallPlan) => {
                Body::Status(Box::new(Status::InstallPlan(typed(d, h, p)?)))
            }
            (Part::Spec, KindName::ClusterCatalog) => {
                Body::Spec(Box::new(Spec::ClusterCatalog(typed(d, h, p)?)))
            }
            (Part::Spec, KindName::ClusterExtension) => {
                Body::Spec(Box::new(Spec::ClusterExtension(typed(d, h, p)?)))
            }
            (Part::Status, KindName::ClusterExtension) => {
                Body::Status(Box::new(Status::ClusterExtension(typed(d, h, p)?)))
            }
            (Part::Status, KindName::CatalogSource | KindName::ClusterCatalog) => {
                IgnoredAny::deserialize(d)?;
                Body::Status(Box::new(Status::Unread))
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
            Body::Spec(s) => return Ok(*s),
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
            Body::Status(s) => return Ok(*s),
            Body::Absent | Body::Ignored => None,
            Body::Deferred(v) => Some(v),
            Body::Spec(_) => return Err("status is not a status".into()),
        };
        let p = Part::Status;
        Ok(match kind {
            KindName::Subscription => Status::Subscription(convert(v, p)?),
            KindName::ClusterServiceVersion => Status::Csv(convert(v, p)?),
            KindName::CatalogSource | KindName::ClusterCatalog => Status::Unread,
            KindName::ClusterExtension => Status::ClusterExtension(convert(v, p)?),
            KindName::OperatorGroup => Status::OperatorGroup(convert(v, p)?),
            KindName::InstallPlan => Status::InstallPlan(convert(v, p)?),
        })
    }
}
