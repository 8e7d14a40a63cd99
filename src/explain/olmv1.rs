//! Words for OLM v1 answers: why a ClusterExtension gets its bundle (or none), catalog by
//! catalog, and what OLM v1 itself refuses (docs/semantics.md §10).

use crate::cluster::v1::{
    Advice, AdviceStatus, Beaten, CatalogOutcome, CatalogStat, Decision, DependencyAnswer,
    ExtensionAnswer, Failure, UpgradePolicy,
};

/// What the extension asks for, in one line.
fn asked(d: &Decision) -> String {
    let mut s = format!("package {}", d.package);
    if !d.filter.channels.is_empty() {
        s.push_str(&format!(", channels {}", d.filter.channels.join(", ")));
    }
    if let Some(v) = d.filter.version.as_deref().filter(|v| !v.is_empty()) {
        s.push_str(&format!(", version {v:?}"));
    }
    if let Some((name, version)) = &d.installed {
        let policy = match d.policy {
            UpgradePolicy::CatalogProvided => "CatalogProvided",
            UpgradePolicy::SelfCertified => "SelfCertified",
        };
        let written = match &d.policy_written {
            Some(w) => format!(" (written {w}, its name before operator-controller v0.16.0)"),
            None => String::new(),
        };
        let meaning = match d.policy {
            UpgradePolicy::CatalogProvided => "successors only",
            UpgradePolicy::SelfCertified => "any version",
        };
        s.push_str(&format!(
            ", installed {name} ({version}), upgrade policy {policy}{written}: {meaning}"
        ));
    }
    s
}

fn counts(o: &CatalogOutcome) -> String {
    let CatalogOutcome::Filtered {
        total,
        in_channels,
        in_version,
        successors,
        best,
        candidates,
    } = o
    else {
        return String::new();
    };
    let mut s = match total {
        1 => "1 bundle of the package".to_string(),
        n => format!("{n} bundles of the package"),
    };
    if let Some(n) = in_channels {
        s.push_str(&format!(", {n} in the channels"));
    }
    if let Some(n) = in_version {
        s.push_str(&format!(", {n} in the version range"));
    }
    match successors {
        Some(1) => s.push_str(", 1 successor or the installed version"),
        Some(n) => s.push_str(&format!(", {n} successors or the installed version")),
        None => {}
    }
    match best {
        Some(b) => s.push_str(&format!(
            "; best of {candidates}: {} ({}){}",
            b.bundle,
            b.version,
            if b.deprecated { ", deprecated" } else { "" }
        )),
        None => s.push_str("; no candidate"),
    }
    s
}

/// One catalog's line.
fn catalog_line(c: &CatalogStat) -> String {
    let what = match &c.outcome {
        CatalogOutcome::NotSelected => "not selected by the extension's catalog selector".into(),
        CatalogOutcome::Unavailable => "skipped: availabilityMode is Unavailable".into(),
        CatalogOutcome::Unbound { .. } => "taken as empty: its contents were not given".into(),
        CatalogOutcome::NoPackage => "does not have the package".into(),
        o @ CatalogOutcome::Filtered { .. } => counts(o),
    };
    format!("catalog {} (priority {}): {what}", c.catalog, c.priority)
}

fn failure(d: &Decision, f: &Failure) -> String {
    match f {
        Failure::NoPackageName => "spec.source.catalog.packageName is empty".into(),
        Failure::InvalidVersion(e) => format!("spec.source.catalog.version: {e}"),
        Failure::InvalidSelector(e) => format!("spec.source.catalog.selector is invalid: {e}"),
        Failure::InvalidInstalledVersion(e) => {
            format!(
                "the installed bundle's version (status.install.bundle.version) is invalid: {e}"
            )
        }
        Failure::InvalidPolicy(p) => format!(
            "spec.source.catalog.upgradeConstraintPolicy {p:?} is not CatalogProvided or SelfCertified (nor Enforce or Ignore, their names before operator-controller v0.16.0)"
        ),
        Failure::InstalledImageNotFound(image) => format!(
            "status.installedBundleResource (operator-controller v0.9) names the installed bundle by its image {image:?}, and no bundle of package {:?} in the catalogs has that image, so the installed bundle is not known (OLM v1 fails the same way)",
            d.package
        ),
        Failure::NoCandidates => {
            let mut s = format!("no bundles found for package {:?}", d.package);
            if let Some(v) = d.filter.version.as_deref().filter(|v| !v.is_empty()) {
                s.push_str(&format!(" matching version {v:?}"));
            }
            if !d.filter.channels.is_empty() {
                s.push_str(&format!(" in channels {}", d.filter.channels.join(", ")));
            }
            if let Some((name, _)) = &d.installed
                && d.policy == UpgradePolicy::CatalogProvided
            {
                s.push_str(&format!(" that upgrade from {name}"));
            }
            s
        }
        Failure::PriorityTie { priority, catalogs } => format!(
            "found bundles for package {:?} in multiple catalogs with the same priority {priority} ({}); OLM v1 does not pick between them: give one catalog a higher spec.priority, or narrow the extension's catalog selector",
            d.package,
            catalogs.join(", ")
        ),
    }
}

