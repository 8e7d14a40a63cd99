//! Resolve the example cluster in `catalogs/cluster-example` (a `kubectl get -o yaml` dump) and
//! print what happens to each Subscription.
//!
//! `cargo run --example cluster`, from the repository.

use std::path::PathBuf;

use deppy::{Binding, ClusterOptions, ClusterState, read_paths, resolve_cluster};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dump = read_paths(&[PathBuf::from("catalogs/cluster-example/cluster.yaml")])?;
    let state = ClusterState::from_dump(dump)?;
    let catalog =
        Binding::parse("openshift-marketplace/community-operators=catalogs/community-v4.22")?;
    let answer = resolve_cluster(&state, &[catalog], &ClusterOptions::default())?;
    for ns in &answer.namespaces {
        for sub in &ns.subscriptions {
            println!(
                "{}/{}: {} {}",
                ns.namespace,
                sub.name,
                sub.action.name(),
                sub.bundle.as_deref().unwrap_or("-")
            );
        }
    }
    Ok(())
}
