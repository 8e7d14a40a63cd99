use deppy::catalog::{CatalogSet, CatalogSource, LoadOptions};
use std::time::Instant;

#[test]
fn smoke() {
    for name in ["odf-dev", "community-v4.22", "certified-v4.22", "community-converted-v4.22", "certified-converted-v4.22"] {
        let t = Instant::now();
        let src = CatalogSource { name: name.into(), path: format!("../shared/catalogs/{name}").into(), priority: 0 };
        match CatalogSet::load(&[src], &LoadOptions::default()) {
            Ok(set) => {
                println!("{name}: {} pkgs {} bundles {} warnings in {:?}", set.packages.len(), set.bundles.len(), set.warnings.len(), t.elapsed());
                for w in set.warnings.iter().take(8) { println!("  {w}"); }
            }
            Err(e) => println!("{name}: ERROR {e}"),
        }
    }
}
