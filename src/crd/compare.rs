//! A CRD in the cluster against the one a bundle ships, as OLM's catalog operator checks
//! an update (docs/semantics.md §11): every stored version must stay,
//! and every existing custom resource must pass the new schema of each version both CRDs
//! serve (only a warning when the new CRD converts by Webhook). A served version dropped,
//! and objects read at it, are risks reported without a refusal.

use serde_json::Value;

use super::model::Crd;
use super::schema::Schema;

/// A custom resource of the CRD, as found in the cluster.
#[derive(Clone, Copy, Debug)]
pub struct CustomResource<'a> {
    /// `namespace/name` (`name` for a cluster-scoped one).
    pub id: &'a str,
    /// The version it was read at (from its `apiVersion`).
    pub version: &'a str,
    /// The whole object.
    pub object: &'a Value,
}

/// One risk of an update, as data (src/explain words it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(tag = "problem", rename_all = "camelCase")]
pub enum Problem {
    /// A version of `status.storedVersions` the new CRD does not list: OLM refuses
    /// ("risk of data loss updating CRD").
    StoredVersionRemoved {
        /// The version.
        version: String,
    },
    /// The new CRD's schema of a version cannot be compiled: OLM cannot check it either.
    SchemaInvalid {
        /// The version.
        version: String,
        /// The validator's message.
        message: String,
    },
    /// An existing object fails the new schema of a version both CRDs serve: OLM refuses
    /// unless the new CRD converts by Webhook (then it only warns).
    SchemaRejects {
        /// The version whose new schema rejects it.
        version: String,
        /// `namespace/name` of the object.
        object: String,
        /// The failing field (`spec.size`).
        field: String,
        /// What the schema says.
        message: String,
        /// False when the new CRD converts by Webhook: a warning only.
        refused: bool,
    },
    /// The storage version changed and the old one is not served any more (an author's
    /// check between two bundles).
    StorageVersionChanged {
        /// The old storage version.
        from: String,
        /// The new one.
        to: String,
    },
    /// A version the old CRD serves and the new one does not.
    ServedVersionRemoved {
        /// The version.
        version: String,
    },
    /// The previous CSV's `alm-examples` annotation is not a JSON list of objects (an
    /// author's check between two bundles).
    ExamplesUnreadable {
        /// The parser's message.
        message: String,
    },
    /// More objects fail the new schema of a version than are listed one by one
    /// ([`MAX_REJECTED_OBJECTS`]): how many more.
    MoreRejections {
        /// The version whose new schema rejects them.
        version: String,
        /// How many objects past those listed.
        objects: usize,
        /// False when the new CRD converts by Webhook: a warning only.
        refused: bool,
    },
    /// Objects read at a version the new CRD no longer serves.
    ObjectsAtRemovedVersion {
        /// The version.
        version: String,
        /// `namespace/name` of each, sorted.
        objects: Vec<String>,
    },
}

impl Problem {
    /// True when today's OLM refuses the update for this problem.
    pub fn refuses(&self) -> bool {
        match self {
            Problem::StoredVersionRemoved { .. } | Problem::SchemaInvalid { .. } => true,
            Problem::SchemaRejects { refused, .. } | Problem::MoreRejections { refused, .. } => {
                *refused
            }
            _ => false,
        }
    }
}

/// The outcome of comparing two CRDs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Every problem, refusals first, then in version and object order.
    pub problems: Vec<Problem>,
}

impl Comparison {
    /// True when OLM would accept the update.
    pub fn safe(&self) -> bool {
        !self.problems.iter().any(Problem::refuses)
    }
}

/// How many objects one version's check lists one by one; the rest are counted
/// ([`Problem::MoreRejections`]), so a CRD of many versions over many objects stays small.
pub const MAX_REJECTED_OBJECTS: usize = 100;

