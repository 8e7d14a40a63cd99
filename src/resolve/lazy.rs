//! Derivation driven by the solver. The requirement lists, upgrade edges and the facts of
//! the required, installed and mandatory packages are derived first (the rules over those
//! packages only); a bundle's dependency lists are derived the first time a search selects
//! the bundle, and kept. Packages no search selects a bundle of cost nothing beyond loading
//! (and the constraint matches of what the request can reach).
//!
//! One search drives it ([`crate::solver::solve_with`]). It starts from the problem of the
//! roots: a bundle whose lists are not derived yet has its variable and no Dependency
//! constraint. The first time the search selects such a bundle, before the bundle's
//! constraints join the search, [`OnDemand`] derives its lists
//! ([`super::demand::Rules`], the rules' evaluator on demand), then the lists of the candidates they force (a list's
//! only candidate), level by level. The new lists become Dependency constraints, their
//! candidates new variables, and the at-most-one sets of their packages and APIs grow to
//! count them. The search keeps its assignments and what it has learned: every clause it
//! learned follows from constraints of the whole problem, which only gains constraints.
//!
//! So the search meets every constraint of a variable before the variable counts, as it
//! would on the whole problem, where a variable's constraints also join the search when it
//! is first selected; a bundle it never selects adds none. Its answer is therefore the one
//! the whole problem gives (docs/semantics.md §5.3): `tests/derive_on_demand.rs` and a fuzz
//! target hold every answer against the whole program's.
//!
//! When the search proves that no answer exists, the proof is over the part of the problem
//! it derived: every constraint it used is one of the whole problem's (a derived list is the
//! whole program's list, and the at-most sets are the whole problem's over fewer
//! variables). The failure is worded from that proof (docs/semantics.md §7, "Which proof").
//! When a budget of the search runs out, the whole program is derived and solved.
//!
//! [`Prepared::derive_on_demand_from`] runs this search for both the library's resolver and
//! the pipeline's `datalog` node: it returns the problem as grown as a model (the closed
//! relaxation, whose answer selects no bundle without derived lists) or the whole
//! program's model. The node emits that model without its global constraints
//! ([`Derivation::into_model`]) and the `solver` node solves it again.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::catalog::{BundleId, PackageId};
use crate::constraint::Cluster;
use crate::request::Request;
use crate::solver::{self, DerivationTree, SolveError, SolveOptions, Var};

use super::lookups::Lookups;
use super::problem::{self, Subject};
use super::reason::Reason;
use super::{
    Adjustments, Failure, Model, Prepared, ResolveError, Universe, demand, derive,
    requirement_facts,
};

/// Below this many bundles in the packages a request can reach, the whole program is
/// derived at once: the runs on demand and the searches between them cost more (the real
/// catalogs' requests reach tens of bundles; the synthetic 1,000-bundle catalog already
/// resolves faster on demand, `cargo bench --bench derive`).
pub(crate) const ON_DEMAND_FROM: usize = 500;

/// What one resolution on demand derived: for the derivation benchmark.
#[derive(Clone, Copy, Debug, Default)]
pub struct Demand {
    /// Searches run: 1 on demand, 0 when the whole program was derived.
    pub rounds: usize,
    /// Bundles whose dependency lists were derived.
    pub bundles: usize,
    /// Whether the search on demand proved that no answer exists, so the failure is worded
    /// from its proof.
    pub refuted: bool,
}

/// What a derivation that may run on demand gives.
pub enum Derivation {
    /// The whole program's model: the request reached fewer bundles than the threshold, or
    /// on demand a budget of the search ran out; a failure is worded from the whole
    /// program's proof.
    Whole(Model),
    /// The closed relaxation: the model of the problem as the search grew it, whose answer
    /// (the selection given) selects no bundle whose lists are not derived, and is
    /// therefore the whole problem's answer (see the module documentation). Its variables
    /// are those of the derived bundles' lists only.
    Closed(Model, Vec<Var>),
    /// The refuted relaxation: the model of the problem as grown by a search that proved
    /// it has no answer, so the whole problem has none either (see the module
    /// documentation), with the search's proof over that problem.
    Refuted(Model, Failure),
}

