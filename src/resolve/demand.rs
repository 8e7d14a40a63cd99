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
    excluded: usize,
}

/// The rules evaluated on demand for one request.
pub(crate) struct Rules<'f, 'a> {
    facts: &'f Lookups<'a>,
    ev: OnDemand<'f, 'a>,
    read: Read,
    /// Each channel name once, shared by every list that names it, by where the catalog
    /// holds it (a name held twice is shared twice: equal either way).
    names: FxHashMap<(usize, usize), Arc<str>>,
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
                self.ev.excluded_bf(b);
            }
        }
        for b in facts.removed() {
            self.ev.excluded_bf(b);
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
            self.ev.excluded_bf(a);
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

    /// Reads what the evaluator derived since the last read into `d`: the tables derived
    /// forward, each an expansion's lists in runs of one key, and the exclusions evaluated
    /// (every bundle's whose exclusion a rule or the roots asked: every match, through
    /// `DependencyCandidate`'s negation of `IsExcluded`).
    fn read_forward(&mut self, d: &mut Derived) {
        fn new<'t, T>(log: &'t [T], at: &mut usize) -> &'t [T] {
            let from = (*at).min(log.len());
            *at = log.len();
            log.get(from..).unwrap_or_default()
        }
        let ev = &self.ev;
        let r = &mut self.read;
        let matched = new(&ev.dependency_match.log, &mut r.dependency_match);
        derive::add_lists(&mut d.dependencies.matches, matched, |x| (x.0, x.1, x.2));
        let candidates = new(&ev.dependency_candidate.log, &mut r.dependency_candidate);
        derive::add_lists(&mut d.dependencies.candidates, candidates, |x| {
            (x.0, x.1, x.2)
        });
        for t in new(ev.excluded_bf_answers(), &mut r.excluded) {
            derive::add_excluded(&mut d.excluded, t);
        }
        let p = &mut d.preferences;
        let names = &mut self.names;
        let mut name = |ch: &'a str| {
            let at = (ch.as_ptr() as usize, ch.len());
            names.entry(at).or_insert_with(|| Arc::from(ch)).clone()
        };
        let channels = new(&ev.candidate_channel.log, &mut r.candidate_channel);
        derive::add_channels(p, channels, &mut name);
        for t in new(&ev.in_default_channel.log, &mut r.in_default_channel) {
            p.in_default_channel.insert(t.0, name(t.1));
        }
        let same = new(&ev.same_catalog.log, &mut r.same_catalog);
        p.same_catalog.extend(same.iter().map(|x| (x.0, x.1)));
        let priority = new(&ev.candidate_priority.log, &mut r.candidate_priority);
        p.priority.extend(priority.iter().map(|x| (x.0, x.1)));
        for t in new(&ev.deprecated_candidate.log, &mut r.deprecated_candidate) {
            p.deprecated.insert(t.0);
            if let Some(m) = self.facts.deprecation_message(t.0) {
                p.deprecation_messages.insert(t.0, m.to_string());
            }
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
