//! The reporter of cluster answers: the words of a [`crate::ClusterAnswer`], made after it is
//! computed. [`render`] gives the text of `deppy cluster resolve`, [`report`] its JSON
//! document; [`explanation`], [`reason`] and [`warnings`] word one namespace's parts.
//!
//! ```
//! use deppy::advanced::cluster::{Binding, ClusterOptions, ClusterState, NamespaceOutcome, read_paths, resolve_cluster};
//! use deppy::advanced::explain::cluster::explanation;
//! use deppy::Detail;
//!
//! let state = ClusterState::from_dump(read_paths(&["catalogs/cluster-example/cluster.yaml".into()])?)?;
//! let catalog = Binding::parse("openshift-marketplace/community-operators=catalogs/community-v4.22")?;
//! let answer = resolve_cluster(&state, &[catalog], &ClusterOptions::default())?;
//! for ns in &answer.namespaces {
//!     if let NamespaceOutcome::Unsatisfiable(_) = &ns.outcome {
//!         let words = explanation(ns, Detail::Summary).expect("an unsatisfiable namespace is explained");
//!         assert!(words.starts_with(&format!("In namespace {}: No resolution exists.", ns.namespace)));
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod json;
mod text;
mod words;

pub use json::{ClusterReport, report};
pub use text::render;

use crate::cluster::{NamespaceAnswer, NamespaceOutcome};
use crate::explain::{Detail, explain_failure};
use words::Words;

/// Why namespace `ns` has no answer, in words: OLM's refusals of its Subscriptions, the proof
/// (`detail` says how much of it) with the diagnostics that explain it, or where the search
/// gave up. None when it resolved or is blocked (see [`reason`]).
pub fn explanation(ns: &NamespaceAnswer, detail: Detail) -> Option<String> {
    let words = Words::new(ns);
    match &ns.outcome {
        NamespaceOutcome::Resolved | NamespaceOutcome::Blocked(_) => None,
        NamespaceOutcome::Refused(checks) => Some(words.prechecks(checks)),
        NamespaceOutcome::Unsatisfiable(p) => {
            let proof = explain_failure(&p.failure, &p.universe, &p.request, detail);
            Some(words.unsatisfiable(&proof, &ns.warnings))
        }
        NamespaceOutcome::GaveUp(g) => {
            Some(words.gave_up(&g.line.to_string(), &g.partial.to_string()))
        }
    }
}

/// Why OLM would not resolve namespace `ns`, in words, with the remedy (blocked only).
pub fn reason(ns: &NamespaceAnswer) -> Option<String> {
    match &ns.outcome {
        NamespaceOutcome::Blocked(b) => Some(Words::new(ns).blocked(b)),
        _ => None,
    }
}

/// Namespace `ns`'s diagnostics in words, one sentence each with its remedy; those its
/// explanation already gives as causes are left out.
pub fn warnings(ns: &NamespaceAnswer) -> Vec<String> {
    let explained = matches!(ns.outcome, NamespaceOutcome::Unsatisfiable(_));
    Words::new(ns).notes(&ns.warnings, explained)
}
