//! OLM resolution: request + catalogs → facts → Datalog (`rules/*.dl`) → ordered candidates →
//! solver → an answer with actions, or a failure with its derivation tree.

mod admin;
mod answer;
mod candidates;
mod check;
mod constraints;
mod demand;
mod derive;
mod facts;
pub mod hints;
mod installed;
mod lazy;
mod lookups;
mod orders;
pub mod plan;
mod problem;
mod reach;
pub mod reason;
mod resolver;
mod universe;
#[cfg(test)]
mod walkthrough;
pub mod why;

use crate::catalog::{CatalogId, CatalogSet, ChannelError};
use crate::request::Request;
use std::sync::Arc;

use crate::catalog::BundleId;
use crate::constraint::Cluster;
use crate::solver::{self, DerivationTree, Entry, Problem, SolveError, SolveOptions};

pub use admin::{AdjustmentWarning, Adjustments, Rule, RuleEffect, RuleOrigin, StaticEffect};
pub(crate) use admin::{admin_adjustments, cluster_adjustments};
pub use answer::{Action, Answer, Selected, Unneeded, Via};
pub use candidates::{ListKind, Preference};
pub use check::{Violation, check};
pub use constraints::ConstraintMatches;
pub use derive::{Edge, Exclusion, Mismatch};
pub(crate) use lazy::ON_DEMAND_FROM;
pub use lazy::{Demand, Derivation};
pub use problem::Subject;
pub use resolver::Resolver;
pub use universe::{INSTALLED_CATALOG, RequestError, Universe};

use derive::Derived;
use facts::{ChannelOrders, RequirementFacts};
use problem::Built;
use reason::Reason;

/// A request could not be resolved for a reason other than unsatisfiability.
///
/// A caller can match on it, e.g. tell a bad request from a budget that ran out:
///
/// ```
/// use deppy::advanced::request::InstalledBundle;
/// use deppy::{CatalogSet, CatalogSource, LoadOptions, Request, ResolveError, Resolver};
///
/// let source = CatalogSource { name: "etcd".into(), path: "tests/pipeline/catalog".into(), priority: 0 };
/// let resolver = Resolver::new(CatalogSet::load(&[source], &LoadOptions::default())?);
/// // An installed bundle no catalog has, without the package and version that would place it.
/// let unknown = InstalledBundle { bundle: "mystery.v1".into(), ..InstalledBundle::default() };
/// let request = Request { installed: vec![unknown], ..Request::default() };
/// match resolver.resolve(&request) {
///     Err(ResolveError::Request(why)) => assert!(why.contains("installed[0]"), "{why}"),
///     Err(ResolveError::GaveUp { .. }) => unreachable!("no budget was set"),
///     Err(other) => panic!("expected a request error, got {other}"),
///     Ok((_, outcome)) => panic!("expected a request error, got {outcome:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The request is inconsistent (names the field).
    #[error("request: {0}")]
    Request(String),
    /// A channel the request needs cannot be ordered.
    #[error("package {package:?} channel {channel:?} in catalog {catalog:?} is malformed: {error}")]
    BrokenChannel {
        /// Package.
        package: String,
        /// Channel.
        channel: String,
        /// Catalog.
        catalog: String,
        /// What is wrong.
        error: Box<ChannelError>,
    },
    /// A budget ran out: the solver's (conflicts, time, memory), or the time budget while
    /// rules were evaluated.
    #[error("{}\n{partial}", crate::solver::GaveUpLine { conflicts: *conflicts, exhausted: *exhausted, proven: *proven })]
    GaveUp {
        /// Conflicts analysed.
        conflicts: u64,
        /// Which budget ran out.
        exhausted: crate::solver::Exhausted,
        /// The search had proven that no resolution exists, but its proof did not fit.
        proven: bool,
        /// What the search had proven by then, as data; [`crate::advanced::explain`] words it (the
        /// error's text ends with those words).
        partial: Partial,
    },
}

impl From<RequestError> for ResolveError {
    fn from(e: RequestError) -> ResolveError {
        ResolveError::Request(e.0)
    }
}

impl ResolveError {
    /// The time budget ran out before the search began (while rules were evaluated).
    pub(crate) fn out_of_time() -> ResolveError {
        ResolveError::GaveUp {
            conflicts: 0,
            exhausted: crate::solver::Exhausted::Time,
            proven: false,
            partial: Partial::Nothing,
        }
    }
}

