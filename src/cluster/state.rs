//! The objects of a dump, one per kind, namespace and name, with what-if changes applied.

use std::collections::BTreeMap;

use super::custom::Custom;
use super::error::StateError;
use super::object::{KindName, Object, Skipped};
use super::read::Dump;

/// An object's identity: kind, namespace, name.
pub(crate) type ObjectKey = (KindName, String, String);

fn key(o: &Object) -> ObjectKey {
    (
        o.kind_name(),
        o.namespace().to_string(),
        o.name().to_string(),
    )
}

/// Every object of a cluster dump, by identity, plus what was skipped.
///
/// The example on [`crate::resolve_cluster`] builds one from a dump.
#[derive(Debug, Default)]
pub struct ClusterState {
    objects: BTreeMap<ObjectKey, Object>,
    /// Objects of kinds deppy does not read.
    pub skipped: Vec<Skipped>,
    /// Of those, the ones kept whole for the CRD checks, by group, kind, namespace, name.
    custom: BTreeMap<CustomKey, Custom>,
    /// Of those, CatalogSources' registry pods, by namespace and pod name.
    catalog_pods: BTreeMap<(String, String), super::pod::CatalogPod>,
}

/// A kept object's identity: group, kind, namespace, name (one object read at two versions
/// is one object).
type CustomKey = (String, String, String, String);

fn custom_key(c: &Custom) -> CustomKey {
    (
        c.group().to_string(),
        c.kind.clone(),
        c.namespace.clone(),
        c.name.clone(),
    )
}

/// Adds a kept object: the same object seen twice (equal uid and resourceVersion) counts
/// once, read at the lower version name; two different ones are an error naming both.
fn add_custom(map: &mut BTreeMap<CustomKey, Custom>, c: Custom) -> Result<(), StateError> {
    let k = custom_key(&c);
    match map.get(&k) {
        Some(first) if first.revision.is_some() && first.revision == c.revision => {
            if c.api_version < first.api_version {
                map.insert(k, c);
            }
            Ok(())
        }
        Some(first) if first.object == c.object => Ok(()),
        Some(first) => Err(StateError::Duplicate {
            object: c.describe(),
            first: Box::new(first.source.clone().min(c.source.clone())),
            second: Box::new(first.source.clone().max(c.source)),
        }),
        None => {
            map.insert(k, c);
            Ok(())
        }
    }
}

/// The same object seen twice: equal uid and resourceVersion (two dumps of one cluster).
fn same_object(a: &Object, b: &Object) -> bool {
    let (ma, mb) = (&a.metadata, &b.metadata);
    ma.uid.is_some() && ma.uid == mb.uid && ma.resource_version == mb.resource_version
}

impl ClusterState {
    /// The state a dump describes. Two different objects with one kind, namespace and name
    /// are an error naming both places; the same object seen twice counts once.
    pub fn from_dump(dump: Dump) -> Result<ClusterState, StateError> {
        let mut state = ClusterState {
            objects: BTreeMap::new(),
            skipped: dump.skipped,
            custom: BTreeMap::new(),
            catalog_pods: BTreeMap::new(),
        };
        for p in dump.catalog_pods {
            state
                .catalog_pods
                .insert((p.namespace.clone(), p.name.clone()), p);
        }
        for c in dump.custom {
            add_custom(&mut state.custom, c)?;
        }
        for o in dump.objects {
            let k = key(&o);
            match state.objects.get(&k) {
                Some(first) if same_object(first, &o) => {}
                Some(first) => {
                    return Err(StateError::Duplicate {
                        object: super::read::describe(o.kind_name(), &o.metadata),
                        first: Box::new(first.source.clone()),
                        second: Box::new(o.source),
                    });
                }
                None => {
                    state.objects.insert(k, o);
                }
            }
        }
        state.skipped.sort();
        Ok(state)
    }

    /// What `kubectl apply -f` of `changes` would leave: each object replaces the one of the
    /// same kind, namespace and name, or is added. A replacement without a `status` keeps the
    /// status of the object it replaces.
    pub fn apply(&mut self, changes: ClusterState) {
        for (k, mut o) in changes.objects {
            if !o.has_status
                && let Some(old) = self.objects.get(&k)
            {
                keep_status(&mut o, old);
            }
            self.objects.insert(k, o);
        }
        self.skipped.extend(changes.skipped);
        self.skipped.sort();
        for (k, c) in changes.custom {
            self.custom.insert(k, c);
        }
        self.catalog_pods.extend(changes.catalog_pods);
    }

