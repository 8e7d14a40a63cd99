//! The GVKs read from one file (or merged from several), each stored once: the bundles of a
//! file are mostly versions of one package and name the same APIs again and again, so a
//! bundle keeps indices into this table instead of its own strings.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::catalog::model::Gvk;

/// A table of GVKs; bundle records refer to them by index.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct GvkTable {
    /// The GVKs, in the order first seen.
    pub list: Vec<Gvk>,
    /// While a file is read: `list` by a hash of group, version and kind.
    #[serde(skip)]
    index: FxHashMap<u64, u32>,
}

fn count(list: &[Gvk]) -> u32 {
    u32::try_from(list.len()).unwrap_or(u32::MAX)
}

impl GvkTable {
    /// Number of GVKs (the offset of the next table appended).
    pub fn len(&self) -> u32 {
        count(&self.list)
    }

    /// The index of a GVK, added when it is new.
    pub fn intern(&mut self, group: &str, version: &str, kind: &str) -> u32 {
        let key = FxBuildHasher.hash_one((group, version, kind));
        let list = &self.list;
        let same = |i: &u32| {
            list.get(*i as usize)
                .is_some_and(|g| g.group == group && g.version == version && g.kind == kind)
        };
        match self.index.get(&key) {
            Some(i) if same(i) => return *i,
            // Two GVKs with one hash: look through the table.
            Some(_) => {
                if let Some(i) = (0..count(list)).find(same) {
                    return i;
                }
            }
            None => {}
        }
        let i = count(&self.list);
        self.list.push(Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        });
        self.index.entry(key).or_insert(i);
        i
    }

    /// Ends reading a file: the lookup by hash is not needed any more.
    pub fn finish(&mut self) {
        self.index = FxHashMap::default();
    }
}

/// Adds `offset` to indices into a table that was appended after `offset` GVKs.
pub(crate) fn shift(ids: &mut [u32], offset: u32) {
    for i in ids {
        *i += offset;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_gvk_is_stored_once() {
        let mut t = GvkTable::default();
        let a = t.intern("etcd.io", "v1", "EtcdCluster");
        let b = t.intern("etcd.io", "v1beta2", "EtcdCluster");
        assert_eq!(t.intern("etcd.io", "v1", "EtcdCluster"), a);
        assert_ne!(a, b);
        // The parts are told apart, not just their concatenation.
        let c = t.intern("etcd.iov1", "", "EtcdCluster");
        assert_ne!(c, a);
        assert_eq!(t.len(), 3);
        t.finish();
        assert_eq!(t.list[b as usize].version, "v1beta2");
    }

    #[test]
    fn shifted_indices_point_into_the_merged_table() {
        let mut first = GvkTable::default();
        first.intern("a", "v1", "A");
        let mut second = GvkTable::default();
        let mut ids = vec![second.intern("b", "v1", "B"), second.intern("c", "v1", "C")];
        let offset = first.len();
        first.list.extend(second.list);
        shift(&mut ids, offset);
        let kinds: Vec<&str> = ids
            .iter()
            .map(|&i| first.list[i as usize].kind.as_str())
            .collect();
        assert_eq!(kinds, ["B", "C"]);
    }
}