impl Derivation {
    /// The model, whichever it is, its problem without global constraints (they are a
    /// stage of their own, [`Model::global_constraints`]). The closed and refuted
    /// relaxations carry the problem as the search grew it, with the global constraints it
    /// counted: they are taken out here, only for a caller that wants the model.
    pub fn into_model(self) -> Model {
        match self {
            Derivation::Whole(m) => m,
            Derivation::Closed(mut m, _) | Derivation::Refuted(mut m, _) => {
                m.built.problem = std::mem::take(&mut m.built.problem).without_at_most();
                m
            }
        }
    }
}

impl Prepared {
    /// Derives `request` on the search's demand (see the module documentation) when it
    /// reaches at least `from` bundles, else by the whole program; the whole program too
    /// when no answer comes out of the search on demand. `options.deadline` bounds rule
    /// evaluation and the search. What the library's resolver and the pipeline's `datalog` node
    /// both run.
    pub fn derive_on_demand_from(
        &self,
        request: Arc<Request>,
        adjust: &Adjustments,
        cluster: Option<&Cluster>,
        options: &SolveOptions,
        from: usize,
        stats: &mut Demand,
    ) -> Result<Derivation, ResolveError> {
        let (universe, required) = self.start(&request, adjust, cluster)?;
        let (matches, reach, complete) =
            &self.constraint_matches(&universe, &required, adjust, options.deadline, Some(from))?;
        if !complete
            || reach
                .iter()
                .map(|p| self.set.bundles_of(*p).len())
                .sum::<usize>()
                >= from
        {
            let cx = Start {
                universe: &universe,
                request: &request,
                adjust,
                cluster,
                matches,
                required: &required,
            };
            if let Some((derived, built, end)) = self.search(&cx, options, stats)? {
                let model = Model {
                    universe,
                    request,
                    derived,
                    built,
                };
                return Ok(match end {
                    SearchEnd::Answer(sel) => Derivation::Closed(model, sel),
                    SearchEnd::Proof(tree) => {
                        let subjects = model.built.subjects.clone();
                        Derivation::Refuted(model, Failure { tree, subjects })
                    }
                });
            }
        }
        // A small closure (one run of the whole program costs less than several runs), or
        // on demand a budget of the search ran out.
        let full;
        let reach = if *complete {
            reach
        } else {
            full = super::reach::reachable(&universe, &required, adjust, matches);
            &full
        };
        let model = self.whole_program(universe, request, adjust, cluster, matches, reach);
        Ok(Derivation::Whole(model))
    }

    /// The search on demand: one search over the problem of the roots, which asks
    /// [`OnDemand`] for a bundle's dependency lists when it first selects the bundle. Ends
    /// with an answer (every selected bundle's lists derived) or a proof that none exists,
    /// both with what was derived and the problem as grown; `None` when a budget of the
    /// search runs out (the whole program is derived then).
    fn search(
        &self,
        cx: &Start<'_>,
        options: &SolveOptions,
        stats: &mut Demand,
    ) -> Result<Option<(derive::Derived, problem::Built, SearchEnd)>, ResolveError> {
        let Start {
            universe,
            request,
            adjust,
            ..
        } = *cx;
        let roots = roots_of(universe, cx.required, adjust);
        let facts = requirement_facts(universe, request);
        let lookups = Lookups::new(universe, &self.orders, &facts, adjust, cx.matches);
        let mut rules = demand::Rules::new(&lookups);
        // No dependency list yet: each is derived when the search asks for it.
        let derived = rules.roots(&roots);
        let done: FxHashSet<BundleId> = FxHashSet::default();
        let growing = problem::Growing::new(universe, &derived, request, &cx.context(Some(&done)));
        let mut on = OnDemand {
            rules,
            cx,
            options,
            derived,
            done,
            growing,
            stats,
            error: None,
        };
        let mut problem = std::mem::take(&mut on.growing.built.problem);
        on.growing.sync_global(universe, &mut problem);
        on.stats.rounds += 1;
        let answer = solver::solve_with(&mut problem, &mut on, options);
        let OnDemand {
            derived,
            mut growing,
            error,
            stats,
            ..
        } = on;
        if let Some(e) = error {
            return Err(e);
        }
        // The problem as grown, global constraints included: [`Derivation::into_model`]
        // takes them out when a caller wants the model.
        growing.built.problem = problem;
        let end = match answer {
            Ok(sel) => SearchEnd::Answer(sel),
            Err(SolveError::Unsatisfiable(tree)) => {
                stats.refuted = true;
                SearchEnd::Proof(tree)
            }
            Err(SolveError::GaveUp { .. }) => return Ok(None),
        };
        Ok(Some((derived, growing.built, end)))
    }
}