/// What a search that gave up had proven, as data; `impl Display` (in [`crate::advanced::explain`])
/// words it.
#[derive(Debug)]
pub enum Partial {
    /// Nothing: the search stopped before it learnt anything, or had proven that no
    /// resolution exists (the line before says so).
    Nothing,
    /// The facts the search's last learned incompatibility rests on, and that incompatibility.
    Proof(Box<Proof>),
    /// The search had learnt something, but its derivation did not fit the budget.
    TooLarge,
}

/// A proof with what its words need: the resolution's bundles and request
/// ([`crate::explain_failure`] takes the three).
#[derive(Clone)]
pub struct Proof {
    /// The derivation: of no resolution, or, in [`Partial::Proof`], of the last learned
    /// incompatibility.
    pub failure: Failure,
    /// The bundles the resolution saw.
    pub universe: Universe,
    /// The request.
    pub request: Arc<Request>,
}

impl std::fmt::Debug for Proof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proof")
            .field("failure", &self.failure)
            .finish_non_exhaustive()
    }
}

/// Why no answer exists: the proof, and what its variables stand for.
///
/// [`crate::explain_failure`] words it; the tree is data a caller can walk:
///
/// ```
/// use deppy::{CatalogSet, CatalogSource, LoadOptions, Outcome, Request, Resolver, explain_failure};
///
/// let request = Request::from_file("tests/scenarios/deprecated-only-provider-etcd/request.yaml".as_ref())?;
/// let sources: Vec<CatalogSource> = request.catalogs.iter().map(|c| CatalogSource {
///     name: c.name.clone().unwrap_or_default(), path: c.path.clone(), priority: c.priority,
/// }).collect();
/// let resolver = Resolver::new(CatalogSet::load(&sources, &LoadOptions::default())?);
/// let (universe, outcome) = resolver.resolve(&request)?;
/// let Outcome::Unsatisfiable(failure) = outcome else { panic!("no answer exists") };
/// assert!(!failure.tree.nodes.is_empty());
/// let words = explain_failure(&failure, &universe, &request, Default::default());
/// assert!(words.starts_with("No resolution exists."));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Failure {
    /// The derivation tree; terms name variables, see `subjects`.
    pub tree: DerivationTree<reason::Reason>,
    /// What each solver variable stands for.
    pub subjects: Vec<Subject>,
}

/// The outcome of a resolution.
///
/// The example on [`Resolver`] reads an answer, the one on [`Failure`] a proof.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A selection satisfies everything.
    Resolved(Answer),
    /// None does; the failure proves it.
    Unsatisfiable(Failure),
}

/// A catalog set with its channel orders (each package entry's ordered on first need and
/// kept), shared by many resolutions.
pub struct Prepared {
    set: Arc<CatalogSet>,
    orders: ChannelOrders,
    constraints: std::sync::Mutex<(ConstraintMatches, Option<constraints::Properties>)>,
    /// Whether some bundle of the set states a constraint dependency (found once).
    any_constraint: std::sync::OnceLock<bool>,
}

impl Prepared {
    /// Prepares `set`: its channels are ordered as resolutions reach their packages.
    pub fn new(set: Arc<CatalogSet>) -> Prepared {
        let orders = ChannelOrders::new(set.clone());
        Prepared {
            set,
            orders,
            constraints: std::sync::Mutex::new((ConstraintMatches::default(), None)),
            any_constraint: std::sync::OnceLock::new(),
        }
    }

    /// The catalog set.
    pub fn catalogs(&self) -> &Arc<CatalogSet> {
        &self.set
    }

    /// Warnings for malformed channels no requirement needs.
    pub fn channel_warnings(&self) -> Vec<String> {
        channel_warnings(&self.set, &self.orders)
    }

