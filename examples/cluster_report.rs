//! A fleet-style report over the example cluster in `catalogs/cluster-example`: how many
//! Subscriptions are stuck, counted by why (the answer's enums, no words parsed), then each
//! unsatisfiable namespace's explanation, worded by the library's reporter.
//!
//! `cargo run --example cluster_report`, from the repository.

use std::collections::BTreeMap;
use std::path::PathBuf;

use deppy::advanced::cluster::{Blocked, NamespaceAnswer, NamespaceOutcome, SubscriptionAction};
use deppy::advanced::explain::cluster::explanation;
use deppy::{Binding, ClusterOptions, ClusterState, Detail, read_paths, resolve_cluster};

/// Why a namespace's Subscriptions are stuck, as a key to count by.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Why {
    NoOperatorGroup,
    SeveralOperatorGroups,
    UnboundCatalog,
    BrokenCatalog,
    RefusedByOlm,
    Unsatisfiable,
    GaveUp,
}

fn why(ns: &NamespaceAnswer) -> Option<Why> {
    Some(match &ns.outcome {
        NamespaceOutcome::Resolved => return None,
        NamespaceOutcome::Blocked(Blocked::NoOperatorGroup) => Why::NoOperatorGroup,
        NamespaceOutcome::Blocked(Blocked::OperatorGroups(_)) => Why::SeveralOperatorGroups,
        NamespaceOutcome::Blocked(Blocked::UnboundCatalog { .. }) => Why::UnboundCatalog,
        NamespaceOutcome::Blocked(Blocked::BrokenCatalog(_)) => Why::BrokenCatalog,
        NamespaceOutcome::Refused(_) => Why::RefusedByOlm,
        NamespaceOutcome::Unsatisfiable(_) => Why::Unsatisfiable,
        NamespaceOutcome::GaveUp(_) => Why::GaveUp,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dump = read_paths(&[PathBuf::from("catalogs/cluster-example/cluster.yaml")])?;
    let state = ClusterState::from_dump(dump)?;
    let catalog =
        Binding::parse("openshift-marketplace/community-operators=catalogs/community-v4.22")?;
    let answer = resolve_cluster(&state, &[catalog], &ClusterOptions::default())?;

    let mut stuck: BTreeMap<Why, usize> = BTreeMap::new();
    for ns in &answer.namespaces {
        let n = ns
            .subscriptions
            .iter()
            .filter(|s| s.action == SubscriptionAction::Stuck)
            .count();
        if let Some(why) = why(ns) {
            *stuck.entry(why).or_default() += n;
        }
    }
    println!("stuck Subscriptions:");
    for (why, n) in &stuck {
        println!("  {why:?}: {n}");
    }

    for ns in &answer.namespaces {
        if let NamespaceOutcome::Unsatisfiable(proof) = &ns.outcome {
            // The proof is the solver's derivation tree; the reporter words it in the
            // namespace's terms (Subscriptions, CSVs, catalogs).
            println!(
                "\n{} (a proof of {} steps from {} facts):",
                ns.namespace,
                proof.failure.tree.nodes.len(),
                proof.failure.tree.external_causes().len()
            );
            if let Some(words) = explanation(ns, Detail::Summary) {
                println!("{words}");
            }
        }
    }
    Ok(())
}