    /// The registry pods of CatalogSource `namespace/name` (label `olm.catalogSource`), by
    /// pod name.
    pub fn catalog_pods<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a super::pod::CatalogPod> + 'a {
        self.catalog_pods
            .values()
            .filter(move |p| p.namespace == namespace && p.catalog_source == name)
    }

    /// The objects kept whole for the CRD checks (`super::custom`), by group, kind,
    /// namespace and name.
    pub fn custom(&self) -> impl Iterator<Item = &Custom> {
        self.custom.values()
    }

    /// Every object, in kind, namespace and name order.
    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.objects.values()
    }

    /// The objects of one kind, in namespace and name order.
    pub(crate) fn of_kind(&self, kind: KindName) -> impl Iterator<Item = &Object> {
        self.objects.values().filter(move |o| o.kind_name() == kind)
    }

    /// The objects of one kind in one namespace, by name.
    pub(crate) fn in_namespace<'a>(
        &'a self,
        kind: KindName,
        namespace: &'a str,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        self.of_kind(kind)
            .filter(move |o| o.namespace() == namespace)
    }

    /// One object by identity.
    pub fn get(&self, kind: KindName, namespace: &str, name: &str) -> Option<&Object> {
        self.objects
            .get(&(kind, namespace.to_string(), name.to_string()))
    }
}

fn keep_status(new: &mut Object, old: &Object) {
    use super::object::Kind;
    match (&mut new.kind, &old.kind) {
        (Kind::Subscription(_, s), Kind::Subscription(_, t)) => *s = t.clone(),
        (Kind::ClusterServiceVersion(_, s), Kind::ClusterServiceVersion(_, t)) => *s = t.clone(),
        (Kind::OperatorGroup(_, s), Kind::OperatorGroup(_, t)) => *s = t.clone(),
        (Kind::InstallPlan(_, s), Kind::InstallPlan(_, t)) => *s = t.clone(),
        (Kind::ClusterExtension(_, s), Kind::ClusterExtension(_, t)) => *s = t.clone(),
        (Kind::ClusterCatalog(_, s), Kind::ClusterCatalog(_, t)) => *s = t.clone(),
        _ => return,
    }
    new.has_status = old.has_status;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::object::Kind;
    use crate::cluster::read::read_text;

    fn state(text: &str) -> Result<ClusterState, StateError> {
        ClusterState::from_dump(read_text("s.yaml", text).unwrap())
    }

    const SUB: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a, namespace: ns}\nspec: {name: a, source: c, sourceNamespace: ns, channel: alpha}\n";

    #[test]
    fn two_different_objects_with_one_name_are_an_error() {
        let e = state(&format!("{SUB}---\n{SUB}")).unwrap_err().to_string();
        assert!(e.contains("Subscription ns/a is defined twice"), "{e}");
        assert!(e.contains("document 1") && e.contains("document 2"), "{e}");
        let same = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a, namespace: ns, uid: u1, resourceVersion: '7'}\n";
        assert_eq!(
            state(&format!("{same}---\n{same}"))
                .unwrap()
                .objects()
                .count(),
            1
        );
    }

    #[test]
    fn apply_replaces_and_keeps_status() {
        let mut s = state(&format!("{SUB}status: {{installedCSV: a.v1}}\n")).unwrap();
        let change = SUB.replace("alpha", "beta");
        s.apply(state(&change).unwrap());
        let o = s.get(KindName::Subscription, "ns", "a").unwrap();
        let Kind::Subscription(spec, status) = &o.kind else {
            panic!()
        };
        assert_eq!(spec.channel.as_deref(), Some("beta"));
        assert_eq!(status.installed_csv.as_deref(), Some("a.v1"));
    }

    #[test]
    fn a_custom_resource_twice_is_an_error_unless_it_is_the_same_object() {
        let a = "apiVersion: example.com/v1\nkind: Database\nmetadata: {name: a, namespace: ns, uid: u, resourceVersion: '1'}\nspec: {size: 1}\n";
        let b = a.replace("example.com/v1\n", "example.com/v1beta1\n");
        let s = state(&format!("{a}---\n{b}")).unwrap();
        let kept: Vec<_> = s.custom().collect();
        assert_eq!(kept.len(), 1, "one object read at two versions");
        assert_eq!(
            kept[0].api_version, "example.com/v1",
            "the lower version name"
        );
        let c = a.replace("size: 1", "size: 2").replace("uid: u, ", "");
        let e = state(&format!("{c}---\n{}", c.replace("size: 2", "size: 3")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Database ns/a is defined twice"), "{e}");
    }
}
