//! Derivation on demand against the whole program: for every package of the shipped
//! catalogs, the request that requires it is derived by the whole Datalog program, then the
//! dependency lists of every bundle it reached are derived again on demand (one run per
//! bundle, over that bundle's facts and its dependencies' targets only), and each list, its
//! exclusions and its candidates' preference facts must be equal. With a bundle installed
//! too, the roots derived natively (requirement lists, upgrade edges) must be crepe's.
//!
//! Then the resolver that derives dependency lists as its search asks for them is held
//! against the one that derives the whole reached closure first: the same report, byte for
//! byte, for every package of the shipped catalogs and for requests over synthetic catalogs
//! with deep dependency chains and shared APIs (`benches/support/synth.rs`). Every scenario
//! folder compares the same resolver with the pipeline (`tests/scenarios.rs`);
//! `tests/pipeline_on_demand.rs` holds the pipeline on demand against the whole program.

use std::path::Path;
use std::sync::Arc;

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::{Request, Requirement};
use deppy::advanced::resolve::{Adjustments, Demand, Prepared, Resolver};

#[path = "../benches/support/synth.rs"]
#[allow(dead_code)]
mod synth;

/// The JSON report of one resolution (or its error), and what it derived on demand.
fn report(resolver: &Resolver, request: &Request) -> (String, Demand) {
    let (result, demand) = resolver.resolve_counting(request);
    let text = match result {
        Ok((u, outcome)) => {
            let r = Report::new(&u, request, &outcome, Detail::Full, Vec::new());
            serde_json::to_string_pretty(&r).expect("a report serializes")
        }
        Err(e) => format!("error: {e}"),
    };
    (text, demand)
}

/// What the on-demand runs of [`same_reports`] did, in all.
#[derive(Default)]
struct Tally {
    /// Bundles whose lists were derived on demand.
    demanded: usize,
    /// Failures worded from a relaxation's proof, not the whole program's.
    refuted: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.demanded += other.demanded;
        self.refuted += other.refuted;
    }

    /// Something was derived on demand, and at least `refuted` failures were worded from a
    /// refuted relaxation.
    fn check(&self, refuted: usize) {
        assert!(
            self.demanded > 0,
            "no dependency list was derived on demand"
        );
        assert!(
            self.refuted >= refuted,
            "{} failures worded from a refuted relaxation, expected at least {refuted}",
            self.refuted
        );
    }
}

/// Resolves each request on demand and with the whole program; the reports must be equal,
/// failures included: a failure on demand is worded from the proof over the relaxation the
/// search refuted, and the whole program's proof must read the same for these requests.
fn same_reports(set: CatalogSet, requests: &[Request]) -> Tally {
    let set = Arc::new(set);
    let lazy = Resolver::new(set.clone()).with_on_demand_from(0);
    let whole = Resolver::new(set).with_whole_program();
    let mut tally = Tally::default();
    for request in requests {
        let (on_demand, n) = report(&lazy, request);
        let (oracle, none) = report(&whole, request);
        assert_eq!(
            none.rounds, 0,
            "the whole program derives nothing on demand"
        );
        assert_eq!(
            on_demand, oracle,
            "on demand and whole program differ for {:?}",
            request.require
        );
        tally.demanded += n.bundles;
        tally.refuted += usize::from(n.refuted);
    }
    tally
}

fn every_package(set: &CatalogSet) -> Vec<Request> {
    set.package_names()
        .into_iter()
        .map(|name| Request {
            require: vec![Requirement::from_spec(&name).expect("package name")],
            ..Request::default()
        })
        .collect()
}

fn check_every_package(sources: &[CatalogSource]) -> usize {
    let set = CatalogSet::load(sources, &LoadOptions::default()).expect("catalogs load");
    let names = set.package_names();
    let prepared = Prepared::new(Arc::new(set));
    let mut lists = 0;
    for name in names {
        let request = Request {
            require: vec![Requirement::from_spec(&name).expect("package name")],
            ..Request::default()
        };
        lists += prepared
            .check_on_demand(&request, &Adjustments::default())
            .unwrap_or_else(|e| panic!("require {name}: {e}"));
    }
    lists
}

