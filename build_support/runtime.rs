//! The helpers every generated evaluator uses, copied into its code as they are: the tables
//! derived forward, the memos of demanded relations and their repeat removal.

/// Helpers every evaluator uses.
pub const RUNTIME: &str = r#"
/// A relation derived forward: its tuples, each step's in the order derived or sorted. Only
/// a table that keeps every tuple in a hash set uses `set`; the others remove a step's
/// repeats when it ends.
pub struct Table<T> {
    set: ::rustc_hash::FxHashSet<T>,
    /// Every tuple, step by step.
    pub log: Vec<T>,
    done: usize,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { set: Default::default(), log: Vec::new(), done: 0 }
    }
}

impl<T: Copy + Eq + ::std::hash::Hash> Table<T> {
    /// Adds `t` unless the table has it.
    #[inline]
    fn insert(&mut self, t: T) {
        if self.set.insert(t) {
            self.log.push(t);
        }
    }

    /// Adds `t`; a repeat within the step is removed when the step ends.
    #[inline]
    fn push(&mut self, t: T) {
        self.log.push(t);
    }

    /// Ends a step that started with `start` tuples: the tuples derived since are sorted
    /// by `key` (every field, in order) and each is kept once; none of them equals an
    /// earlier step's. A step derived in order (the usual case) is only checked.
    #[inline]
    fn end_step<K: Ord>(&mut self, start: usize, key: impl Fn(&T) -> K) {
        if let Some(step) = self.log.get_mut(start..)
            && !step.is_sorted_by(|a, b| key(a) < key(b))
        {
            step.sort_unstable_by_key(&key);
            let mut kept = 0;
            for i in 0..step.len() {
                let Some(&t) = step.get(i) else { break };
                if kept == 0 || step.get(kept - 1) != Some(&t) {
                    if let Some(x) = step.get_mut(kept) {
                        *x = t;
                    }
                    kept += 1;
                }
            }
            self.log.truncate(start + kept);
        }
        self.done = self.done.min(self.log.len());
    }
}

/// A demanded relation's answers per key: a range of `rows`.
struct Memo<K, T> {
    index: ::rustc_hash::FxHashMap<K, (u32, u32)>,
    rows: Vec<T>,
}

impl<K, T> Default for Memo<K, T> {
    fn default() -> Self {
        Memo { index: Default::default(), rows: Vec::new() }
    }
}

/// Keeps the first of equal tuples among `rows[start..]`, in place: a short tail compared
/// tuple by tuple, a long one through a set sized for it.
fn dedup_tail<T: Copy + Eq + ::std::hash::Hash>(rows: &mut Vec<T>, start: usize) {
    let n = rows.len().saturating_sub(start);
    if n < 2 {
        return;
    }
    let mut seen = ::rustc_hash::FxHashSet::default();
    if n > 16 {
        seen.reserve(n);
    }
    let mut kept = start;
    for i in start..rows.len() {
        let Some(&t) = rows.get(i) else { break };
        let new = if n > 16 {
            seen.insert(t)
        } else {
            !rows.get(start..kept).unwrap_or_default().contains(&t)
        };
        if new {
            if let Some(x) = rows.get_mut(kept) {
                *x = t;
            }
            kept += 1;
        }
    }
    rows.truncate(kept);
}
"#;