/// At most this many catalogs are named for one outcome that offers nothing (not
/// selected, unavailable, unbound, without the package); the rest are counted.
const CATALOGS_NAMED: usize = 10;

/// The catalogs' lines: each catalog that filtered bundles, and for each outcome that
/// offers nothing, its first catalogs and how many more share it.
fn catalog_lines(d: &Decision) -> Vec<String> {
    let mut out = Vec::new();
    let mut quiet: Vec<(&'static str, usize)> = Vec::new();
    for c in &d.catalogs {
        let kind = match &c.outcome {
            CatalogOutcome::NotSelected => "not selected by the extension's catalog selector",
            CatalogOutcome::Unavailable => "skipped: availabilityMode is Unavailable",
            CatalogOutcome::Unbound { .. } => "taken as empty: its contents were not given",
            CatalogOutcome::NoPackage => "does not have the package",
            CatalogOutcome::Filtered { .. } => {
                out.push(catalog_line(c));
                continue;
            }
        };
        let seen = match quiet.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                quiet.push((kind, 1));
                1
            }
        };
        if seen <= CATALOGS_NAMED {
            out.push(catalog_line(c));
        }
    }
    for (kind, n) in quiet.into_iter().filter(|(_, n)| *n > CATALOGS_NAMED) {
        out.push(format!(
            "and {} more catalogs: {kind}",
            crate::yaml::thousands((n - CATALOGS_NAMED) as u64)
        ));
    }
    out
}

/// Why the extension gets its bundle, or none: what it asks for, each catalog's part, and
/// the outcome.
pub fn explanation(name: &str, d: &Decision) -> String {
    let mut out = format!("clusterextension {name} asks for {}\n", asked(d));
    for line in catalog_lines(d) {
        out.push_str(&format!("  - {line}\n"));
    }
    match &d.result {
        Ok(chosen) => {
            out.push_str(&format!(
                "chosen: {} ({}) from catalog {}, the highest version there{}",
                chosen.candidate.bundle,
                chosen.candidate.version,
                chosen.catalog,
                if chosen.candidate.deprecated {
                    " (deprecated, but no catalog offers a candidate that is not)"
                } else {
                    ""
                }
            ));
            for (catalog, why) in &chosen.beaten {
                out.push_str(&match why {
                    Beaten::Deprecated => {
                        format!("; catalog {catalog}'s best is deprecated")
                    }
                    Beaten::Priority(p) => {
                        format!("; catalog {catalog} has the lower priority {p}")
                    }
                });
            }
            out.push('\n');
        }
        Err(f) => out.push_str(&format!("unsatisfiable: {}\n", failure(d, f))),
    }
    out
}