/// The packages derivation on demand starts from: those of the requirements, installed
/// and mandatory bundles.
pub(super) fn roots_of(
    u: &Universe,
    required: &[PackageId],
    adjust: &Adjustments,
) -> FxHashSet<PackageId> {
    let mut roots: FxHashSet<PackageId> = required.iter().copied().collect();
    roots.extend(u.installed.iter().map(|b| u.package_of(*b)));
    roots.extend(adjust.required.iter().map(|(b, _)| u.package_of(*b)));
    roots
}

/// Derives the lists of `wanted`, the bundles a search selected; then, level by level,
/// the lists of the candidates they force (a new list's only candidate), so a chain of
/// single-candidate dependencies costs one call. A new list's first candidate is not derived
/// ahead: the search often does not take it (docs/performance-history.md has the
/// measurement).
fn derive_lists(
    rules: &mut demand::Rules<'_, '_>,
    wanted: Vec<BundleId>,
    derived: &mut derive::Derived,
    done: &mut FxHashSet<BundleId>,
    options: &SolveOptions,
    stats: &mut Demand,
) -> Result<Vec<BundleId>, ResolveError> {
    let mut all = Vec::new();
    let mut next = wanted;
    while !next.is_empty() {
        if options
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Err(ResolveError::out_of_time());
        }
        rules.add_dependencies(derived, &next);
        stats.bundles += next.len();
        done.extend(next.iter().copied());
        let more = forced(rules.universe(), derived, &next, done);
        all.append(&mut next);
        next = more;
    }
    Ok(all)
}

