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

#[cfg(test)]
mod tests {
    use super::Rows;

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