/// Diagnostics: catalogs the extension selects whose contents were not given.
pub fn warnings(d: &Decision) -> Vec<String> {
    let mut out: Vec<String> = d
        .catalogs
        .iter()
        .filter_map(|c| match &c.outcome {
            CatalogOutcome::Unbound { image } => Some(match image {
                Some(i) => format!(
                    "catalog {} is taken as empty: fetch it with `opm render {i} -o yaml > DIR/catalog.yaml` and bind it with --catalog {}=DIR",
                    c.catalog, c.catalog
                ),
                None => format!(
                    "catalog {} is taken as empty: bind its contents with --catalog {}=PATH",
                    c.catalog, c.catalog
                ),
            }),
            _ => None,
        })
        .collect();
    if out.len() > CATALOGS_NAMED {
        let more = out.len() - CATALOGS_NAMED;
        out.truncate(CATALOGS_NAMED);
        out.push(format!(
            "and {} more catalogs the extension selects are taken as empty: their contents were not given",
            crate::yaml::thousands(more as u64)
        ));
    }
    if d.installed.is_some() && d.policy_written.as_deref() == Some("Enforce") {
        out.push(ENFORCE_2023.to_string());
    }
    out
}

/// Why `Enforce` may have meant more in the cluster's operator-controller.
const ENFORCE_2023: &str = "upgradeConstraintPolicy Enforce is read as CatalogProvided, its name since operator-controller v0.16.0, and deppy applies that rule of today's releases (a successor by replaces, skips or skipRange, or the installed version); operator-controller v0.7.0 to v0.9.x (2023) shipped with the ForceSemverUpgradeConstraints gate on, under which Enforce took any higher version of the same major version instead";

/// OLM v1's refusal of a bundle that declares dependencies (its `NoDependencyValidation`).
pub fn refused(bundle: &str, deps: &[DependencyAnswer]) -> String {
    let mut props: Vec<&str> = deps.iter().map(|d| d.property.as_str()).collect();
    props.dedup();
    format!(
        "OLM v1 refuses bundle {bundle}: it declares dependencies ({}) and OLM v1 resolves none (\"has a dependency declared via property ... which is currently not supported\"); it does not fall back to another bundle, so the extension fails until its filter or the catalog changes",
        props.join(", ")
    )
}

/// The advice for declared dependencies, as text.
fn advice(a: &Advice) -> String {
    let mut out = String::new();
    match a.status {
        AdviceStatus::Resolved if a.add.is_empty() => out.push_str(
            "  advice: the other ClusterExtensions already satisfy the declared dependencies\n",
        ),
        AdviceStatus::Resolved => {
            for x in &a.add {
                out.push_str(&format!(
                    "  advice: add ClusterExtension {} for {} from catalog {}{}:\n",
                    x.name,
                    x.bundle,
                    x.catalog,
                    if x.olm_v1_refuses {
                        " (it declares dependencies too, so OLM v1 would refuse it)"
                    } else {
                        ""
                    }
                ));
                for l in x.yaml.lines() {
                    out.push_str(&format!("    {l}\n"));
                }
            }
        }
        AdviceStatus::Unsatisfiable => {
            out.push_str("  advice: no set of ClusterExtensions satisfies the declared dependencies together with the others:\n");
            for l in a.explanation.as_deref().unwrap_or_default().lines() {
                out.push_str(&format!("    {l}\n"));
            }
        }
    }
    out
}

/// Why the advice has no answer when deppy's search gave up.
pub fn advice_gave_up(conflicts: u64) -> String {
    format!("the search gave up after {conflicts} conflicts")
}

/// The text block of the extensions.
pub fn render(extensions: &[ExtensionAnswer]) -> String {
    let mut out = String::new();
    for e in extensions {
        let line = match (&e.bundle, e.action) {
            (Some(b), Some(a)) => {
                let from = e.catalog.as_deref().unwrap_or_default();
                let verb = serde_json::to_value(a)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                match &e.installed {
                    Some(i) if i != b => format!("{verb} {i} → {b} from catalog {from}"),
                    Some(_) => format!("up to date ({b})"),
                    None => format!("{verb} {b} from catalog {from}"),
                }
            }
            _ => "unsatisfiable".to_string(),
        };
        out.push_str(&format!("clusterextension {}: {line}\n", e.name));
        for l in e.explanation.lines() {
            out.push_str(&format!("  {l}\n"));
        }
        for d in &e.dependencies {
            out.push_str(&format!(
                "  declares dependency: {} ({})\n",
                d.requirement, d.property
            ));
        }
        if let Some(o) = &e.olm_v1 {
            out.push_str(&format!("  olm v1: {o}\n"));
        }
        if let Some(a) = &e.advice {
            out.push_str(&advice(a));
        }
        for w in &e.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
    }
    out
}