    /// The constraint matches of every bundle a request can reach, tested on first need and
    /// kept for later requests: reaching a bundle with constraints may reach more packages.
    /// Also returns the packages the request reaches with those matches.
    /// Rules are evaluated under `deadline`: when it passes, nothing computed is kept and
    /// the time budget's [`ResolveError::GaveUp`] is returned.
    /// When no bundle of the set states a constraint (then only installed bundles have
    /// matches), the walk of the reachable packages may stop once they hold `enough`
    /// bundles. Says whether the packages returned are all the reachable ones.
    fn constraint_matches(
        &self,
        u: &Universe,
        required: &[crate::catalog::PackageId],
        adjust: &Adjustments,
        deadline: Option<std::time::Instant>,
        enough: Option<usize>,
    ) -> Result<
        (
            ConstraintMatches,
            rustc_hash::FxHashSet<crate::catalog::PackageId>,
            bool,
        ),
        ResolveError,
    > {
        let lock = || self.constraints.lock().unwrap_or_else(|e| e.into_inner());
        let mut snap = lock().0.clone();
        let any_constraint = *self
            .any_constraint
            .get_or_init(|| self.set.has_constraints());
        if !any_constraint {
            installed::add_matches(u, &mut snap);
            let (reach, complete) = reach::reachable_until(u, required, adjust, &snap, enough);
            return Ok((snap, reach, complete));
        }
        loop {
            installed::add_matches(u, &mut snap);
            let reach = reach::reachable(u, required, adjust, &snap);
            let missing: Vec<BundleId> = reach
                .iter()
                .flat_map(|p| self.set.bundles_of(*p).iter().copied())
                .filter(|b| !snap.owners.contains(b))
                .filter(|b| {
                    self.set
                        .bundle(*b)
                        .is_some_and(|x| !x.requires_constraints.is_empty())
                })
                .collect();
            if missing.is_empty() {
                return Ok((snap, reach, true));
            }
            let mut guard = lock();
            let (cache, props) = &mut *guard;
            let mut fresh = cache.clone();
            let ((), interrupted) = crate::constraint::within_deadline(deadline, || {
                fresh.add_owners(&self.set, &missing, props);
            });
            if interrupted {
                return Err(ResolveError::out_of_time());
            }
            *cache = fresh;
            snap = cache.clone();
        }
    }

    /// The derivation stage: the request's facts through `rules/*.dl`, then candidate lists
    /// as solver variables with their Dependency constraints (no global constraints yet).
    pub fn derive(
        &self,
        request: Arc<Request>,
        adjust: &Adjustments,
        cluster: Option<&Cluster>,
    ) -> Result<Model, ResolveError> {
        self.derive_within(request, adjust, cluster, None)
    }

    /// As [`Prepared::derive`], with bundle constraints' CEL rules evaluated only until
    /// `deadline` (the solve's time budget, see [`SolveOptions::deadline_from`]).
    pub fn derive_within(
        &self,
        request: Arc<Request>,
        adjust: &Adjustments,
        cluster: Option<&Cluster>,
        deadline: Option<std::time::Instant>,
    ) -> Result<Model, ResolveError> {
        let (universe, required) = self.start(&request, adjust, cluster)?;
        let (matches, reach, _) =
            &self.constraint_matches(&universe, &required, adjust, deadline, None)?;
        Ok(self.whole_program(universe, request, adjust, cluster, matches, reach))
    }

    /// The bundles a request sees, with the adjustments' rules and notes and the cluster,
    /// after its channels are checked; and the packages its requirements name.
    fn start(
        &self,
        request: &Request,
        adjust: &Adjustments,
        cluster: Option<&Cluster>,
    ) -> Result<(Universe, Vec<crate::catalog::PackageId>), ResolveError> {
        let mut universe = Universe::new(self.set.clone(), request)?;
        universe.rules = adjust.rules.clone();
        universe.notes = adjust.warnings.clone();
        universe.cluster = cluster.cloned();
        check_channels(&self.set, &self.orders, request)?;
        let required = requirement_facts(&universe, request)
            .iter()
            .filter_map(|r| r.package)
            .collect();
        Ok((universe, required))
    }

    /// The whole program over the packages `reach` holds, then every candidate list as
    /// solver variables with their Dependency constraints.
    fn whole_program(
        &self,
        universe: Universe,
        request: Arc<Request>,
        adjust: &Adjustments,
        cluster: Option<&Cluster>,
        matches: &ConstraintMatches,
        reach: &rustc_hash::FxHashSet<crate::catalog::PackageId>,
    ) -> Model {
        let facts = requirement_facts(&universe, &request);
        let derived = self.run_whole(&universe, &facts, adjust, matches, reach);
        let context = problem::Context {
            injected: &adjust.required,
            cluster,
            matches,
            derived_for: None,
        };
        let built = problem::build(&universe, &derived, &request, &context);
        Model {
            universe,
            request,
            derived,
            built,
        }
    }
}

