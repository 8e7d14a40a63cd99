//! The library's entry point for one catalog set and many requests: [`Resolver`].

use std::sync::Arc;

use crate::catalog::CatalogSet;
use crate::constraint::Cluster;
use crate::request::Request;
use crate::solver::SolveOptions;

use super::{
    Adjustments, Demand, Outcome, Prepared, ResolveError, Universe, admin_adjustments,
    cluster_adjustments, lazy,
};

/// A catalog set prepared for many resolutions: the three stages (derive, global
/// constraints, solve) in a row, as the default pipeline runs them.
///
/// ```
/// use deppy::{Answer, CatalogSet, CatalogSource, LoadOptions, Outcome, Request, Requirement, Resolver};
///
/// let source = CatalogSource { name: "etcd".into(), path: "tests/pipeline/catalog".into(), priority: 0 };
/// let resolver = Resolver::new(CatalogSet::load(&[source], &LoadOptions::default())?);
/// let request = Request { require: vec![Requirement::from_spec("vault")?], ..Request::default() };
/// let (_universe, outcome) = resolver.resolve(&request)?;
/// let Outcome::Resolved(Answer { selected, .. }) = outcome else { panic!("vault resolves") };
/// let bundles: Vec<&str> = selected.iter().map(|s| s.bundle.as_str()).collect();
/// assert_eq!(bundles, ["etcd.v0.9.2", "vault.v1.1.0"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Resolver {
    pub(super) prepared: Prepared,
    pub(super) options: SolveOptions,
    /// Derive the whole reached closure before the search, never on its demand.
    pub(super) whole_program: bool,
    /// Derive on demand only from this many bundles reached.
    pub(super) on_demand_from: usize,
}

impl Resolver {
    /// Prepares `set`.
    pub fn new(set: impl Into<Arc<CatalogSet>>) -> Resolver {
        Resolver {
            prepared: Prepared::new(set.into()),
            options: SolveOptions::default(),
            whole_program: false,
            on_demand_from: lazy::ON_DEMAND_FROM,
        }
    }

    /// Limits the solver (e.g. a conflict budget).
    pub fn with_options(mut self, options: SolveOptions) -> Self {
        self.options = options;
        self
    }

    /// The catalog set.
    pub fn catalogs(&self) -> &CatalogSet {
        self.prepared.catalogs()
    }

    /// Resolves one request. The returned universe words the outcome (see
    /// [`crate::advanced::explain`]).
    pub fn resolve(&self, request: &Request) -> Result<(Universe, Outcome), ResolveError> {
        self.resolve_adjusted(request, &Adjustments::default())
    }

    /// Resolves one request (its admin and cluster constraints included) with candidates
    /// also removed, required or preferred by `adjust`.
    pub fn resolve_adjusted(
        &self,
        request: &Request,
        adjust: &Adjustments,
    ) -> Result<(Universe, Outcome), ResolveError> {
        self.resolve_counted(request, adjust, &mut Demand::default())
    }

    /// [`Resolver::resolve_adjusted`], counting what was derived on demand. Dependency lists
    /// are derived as the search asks for them ([`lazy`]) unless a conflict budget is set
    /// (a relaxation may spend a different number of conflicts than the whole problem) or
    /// the whole program was asked for; when a budget runs out on demand, the whole
    /// program.
    pub(super) fn resolve_counted(
        &self,
        request: &Request,
        adjust: &Adjustments,
        stats: &mut Demand,
    ) -> Result<(Universe, Outcome), ResolveError> {
        // One time budget for rule evaluation (admin, cluster and bundle constraints) and
        // the search.
        let mut options = self.options.clone();
        options.deadline = options.deadline_from(std::time::Instant::now());
        options.timeout = None;
        if options
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Err(ResolveError::out_of_time());
        }
        let (all, cluster) = self.adjustments(request, adjust, options.deadline)?;
        let request = Arc::new(request.clone());
        let model = if self.whole_program || options.max_conflicts.is_some() {
            self.prepared
                .derive_within(request, &all, cluster.as_ref(), options.deadline)?
        } else {
            let from = self.on_demand_from;
            let cluster = cluster.as_ref();
            match (self.prepared)
                .derive_on_demand_from(request, &all, cluster, &options, from, stats)?
            {
                lazy::Derivation::Closed(model, sel) => {
                    let answer = model.answer(&sel);
                    return Ok((model.universe, Outcome::Resolved(answer)));
                }
                lazy::Derivation::Refuted(model, failure) => {
                    return Ok((model.universe, Outcome::Unsatisfiable(failure)));
                }
                lazy::Derivation::Whole(model) => model,
            }
        };
        let global = model.global_constraints();
        let outcome = model.solve(&global, &options)?;
        Ok((model.universe, outcome))
    }

    /// [`Prepared::check_on_demand`] with the request's admin and cluster constraints (0
    /// lists for a request they make inconsistent).
    #[cfg(feature = "testing")]
    pub fn check_on_demand(&self, request: &Request) -> Result<usize, String> {
        match self.adjustments(request, &Adjustments::default(), None) {
            Ok((all, _)) => self.prepared.check_on_demand(request, &all),
            Err(_) => Ok(0),
        }
    }

    /// The request's admin and cluster constraints plus `adjust`, and its cluster node; the
    /// constraints' rules are evaluated until `deadline`.
    pub(super) fn adjustments(
        &self,
        request: &Request,
        adjust: &Adjustments,
        deadline: Option<std::time::Instant>,
    ) -> Result<(Adjustments, Option<Cluster>), ResolveError> {
        let set = self.prepared.catalogs();
        let bad = |e: crate::constraint::ConstraintError| ResolveError::Request(e.to_string());
        let admin = request.admin_constraints().map_err(bad)?;
        let cluster = request.cluster_node().map_err(bad)?;
        let (mut all, interrupted) = crate::constraint::within_deadline(deadline, || {
            let mut all = admin_adjustments(set, &admin, &request.installed);
            if let Some(c) = &cluster {
                all.extend(&cluster_adjustments(set, c, &request.installed));
            }
            all
        });
        if interrupted {
            return Err(ResolveError::out_of_time());
        }
        all.extend(adjust);
        Ok((all, cluster))
    }

    /// Warnings for malformed channels no requirement needs.
    pub fn channel_warnings(&self) -> Vec<String> {
        self.prepared.channel_warnings()
    }
}
