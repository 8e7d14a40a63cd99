//! The resolving targets' oracle: each outcome held against the independent checker of
//! `tests/support/checker/` (which reads the catalog text and the request as JSON itself), and
//! a per-thread tally of what every target's property was held for.

use std::cell::Cell;

use deppy::advanced::request::Request;
use serde_json::Value;

use super::checker;

/// How many answers this thread held against the independent checker, and how many inputs
/// it could not read (tests/fuzz_corpus.rs prints both).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// Outcomes (resolved or not) the checker judged.
    pub judged: usize,
    /// Of those, decided by trying every subset of the bundles.
    pub brute_forced: usize,
    /// Resolutions whose input the checker could not read (with the first reason).
    pub unread: usize,
    /// CEL evaluations whose work was held against the cost estimate.
    pub costs: usize,
    /// Constraints printed back and parsed again.
    pub round_trips: usize,
}

thread_local! {
    static TALLY: Cell<Tally> = Cell::new(Tally::default());
    static FIRST_UNREAD: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// This thread's tally since the last call, and the first input the checker could not read.
pub fn take_tally() -> (Tally, Option<String>) {
    (TALLY.take(), FIRST_UNREAD.take())
}

pub(crate) fn count(f: impl FnOnce(&mut Tally)) {
    TALLY.with(|t| {
        let mut v = t.get();
        f(&mut v);
        t.set(v);
    });
}

/// The checker's view of catalog texts named (name, priority); None when a text does not
/// parse as its documents.
pub(crate) fn checker_inputs(parts: &[(String, i32, &str)]) -> Option<Vec<checker::CatalogInput>> {
    parts
        .iter()
        .map(|(name, priority, text)| {
            Some(checker::CatalogInput {
                name: name.clone(),
                priority: *priority,
                docs: checker::documents(text).ok()?,
            })
        })
        .collect()
}

/// Holds an outcome against the independent checker.
pub(crate) fn check_independently(
    inputs: &[checker::CatalogInput],
    request: &Request,
    resolved: bool,
    report: &Value,
) {
    let world = serde_json::to_value(request)
        .map_err(|e| e.to_string())
        .and_then(|r| checker::World::new(inputs, &r, None));
    let world = match world {
        Ok(w) => w,
        Err(e) => {
            count(|t| t.unread += 1);
            FIRST_UNREAD.with(|f| {
                f.borrow_mut().get_or_insert(e);
            });
            return;
        }
    };
    if resolved {
        let sel = world
            .selection_of_report(report)
            .unwrap_or_else(|e| panic!("the independent checker: {e}"));
        if let Err(v) = world.check(&sel) {
            panic!("a resolved answer fails the independent checker: {v}");
        }
        if let Err(v) = world.justified(&sel) {
            panic!("a resolved answer is not minimal: {v}");
        }
    }
    if world.bundles.len() <= 16
        && let Some(masks) = world.masks()
    {
        let exists = (0u32..(1 << masks.n)).any(|s| masks.valid(s));
        assert_eq!(
            resolved, exists,
            "deppy resolved={resolved}, a valid subset of the bundles exists={exists}"
        );
        count(|t| t.brute_forced += 1);
    }
    count(|t| t.judged += 1);
}
