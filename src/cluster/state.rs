//! The objects of a dump, one per kind, namespace and name, with what-if changes applied.
//! The same object given twice (in two files, or read at two versions) is one object when
//! the copies are identical, and an error naming both places when they differ.

use std::collections::{BTreeMap, HashSet};

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
    /// Objects of kinds deppy does not read (each object once).
    pub skipped: Vec<Skipped>,
    /// Of those, the ones kept whole for the CRD checks, by group, kind, namespace, name.
    custom: BTreeMap<CustomKey, Custom>,
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

/// Two copies of one kept object are the same object: the same uid and resourceVersion (one
/// object read at two versions, which a conversion may show differently), or the same
/// contents but for the version they were read at.
fn same_custom(a: &Custom, b: &Custom) -> bool {
    if a.revision.is_some() && a.revision == b.revision {
        return true;
    }
    match (a.object.as_object(), b.object.as_object()) {
        (Some(x), Some(y)) => {
            let others = |m: &'_ serde_json::Map<String, serde_json::Value>| {
                m.iter().filter(|(k, _)| *k != "apiVersion").count()
            };
            others(x) == others(y)
                && x.iter()
                    .filter(|(k, _)| *k != "apiVersion")
                    .all(|(k, v)| y.get(k) == Some(v))
        }
        _ => a.object == b.object,
    }
}

