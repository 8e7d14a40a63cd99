//! Derivation on demand: the rules of `rules/*.dl` evaluated for what a search asks, by the
//! evaluator build.rs generates from the same text as crepe's whole program
//! (`program::OnDemand`, `build_support/`), over the input lookups of [`super::lookups`].
//!
//! The roots come first: the requirement lists, upgrade edges, and the exclusions and
//! preference facts of what the rules reach without expanding a bundle (the requirements'
//! matches, the installed and mandatory bundles). Then, each time the search selects a
//! bundle, it is expanded (`Reached` is the relation the evaluator expands): the rules that
//! derive its dependency lists fire for it, and what follows from those lists (the
//! candidates' exclusions and preference facts) is derived with them. This module only
//! reads what the evaluator derived into a [`Derived`], with the conversions crepe's
//! outputs go through ([`super::derive`]); no rule is stated here.
//!
//! The whole program is the oracle: [`super::Prepared::check_on_demand`] expands every
//! bundle crepe's run reached and holds every tuple and query answer against its outputs
//! (`tests/derive_on_demand.rs`, the scenario suite, the `resolve` fuzz target).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::catalog::{BundleId, PackageId};

use super::derive::program::{OnDemand, Reached};
use super::derive::{self, Derived};
use super::lookups::Lookups;
use super::universe::Universe;

/// How far each table the evaluator derives forward has been read into a [`Derived`].
#[derive(Default)]
struct Read {
    dependency_match: usize,
    dependency_candidate: usize,
    candidate_channel: usize,
    in_default_channel: usize,
    same_catalog: usize,
    candidate_priority: usize,
    deprecated_candidate: usize,
}

/// The rules evaluated on demand for one request.
pub(crate) struct Rules<'f, 'a> {
    facts: &'f Lookups<'a>,
    ev: OnDemand<'f, 'a>,
    read: Read,
    /// Each channel name once, shared by every list that names it.
    names: FxHashMap<&'a str, Arc<str>>,
}

impl<'f, 'a> Rules<'f, 'a> {
    /// The rules over `facts`.
    pub fn new(facts: &'f Lookups<'a>) -> Rules<'f, 'a> {
        Rules {
            facts,
            ev: OnDemand::new(facts),
            read: Read::default(),
            names: FxHashMap::default(),
        }
    }