/// Compares the cluster's CRD `old` with a bundle's `new`, given the custom resources of
/// the CRD found in the cluster.
pub fn compare(old: &Crd, new: &Crd, objects: &[CustomResource<'_>]) -> Comparison {
    compare_until(old, new, objects, &|| false).unwrap_or_default()
}

/// [`compare`], stopping with None as soon as `stop` says so (it is asked before each
/// object is checked against a schema: a time budget).
pub fn compare_until(
    old: &Crd,
    new: &Crd,
    objects: &[CustomResource<'_>],
    stop: &dyn Fn() -> bool,
) -> Option<Comparison> {
    let mut problems = Vec::new();
    for v in &old.stored_versions {
        if new.version(v).is_none() {
            problems.push(Problem::StoredVersionRemoved { version: v.clone() });
        }
    }
    for v in old.served() {
        if new.served().any(|n| n == v) {
            continue;
        }
        problems.push(Problem::ServedVersionRemoved { version: v.into() });
        let mut at: Vec<String> = objects
            .iter()
            .filter(|o| o.version == v)
            .map(|o| o.id.to_string())
            .collect();
        if !at.is_empty() {
            at.sort();
            problems.push(Problem::ObjectsAtRemovedVersion {
                version: v.into(),
                objects: at,
            });
        }
    }
    schema_problems(old, new, objects, stop, &mut problems)?;
    problems.sort_by_key(|p| !p.refuses());
    Some(Comparison { problems })
}

/// Each object against the new schema of each version both CRDs serve: an object read at
/// one version is what the API server returns at every other when the old CRD converts
/// with `None`; with a Webhook only the version it was read at is known.
fn schema_problems(
    old: &Crd,
    new: &Crd,
    objects: &[CustomResource<'_>],
    stop: &dyn Fn() -> bool,
    out: &mut Vec<Problem>,
) -> Option<()> {
    let refused = !new.webhook;
    for v in new.versions.iter().filter(|v| v.served) {
        if !old.served().any(|o| o == v.name) {
            continue;
        }
        let Some(schema) = &v.schema else { continue };
        let schema = match Schema::compile(schema) {
            Ok(s) => s,
            Err(message) => {
                out.push(Problem::SchemaInvalid {
                    version: v.name.clone(),
                    message,
                });
                continue;
            }
        };
        let mut found = Vec::new();
        let (mut listed, mut more) = (0, 0);
        for o in objects
            .iter()
            .filter(|o| !old.webhook || o.version == v.name)
        {
            if stop() {
                return None;
            }
            if schema.accepts(o.object) {
                continue;
            }
            if listed == MAX_REJECTED_OBJECTS {
                more += 1;
                continue;
            }
            listed += 1;
            found.extend(
                schema
                    .rejections(o.object)
                    .into_iter()
                    .map(|r| Problem::SchemaRejects {
                        version: v.name.clone(),
                        object: o.id.to_string(),
                        field: r.field,
                        message: r.message,
                        refused,
                    }),
            );
        }
        found.sort();
        out.extend(found);
        if more > 0 {
            out.push(Problem::MoreRejections {
                version: v.name.clone(),
                objects: more,
                refused,
            });
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::model::CrdVersion;
    use serde_json::json;

    fn crd(versions: &[(&str, bool, bool, Value)], stored: &[&str]) -> Crd {
        Crd {
            name: "as.x.io".into(),
            group: "x.io".into(),
            kind: "A".into(),
            namespaced: true,
            versions: versions
                .iter()
                .map(|(n, served, storage, s)| CrdVersion {
                    name: n.to_string(),
                    served: *served,
                    storage: *storage,
                    schema: Some(s.clone()),
                })
                .collect(),
            stored_versions: stored.iter().map(|s| s.to_string()).collect(),
            webhook: false,
        }
    }

    fn size_required() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["size"]}}})
    }

    #[test]
    fn a_dropped_stored_version_refuses_and_a_dropped_served_one_warns() {
        let any = json!({"type": "object"});
        let old = crd(
            &[
                ("v1", true, true, any.clone()),
                ("v1beta1", true, false, any.clone()),
            ],
            &["v1", "v1beta1"],
        );
        let new = crd(&[("v1", true, true, any)], &[]);
        let obj = json!({"spec": {}});
        let objects = [CustomResource {
            id: "ns/a",
            version: "v1beta1",
            object: &obj,
        }];
        let c = compare(&old, &new, &objects);
        assert!(!c.safe());
        assert_eq!(
            c.problems,
            [
                Problem::StoredVersionRemoved {
                    version: "v1beta1".into()
                },
                Problem::ServedVersionRemoved {
                    version: "v1beta1".into()
                },
                Problem::ObjectsAtRemovedVersion {
                    version: "v1beta1".into(),
                    objects: vec!["ns/a".into()]
                },
            ]
        );
    }

    #[test]
    fn an_object_failing_the_new_schema_refuses_unless_webhook() {
        let any = json!({"type": "object"});
        let old = crd(&[("v1", true, true, any)], &["v1"]);
        let mut new = crd(&[("v1", true, true, size_required())], &[]);
        let (good, bad) = (json!({"spec": {"size": 1}}), json!({"spec": {}}));
        let objects = [
            CustomResource {
                id: "ns/b",
                version: "v1",
                object: &bad,
            },
            CustomResource {
                id: "ns/a",
                version: "v1",
                object: &good,
            },
        ];
        let c = compare(&old, &new, &objects);
        assert!(!c.safe());
        assert!(
            matches!(&c.problems[..], [Problem::SchemaRejects { object, field, .. }]
            if object == "ns/b" && field == "spec.size")
        );
        new.webhook = true;
        let c = compare(&old, &new, &objects);
        assert!(c.safe());
        assert_eq!(c.problems.len(), 1);
    }

    #[test]
    fn past_a_hundred_objects_the_rejections_are_counted() {
        let any = json!({"type": "object"});
        let old = crd(&[("v1", true, true, any)], &["v1"]);
        let new = crd(&[("v1", true, true, size_required())], &[]);
        let bad = json!({"spec": {}});
        let ids: Vec<String> = (0..250).map(|i| format!("ns/o{i:03}")).collect();
        let objects: Vec<CustomResource<'_>> = ids
            .iter()
            .map(|id| CustomResource {
                id,
                version: "v1",
                object: &bad,
            })
            .collect();
        let c = compare(&old, &new, &objects);
        assert_eq!(c.problems.len(), MAX_REJECTED_OBJECTS + 1);
        assert_eq!(
            c.problems.last(),
            Some(&Problem::MoreRejections {
                version: "v1".into(),
                objects: 150,
                refused: true
            })
        );
        assert!(!c.safe());
    }

    #[test]
    fn a_comparison_stops_when_told() {
        let any = json!({"type": "object"});
        let old = crd(&[("v1", true, true, any.clone())], &["v1"]);
        let obj = json!({"spec": {}});
        let objects = [CustomResource {
            id: "ns/a",
            version: "v1",
            object: &obj,
        }];
        assert!(compare_until(&old, &old, &objects, &|| true).is_none());
        assert!(compare_until(&old, &old, &objects, &|| false).is_some());
    }

    #[test]
    fn an_uncompilable_schema_refuses() {
        let old = crd(&[("v1", true, true, json!({}))], &["v1"]);
        let new = crd(&[("v1", true, true, json!({"type": 5}))], &[]);
        let c = compare(&old, &new, &[]);
        assert!(matches!(&c.problems[..], [Problem::SchemaInvalid { .. }]));
        assert!(!c.safe());
    }
}
