//! A small interner: values in, dense `u32` ids out.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Maps values to dense ids in first-seen order and back.
#[derive(Clone, Debug)]
pub struct Interner<T> {
    values: Vec<T>,
    ids: FxHashMap<T, u32>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            values: Vec::new(),
            ids: FxHashMap::default(),
        }
    }
}

impl<T: Clone + Eq + Hash> Interner<T> {
    /// An empty interner with room for `n` values.
    pub fn with_capacity(n: usize) -> Self {
        Interner {
            values: Vec::with_capacity(n),
            ids: FxHashMap::with_capacity_and_hasher(n, Default::default()),
        }
    }

    /// The id of `value`, adding it when new.
    pub fn intern(&mut self, value: &T) -> u32 {
        if let Some(&id) = self.ids.get(value) {
            return id;
        }
        let id = u32::try_from(self.values.len()).unwrap_or(u32::MAX);
        self.values.push(value.clone());
        self.ids.insert(value.clone(), id);
        id
    }

    /// The id of `value`, if interned.
    pub fn get<Q>(&self, value: &Q) -> Option<u32>
    where
        T: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.ids.get(value).copied()
    }

    /// The value of `id`, if it exists.
    pub fn value(&self, id: u32) -> Option<&T> {
        self.values.get(id as usize)
    }

    /// The interner of distinct `values`, each getting its position as id.
    pub fn from_values(values: Vec<T>) -> Self {
        let mut interner = Interner::with_capacity(values.len());
        for v in &values {
            interner.intern(v);
        }
        interner
    }

    /// Number of interned values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// All values in id order.
    pub fn values(&self) -> &[T] {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_in_first_seen_order() {
        let mut i = Interner::default();
        assert_eq!(i.intern(&"b".to_string()), 0);
        assert_eq!(i.intern(&"a".to_string()), 1);
        assert_eq!(i.intern(&"b".to_string()), 0);
        assert_eq!(i.get("a"), Some(1));
        assert_eq!(i.value(1).map(String::as_str), Some("a"));
        assert_eq!(i.len(), 2);
    }
}