impl Prepared {
    /// The whole program over the packages of `reach`.
    fn run_whole(
        &self,
        universe: &Universe,
        facts: &[facts::RequirementFacts<'_>],
        adjust: &Adjustments,
        matches: &ConstraintMatches,
        reach: &rustc_hash::FxHashSet<crate::catalog::PackageId>,
    ) -> derive::Derived {
        derive::run_over(universe, &self.orders, facts, adjust, matches, reach)
    }
}

/// Derivation on demand, held against the whole program (tests, fuzz targets, benchmarks).
impl Prepared {
    /// Derives `request` by crepe's whole program, then on demand as a search would: the
    /// roots, then every bundle the whole program reached expanded, one at a time. Every
    /// tuple derived on demand must be one of the whole program's outputs, all of them
    /// once every reached bundle is expanded, and every query answered on demand (the
    /// requirement lists, upgrade edges, each bundle's exclusions) the whole program's
    /// tuples with those arguments. Returns the number of tuples and answers compared (0
    /// for a request whose installed state is inconsistent), or the first difference in
    /// words.
    #[cfg(feature = "testing")]
    pub fn check_on_demand(
        &self,
        request: &Request,
        adjust: &Adjustments,
    ) -> Result<usize, String> {
        let Ok((universe, facts)) = self.universe_for(request, adjust) else {
            return Ok(0);
        };
        let required: Vec<crate::catalog::PackageId> =
            facts.iter().filter_map(|r| r.package).collect();
        // No deadline: the matches are always complete.
        let (matches, mut reach, _) = self
            .constraint_matches(&universe, &required, adjust, None, None)
            .map_err(|e| e.to_string())?;
        // the packages of removed bundles too: their exclusions are asked for on demand
        reach.extend(adjust.removed.iter().map(|(b, _)| universe.package_of(*b)));
        let whole = derive::run_program(&universe, &self.orders, &facts, adjust, &matches, &reach);
        let lookups = lookups::Lookups::new(&universe, &self.orders, &facts, adjust, &matches);
        let mut rules = demand::Rules::new(&lookups);
        rules.roots(&lazy::roots_of(&universe, &required, adjust));
        let mut reached: Vec<BundleId> = whole.reached.iter().map(|r| r.0).collect();
        reached.sort_unstable();
        for a in reached {
            rules.dependencies(&[a]);
        }
        rules.agrees_with(&whole, true)
    }

    /// Derives the dependency lists of `bundles` on demand, one bundle at a time; returns the
    /// number of lists. For the derivation benchmark.
    #[cfg(feature = "testing")]
    pub fn derive_on_demand(
        &self,
        request: &Request,
        bundles: &[BundleId],
    ) -> Result<usize, String> {
        let adjust = Adjustments::default();
        let (universe, facts) = self.universe_for(request, &adjust)?;
        // only the demanded bundles' constraints are tested, as a solver's demand would
        let matches = {
            let mut guard = self.constraints.lock().unwrap_or_else(|e| e.into_inner());
            let (cache, props) = &mut *guard;
            cache.add_owners(&self.set, bundles, props);
            cache.clone()
        };
        let mut lists = 0;
        let lookups = lookups::Lookups::new(&universe, &self.orders, &facts, &adjust, &matches);
        let mut rules = demand::Rules::new(&lookups);
        for &a in bundles {
            let d = rules.dependencies(&[a]);
            lists += d.dependencies.candidates.len();
        }
        Ok(lists)
    }

    #[cfg(any(test, feature = "testing"))]
    fn universe_for<'r>(
        &self,
        request: &'r Request,
        adjust: &Adjustments,
    ) -> Result<(Universe, Vec<RequirementFacts<'r>>), String> {
        let mut universe = Universe::new(self.set.clone(), request).map_err(|e| e.to_string())?;
        universe.rules = adjust.rules.clone();
        let facts = requirement_facts(&universe, request);
        Ok((universe, facts))
    }
}

fn requirement_facts<'r>(u: &Universe, request: &'r Request) -> Vec<RequirementFacts<'r>> {
    let set = &u.set;
    request
        .require
        .iter()
        .map(|q| RequirementFacts {
            package: u.package_id(&q.package),
            channel: q.channel.as_deref(),
            range: q.version_range.as_ref(),
            pin: q.bundle.as_deref(),
            catalog: q
                .catalog
                .as_deref()
                .map(|c| set.catalog_id(c).unwrap_or(CatalogId(u32::MAX))),
        })
        .collect()
}

