//! Progress of long operations (loading catalogs, checking installability), reported to a
//! caller-supplied [`Progress`] so a front end can draw it; the library draws nothing.
//!
//! ```
//! use std::sync::Mutex;
//! use deppy::advanced::progress::{Progress, Task};
//!
//! let seen = Mutex::new(Vec::new());
//! let progress = |task: Task, done: u64, total: u64| {
//!     seen.lock().unwrap().push((task, done, total));
//! };
//! let p: &dyn Progress = &progress;
//! p.update(Task::CheckBundles, 1, 2);
//! assert_eq!(seen.lock().unwrap()[0], (Task::CheckBundles, 1, 2));
//! ```

use std::sync::Mutex;

/// What is being measured, and in which unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Task {
    /// Reading and parsing catalog files; units are bytes.
    LoadCatalogs,
    /// Checking the installability of bundles; units are bundles.
    CheckBundles,
}

impl Task {
    /// The unit `done` and `total` count.
    pub fn unit(self) -> &'static str {
        match self {
            Task::LoadCatalogs => "bytes",
            Task::CheckBundles => "bundles",
        }
    }
}

/// Receives progress. For one task, `update` is called first with `done == 0`, then with
/// `done` never decreasing up to `total`; calls never overlap (they may come from any
/// thread). A closure `Fn(Task, u64, u64) + Sync` is a `Progress`.
pub trait Progress: Sync {
    /// `done` of `total` units of `task` are finished.
    fn update(&self, task: Task, done: u64, total: u64);
}

impl<F: Fn(Task, u64, u64) + Sync> Progress for F {
    fn update(&self, task: Task, done: u64, total: u64) {
        self(task, done, total)
    }
}

/// Counts finished units of one task and reports them in order, or does nothing when no
/// [`Progress`] was given.
pub(crate) struct Tracker<'a> {
    progress: Option<&'a dyn Progress>,
    task: Task,
    total: u64,
    done: Mutex<u64>,
}

impl<'a> Tracker<'a> {
    /// Starts a task: reports `0` of `total`.
    pub fn start(progress: Option<&'a dyn Progress>, task: Task, total: u64) -> Tracker<'a> {
        if let Some(p) = progress {
            p.update(task, 0, total);
        }
        Tracker {
            progress,
            task,
            total,
            done: Mutex::new(0),
        }
    }

    /// Whether anyone listens (so callers can skip measuring work).
    pub(crate) fn is_active(&self) -> bool {
        self.progress.is_some()
    }

    /// `n` more units are finished.
    pub fn add(&self, n: u64) {
        let Some(p) = self.progress else { return };
        // The lock keeps reports in order across threads; it is taken once per file or
        // bundle, never in a parser's inner loop.
        if let Ok(mut done) = self.done.lock() {
            *done = (*done + n).min(self.total);
            p.update(self.task, *done, self.total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_in_order_up_to_total() {
        let seen = Mutex::new(Vec::new());
        let record = |_: Task, done: u64, total: u64| {
            if let Ok(mut s) = seen.lock() {
                s.push((done, total));
            }
        };
        let t = Tracker::start(Some(&record), Task::CheckBundles, 5);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| t.add(2));
            }
        });
        let seen = seen.into_inner().unwrap_or_default();
        assert_eq!(seen.first(), Some(&(0, 5)));
        assert_eq!(seen.last(), Some(&(5, 5)));
        assert!(seen.windows(2).all(|w| matches!(w, [a, b] if a.0 <= b.0)));
    }

    #[test]
    fn silent_without_a_listener() {
        let t = Tracker::start(None, Task::LoadCatalogs, 10);
        assert!(!t.is_active());
        t.add(3);
    }
}
