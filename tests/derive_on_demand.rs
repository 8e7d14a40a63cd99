//! Derivation on demand against the whole program: for every package of the shipped
//! catalogs, the request that requires it is derived by the whole Datalog program, then the
//! dependency lists of every bundle it reached are derived again on demand (one run per
//! bundle, over that bundle's facts and its dependencies' targets only), and each list, its
//! exclusions and its candidates' preference facts must be equal. Also every scenario's
//! catalogs and request.

use std::path::Path;
use std::sync::Arc;

use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};
use deppy::request::{Request, Requirement};
use deppy::resolve::{Adjustments, Prepared};

fn check_every_package(sources: &[CatalogSource]) -> usize {
    let set = CatalogSet::load(sources, &LoadOptions::default()).expect("catalogs load");
    let names: Vec<String> = set
        .packages
        .iter()
        .map(|p| set.package_name(p.id).to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
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

#[test]
fn shipped_catalogs_derive_the_same_lists_on_demand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs");
    let mut lists = 0;
    for name in ["odf-dev", "certified-converted-v4.22"] {
        lists += check_every_package(&[CatalogSource {
            name: name.into(),
            path: root.join(name),
            priority: 0,
        }]);
    }
    assert!(lists > 0, "no dependency list was compared");
}