/// The shipped catalogs, each as the only source of a load.
fn shipped() -> [[CatalogSource; 1]; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs");
    ["odf-dev", "certified-converted-v4.22"].map(|name| {
        [CatalogSource {
            name: name.into(),
            path: root.join(name),
            priority: 0,
        }]
    })
}

#[test]
fn shipped_catalogs_derive_the_same_lists_on_demand() {
    let lists: usize = shipped().iter().map(|s| check_every_package(s)).sum();
    assert!(lists > 0, "no dependency list was compared");
}

/// Requests with something installed, over every package of `sources`: up to three of its
/// bundles installed in turn, the package required (on its default channel, the second
/// time), and the same bundle installed from no catalog (`@existing`; required from the
/// catalog, the second time). Their roots
/// (requirement lists, upgrade edges out of the installed bundle) and lists must be the
/// rules'. Returns the requests checked.
fn check_installed(sources: &[CatalogSource]) -> usize {
    let set = CatalogSet::load(sources, &LoadOptions::default()).expect("catalogs load");
    let prepared = Prepared::new(Arc::new(set.clone()));
    let mut checked = 0;
    for package in &set.packages {
        let name = set.package_name(package.id).to_string();
        let bundles = set.bundles_of(package.id);
        for b in bundles.iter().step_by(bundles.len().div_ceil(3).max(1)) {
            let bundle = &set.bundles[b.0 as usize];
            let installed = deppy::advanced::request::InstalledBundle {
                bundle: bundle.name.clone(),
                ..Default::default()
            };
            let existing = deppy::advanced::request::InstalledBundle {
                package: Some(name.clone()),
                version: Some(bundle.version.clone()),
                catalog: Some(deppy::advanced::request::EXISTING_CATALOG.into()),
                ..installed.clone()
            };
            let catalog = set.catalogs.first().map(|c| c.name.clone());
            for (channel, catalog, installed) in [
                (None, None, installed.clone()),
                (package.default_channel.clone(), None, installed),
                (None, None, existing.clone()),
                (None, catalog, existing),
            ] {
                let mut requirement = Requirement::from_spec(&name).expect("package name");
                requirement.channel = channel;
                requirement.catalog = catalog;
                let request = Request {
                    require: vec![requirement],
                    installed: vec![installed],
                    ..Request::default()
                };
                prepared
                    .check_on_demand(&request, &Adjustments::default())
                    .unwrap_or_else(|e| panic!("require {name}, {} installed: {e}", bundle.name));
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn shipped_catalogs_derive_the_same_roots_with_bundles_installed() {
    let checked: usize = shipped().iter().map(|s| check_installed(s)).sum();
    assert!(checked > 100, "only {checked} requests were checked");
}

#[test]
fn shipped_catalogs_resolve_the_same_on_demand() {
    let mut tally = Tally::default();
    for sources in shipped() {
        let set = CatalogSet::load(&sources, &LoadOptions::default()).expect("catalogs load");
        let requests = every_package(&set);
        tally.add(same_reports(set, &requests));
    }
    tally.check(1);
}

#[test]
fn synthetic_catalogs_resolve_the_same_on_demand() {
    let dir = std::env::temp_dir().join(format!("deppy-on-demand-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut tally = Tally::default();
    for seed in 0..8u64 {
        let packages = 30 + 10 * seed as usize;
        let (fbc, roots) = synth::generate(packages, 2 + seed as usize % 5, 1.0, seed);
        let path = dir.join(format!("synth-{seed}.json"));
        std::fs::write(&path, fbc).expect("write synthetic catalog");
        let sources = [CatalogSource {
            name: "synth".into(),
            path,
            priority: 0,
        }];
        let set = CatalogSet::load(&sources, &LoadOptions::default()).expect("loads");
        let mut requests = vec![Request {
            require: roots
                .iter()
                .map(|r| Requirement::from_spec(r).expect("package name"))
                .collect(),
            ..Request::default()
        }];
        requests.extend(every_package(&set).into_iter().step_by(9));
        tally.add(same_reports(set, &requests));
    }
    let _ = std::fs::remove_dir_all(&dir);
    tally.check(0);
}
