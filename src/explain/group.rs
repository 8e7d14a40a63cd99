//! Pass 1b: "only one of these" facts grouped. The solver states "one bundle per package" and
//! "one provider per API" pairwise, so a proof against an installed bundle that must stay
//! meets one fact for every candidate of its package; the summary says them once.

use crate::resolve::reason::Reason;
use crate::solver::{Cause, Incompatibility, Var};

/// A line of the summary: one fact, or the pairwise facts of one reason grouped.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// The fact at this node.
    Fact(usize),
    /// Facts with the same at-most-one reason: the bundle every pair shares (when one does
    /// and there are several pairs), and the others in the order the proof meets them.
    OnlyOne {
        /// The node of the first fact: its reason words the line.
        first: usize,
        /// The variable in every pair, when there is one.
        hub: Option<Var>,
        /// Every other variable, each once.
        others: Vec<Var>,
    },
}

/// Whether a reason is an at-most-one reason stated pairwise.
fn pairwise(reason: &Reason) -> bool {
    matches!(reason, Reason::OnePerPackage(_) | Reason::OnePerGvk(_))
}

/// The facts' lines, in the facts' order; a group stands where its first fact stood.
pub(super) fn group(nodes: &[Incompatibility<Reason>], facts: &[usize]) -> Vec<Line> {
    let reason = |i: usize| match nodes.get(i).map(|n| &n.cause) {
        Some(Cause::External(r)) if pairwise(r) => Some(r),
        _ => None,
    };
    let mut lines = Vec::new();
    let mut done = vec![false; facts.len()];
    for (k, &i) in facts.iter().enumerate() {
        if done.get(k).copied().unwrap_or(true) {
            continue;
        }
        let Some(r) = reason(i) else {
            lines.push(Line::Fact(i));
            continue;
        };
        let mut pairs: Vec<Vec<Var>> = Vec::new();
        for (m, &j) in facts.iter().enumerate().skip(k) {
            if reason(j) == Some(r)
                && let Some(n) = nodes.get(j)
            {
                pairs.push(n.terms.iter().map(|t| t.var).collect());
                if let Some(d) = done.get_mut(m) {
                    *d = true;
                }
            }
        }
        if pairs.len() == 1 {
            lines.push(Line::Fact(i));
            continue;
        }
        lines.push(only_one(i, &pairs));
    }
    lines
}

/// The group of several pairs.
fn only_one(first: usize, pairs: &[Vec<Var>]) -> Line {
    let hub = pairs
        .first()
        .and_then(|p| p.iter().find(|v| pairs.iter().all(|q| q.contains(v))))
        .copied();
    let mut others: Vec<Var> = Vec::new();
    for v in pairs.iter().flatten() {
        if Some(*v) != hub && !others.contains(v) {
            others.push(*v);
        }
    }
    Line::OnlyOne { first, hub, others }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::PackageId;
    use crate::solver::Term;

    fn fact(reason: Reason, vars: &[u32]) -> Incompatibility<Reason> {
        Incompatibility {
            terms: vars
                .iter()
                .map(|v| Term {
                    var: Var(*v),
                    selected: true,
                })
                .collect(),
            cause: Cause::External(reason),
        }
    }

    #[test]
    fn pairs_sharing_a_bundle_become_one_line() {
        let p = Reason::OnePerPackage(PackageId(0));
        let q = Reason::OnePerPackage(PackageId(1));
        let nodes = vec![
            fact(p.clone(), &[1, 9]),
            fact(Reason::Required(0), &[5]),
            fact(p.clone(), &[2, 9]),
            fact(q.clone(), &[3, 4]),
            fact(p, &[9, 7]),
        ];
        let lines = group(&nodes, &[0, 1, 2, 3, 4]);
        assert_eq!(
            lines,
            vec![
                Line::OnlyOne {
                    first: 0,
                    hub: Some(Var(9)),
                    others: vec![Var(1), Var(2), Var(7)],
                },
                Line::Fact(1),
                Line::Fact(3),
            ]
        );
    }

    #[test]
    fn pairs_without_a_common_bundle_list_every_bundle() {
        let p = Reason::OnePerPackage(PackageId(0));
        let nodes = vec![fact(p.clone(), &[1, 2]), fact(p, &[3, 4])];
        assert_eq!(
            group(&nodes, &[0, 1]),
            vec![Line::OnlyOne {
                first: 0,
                hub: None,
                others: vec![Var(1), Var(2), Var(3), Var(4)],
            }]
        );
    }
}