/// The only candidate of each dependency list of `bundles` that has one, unless its lists
/// are derived already: selecting the dependent selects it.
fn forced(
    u: &Universe,
    d: &derive::Derived,
    bundles: &[BundleId],
    done: &FxHashSet<BundleId>,
) -> Vec<BundleId> {
    let mut out: Vec<BundleId> = Vec::new();
    for &a in bundles {
        let b = u.bundle(a);
        let count = b.requires_packages.len()
            + b.requires_gvks.len()
            + b.requires_labels.len()
            + b.requires_constraints.len();
        for i in 0..count as u32 {
            if let Some([only]) = d.dependencies.candidates.get(&(a, i)).map(Vec::as_slice) {
                out.extend(Some(*only).filter(|b| !done.contains(b)));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// How the search on demand ended: an answer that selects no bundle without derived lists, or a
/// relaxation's proof that no answer exists.
enum SearchEnd {
    Answer(Vec<Var>),
    Proof(DerivationTree<Reason>),
}

/// What the search on demand starts from: the request's bundles, adjustments, cluster and
/// constraint matches, and the packages its requirements name.
struct Start<'a> {
    universe: &'a Universe,
    request: &'a Request,
    adjust: &'a Adjustments,
    cluster: Option<&'a Cluster>,
    matches: &'a super::ConstraintMatches,
    required: &'a [PackageId],
}

impl Start<'_> {
    fn context<'b>(&'b self, derived_for: Option<&'b FxHashSet<BundleId>>) -> problem::Context<'b> {
        problem::Context {
            injected: &self.adjust.required,
            cluster: self.cluster,
            matches: self.matches,
            derived_for,
        }
    }
}

/// What the search asks while it runs: the dependency lists of a bundle it selects for
/// the first time, derived then (with the candidates they force, [`derive_lists`]),
/// and the variables, constraints and global constraints they bring.
struct OnDemand<'a, 'c> {
    rules: demand::Rules<'a, 'a>,
    cx: &'a Start<'c>,
    options: &'a SolveOptions,
    derived: derive::Derived,
    /// Bundles whose lists are derived.
    done: FxHashSet<BundleId>,
    growing: problem::Growing,
    stats: &'a mut Demand,
    /// A budget that ran out while deriving, reported instead of the search's.
    error: Option<ResolveError>,
}

impl solver::Provider<Reason> for OnDemand<'_, '_> {
    fn provide(
        &mut self,
        problem: &mut solver::Problem<Reason>,
        var: Var,
    ) -> Result<(), solver::Exhausted> {
        let subjects = &self.growing.built.subjects;
        let Some(Subject::Bundle(b)) = subjects.get(var.index()).copied() else {
            return Ok(());
        };
        let u = self.cx.universe;
        if self.done.contains(&b) || !problem::requires_anything(u.bundle(b)) {
            return Ok(());
        }
        let before = self.done.len();
        let derived_now = match derive_lists(
            &mut self.rules,
            vec![b],
            &mut self.derived,
            &mut self.done,
            self.options,
            self.stats,
        ) {
            Ok(now) => now,
            Err(e) => {
                self.error = Some(e);
                return Err(solver::Exhausted::Time);
            }
        };
        debug_assert_eq!(self.done.len(), before + derived_now.len());
        std::mem::swap(&mut self.growing.built.problem, problem);
        let cx = self.cx.context(Some(&self.done));
        self.growing.grow_for(u, &self.derived, &cx, &derived_now);
        std::mem::swap(&mut self.growing.built.problem, problem);
        self.growing.sync_global(u, problem);
        Ok(())
    }
}

/// Derivation on demand against the whole program (tests, benchmarks).
impl super::Resolver {
    /// Derives the whole reached closure before every search, as before derivation on
    /// demand: the oracle the on-demand path is held against.
    #[cfg(feature = "testing")]
    pub fn with_whole_program(mut self) -> Self {
        self.whole_program = true;
        self
    }

    /// Derives on demand from this many bundles reached (default `ON_DEMAND_FROM`, 500; 0
    /// always derives on demand).
    #[cfg(feature = "testing")]
    pub fn with_on_demand_from(mut self, bundles: usize) -> Self {
        self.on_demand_from = bundles;
        self
    }

    /// Resolves `request` and says what was derived on demand (zero searches when the whole
    /// program was used).
    #[cfg(feature = "testing")]
    pub fn resolve_counting(
        &self,
        request: &Request,
    ) -> (Result<(Universe, super::Outcome), ResolveError>, Demand) {
        let mut stats = Demand::default();
        let r = self.resolve_counted(request, &Adjustments::default(), &mut stats);
        (r, stats)
    }
}

impl super::Resolver {
    /// Resolves `request` on demand with this resolver's budgets, and with the whole program
    /// too: when on demand gives an answer, the answers must be equal; when a relaxation
    /// proves there is none, the whole program must find none either; or the whole program
    /// must give up (a budget). Returns whether two outcomes were compared, or the
    /// difference in words. For the fuzz targets, whose resolvers carry a conflict budget
    /// (which keeps [`super::Resolver::resolve`] on the whole program).
    #[cfg(feature = "testing")]
    pub fn check_resolve_on_demand(&self, request: &Request) -> Result<bool, String> {
        let Ok((all, cluster)) = self.adjustments(request, &Adjustments::default(), None) else {
            return Ok(false);
        };
        let request = Arc::new(request.clone());
        let lazy = self.prepared.derive_on_demand_from(
            request.clone(),
            &all,
            cluster.as_ref(),
            &self.options,
            0,
            &mut Demand::default(),
        );
        let on_demand = match lazy {
            Ok(Derivation::Closed(model, sel)) => Some(model.answer(&sel)),
            Ok(Derivation::Refuted(..)) => None,
            _ => return Ok(false),
        };
        let model = self
            .prepared
            .derive_within(request, &all, cluster.as_ref(), None)
            .map_err(|e| format!("the whole program fails where on demand resolves: {e}"))?;
        let global = model.global_constraints();
        match (on_demand, model.solve(&global, &self.options)) {
            (Some(on_demand), Ok(super::Outcome::Resolved(whole))) => {
                let (a, b) = (format!("{on_demand:?}"), format!("{whole:?}"));
                if a == b {
                    Ok(true)
                } else {
                    Err(format!("on demand {a}\nwhole program {b}"))
                }
            }
            (Some(_), Ok(super::Outcome::Unsatisfiable(_))) => {
                Err("on demand resolves, the whole program proves no answer exists".into())
            }
            (None, Ok(super::Outcome::Resolved(whole))) => Err(format!(
                "a relaxation on demand has no answer, the whole program resolves: {whole:?}"
            )),
            (None, Ok(super::Outcome::Unsatisfiable(_))) => Ok(true),
            (_, Err(_)) => Ok(false),
        }
    }
}
