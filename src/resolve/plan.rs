//! Upgrade plans: the answer's actions in the order to carry them out — every bundle after
//! the bundles it depends on — then the installed bundles no longer needed.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::catalog::BundleId;
use crate::solver::{Constraint, Var};

use super::Model;
use super::answer::{Action, Answer, Via};
use super::problem::Subject;

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// 1-based position.
    pub step: usize,
    /// `install`, `upgrade`, `keep` or `remove`.
    pub action: &'static str,
    /// Package.
    pub package: String,
    /// Bundle installed, kept, or removed.
    pub bundle: String,
    /// For an upgrade: the installed bundle it replaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For an upgrade: the edge it follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Via>,
    /// Selected bundles that depend on this one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needed_by: Vec<String>,
}

impl Model {
    /// Dependency edges among `selected`: for each Dependency constraint of a selected
    /// bundle, the candidate chosen for it (the first selected one).
    fn edges(&self, selected: &[BundleId]) -> Vec<(BundleId, BundleId)> {
        let chosen: FxHashSet<BundleId> = selected.iter().copied().collect();
        let bundle = |v: &Var| match self.subjects().get(v.0 as usize) {
            Some(Subject::Bundle(b)) if chosen.contains(b) => Some(*b),
            _ => None,
        };
        let mut out = Vec::new();
        for e in self.problem().entries() {
            let (Some(from), Constraint::Dependency(list)) = (bundle(&e.subject), &e.constraint)
            else {
                continue;
            };
            if let Some(to) = list.iter().find_map(bundle) {
                out.push((from, to));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The plan for `answer`: dependencies first (ties by package name), removals last.
    pub fn plan(&self, answer: &Answer) -> Vec<Step> {
        let edges = self.edges(&answer.bundles);
        let name_of = |b: BundleId| self.universe.bundle(b).name.clone();
        let by_name: FxHashMap<&str, BundleId> = answer
            .bundles
            .iter()
            .map(|b| (self.universe.bundle(*b).name.as_str(), *b))
            .collect();
        let bundle_at = |i: usize| {
            answer
                .selected
                .get(i)
                .and_then(|s| by_name.get(s.bundle.as_str()).copied())
        };
        let mut needed_by: FxHashMap<BundleId, Vec<BundleId>> = FxHashMap::default();
        for &(f, t) in edges.iter().filter(|(f, t)| f != t) {
            needed_by.entry(t).or_default().push(f);
        }
        let mut steps = Vec::new();
        for i in install_order(answer.selected.len(), &bundle_at, &edges) {
            let Some(s) = answer.selected.get(i) else {
                continue;
            };
            let mut needed: Vec<BundleId> = bundle_at(i)
                .and_then(|b| needed_by.get(&b))
                .cloned()
                .unwrap_or_default();
            needed.sort();
            steps.push(Step {
                step: steps.len() + 1,
                action: match s.action {
                    Action::Install => "install",
                    Action::Upgrade => "upgrade",
                    Action::Keep => "keep",
                },
                package: s.package.clone(),
                bundle: s.bundle.clone(),
                from: s.from.clone(),
                via: s.via,
                needed_by: needed.into_iter().map(name_of).collect(),
            });
        }
        for u in &answer.unneeded {
            steps.push(Step {
                step: steps.len() + 1,
                action: "remove",
                package: u.package.clone(),
                bundle: u.bundle.clone(),
                from: None,
                via: None,
                needed_by: Vec::new(),
            });
        }
        steps
    }
}

/// The order of the `n` selected bundles (positions, in package order) in a plan: repeatedly
/// the first pending one whose dependencies (`edges`, dependent first) are all done, or on a
/// cycle the first pending one. Counts of unfinished dependencies and a sorted ready set keep
/// this O(n log n + edges).
fn install_order(
    n: usize,
    bundle_at: &dyn Fn(usize) -> Option<BundleId>,
    edges: &[(BundleId, BundleId)],
) -> Vec<usize> {
    let mut waiting: FxHashMap<BundleId, usize> = FxHashMap::default();
    let mut needed_by: FxHashMap<BundleId, Vec<BundleId>> = FxHashMap::default();
    for &(f, t) in edges.iter().filter(|(f, t)| f != t) {
        *waiting.entry(f).or_default() += 1;
        needed_by.entry(t).or_default().push(f);
    }
    let mut positions: FxHashMap<BundleId, Vec<usize>> = FxHashMap::default();
    for i in 0..n {
        if let Some(b) = bundle_at(i) {
            positions.entry(b).or_default().push(i);
        }
    }
    let mut pending: BTreeSet<usize> = (0..n).collect();
    let mut ready: BTreeSet<usize> = (0..n)
        .filter(|&i| bundle_at(i).is_none_or(|b| !waiting.contains_key(&b)))
        .collect();
    let mut done: FxHashSet<BundleId> = FxHashSet::default();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop_first().or_else(|| pending.first().copied()) {
        pending.remove(&i);
        order.push(i);
        let Some(b) = bundle_at(i).filter(|b| done.insert(*b)) else {
            continue;
        };
        for f in needed_by.get(&b).into_iter().flatten() {
            let Some(left) = waiting.get_mut(f) else {
                continue;
            };
            *left = left.saturating_sub(1);
            if *left == 0 {
                let now = positions.get(f).into_iter().flatten();
                ready.extend(now.filter(|j| pending.contains(j)));
            }
        }
    }
    order
}
