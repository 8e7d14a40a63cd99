//! Questions about an answer, as data: why a bundle is in it (the chain of dependencies from
//! a requirement, and why each chosen candidate beat the others), and why a bundle is not.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::catalog::BundleId;
use crate::solver::{Constraint, Var};

use super::candidates::{ListKind, Preference, preference};
use super::problem::Subject;
use super::reason::{Reason, Rejection};
use super::{Exclusion, Model};

/// One link of a chain: what needed a bundle, and how the chosen candidate compares with the
/// other candidates of that list.
#[derive(Clone, Debug)]
pub struct Link {
    /// The requirement or dependency that needed it.
    pub reason: Reason,
    /// The candidate selected for it.
    pub chosen: BundleId,
    /// More preferred candidates that were not selected (ruled out by the rest).
    pub passed_over: Vec<BundleId>,
    /// Less preferred candidates, with why the chosen one comes first.
    pub beat: Vec<(BundleId, Preference)>,
}

/// Why a bundle is not in the answer.
#[derive(Clone, Debug)]
pub enum WhyNot {
    /// It is in the answer.
    Selected,
    /// Excluded everywhere.
    Excluded(Exclusion),
    /// A requirement of its package rejects it.
    Rejected(usize, Rejection),
    /// No requirement or selected bundle needs anything it provides.
    NotNeeded,
    /// A list that includes it was satisfied by a more preferred candidate.
    LessPreferred {
        /// The list.
        link: Box<Link>,
        /// Why the chosen one came first (None when the chosen one is less preferred but
        /// this one was ruled out by the rest).
        preference: Option<Preference>,
    },
}

impl Model {
    fn var_of(&self, b: BundleId) -> Option<Var> {
        self.subjects()
            .iter()
            .position(|s| *s == Subject::Bundle(b))
            .map(|i| Var(i as u32))
    }

