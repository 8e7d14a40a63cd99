//! Bundle dependencies stated as constraints (`olm.constraint` and its alias forms): which
//! bundles match each, computed once per catalog set, and which the cluster node satisfies.

use rustc_hash::FxHashMap;

use crate::catalog::{BundleId, CatalogSet};
use crate::constraint::{CandidateView, Cluster, bundle_properties};

/// Number of the first constraint dependency of a bundle: dependencies are numbered packages
/// first, then APIs, labels and constraints.
pub fn first_constraint_dependency(b: &crate::catalog::Bundle) -> u32 {
    (b.requires_packages.len() + b.requires_gvks.len() + b.requires_labels.len()) as u32
}

/// For every (bundle, dependency number) stated as a constraint: the matching bundles in id
/// order, and the evaluation errors met (each made its rule false for that bundle).
#[derive(Debug, Default)]
pub struct ConstraintMatches {
    /// Matching bundles.
    pub matches: FxHashMap<(BundleId, u32), Vec<BundleId>>,
    /// Evaluation errors, as `bundle: error`.
    pub errors: FxHashMap<(BundleId, u32), Vec<String>>,
}

impl ConstraintMatches {
    /// Tests every constraint of every bundle against every bundle of `set`.
    pub fn compute(set: &CatalogSet) -> ConstraintMatches {
        let mut out = ConstraintMatches::default();
        let owners: Vec<&crate::catalog::Bundle> = set
            .bundles
            .iter()
            .filter(|b| !b.requires_constraints.is_empty())
            .collect();
        if owners.is_empty() {
            return out;
        }
        let props: Vec<Vec<(String, serde_json::Value)>> = set
            .bundles
            .iter()
            .map(|b| bundle_properties(b, set))
            .collect();
        for a in owners {
            let base = first_constraint_dependency(a);
            for (k, c) in a.requires_constraints.iter().enumerate() {
                let key = (a.id, base + k as u32);
                let mut found = Vec::new();
                let mut errors = Vec::new();
                for (b, p) in set.bundles.iter().zip(&props) {
                    let verdict = c.test(&CandidateView::of_bundle(b, set, p));
                    if verdict.is_match() {
                        found.push(b.id);
                    }
                    errors.extend(
                        verdict
                            .errors
                            .into_iter()
                            .map(|e| format!("{}: {e}", b.name)),
                    );
                }
                out.matches.insert(key, found);
                if !errors.is_empty() {
                    out.errors.insert(key, errors);
                }
            }
        }
        out
    }
}

/// True when the cluster node satisfies dependency `d` of bundle `b` (a constraint it
/// matches, or an API it serves).
pub fn cluster_satisfies(
    cluster: &Cluster,
    set: &CatalogSet,
    b: &crate::catalog::Bundle,
    d: u32,
) -> bool {
    let gvks = b.requires_packages.len() as u32;
    let labels = gvks + b.requires_gvks.len() as u32;
    let constraints = first_constraint_dependency(b);
    if (gvks..labels).contains(&d) {
        let served = cluster.provides();
        return b
            .requires_gvks
            .get((d - gvks) as usize)
            .and_then(|g| set.gvk(*g))
            .is_some_and(|g| served.contains(g));
    }
    if d >= constraints {
        return b
            .requires_constraints
            .get((d - constraints) as usize)
            .is_some_and(|c| cluster.satisfies(c).is_match());
    }
    false
}
