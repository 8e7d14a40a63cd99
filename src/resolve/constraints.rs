//! Bundle dependencies stated as constraints (`olm.constraint` and its alias forms): which
//! bundles match each, computed once per catalog set, and which the cluster node satisfies.

use rustc_hash::FxHashMap;

use crate::catalog::bundle_properties;
use crate::catalog::{BundleId, CatalogSet};
use crate::constraint::{CandidateView, Cluster};

/// Number of the first constraint dependency of a bundle: dependencies are numbered packages
/// first, then APIs, labels and constraints.
pub(crate) fn first_constraint_dependency(b: &crate::catalog::Bundle) -> u32 {
    (b.requires_packages.len() + b.requires_gvks.len() + b.requires_labels.len()) as u32
}

/// For (bundle, dependency number) pairs stated as constraints: the matching bundles in id
/// order, and the evaluation errors met (each made its rule false for that bundle). Filled
/// on demand, for the bundles requests reach ([`ConstraintMatches::add_owners`]).
#[derive(Clone, Debug, Default)]
pub struct ConstraintMatches {
    /// Matching bundles.
    pub matches: FxHashMap<(BundleId, u32), Vec<BundleId>>,
    /// Evaluation errors, as `bundle: error`.
    pub errors: FxHashMap<(BundleId, u32), Vec<String>>,
    /// Bundles whose constraints have been tested.
    pub owners: rustc_hash::FxHashSet<BundleId>,
}

/// Every bundle's properties as CEL sees them, computed once per catalog set.
pub type Properties = Vec<Vec<(String, serde_json::Value)>>;

impl ConstraintMatches {
    /// Tests every constraint of every bundle against every bundle of `set`.
    pub fn compute(set: &CatalogSet) -> ConstraintMatches {
        let owners: Vec<BundleId> = set
            .bundles
            .iter()
            .filter(|b| !b.requires_constraints.is_empty())
            .map(|b| b.id)
            .collect();
        let mut out = ConstraintMatches::default();
        let mut props = None;
        out.add_owners(set, &owners, &mut props);
        out
    }

    /// Tests the constraints of `owners` (those not tested yet) against every bundle;
    /// `props` caches the bundles' properties between calls.
    pub fn add_owners(
        &mut self,
        set: &CatalogSet,
        owners: &[BundleId],
        props: &mut Option<Properties>,
    ) {
        let todo: Vec<&crate::catalog::Bundle> = owners
            .iter()
            .filter(|b| !self.owners.contains(b))
            .filter_map(|b| set.bundle(*b))
            .filter(|b| !b.requires_constraints.is_empty())
            .collect();
        if todo.is_empty() {
            return;
        }
        let props = props.get_or_insert_with(|| {
            set.bundles
                .iter()
                .map(|b| bundle_properties(b, set))
                .collect()
        });
        for a in todo {
            self.owners.insert(a.id);
            let base = first_constraint_dependency(a);
            for (k, c) in a.requires_constraints.iter().enumerate() {
                let key = (a.id, base + k as u32);
                let mut found = Vec::new();
                let mut errors = Vec::new();
                for (b, p) in set.bundles.iter().zip(props.iter()) {
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
                self.matches.insert(key, found);
                if !errors.is_empty() {
                    self.errors.insert(key, errors);
                }
            }
        }
    }
}

/// True when the cluster node satisfies dependency `d` of bundle `b` (a constraint it
/// matches, or an API it serves).
pub(crate) fn cluster_satisfies(
    cluster: &Cluster,
    u: &super::Universe,
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
            .and_then(|g| u.gvk(*g))
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