/// The derived variables of one request: what the solver stage consumes.
pub struct Model {
    /// The bundles this resolution sees.
    pub universe: Universe,
    /// The request.
    pub request: Arc<Request>,
    derived: Derived,
    built: Built,
}

impl Model {
    /// The problem: variables and their Dependency and Mandatory constraints.
    pub fn problem(&self) -> &Problem<Reason> {
        &self.built.problem
    }

    /// What each variable stands for.
    pub fn subjects(&self) -> &[Subject] {
        &self.built.subjects
    }

    /// The global-constraints stage: at most one bundle per package and per API.
    pub fn global_constraints(&self) -> Vec<Entry<Reason>> {
        problem::global_constraints(&self.universe, &self.built)
    }

    /// The answer a selection of this model's variables gives.
    fn answer(&self, sel: &[solver::Var]) -> Answer {
        let (u, request) = (&self.universe, &*self.request);
        let a = answer::answer(u, &self.derived, &self.built, request, sel);
        debug_assert_eq!(
            check(u, request, &a.bundles),
            Ok(()),
            "answer fails the checker"
        );
        a
    }

    /// The solver stage: the problem plus `global` constraints, solved; a selection becomes
    /// an answer, a failure its proof.
    pub fn solve(
        &self,
        global: &[Entry<Reason>],
        options: &SolveOptions,
    ) -> Result<Outcome, ResolveError> {
        let mut problem = self.built.problem.clone();
        for e in global {
            problem.add(e.subject, e.constraint.clone(), e.label.clone());
        }
        match solver::solve(&problem, options) {
            Ok(sel) => Ok(Outcome::Resolved(self.answer(&sel))),
            Err(SolveError::Unsatisfiable(tree)) => Ok(Outcome::Unsatisfiable(Failure {
                tree,
                subjects: self.built.subjects.clone(),
            })),
            Err(SolveError::GaveUp {
                conflicts,
                exhausted,
                proven,
                partial,
            }) => Err(ResolveError::GaveUp {
                conflicts,
                exhausted,
                proven,
                partial: match partial {
                    Some(tree) => Partial::Proof(Box::new(Proof {
                        failure: Failure {
                            tree,
                            subjects: self.built.subjects.clone(),
                        },
                        universe: self.universe.clone(),
                        request: self.request.clone(),
                    })),
                    None if conflicts > 0 && !proven => Partial::TooLarge,
                    None => Partial::Nothing,
                },
            }),
        }
    }
}

/// A malformed channel is an error only when a requirement needs it: it names the
/// channel, or names none and the channel is the package's default.
fn check_channels(
    set: &CatalogSet,
    orders: &ChannelOrders,
    request: &Request,
) -> Result<(), ResolveError> {
    for q in &request.require {
        let Some(p) = set.package_id(&q.package) else {
            continue;
        };
        for broken in orders.of_package(p).flat_map(|e| e.broken.iter()) {
            let default = set
                .package_in(p, broken.catalog)
                .and_then(|e| e.default_channel.as_deref());
            let needed = match q.channel.as_deref() {
                Some(ch) => ch == broken.channel,
                None => default == Some(broken.channel.as_str()),
            };
            let catalog_ok = q
                .catalog
                .as_deref()
                .is_none_or(|c| set.catalog(broken.catalog).is_some_and(|i| i.name == c));
            if needed && catalog_ok {
                return Err(ResolveError::BrokenChannel {
                    package: q.package.clone(),
                    channel: broken.channel.clone(),
                    catalog: set
                        .catalog(broken.catalog)
                        .map_or_else(String::new, |c| c.name.clone()),
                    error: Box::new(broken.error.clone()),
                });
            }
        }
    }
    Ok(())
}

fn channel_warnings(set: &CatalogSet, orders: &ChannelOrders) -> Vec<String> {
    orders
            .broken()
            .map(|b| {
                format!(
                    "package {} channel {} in catalog {} is malformed ({}); its bundles are not candidates",
                    set.package_name(b.package),
                    b.channel,
                    set.catalog(b.catalog).map_or("?", |c| c.name.as_str()),
                    b.error
                )
            })
            .collect()
}
