//! Words for CRD checks (docs/semantics.md §11): each problem, why OLM
//! would refuse an InstallPlan, and namespaces that share an API.

use crate::cluster::{ClusterWarning, CrdCheck};
use crate::crd::Problem;

/// One problem in words, naming the version, the object and the field.
pub fn problem(p: &Problem) -> String {
    match p {
        Problem::StoredVersionRemoved { version } => format!(
            "stored version {version} (in the cluster CRD's status.storedVersions) is not in the new CRD: risk of data loss"
        ),
        Problem::SchemaInvalid { version, message } => {
            format!("the new schema of {version} cannot be used: {message}")
        }
        Problem::SchemaRejects {
            version,
            object,
            field,
            message,
            refused,
        } => {
            let warning = if *refused {
                ""
            } else {
                " (a warning only: the new CRD converts by Webhook)"
            };
            format!("{object} fails the new {version} schema at {field}: {message}{warning}")
        }
        Problem::MoreRejections {
            version,
            objects,
            refused,
        } => {
            let warning = if *refused {
                ""
            } else {
                " (a warning only: the new CRD converts by Webhook)"
            };
            format!("and {objects} more objects fail the new {version} schema{warning}")
        }
        Problem::StorageVersionChanged { from, to } => {
            format!("the storage version moves from {from} to {to} and {from} is no longer served")
        }
        Problem::ServedVersionRemoved { version } => {
            format!("served version {version} is dropped")
        }
        Problem::ExamplesUnreadable { message } => {
            format!("the old CSV's alm-examples annotation cannot be read: {message}")
        }
        Problem::ObjectsAtRemovedVersion { version, objects } => format!(
            "objects read at {version}, which the new CRD no longer serves: {}",
            objects.join(", ")
        ),
    }
}

/// Why OLM would refuse the InstallPlan: the check's first refusing problem.
pub fn install_would_fail(check: &CrdCheck) -> String {
    let first = check
        .problems
        .iter()
        .find(|p| p.refuses())
        .map(problem)
        .unwrap_or_default();
    format!("CRD {} of {}: {first}", check.crd, check.bundle)
}

/// One CRD check as text lines (two-space indented under its namespace).
pub fn check_lines(check: &CrdCheck) -> Vec<String> {
    let verdict = if check.safe {
        "OLM accepts the update"
    } else {
        "OLM refuses the update"
    };
    let owners = if check.owners.is_empty() {
        "no installed CSV owns it".to_string()
    } else {
        format!("owned by {}", check.owners.join(", "))
    };
    let mut out = vec![format!(
        "CRD {} (from {}): {verdict}; {owners}",
        check.crd, check.bundle
    )];
    out.extend(check.problems.iter().map(|p| format!("  - {}", problem(p))));
    out
}

/// Namespaces that share an API, in words.
pub fn cluster_warning(w: &ClusterWarning) -> String {
    let holders: Vec<String> = w
        .holders
        .iter()
        .map(|h| {
            format!(
                "{} in {} (versions {})",
                h.bundle,
                h.namespace,
                h.versions.join(", ")
            )
        })
        .collect();
    format!(
        "{} ({}) is held by {}: CRDs are cluster-wide, so these namespaces' updates can block each other",
        w.kind,
        w.group,
        holders.join(" and by ")
    )
}

/// One problem of an upgrade edge, on one line: the edge, the CRD, the problem.
pub fn edge_line(e: &crate::crd::EdgeProblem) -> String {
    let crd = if e.crd.is_empty() {
        String::new()
    } else {
        format!(" CRD {}:", e.crd)
    };
    let verdict = if e.problem.refuses() {
        "OLM refuses"
    } else {
        "risk"
    };
    format!(
        "{} {} -> {} ({}, channel {}):{crd} {verdict}: {}",
        e.package,
        e.from,
        e.to,
        e.via,
        e.channel,
        problem(&e.problem)
    )
}