    /// The universe the rules read.
    pub fn universe(&self) -> &'a Universe {
        self.facts.universe()
    }

    /// The roots' derivation (module documentation), with the exclusions of the bundles of
    /// `roots` (the packages of the requirements, installed and mandatory bundles) and of
    /// the bundles asked to be removed.
    pub fn roots(&mut self, roots: &FxHashSet<PackageId>) -> Derived {
        let mut d = Derived::default();
        let ev = &mut self.ev;
        let matches = ev.requirement_match_ff().to_vec();
        let mismatches = ev.requirement_mismatch_fff().to_vec();
        let installed_fits = ev.installed_fits_ff().to_vec();
        let upgrades = ev.upgrade_candidate_fff().to_vec();
        d.requirements =
            derive::requirement_lists(&matches, &mismatches, &installed_fits, &upgrades);
        d.edges.successors = derive::successors(ev.successor_ffff());
        let mut packages: Vec<PackageId> = roots.iter().copied().collect();
        packages.sort_unstable();
        let facts = self.facts;
        for p in packages {
            for (b, _, _) in facts.bundle_fbff(p) {
                self.exclusion(&mut d, b);
            }
        }
        for b in facts.removed() {
            self.exclusion(&mut d, b);
        }
        self.read_forward(&mut d);
        d.reached = self.ev.reached.log.iter().map(|x| x.0).collect();
        d.reached.sort_unstable();
        d.preferences.preferred = facts.preferred().collect();
        d
    }

    /// Adds the dependency lists of `demanded` to `d`: each is expanded, and what follows
    /// is read (the lists, the matches' exclusions, the candidates' preference facts).
    pub fn add_dependencies(&mut self, d: &mut Derived, demanded: &[BundleId]) {
        for &a in demanded {
            self.ev.expand_reached(Reached(a));
            self.exclusion(d, a);
        }
        self.read_forward(d);
    }

    #[cfg(any(test, feature = "testing"))]
    /// The dependency lists of `demanded` alone (see [`Self::add_dependencies`]).
    pub fn dependencies(&mut self, demanded: &[BundleId]) -> Derived {
        let mut d = Derived::default();
        self.add_dependencies(&mut d, demanded);
        d
    }

    /// Adds bundle `b`'s exclusion, if any, to `d`.
    fn exclusion(&mut self, d: &mut Derived, b: BundleId) {
        for t in self.ev.excluded_bf(b) {
            derive::add_excluded(&mut d.excluded, t);
        }
    }

    /// Reads what the evaluator derived forward since the last read into `d`.
    fn read_forward(&mut self, d: &mut Derived) {
        let ev = &self.ev;
        let r = &mut self.read;
        let new = |log_len: usize, at: &mut usize| {
            let from = *at;
            *at = log_len;
            from..log_len
        };
        let span = new(ev.dependency_match.log.len(), &mut r.dependency_match);
        let matched = ev.dependency_match.log.get(span).unwrap_or_default();
        derive::add_lists(
            &mut d.dependencies.matches,
            matched.iter().map(|x| (x.0, x.1, x.2)),
        );
        let matched: Vec<BundleId> = matched.iter().map(|x| x.2).collect();
        let span = new(
            ev.dependency_candidate.log.len(),
            &mut r.dependency_candidate,
        );
        let candidates = ev
            .dependency_candidate
            .log
            .get(span)
            .unwrap_or_default()
            .iter()
            .map(|x| (x.0, x.1, x.2));
        derive::add_lists(&mut d.dependencies.candidates, candidates);
        let p = &mut d.preferences;
        let span = new(ev.candidate_channel.log.len(), &mut r.candidate_channel);
        let names = &mut self.names;
        let mut name = |ch: &'a str| names.entry(ch).or_insert_with(|| Arc::from(ch)).clone();
        derive::add_channels(
            p,
            ev.candidate_channel.log.get(span).unwrap_or_default(),
            &mut name,
        );
        let span = new(ev.in_default_channel.log.len(), &mut r.in_default_channel);
        for t in ev.in_default_channel.log.get(span).unwrap_or_default() {
            p.in_default_channel.insert(t.0, name(t.1));
        }
        let span = new(ev.same_catalog.log.len(), &mut r.same_catalog);
        p.same_catalog.extend(
            ev.same_catalog
                .log
                .get(span)
                .unwrap_or_default()
                .iter()
                .map(|x| (x.0, x.1)),
        );
        let span = new(ev.candidate_priority.log.len(), &mut r.candidate_priority);
        p.priority.extend(
            ev.candidate_priority
                .log
                .get(span)
                .unwrap_or_default()
                .iter()
                .map(|x| (x.0, x.1)),
        );
        let span = new(
            ev.deprecated_candidate.log.len(),
            &mut r.deprecated_candidate,
        );
        for t in ev.deprecated_candidate.log.get(span).unwrap_or_default() {
            p.deprecated.insert(t.0);
            if let Some(m) = self.facts.deprecation_message(t.0) {
                p.deprecation_messages.insert(t.0, m.to_string());
            }
        }
        for b in matched {
            self.exclusion(d, b);
        }
    }

    #[cfg(any(test, feature = "testing"))]
    /// Holds what was derived against crepe's outputs of the whole program, `whole`
    /// (see `OnDemand::agrees_with`).
    pub fn agrees_with(
        &self,
        whole: &derive::program::Outputs<'a>,
        complete: bool,
    ) -> Result<usize, String> {
        self.ev.agrees_with(whole, complete)
    }
}
