//! Admin constraints (a request's `constraints:`) and cluster runtime constraints as
//! adjustments: the candidates each removes, with the rule that removed them (docs/semantics.md
//! §6.2, §6.3). Installed bundles are exempt; the answer warns about each one that violates a rule.

use rustc_hash::FxHashSet;

use crate::catalog::{BundleId, CatalogSet, bundle_properties};
use crate::constraint::{
    AdminConstraint, AdminEntry, CandidateView, Cluster, ConstraintAction, Prohibit,
};
use crate::request::InstalledBundle;

/// A rule applied before resolution: a pipeline filter or static variable, an admin or a
/// cluster constraint. Explanations name it; `impl Display` of its parts (in
/// [`crate::advanced::explain`]) words them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Where it comes from.
    pub origin: RuleOrigin,
    /// What it does.
    pub effect: RuleEffect,
}

/// Where a [`Rule`] comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleOrigin {
    /// A pipeline node (a filter, or a node's static variables), by name.
    PipelineNode(String),
    /// The request's `constraints[i]`.
    AdminConstraint(usize),
    /// The cluster's runtime `constraints[i]`.
    ClusterConstraint(usize),
    /// The cluster itself (the APIs it serves).
    Cluster,
    /// A caller's question, e.g. "what if this bundle were installed".
    Question,
}

/// What a [`Rule`] does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleEffect {
    /// A pipeline filter drops the bundles it selects.
    FilterDrops {
        /// What it selects, in the selector's own terms.
        selection: String,
    },
    /// A pipeline node's static variable.
    StaticVariable {
        /// Index in the node's `variables`.
        index: usize,
        /// What it does with what it selects.
        action: StaticEffect,
        /// What it selects.
        selection: String,
    },
    /// An admin `prohibit` entry.
    Prohibits {
        /// What it prohibits (a package, bundle, catalog or channel).
        target: Prohibit,
        /// Its `failureMessage`.
        message: Option<String>,
    },
    /// An admin or cluster constraint every candidate must match.
    Requires {
        /// The constraint.
        constraint: String,
        /// Its `failureMessage`.
        message: Option<String>,
    },
    /// An admin or cluster constraint no candidate may match.
    ConflictsWith {
        /// The constraint.
        constraint: String,
        /// Its `failureMessage`.
        message: Option<String>,
    },
    /// The cluster already serves an API, so no bundle may provide it.
    ServesApi(String),
    /// A question that installs a bundle.
    WhatIfInstalled(String),
    /// A caller's own pipeline node, in its own words (e.g. `drops pre-release versions`).
    Custom(String),
}

/// What a pipeline's static variable does with the bundles it selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaticEffect {
    /// One must be selected.
    Require,
    /// None may be selected.
    Prohibit,
    /// They come first in every candidate list.
    Prefer,
}

/// Changes to the candidates decided before derivation: removals, mandatory bundles and
/// preferences, each pointing at the [`Rule`] responsible.
#[derive(Clone, Debug, Default)]
pub struct Adjustments {
    /// The rules, indexed by the `u32`s below.
    pub rules: Vec<Rule>,
    /// Bundles that are never candidates (installed bundles are exempt).
    pub removed: Vec<(BundleId, u32)>,
    /// Bundles that must be selected.
    pub required: Vec<(BundleId, u32)>,
    /// Bundles put first in every candidate list they are in.
    pub preferred: Vec<BundleId>,
    /// Warnings for the answer (installed bundles that violate a rule, evaluation errors).
    pub warnings: Vec<AdjustmentWarning>,
}

/// A warning a rule raises (an admin or cluster constraint, a pipeline's static variable), as
/// data; `impl Display` (in
/// [`crate::advanced::explain`]) words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdjustmentWarning {
    /// The rule could not be evaluated for a bundle, so it is false for that bundle.
    EvaluationError {
        /// The rule.
        origin: RuleOrigin,
        /// The bundle.
        bundle: String,
        /// What failed.
        error: String,
    },
    /// More evaluation errors than those listed.
    MoreEvaluationErrors {
        /// The rule.
        origin: RuleOrigin,
        /// How many more.
        count: usize,
    },
    /// A pipeline node's static variable selects no bundle.
    StaticSelectsNothing {
        /// The node.
        node: String,
        /// Index in its `variables`.
        index: usize,
        /// What the variable selects, in words.
        what: String,
    },
    /// An installed bundle the rule removes: installed bundles are exempt, so it is kept.
    InstalledViolates {
        /// The installed bundle.
        bundle: String,
        /// Where the rule comes from.
        origin: RuleOrigin,
        /// What the rule does.
        effect: RuleEffect,
    },
}

impl Adjustments {
    /// Appends `other`, renumbering its rules after ours.
    pub fn extend(&mut self, other: &Adjustments) {
        let base = self.rules.len() as u32;
        self.rules.extend(other.rules.iter().cloned());
        self.removed
            .extend(other.removed.iter().map(|(b, i)| (*b, base + i)));
        self.required
            .extend(other.required.iter().map(|(b, i)| (*b, base + i)));
        self.preferred.extend(other.preferred.iter().copied());
        self.warnings.extend(other.warnings.iter().cloned());
    }
}

/// Most evaluation errors reported per rule.
const MAX_ERRORS: usize = 3;

fn effect(c: &AdminConstraint) -> RuleEffect {
    let constraint = c.constraint.describe();
    let message = c.constraint.failure_message.clone();
    match c.action {
        ConstraintAction::Require => RuleEffect::Requires {
            constraint,
            message,
        },
        ConstraintAction::Conflict => RuleEffect::ConflictsWith {
            constraint,
            message,
        },
    }
}

