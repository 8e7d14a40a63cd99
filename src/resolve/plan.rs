//! Upgrade plans: the answer's actions in the order to carry them out — every bundle after
//! the bundles it depends on — then the installed bundles no longer needed.

use rustc_hash::FxHashMap;

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
        let bundle = |v: &Var| match self.subjects().get(v.0 as usize) {
            Some(Subject::Bundle(b)) if selected.contains(b) => Some(*b),
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
        let mut pending: Vec<&super::Selected> = answer.selected.iter().collect();
        let mut done: Vec<BundleId> = Vec::new();
        let mut steps = Vec::new();
        while !pending.is_empty() {
            // The first (by package) whose dependencies are all done; on a cycle, the first.
            let ready = pending
                .iter()
                .position(|s| {
                    let b = by_name.get(s.bundle.as_str()).copied();
                    edges
                        .iter()
                        .all(|(f, t)| Some(*f) != b || *t == *f || done.contains(t))
                })
                .unwrap_or(0);
            let s = pending.remove(ready);
            let b = by_name.get(s.bundle.as_str()).copied();
            done.extend(b);
            let needed_by = edges
                .iter()
                .filter(|(f, t)| Some(*t) == b && f != t)
                .map(|(f, _)| name_of(*f))
                .collect();
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
                needed_by,
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