/// Adds a kept object: the same object seen twice counts once, read at the lower version
/// name; two different ones are an error naming both.
fn add_custom(map: &mut BTreeMap<CustomKey, Custom>, c: Custom) -> Result<(), StateError> {
    let k = custom_key(&c);
    match map.get(&k) {
        Some(first) if same_custom(first, &c) => {
            if c.api_version < first.api_version {
                map.insert(k, c);
            }
            Ok(())
        }
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

/// Two copies of one object are the same when they say the same, whatever version of the
/// API they were read at and wherever they were found.
fn same_object(a: &Object, b: &Object) -> bool {
    a.metadata == b.metadata && a.kind == b.kind && a.has_status == b.has_status
}

/// A skipped object's identity (group, kind, `namespace/name`), when it has a kind and a
/// name.
fn skipped_key(s: &Skipped) -> Option<(&str, &str, &str)> {
    let group = s.api_version.split_once('/').map_or("", |(g, _)| g);
    (!s.kind.is_empty() && !s.name.is_empty()).then_some((group, s.kind.as_str(), s.name.as_str()))
}

/// `skipped` with each named object once (the first place it was seen), sorted.
fn dedup_skipped(mut skipped: Vec<Skipped>) -> Vec<Skipped> {
    skipped.sort_by(|a, b| {
        skipped_key(a)
            .cmp(&skipped_key(b))
            .then_with(|| a.source.cmp(&b.source))
    });
    skipped.dedup_by(|b, a| skipped_key(a).is_some() && skipped_key(a) == skipped_key(b));
    skipped.sort();
    skipped
}

impl ClusterState {
    /// The state a dump describes. Two different objects with one kind, namespace and name
    /// are an error naming both places; the same object seen twice counts once.
    pub fn from_dump(dump: Dump) -> Result<ClusterState, StateError> {
        let mut state = ClusterState {
            objects: BTreeMap::new(),
            skipped: dedup_skipped(dump.skipped),
            custom: BTreeMap::new(),
        };
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
        Ok(state)
    }

    /// What `kubectl apply -f` of `changes` would leave: each object replaces the one of the
    /// same kind, namespace and name, or is added. A replacement without a `status` keeps the
    /// status of the object it replaces (a CRD its `status.storedVersions`).
    pub fn apply(&mut self, changes: ClusterState) {
        for (k, mut o) in changes.objects {
            if !o.has_status
                && let Some(old) = self.objects.get(&k)
            {
                keep_status(&mut o, old);
            }
            self.objects.insert(k, o);
        }
        // A skipped object applied again replaces the one it was: it is counted once.
        let applied: HashSet<(&str, &str, &str)> =
            changes.skipped.iter().filter_map(skipped_key).collect();
        let mut kept: Vec<Skipped> = Vec::with_capacity(self.skipped.len());
        for s in std::mem::take(&mut self.skipped) {
            if skipped_key(&s).is_none_or(|k| !applied.contains(&k)) {
                kept.push(s);
            }
        }
        self.skipped = kept;
        self.skipped.extend(changes.skipped);
        self.skipped.sort();
        for (k, mut c) in changes.custom {
            if let Some(old) = self.custom.get(&k) {
                keep_custom_status(&mut c, old);
            }
            self.custom.insert(k, c);
        }
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
        let from = (kind, String::new(), String::new());
        self.objects
            .range(from..)
            .take_while(move |(k, _)| k.0 == kind)
            .map(|(_, o)| o)
    }

    /// The objects of one kind in one namespace, by name (found by range, not by a scan).
    pub(crate) fn in_namespace<'a>(
        &'a self,
        kind: KindName,
        namespace: &'a str,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        let from = (kind, namespace.to_string(), String::new());
        self.objects
            .range(from..)
            .take_while(move |(k, _)| k.0 == kind && k.1 == namespace)
            .map(|(_, o)| o)
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
        _ => return,
    }
    new.has_status = old.has_status;
}

/// A kept object applied without a `status` keeps the old one's (a CRD keeps its
/// `status.storedVersions`, as `kubectl apply` leaves the status alone).
fn keep_custom_status(new: &mut Custom, old: &Custom) {
    let Some(status) = old.object.get("status") else {
        return;
    };
    if let Some(o) = new.object.as_object_mut()
        && !o.contains_key("status")
    {
        o.insert("status".into(), status.clone());
    }
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
        let other = SUB.replace("channel: alpha", "channel: beta");
        let e = state(&format!("{SUB}---\n{other}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Subscription ns/a is defined twice"), "{e}");
        assert!(e.contains("document 1") && e.contains("document 2"), "{e}");
        // The same uid and resourceVersion do not make different copies one object.
        let rev = |ch: &str| {
            format!(
                "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: a, namespace: ns, uid: u1, resourceVersion: '7'}}\nspec: {{name: a, source: c, sourceNamespace: ns, channel: {ch}}}\n"
            )
        };
        let e = state(&format!("{}---\n{}", rev("alpha"), rev("beta")));
        assert!(e.unwrap_err().to_string().contains("defined twice"));
    }

    #[test]
    fn identical_copies_are_one_object() {
        // Identical copies (two files of one dump, an object read at two versions).
        let v1 = SUB.replace("v1alpha1", "v1");
        let s = state(&format!("{SUB}---\n{SUB}---\n{v1}")).unwrap();
        assert_eq!(s.objects().count(), 1);
        let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\n";
        let s = state(&format!("{cm}---\n{cm}")).unwrap();
        assert_eq!(
            s.skipped.len(),
            1,
            "a skipped object given twice counts once"
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
    fn apply_keeps_a_crds_status_and_counts_a_skipped_object_once() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: dbs.x.io}\nspec: {group: x.io}\n";
        let mut s = state(&format!("{crd}status: {{storedVersions: [v1]}}\n")).unwrap();
        assert_eq!(s.skipped.len(), 1);
        s.apply(state(&crd.replace("x.io}", "x.io, scope: Cluster}")).unwrap());
        assert_eq!(s.skipped.len(), 1, "the re-applied CRD is counted once");
        let kept: Vec<_> = s.custom().collect();
        assert_eq!(kept[0].object["status"]["storedVersions"][0], "v1");
        assert_eq!(kept[0].object["spec"]["scope"], "Cluster");
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
        // The same object at two versions, as `kubectl get` of each prints it (no uid).
        let at = |v: &str| c.replace("example.com/v1\n", &format!("example.com/{v}\n"));
        let s = state(&format!("{}---\n{}", at("v1"), at("v1beta1"))).unwrap();
        assert_eq!(s.custom().count(), 1);
    }
}