/// Bundles a `prohibit` entry names.
fn prohibited(set: &CatalogSet, p: &Prohibit) -> FxHashSet<BundleId> {
    let of = |f: &dyn Fn(&crate::catalog::Bundle) -> bool| -> FxHashSet<BundleId> {
        set.bundles.iter().filter(|b| f(b)).map(|b| b.id).collect()
    };
    match p {
        Prohibit::Package(name) => of(&|b| set.package_name(b.package) == name),
        Prohibit::Bundle(name) => of(&|b| &b.name == name),
        Prohibit::Catalog(name) => of(&|b| set.catalog(b.catalog).is_some_and(|c| &c.name == name)),
        // Nothing is installed through the channel: its entries that no other channel of
        // the package lists.
        Prohibit::Channel { package, channel } => set
            .packages
            .iter()
            .filter(|p| set.package_name(p.id) == package)
            .flat_map(|p| {
                let elsewhere: FxHashSet<BundleId> = p
                    .channels
                    .iter()
                    .filter(|c| &c.name != channel)
                    .flat_map(|c| c.entries.iter().filter_map(|e| e.bundle))
                    .collect();
                p.channels
                    .iter()
                    .filter(|c| &c.name == channel)
                    .flat_map(|c| c.entries.iter().filter_map(|e| e.bundle))
                    .filter(move |b| !elsewhere.contains(b))
                    .collect::<Vec<_>>()
            })
            .collect(),
    }
}

/// Applies `constraints` (each with the rule origin for explanations) to every catalog bundle.
fn apply(
    set: &CatalogSet,
    entries: &[(RuleOrigin, AdminEntry)],
    installed: &[InstalledBundle],
) -> Adjustments {
    let mut out = Adjustments::default();
    let needs_props = entries
        .iter()
        .any(|(_, e)| matches!(e, AdminEntry::Constraint(_)));
    let props: Vec<Vec<(String, serde_json::Value)>> = if needs_props {
        set.bundles
            .iter()
            .map(|b| bundle_properties(b, set))
            .collect()
    } else {
        Vec::new()
    };
    for (origin, entry) in entries {
        let rule = out.rules.len() as u32;
        let (effect, removed, errors) = match entry {
            AdminEntry::Prohibit {
                target,
                failure_message,
            } => {
                let d = RuleEffect::Prohibits {
                    target: target.clone(),
                    message: failure_message.clone(),
                };
                let mut r: Vec<BundleId> = prohibited(set, target).into_iter().collect();
                r.sort();
                (d, r, Vec::new())
            }
            AdminEntry::Constraint(c) => {
                let mut removed = Vec::new();
                let mut errors: Vec<(String, String)> = Vec::new();
                for (b, p) in set.bundles.iter().zip(&props) {
                    let v = c.constraint.test(&CandidateView::of_bundle(b, set, p));
                    errors.extend(v.errors.iter().map(|e| (b.name.clone(), e.clone())));
                    let drop = match c.action {
                        ConstraintAction::Require => !v.is_match(),
                        ConstraintAction::Conflict => v.is_match(),
                    };
                    if drop {
                        removed.push(b.id);
                    }
                }
                (effect(c), removed, errors)
            }
        };
        for (bundle, error) in errors.iter().take(MAX_ERRORS) {
            out.warnings.push(AdjustmentWarning::EvaluationError {
                origin: origin.clone(),
                bundle: bundle.clone(),
                error: error.clone(),
            });
        }
        if errors.len() > MAX_ERRORS {
            out.warnings.push(AdjustmentWarning::MoreEvaluationErrors {
                origin: origin.clone(),
                count: errors.len() - MAX_ERRORS,
            });
        }
        for i in installed {
            let hit = removed.iter().any(|b| {
                set.bundle(*b).is_some_and(|x| {
                    x.name == i.bundle
                        && i.catalog.as_deref() != Some(crate::request::EXISTING_CATALOG)
                        && i.package
                            .as_deref()
                            .is_none_or(|p| set.package_name(x.package) == p)
                })
            });
            if hit {
                out.warnings.push(AdjustmentWarning::InstalledViolates {
                    bundle: i.bundle.clone(),
                    origin: origin.clone(),
                    effect: effect.clone(),
                });
            }
        }
        out.rules.push(Rule {
            origin: origin.clone(),
            effect,
        });
        out.removed.extend(removed.into_iter().map(|b| (b, rule)));
    }
    out
}

/// The adjustments of a request's admin constraints.
pub(crate) fn admin_adjustments(
    set: &CatalogSet,
    entries: &[AdminEntry],
    installed: &[InstalledBundle],
) -> Adjustments {
    let named: Vec<(RuleOrigin, AdminEntry)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (RuleOrigin::AdminConstraint(i), e.clone()))
        .collect();
    apply(set, &named, installed)
}

/// The adjustments of the cluster node: its runtime constraints, and no bundle may provide
/// an API the cluster already serves.
pub(crate) fn cluster_adjustments(
    set: &CatalogSet,
    cluster: &Cluster,
    installed: &[InstalledBundle],
) -> Adjustments {
    let named: Vec<(RuleOrigin, AdminEntry)> = cluster
        .constraints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                RuleOrigin::ClusterConstraint(i),
                AdminEntry::Constraint(c.clone()),
            )
        })
        .collect();
    let mut out = apply(set, &named, installed);
    for g in cluster.provides() {
        let Some(id) = set.gvk_id(&g) else { continue };
        let providers = set.providers(id);
        if providers.is_empty() {
            continue;
        }
        let rule = out.rules.len() as u32;
        out.rules.push(Rule {
            origin: RuleOrigin::Cluster,
            effect: RuleEffect::ServesApi(g.to_string()),
        });
        out.removed.extend(providers.iter().map(|b| (*b, rule)));
    }
    out
}
