//! What changed between two answers, in words, for `deppy watch`.

use crate::request::Request;
use crate::resolve::{Action, Answer, Outcome, Selected, Via};

fn via_name(v: Via) -> &'static str {
    match v {
        Via::Replaces => "replaces",
        Via::Skips => "skips",
        Via::SkipRange => "skipRange",
        Via::Requested => "the requirement",
        Via::Dependency => "a dependency",
    }
}

fn installed_version(request: &Request, package: &str) -> Option<String> {
    request
        .installed
        .iter()
        .find(|i| i.package.as_deref() == Some(package))
        .and_then(|i| i.version.as_ref().map(ToString::to_string))
}

fn describe(s: &Selected, request: &Request) -> String {
    match (s.action, s.via) {
        (Action::Upgrade, Some(via)) => format!(
            "{}: upgrade available {} → {} via {}",
            s.package,
            installed_version(request, &s.package)
                .unwrap_or_else(|| s.from.clone().unwrap_or_default()),
            s.version,
            via_name(via)
        ),
        (Action::Keep, _) => format!("{}: keeps {}", s.package, s.version),
        _ => format!("{}: installs {}", s.package, s.version),
    }
}

/// Lines saying how `new` differs from `old` (empty when the answers are the same).
pub fn changes(old: &Outcome, new: &Outcome, request: &Request) -> Vec<String> {
    match (old, new) {
        (Outcome::Resolved(a), Outcome::Resolved(b)) => answer_changes(a, b, request),
        (Outcome::Resolved(_), Outcome::Unsatisfiable(_)) => {
            vec!["the request is no longer satisfiable".to_string()]
        }
        (Outcome::Unsatisfiable(_), Outcome::Resolved(b)) => {
            let mut out = vec!["the request is satisfiable again".to_string()];
            out.extend(b.selected.iter().map(|s| describe(s, request)));
            out
        }
        (Outcome::Unsatisfiable(_), Outcome::Unsatisfiable(_)) => Vec::new(),
    }
}

fn answer_changes(a: &Answer, b: &Answer, request: &Request) -> Vec<String> {
    let mut out = Vec::new();
    for s in &b.selected {
        match a.selected.iter().find(|o| o.package == s.package) {
            Some(o) if o.bundle == s.bundle && o.catalog == s.catalog => {}
            Some(o) if s.action == Action::Upgrade => {
                let mut line = describe(s, request);
                line.push_str(&format!(" (was {})", o.version));
                out.push(line);
            }
            Some(o) => out.push(format!(
                "{}: {} → {} ({} → {})",
                s.package, o.version, s.version, o.bundle, s.bundle
            )),
            None => out.push(format!("{} (new in the answer)", describe(s, request))),
        }
    }
    for o in &a.selected {
        if !b.selected.iter().any(|s| s.package == o.package) {
            out.push(format!(
                "{}: no longer selected (was {})",
                o.package, o.version
            ));
        }
    }
    out
}
