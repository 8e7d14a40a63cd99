//! Compact per-variable lists built once per solve (compressed rows: one offsets array and
//! one flat array), so a 100k-variable problem costs two allocations instead of 100k.

/// Rows of `u32` values, one row per variable.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    /// Builds rows from `(row, value)` pairs; values keep their order within a row.
    pub fn build(rows: usize, pairs: &[(u32, u32)]) -> Rows {
        let mut count = vec![0u32; rows + 1];
        for &(r, _) in pairs {
            if let Some(c) = count.get_mut(r as usize + 1) {
                *c += 1;
            }
        }
        for i in 1..count.len() {
            // Invariant: i - 1 < i < count.len().
            #[allow(clippy::indexing_slicing)]
            {
                count[i] += count[i - 1];
            }
        }
        let mut fill = count.clone();
        let mut items = vec![0u32; pairs.len()];
        for &(r, v) in pairs {
            if let Some(at) = fill.get_mut(r as usize) {
                if let Some(slot) = items.get_mut(*at as usize) {
                    *slot = v;
                }
                *at += 1;
            }
        }
        Rows {
            start: count,
            items,
        }
    }

    /// The values of one row (empty for an unknown row).
    pub fn row(&self, r: usize) -> &[u32] {
        let (Some(&a), Some(&b)) = (self.start.get(r), self.start.get(r + 1)) else {
            return &[];
        };
        self.items.get(a as usize..b as usize).unwrap_or(&[])
    }
}

/// Watch lists by literal, allocated on first use: the per-literal table is zeroed memory
/// (0 = no list), so literals a search never touches cost no page of memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Watches {
    head: Vec<u32>,
    lists: Vec<Vec<u32>>,
}

impl Watches {
    /// Room for `lits` literals, none watched.
    pub fn new(lits: usize) -> Watches {
        Watches {
            head: vec![0; lits],
            lists: Vec::new(),
        }
    }

    /// Adds clause `ci` to the watchers of `lit`.
    pub fn push(&mut self, lit: u32, ci: u32) {
        let Some(h) = self.head.get_mut(lit as usize) else {
            return;
        };
        if *h == 0 {
            self.lists.push(Vec::new());
            *h = self.lists.len() as u32;
        }
        if let Some(list) = self.lists.get_mut(*h as usize - 1) {
            list.push(ci);
        }
    }

    /// Takes the watchers of `lit` out (give them back with [`Watches::put`]).
    pub fn take(&mut self, lit: u32) -> Vec<u32> {
        match self.head.get(lit as usize) {
            Some(&h) if h > 0 => self
                .lists
                .get_mut(h as usize - 1)
                .map(std::mem::take)
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Puts watchers back after [`Watches::take`], keeping any added meanwhile.
    pub fn put(&mut self, lit: u32, mut list: Vec<u32>) {
        let added = self.take(lit);
        list.extend(added);
        if list.is_empty() {
            return;
        }
        let Some(&h) = self.head.get(lit as usize) else {
            return;
        };
        if h == 0 {
            self.lists.push(list);
            if let Some(slot) = self.head.get_mut(lit as usize) {
                *slot = self.lists.len() as u32;
            }
        } else if let Some(slot) = self.lists.get_mut(h as usize - 1) {
            *slot = list;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Rows, Watches};

    #[test]
    fn watches_take_and_put_keep_new_watchers() {
        let mut w = Watches::new(4);
        assert!(w.take(1).is_empty());
        w.push(1, 10);
        w.push(1, 11);
        let list = w.take(1);
        assert_eq!(list, [10, 11]);
        w.push(1, 12);
        w.put(1, list);
        assert_eq!(w.take(1), [10, 11, 12]);
        w.put(3, vec![7]);
        assert_eq!(w.take(3), [7]);
        w.push(99, 1); // out of range: ignored
    }

    #[test]
    fn rows_keep_order_and_handle_empty_rows() {
        let r = Rows::build(4, &[(2, 7), (0, 1), (2, 5), (3, 9)]);
        assert_eq!(r.row(0), &[1]);
        assert_eq!(r.row(1), &[] as &[u32]);
        assert_eq!(r.row(2), &[7, 5]);
        assert_eq!(r.row(3), &[9]);
        assert_eq!(r.row(9), &[] as &[u32]);
    }
}
