//! Data parallelism without a dependency: map a slice on up to `available_parallelism`
//! scoped threads, results in input order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Threads to use: `available_parallelism`, at least 1. Asked once per process: on Linux
/// each question reads three cgroup files.
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Maps `f` over `items` on up to `available_parallelism` threads; results keep item order.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    local.push((i, f(item)));
                }
                if let Ok(mut r) = results.lock() {
                    r.extend(local);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// As [`parallel_map`], taking the items by value.
pub(crate) fn parallel_map_owned<T: Send, R: Send>(
    items: Vec<T>,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    parallel_map(&slots, |slot| {
        let item = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        item.map(&f)
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `items` cut into at most one run of consecutive items per thread, each with the index
/// of its first item.
pub(crate) fn split_runs<T>(items: Vec<T>) -> Vec<(usize, Vec<T>)> {
    let size = items.len().div_ceil(threads()).max(1);
    let mut runs = Vec::new();
    let mut rest = items.into_iter();
    let mut start = 0;
    loop {
        let run: Vec<T> = rest.by_ref().take(size).collect();
        if run.is_empty() {
            return runs;
        }
        let len = run.len();
        runs.push((start, run));
        start += len;
    }
}

/// Runs `a` and `b` at the same time (`b` on a second thread, when there are two cores);
/// returns both results.
pub(crate) fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if threads() <= 1 {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let second = scope.spawn(b);
        let first = a();
        match second.join() {
            Ok(r) => (first, r),
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn owned_items_keep_order() {
        let v: Vec<String> = (0..500).map(|i| i.to_string()).collect();
        let want: Vec<usize> = v.iter().map(String::len).collect();
        assert_eq!(super::parallel_map_owned(v, |s| s.len()), want);
    }

    #[test]
    fn runs_cover_every_item_in_order() {
        for n in [0, 1, 2, 3, 10, 101] {
            let runs = super::split_runs((0..n).collect::<Vec<usize>>());
            let mut next = 0;
            for (start, run) in runs {
                assert_eq!(start, next);
                assert!(!run.is_empty());
                assert_eq!(run, (start..start + run.len()).collect::<Vec<_>>());
                next += run.len();
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn join_returns_both() {
        assert_eq!(
            super::join(|| 1 + 1, || "b".repeat(3)),
            (2, "bbb".to_string())
        );
    }

    #[test]
    fn keeps_order() {
        let v: Vec<u32> = (0..1000).collect();
        assert_eq!(
            super::parallel_map(&v, |x| x * 2),
            v.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
    }
}
