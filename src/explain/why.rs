//! Wording for `deppy why`, `deppy why-not` and the hints after a failure.

use crate::catalog::BundleId;
use crate::request::Request;
use crate::resolve::hints::{Change, Hint};
use crate::resolve::reason::Reason;
use crate::resolve::why::{Link, WhyNot};
use crate::resolve::{Model, Preference};

use super::words::{Words, list};

fn words<'a>(m: &'a Model, request: &'a Request) -> Words<'a> {
    Words {
        u: &m.universe,
        request,
        subjects: m.subjects(),
    }
}

/// "it is installed", "its catalog has priority 10 (x has 0)", ...
pub fn preference(p: &Preference) -> String {
    match p {
        Preference::StaticPreference => "a static variable prefers it".into(),
        Preference::NotDeprecated => "the other is deprecated by its catalog".into(),
        Preference::Installed => "it is installed".into(),
        Preference::SameCatalog => "it comes from the dependent bundle's own catalog".into(),
        Preference::CatalogPriority(a, b) => {
            format!("its catalog has a higher priority ({a} against {b})")
        }
        Preference::LocalCatalog => "its catalog is in the namespace being resolved".into(),
        Preference::CatalogName(a, b) => {
            format!("its catalog {a} sorts before {b} (same priority)")
        }
        Preference::DefaultChannel => "it is in its package's default channel".into(),
        Preference::PackageName => "its package name sorts first".into(),
        Preference::ChannelName(a, b) => format!("its channel {a} sorts before {b}"),
        Preference::HeadDistance(0, b) => format!(
            "it is its channel's head (the other is {b} {} below)",
            if *b == 1 { "step" } else { "steps" }
        ),
        Preference::HeadDistance(a, b) => {
            format!("it is nearer its channel's head ({a} steps below it, against {b})")
        }
        Preference::NewerVersion => "its version is higher".into(),
        Preference::Name => "its name sorts first".into(),
    }
}

fn need(w: &Words<'_>, reason: &Reason) -> String {
    match reason {
        Reason::RequirementCandidates { requirement, .. } => w.requires(*requirement),
        Reason::Dependency {
            bundle, dependency, ..
        } => format!(
            "{} requires {}",
            w.bundle(*bundle),
            w.dependency(dependency)
        ),
        Reason::Injected { .. } | Reason::KeepInstalled(_) | Reason::Kept(_) => {
            w.reason(reason, &[])
        }
        other => w.reason(other, &[]),
    }
}

fn link(w: &Words<'_>, l: &Link) -> String {
    let mut s = format!("{}: {} is chosen", need(w, &l.reason), w.bundle(l.chosen));
    if !l.passed_over.is_empty() {
        let names: Vec<String> = l.passed_over.iter().map(|b| w.bundle(*b)).collect();
        s.push_str(&format!(
            "; the more preferred {} cannot be installed with the rest (see deppy why-not)",
            list(&names, "and")
        ));
    }
    for (b, p) in l.beat.iter().take(4) {
        s.push_str(&format!(
            "; over {} because {}",
            w.bundle(*b),
            preference(p)
        ));
    }
    if l.beat.len() > 4 {
        s.push_str(&format!("; and over {} more candidates", l.beat.len() - 4));
    }
    s
}

/// `deppy why TARGET`: the chain from a requirement to `target`.
pub fn why(m: &Model, request: &Request, target: BundleId, chain: &[Link]) -> String {
    let w = words(m, request);
    let mut out = format!("{} is in the answer because:\n", w.bundle(target));
    for l in chain {
        out.push_str(&format!("  - {}\n", link(&w, l)));
    }
    out
}

/// `deppy why-not TARGET`; `feasible` says whether requiring it still resolves (Some with
/// the bundles it would select), `proof` is the explanation when it does not.
pub fn why_not(
    m: &Model,
    request: &Request,
    target: BundleId,
    answer: &WhyNot,
    feasible: Option<&[String]>,
    proof: Option<&str>,
) -> String {
    let w = words(m, request);
    let name = w.bundle(target);
    let mut out = match answer {
        WhyNot::Selected => format!("{name} is in the answer (see deppy why).\n"),
        WhyNot::Excluded(e) => format!("{name} is never a candidate: it is {}.\n", w.exclusion(*e)),
        WhyNot::Rejected(r, why) => format!(
            "{name} does not satisfy your requirement of {}: it is {}.\n",
            w.requirement(*r),
            w.rejection(*r, *why)
        ),
        WhyNot::NotNeeded => format!(
            "{name} is not needed: no requirement and no selected bundle asks for anything it provides.\n"
        ),
        WhyNot::LessPreferred {
            link: l,
            preference: p,
        } => {
            let mut s = format!("{name} is a candidate, but {}", need(&w, &l.reason));
            s.push_str(&format!(" and {} is chosen", w.bundle(l.chosen)));
            match p {
                Some(p) => s.push_str(&format!(" because {}.\n", preference(p))),
                None => s.push_str(&format!(
                    ", though {name} is preferred: {name} cannot be installed with the rest.\n"
                )),
            }
            s
        }
    };
    if !matches!(answer, WhyNot::Selected) {
        match (feasible, proof) {
            (Some(sel), _) => out.push_str(&format!(
                "Requiring {name} would still resolve, selecting {}.\n",
                list(sel, "and")
            )),
            (None, Some(p)) => {
                out.push_str(&format!("Requiring {name} cannot resolve:\n"));
                out.push_str(p);
            }
            (None, None) => {}
        }
    }
    out
}

fn change(w: &Words<'_>, c: &Change) -> String {
    match c {
        Change::DropRange { requirement, range } => format!(
            "drop the version range {range} from your requirement of {}",
            w.requirement(*requirement)
        ),
        Change::DropPin {
            requirement,
            bundle,
        } => format!(
            "drop the pin to {bundle} from your requirement of {}",
            w.requirement(*requirement)
        ),
        Change::DropCatalog {
            requirement,
            catalog,
        } => format!(
            "allow catalogs other than {catalog} for your requirement of {}",
            w.requirement(*requirement)
        ),
        Change::UseChannel {
            requirement,
            channel,
        } => format!(
            "use channel {channel} for your requirement of {}",
            w.requirement(*requirement)
        ),
        Change::RemoveAdminConstraint { index } => {
            format!("remove admin constraint constraints[{index}]")
        }
        Change::RemoveClusterConstraint { index } => {
            format!("remove cluster constraint constraints[{index}]")
        }
        Change::DropKeepInstalled => "set keepInstalled: false".into(),
        Change::AddCatalog { name, path } => format!("add catalog {name} ({path})"),
    }
}

/// The hints after a failure, one line each (empty when there are none).
pub fn hints(u: &crate::resolve::Universe, request: &Request, hints: &[Hint]) -> String {
    if hints.is_empty() {
        return String::new();
    }
    let w = Words {
        u,
        request,
        subjects: &[],
    };
    let mut out = String::from("Hints (each verified by resolving again):\n");
    for h in hints {
        out.push_str(&format!(
            "  - {}: it resolves, selecting {}\n",
            change(&w, &h.change),
            list(&h.selects, "and")
        ));
    }
    out
}