    fn kind_of(&self, reason: &Reason) -> ListKind<'_> {
        match reason {
            Reason::Dependency { bundle, .. } => ListKind::Dependency(*bundle),
            Reason::RequirementCandidates { requirement, .. } => {
                let q = self.request.require.get(*requirement);
                let channel = q.and_then(|q| q.channel.as_deref());
                let installed = q.is_some_and(|q| {
                    self.universe.installed.iter().any(|i| {
                        self.universe.package_name(self.universe.package_of(*i)) == q.package
                    })
                });
                if installed {
                    ListKind::Upgrade(channel)
                } else {
                    ListKind::Install(channel)
                }
            }
            _ => ListKind::Install(None),
        }
    }

    fn bundle_at(&self, v: Var) -> Option<BundleId> {
        match self.subjects().get(v.0 as usize) {
            Some(Subject::Bundle(b)) => Some(*b),
            _ => None,
        }
    }

    /// The link a Dependency constraint makes when `chosen` is selected for it.
    fn link(&self, reason: &Reason, list: &[Var], chosen: Var) -> Option<Link> {
        let chosen_b = self.bundle_at(chosen)?;
        let kind = self.kind_of(reason);
        let at = list.iter().position(|v| *v == chosen)?;
        let passed_over = list
            .get(..at)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| self.bundle_at(*v))
            .collect();
        let beat = list
            .get(at + 1..)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| self.bundle_at(*v))
            .filter_map(|b| {
                preference(&self.universe, &self.derived, kind, chosen_b, b).map(|p| (b, p))
            })
            .collect();
        Some(Link {
            reason: reason.clone(),
            chosen: chosen_b,
            passed_over,
            beat,
        })
    }

    /// Why `target` is in the answer `selected`: the shortest chain of links from a
    /// requirement (or a static variable) to it; None when it is not selected.
    pub fn why(&self, selected: &[BundleId], target: BundleId) -> Option<Vec<Link>> {
        let chosen: FxHashSet<BundleId> = selected.iter().copied().collect();
        let on: Vec<bool> = self
            .subjects()
            .iter()
            .map(|s| match s {
                Subject::Requirement(_) => true,
                Subject::Bundle(b) => chosen.contains(b),
            })
            .collect();
        let is_on = |v: &Var| on.get(v.0 as usize).copied().unwrap_or(false);
        let goal = self.var_of(target).filter(|v| is_on(v))?;
        let mut from: FxHashMap<Var, (Var, usize)> = FxHashMap::default();
        let mut queue: VecDeque<Var> = (0..on.len() as u32)
            .map(Var)
            .filter(|v| {
                matches!(
                    self.subjects().get(v.0 as usize),
                    Some(Subject::Requirement(_))
                )
            })
            .collect();
        let entries = self.problem().entries();
        // The Dependency constraints of each variable, so the search is linear.
        let mut deps: FxHashMap<Var, Vec<usize>> = FxHashMap::default();
        for (i, e) in entries.iter().enumerate() {
            if matches!(e.constraint, Constraint::Dependency(_)) {
                deps.entry(e.subject).or_default().push(i);
            }
        }
        let mut seen: FxHashSet<Var> = queue.iter().copied().collect();
        while let Some(v) = queue.pop_front() {
            if v == goal {
                break;
            }
            for &i in deps.get(&v).into_iter().flatten() {
                let Some(Constraint::Dependency(list)) = entries.get(i).map(|e| &e.constraint)
                else {
                    continue;
                };
                let Some(&c) = list.iter().find(|x| is_on(x)) else {
                    continue;
                };
                if seen.insert(c) {
                    from.insert(c, (v, i));
                    queue.push_back(c);
                }
            }
        }
        let mut chain = Vec::new();
        let mut at = goal;
        while let Some(&(parent, i)) = from.get(&at) {
            let e = entries.get(i)?;
            let Constraint::Dependency(list) = &e.constraint else {
                break;
            };
            chain.push(self.link(&e.label, list, at)?);
            at = parent;
        }
        if chain.is_empty() {
            // Not reached through a dependency: a static variable or keepInstalled holds it.
            let held = entries
                .iter()
                .find(|e| e.subject == goal && e.constraint == Constraint::Mandatory)?;
            chain.push(Link {
                reason: held.label.clone(),
                chosen: target,
                passed_over: Vec::new(),
                beat: Vec::new(),
            });
        }
        chain.reverse();
        Some(chain)
    }

    /// Why `target` is not in the answer `selected`.
    pub fn why_not(&self, selected: &[BundleId], target: BundleId) -> WhyNot {
        if selected.contains(&target) {
            return WhyNot::Selected;
        }
        if let Some(e) = self.derived.excluded.get(&target) {
            return WhyNot::Excluded(*e);
        }
        for e in self.problem().entries() {
            if let Reason::RequirementCandidates {
                requirement,
                rejected,
            } = &e.label
                && let Some((_, why)) = rejected.iter().find(|(b, _)| *b == target)
            {
                return WhyNot::Rejected(*requirement, *why);
            }
        }
        let Some(tv) = self.var_of(target) else {
            return WhyNot::NotNeeded;
        };
        let chosen: FxHashSet<BundleId> = selected.iter().copied().collect();
        let on = |v: &Var| match self.subjects().get(v.0 as usize) {
            Some(Subject::Requirement(_)) => true,
            Some(Subject::Bundle(b)) => chosen.contains(b),
            None => false,
        };
        for e in self.problem().entries().iter().filter(|e| on(&e.subject)) {
            let Constraint::Dependency(list) = &e.constraint else {
                continue;
            };
            if !list.contains(&tv) {
                continue;
            }
            let Some(&chosen) = list.iter().find(|x| on(x)) else {
                continue;
            };
            let Some(link) = self.link(&e.label, list, chosen) else {
                continue;
            };
            let kind = self.kind_of(&e.label);
            let p = preference(&self.universe, &self.derived, kind, link.chosen, target);
            return WhyNot::LessPreferred {
                link: Box::new(link),
                preference: p,
            };
        }
        WhyNot::NotNeeded
    }
}
