//! One sentence per reason kind: the only place deppy words its reasons.

use crate::catalog::BundleId;
use crate::request::Request;
use crate::resolve::reason::{Dependency, Exclusion, Mismatch, Reason, Rejection};
use crate::resolve::{Subject, Universe};
use crate::solver::{Term, Var};

/// What the wording needs: names of bundles, packages and APIs, and the request.
pub struct Words<'a> {
    pub u: &'a Universe,
    pub request: &'a Request,
    pub subjects: &'a [Subject],
}

/// At most this many names are listed before "and N more".
const LIST_MAX: usize = 6;

pub fn list(names: &[String], conj: &str) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        _ if names.len() > LIST_MAX => {
            format!(
                "{}, {conj} {} more",
                names.get(..LIST_MAX).unwrap_or_default().join(", "),
                names.len() - LIST_MAX
            )
        }
        [init @ .., last] => format!("{} {conj} {last}", init.join(", ")),
    }
}

impl Words<'_> {
    pub fn bundle(&self, b: BundleId) -> String {
        let bundle = self.u.bundle(b);
        if self.u.is_installed(b) {
            format!("{} (installed)", bundle.name)
        } else if self
            .u
            .installed
            .iter()
            .any(|i| self.u.bundle(*i).name == bundle.name)
        {
            // An installed bundle in no catalog may share the name: say which one this is.
            format!(
                "{} from catalog {}",
                bundle.name,
                self.u.catalog_name(bundle.catalog)
            )
        } else {
            bundle.name.clone()
        }
    }

    /// Who states requirement `r` and what it asks, as a clause: "you require package etcd"
    /// or, for a named requirement, "subscription etcd requires package etcd".
    pub fn requires(&self, r: usize) -> String {
        match self.request.require.get(r).and_then(|q| q.name.as_deref()) {
            Some(name) => format!("{name} requires {}", self.requirement(r)),
            None => format!("you require {}", self.requirement(r)),
        }
    }

    /// A requirement as the user wrote it: "etcd in channel alpha at versions >=0.9.0".
    pub fn requirement(&self, r: usize) -> String {
        let Some(q) = self.request.require.get(r) else {
            return format!("requirement {r}");
        };
        let mut s = format!("package {}", q.package);
        if let Some(c) = &q.channel {
            s.push_str(&format!(" in channel {c}"));
        }
        if let Some(v) = &q.version_range {
            s.push_str(&format!(" at versions {v}"));
        }
        if let Some(b) = &q.bundle {
            s.push_str(&format!(" pinned to bundle {b}"));
        }
        if let Some(c) = &q.catalog {
            s.push_str(&format!(" from catalog {c}"));
        }
        s
    }

    /// The subjects of `vars` as a list joined by `conj`. When a bundle in it shares its
    /// name with an installed one, the catalog is named once for the bundles of one catalog
    /// ("a.v2, a.v1 or a.v0 from catalog c"), or for each bundle when they come from several.
    pub fn subject_list(&self, vars: &[Var], conj: &str) -> String {
        let subjects: Vec<Option<Subject>> = vars
            .iter()
            .map(|v| self.subjects.get(v.0 as usize).copied())
            .collect();
        let bundles: Vec<BundleId> = subjects
            .iter()
            .filter_map(|s| match s {
                Some(Subject::Bundle(b)) if !self.u.is_installed(*b) => Some(*b),
                _ => None,
            })
            .collect();
        let clash = bundles.iter().any(|b| self.shares_installed_name(*b));
        let catalogs: std::collections::BTreeSet<_> =
            bundles.iter().map(|b| self.u.bundle(*b).catalog).collect();
        if !clash || catalogs.len() > 1 {
            let names: Vec<String> = vars
                .iter()
                .zip(&subjects)
                .map(|(v, s)| match s {
                    Some(Subject::Bundle(b)) if clash && !self.u.is_installed(*b) => {
                        self.qualified(*b)
                    }
                    _ => self.subject(*v),
                })
                .collect();
            return list(&names, conj);
        }
        let names: Vec<String> = vars
            .iter()
            .zip(&subjects)
            .map(|(v, s)| match s {
                Some(Subject::Bundle(b)) if !self.u.is_installed(*b) => {
                    self.u.bundle(*b).name.clone()
                }
                _ => self.subject(*v),
            })
            .collect();
        let catalog = catalogs
            .iter()
            .next()
            .map(|c| self.u.catalog_name(*c))
            .unwrap_or_default();
        format!("{} from catalog {catalog}", list(&names, conj))
    }

    /// True when an installed bundle has `b`'s name (and `b` is not it).
    fn shares_installed_name(&self, b: BundleId) -> bool {
        let name = &self.u.bundle(b).name;
        !self.u.is_installed(b)
            && self
                .u
                .installed
                .iter()
                .any(|i| self.u.bundle(*i).name == *name)
    }

    /// `name from catalog c`.
    fn qualified(&self, b: BundleId) -> String {
        let bundle = self.u.bundle(b);
        format!(
            "{} from catalog {}",
            bundle.name,
            self.u.catalog_name(bundle.catalog)
        )
    }

    pub fn subject(&self, v: crate::solver::Var) -> String {
        match self.subjects.get(v.0 as usize) {
            Some(s) => self.subject_of(*s),
            None => format!("variable {}", v.0),
        }
    }

    /// A bundle, or a requirement by its name ("your requirement of …" when it has none).
    fn subject_of(&self, s: Subject) -> String {
        match s {
            Subject::Bundle(b) => self.bundle(b),
            Subject::Requirement(r) => {
                match self.request.require.get(r).and_then(|q| q.name.as_deref()) {
                    Some(name) => name.to_string(),
                    None => format!("your requirement of {}", self.requirement(r)),
                }
            }
        }
    }

    /// The words for one incompatibility's terms ("these cannot all hold").
    pub fn terms(&self, terms: &[Term]) -> String {
        let mut reqs = Vec::new();
        let mut on = Vec::new();
        for t in terms.iter().filter(|t| t.selected) {
            match self.subjects.get(t.var.0 as usize) {
                Some(Subject::Requirement(r)) => reqs.push(*r),
                _ => on.push(self.subject(t.var)),
            }
        }
        let off: Vec<String> = terms
            .iter()
            .filter(|t| !t.selected)
            .map(|t| self.subject(t.var))
            .collect();
        let need = |who: String| format!("if {who}, then {} must be installed", list(&off, "or"));
        if reqs.is_empty() {
            return match (on.len(), off.is_empty()) {
                (0, true) => "no resolution exists".to_string(),
                (1, true) => format!("{} cannot be installed", list(&on, "and")),
                (_, true) => format!("{} cannot be installed together", list(&on, "and")),
                (0, false) => format!("one of {} must be installed", list(&off, "or")),
                (n, false) => need(format!("{} {} installed", list(&on, "and"), be(n))),
            };
        }
        let named = reqs.iter().any(|r| {
            self.request
                .require
                .get(*r)
                .is_some_and(|q| q.name.is_some())
        });
        if named {
            return self.named_terms(&reqs, &on, &off);
        }
        let reqs: Vec<String> = reqs.iter().map(|r| self.requirement(*r)).collect();
        match (on.len(), off.is_empty()) {
            (0, true) if reqs.len() == 1 => {
                format!("the requirement of {} cannot be met", list(&reqs, "and"))
            }
            (0, true) => format!(
                "the requirements of {} cannot all be met",
                list(&reqs, "and")
            ),
            (_, true) => format!(
                "{} cannot be installed while you require {}",
                list(&on, "and"),
                list(&reqs, "and")
            ),
            (0, false) => need(format!("you require {}", list(&reqs, "and"))),
            (_, false) => need(format!(
                "{} {} installed and you require {}",
                list(&on, "and"),
                be(on.len()),
                list(&reqs, "and")
            )),
        }
    }

    /// [`Words::terms`] when requirements carry names ("subscription etcd").
    fn named_terms(&self, reqs: &[usize], on: &[String], off: &[String]) -> String {
        let names: Vec<String> = reqs
            .iter()
            .map(|r| self.subject_of(Subject::Requirement(*r)))
            .collect();
        let them = list(&names, "and");
        let need = |who: String| format!("if {who}, then {} must be installed", list(off, "or"));
        match (on.len(), off.is_empty()) {
            (0, true) if names.len() == 1 => format!("{them} cannot be satisfied"),
            (0, true) => format!("{them} cannot all be satisfied"),
            (_, true) => format!(
                "{} cannot be installed while {them} {} to be satisfied",
                list(on, "and"),
                be(names.len())
            ),
            (0, false) => need(format!("{them} {} to be satisfied", be(names.len()))),
            (_, false) => need(format!(
                "{} {} installed and {them} {} to be satisfied",
                list(on, "and"),
                be(on.len()),
                be(names.len())
            )),
        }
    }

    pub fn dependency(&self, d: &Dependency) -> String {
        match d {
            Dependency::Package { package, range } if range.raw() == "*" => {
                format!("package {package}")
            }
            Dependency::Package { package, range } => {
                format!("package {package} at versions {range}")
            }
            Dependency::Gvk(g) => match self.u.gvk(*g) {
                Some(g) => format!("an API {g}"),
                None => "an unknown API".to_string(),
            },
            Dependency::Label(l) => format!("a bundle with label {l}"),
            Dependency::Constraint {
                text,
                failure_message: Some(m),
                ..
            } => format!("\"{m}\" ({text})"),
            Dependency::Constraint { text, .. } => text.clone(),
        }
    }

    /// Why a bundle is excluded, as a phrase after "is"/"are".
    pub fn exclusion(&self, e: Exclusion) -> String {
        match e {
            Exclusion::Removed(i) => match self.u.rules.get(i as usize) {
                Some(rule) => format!("removed by {} ({})", rule.origin, rule.effect),
                None => "removed before resolution".to_string(),
            },
            Exclusion::Deprecated => "deprecated (olm.deprecated)".to_string(),
            Exclusion::NotInChannel => {
                "on no channel's upgrade path (skipped, or in no channel)".to_string()
            }
            Exclusion::MalformedChannel => {
                "only in a malformed channel (no head, a cycle or two chains; see `deppy catalog validate`)".to_string()
            }
        }
    }

    pub fn rejection(&self, r: usize, why: Rejection) -> String {
        let q = self.request.require.get(r);
        match why {
            Rejection::Excluded(e) => self.exclusion(e),
            Rejection::Mismatch(Mismatch::OtherCatalog) => "from another catalog".to_string(),
            Rejection::Mismatch(Mismatch::OtherChannel) => {
                match q.and_then(|q| q.channel.as_deref()) {
                    Some(c) => format!("not in channel {c}"),
                    None => "not in the channel asked for".to_string(),
                }
            }
            Rejection::Mismatch(Mismatch::OutOfRange) => {
                match q.and_then(|q| q.version_range.as_ref()) {
                    Some(v) => format!("outside the range {v}"),
                    None => "outside the range asked for".to_string(),
                }
            }
            Rejection::Mismatch(Mismatch::NotPinned) => "not the pinned bundle".to_string(),
            Rejection::NotAnUpgrade => {
                "not one upgrade edge away from the installed bundle".to_string()
            }
        }
    }

    /// Why no bundle meets requirement `r`, when the catalogs lack what it names.
    fn missing(&self, r: usize) -> Option<String> {
        let q = self.request.require.get(r)?;
        let set = &*self.u.set;
        let Some(p) = set.package_id(&q.package) else {
            if self.u.package_id(&q.package).is_some() {
                return Some(format!(
                    "no catalog has a package named {} any more (only an installed bundle has it)",
                    q.package
                ));
            }
            return Some(format!("no catalog has a package named {}", q.package));
        };
        if set.bundles_of(p).is_empty() {
            return Some(format!(
                "the catalogs have no bundle of package {} (its channel entries name missing bundles)",
                q.package
            ));
        }
        if let Some(c) = &q.catalog
            && set.catalog_id(c).is_none()
        {
            return Some(format!("no catalog named {c} is loaded"));
        }
        if let Some(ch) = &q.channel
            && !set
                .package_entries(p)
                .any(|e| e.channels.iter().any(|c| &c.name == ch))
        {
            return Some(format!("package {} has no channel {ch}", q.package));
        }
        if let Some(b) = &q.bundle
            && !set
                .bundles_of(p)
                .iter()
                .any(|x| set.bundle(*x).is_some_and(|x| &x.name == b))
        {
            return Some(format!("package {} has no bundle named {b}", q.package));
        }
        None
    }

    /// Groups rejected bundles by reason: "a, b: it is outside the range >=2.0.0".
    fn rejections(&self, r: usize, rejected: &[(BundleId, Rejection)]) -> Vec<String> {
        let mut groups: Vec<(Rejection, Vec<String>)> = Vec::new();
        let mut installed = Vec::new();
        for (b, why) in rejected {
            let in_no_catalog = self.u.installed_only_properties(*b).is_some();
            if in_no_catalog && *why == Rejection::Mismatch(Mismatch::OtherCatalog) {
                installed.push(*b);
                continue;
            }
            match groups.iter_mut().find(|(w, _)| w == why) {
                Some((_, names)) => names.push(self.bundle(*b)),
                None => groups.push((*why, vec![self.bundle(*b)])),
            }
        }
        groups.sort_by_key(|g| g.0);
        groups
            .into_iter()
            .map(|(why, names)| {
                let n = names.len();
                format!(
                    "{} {} excluded because {} {} {}",
                    list(&names, "and"),
                    be(n),
                    it(n),
                    be(n),
                    self.rejection(r, why)
                )
            })
            .chain(installed.into_iter().map(|b| {
                let why = if self.u.is_kept(b) {
                    "it is not the installed bundle this requirement moves"
                } else {
                    "no catalog offers it"
                };
                format!("{} is not a candidate because {why}", self.bundle(b))
            }))
            .collect()
    }

    /// One sentence for an external reason, given the terms of its incompatibility.
    pub fn reason(&self, reason: &Reason, terms: &[Term]) -> String {
        let others: Vec<String> = terms
            .iter()
            .filter(|t| !t.selected)
            .map(|t| self.subject(t.var))
            .collect();
        match reason {
            Reason::Required(r) => self.requires(*r),
            Reason::RequirementCandidates {
                requirement,
                rejected,
            } => {
                let what = match self.request.require.get(*requirement) {
                    Some(q) if q.name.is_some() => {
                        self.subject_of(Subject::Requirement(*requirement))
                    }
                    _ => self.requirement(*requirement),
                };
                let mut s = if others.is_empty() {
                    match self.missing(*requirement) {
                        Some(m) => format!("no bundle satisfies {what}: {m}"),
                        None => format!("no bundle satisfies {what}"),
                    }
                } else {
                    let vars: Vec<Var> = terms
                        .iter()
                        .filter(|t| !t.selected)
                        .map(|t| t.var)
                        .collect();
                    format!(
                        "{what} can only be satisfied by {}",
                        self.subject_list(&vars, "or")
                    )
                };
                for r in self.rejections(*requirement, rejected) {
                    s.push_str(&format!("; {r}"));
                }
                s
            }
            Reason::Dependency {
                bundle,
                dependency,
                excluded,
            } => self.dependency_sentence(*bundle, dependency, excluded, &others),
            Reason::OnePerPackage(_) | Reason::OnePerGvk(_) => {
                let on: Vec<_> = terms.iter().filter(|t| t.selected).map(|t| t.var).collect();
                self.only_one(reason, None, &on)
            }
            Reason::Injected { bundle, rule } => match self.u.rules.get(*rule as usize) {
                Some(r) => format!(
                    "{} requires bundle {} ({})",
                    r.origin,
                    self.u.bundle(*bundle).name,
                    r.effect
                ),
                None => format!("bundle {} is required", self.u.bundle(*bundle).name),
            },
            Reason::KeepInstalled(b) => {
                format!(
                    "keepInstalled: true keeps the installed bundle {}",
                    self.u.bundle(*b).name
                )
            }
            Reason::Kept(b) => format!(
                "the installed bundle {} must stay as it is: nothing refers to it as the bundle to move",
                self.u.bundle(*b).name
            ),
        }
    }

    fn dependency_sentence(
        &self,
        bundle: BundleId,
        dependency: &Dependency,
        excluded: &[(BundleId, Exclusion)],
        candidates: &[String],
    ) -> String {
        let mut s = format!(
            "{} requires {}",
            self.bundle(bundle),
            self.dependency(dependency)
        );
        let matching = matches!(dependency, Dependency::Constraint { .. });
        if !candidates.is_empty() {
            let n = candidates.len();
            let verb = match (matching, n == 1) {
                (true, true) => "matches",
                (true, false) => "match",
                (false, true) => "provides",
                (false, false) => "provide",
            };
            s.push_str(&format!("; {} {verb} it", list(candidates, "or")));
            return s;
        }
        if excluded.is_empty() {
            s.push_str(&match self.outside_range(dependency) {
                Some(names) => {
                    let n = names.len();
                    format!("; {} {} outside that range", list(&names, "and"), be(n))
                }
                None if matching => ", and no bundle in the catalogs matches it".to_string(),
                None => ", and no bundle in the catalogs provides it".to_string(),
            });
            s.push_str(&self.cluster_too(dependency));
            s.push_str(&evaluation_errors(dependency));
            return s;
        }
        let ex: Vec<String> = excluded.iter().map(|(b, _)| self.bundle(*b)).collect();
        let mut groups: Vec<(Exclusion, Vec<String>)> = Vec::new();
        for (b, e) in excluded {
            match groups.iter_mut().find(|(x, _)| x == e) {
                Some((_, names)) => names.push(self.bundle(*b)),
                None => groups.push((*e, vec![self.bundle(*b)])),
            }
        }
        let whys: Vec<String> = groups
            .iter()
            .map(|(e, names)| {
                let n = names.len();
                let who = if groups.len() == 1 && n > 1 {
                    "they".to_string()
                } else {
                    list(names, "and")
                };
                format!(
                    "{who} {} excluded because {} {} {}",
                    be(n),
                    it(n),
                    be(n),
                    self.exclusion(*e)
                )
            })
            .collect();
        let only = if ex.len() == 1 { "only " } else { "" };
        let verb = match (matching, ex.len() == 1) {
            (true, true) => "matches",
            (true, false) => "match",
            (false, true) => "provides",
            (false, false) => "provide",
        };
        s.push_str(&format!(
            "; {only}{} {verb} it, and {}",
            list(&ex, "and"),
            list(&whys, "and")
        ));
        s.push_str(&evaluation_errors(dependency));
        s
    }

    /// `; nor does the cluster node (olm.kubeversion {"version":"1.24.0"})` for a dependency
    /// the cluster could have met.
    fn cluster_too(&self, d: &Dependency) -> String {
        let Some(c) = &self.u.cluster else {
            return String::new();
        };
        if !matches!(d, Dependency::Constraint { .. } | Dependency::Gvk(_)) {
            return String::new();
        }
        let props: Vec<String> = c
            .properties
            .iter()
            .map(|(t, v)| format!("{t} {v}"))
            .collect();
        if props.is_empty() {
            return "; nor does the cluster node (it has no properties)".to_string();
        }
        format!("; nor does the cluster node ({})", list(&props, "and"))
    }

    /// Bundles of a required package that exist but miss the range.
    fn outside_range(&self, dependency: &Dependency) -> Option<Vec<String>> {
        let Dependency::Package { package, .. } = dependency else {
            return None;
        };
        let p = self.u.set.package_id(package)?;
        let names: Vec<String> = self
            .u
            .set
            .bundles_of(p)
            .iter()
            .map(|b| self.bundle(*b))
            .collect();
        (!names.is_empty()).then_some(names)
    }
}

fn be(n: usize) -> &'static str {
    if n == 1 { "is" } else { "are" }
}

fn it(n: usize) -> &'static str {
    if n == 1 { "it" } else { "they" }
}

/// `; its CEL rule could not be evaluated for X (error)` for a constraint dependency whose
/// rule failed on some bundles (first error only, with a count).
fn evaluation_errors(d: &Dependency) -> String {
    let Dependency::Constraint { errors, .. } = d else {
        return String::new();
    };
    match errors.as_slice() {
        [] => String::new(),
        [one] => {
            format!("; its rule could not be evaluated for {one}, so it counts as false there")
        }
        [first, rest @ ..] => format!(
            "; its rule could not be evaluated for {first} and {} more bundles, so it counts as false there",
            rest.len()
        ),
    }
}

impl Words<'_> {
    /// One sentence for pairwise at-most-one facts of one reason, grouped (see `group`):
    /// the bundle every pair shares against the others, or every bundle of the pairs.
    pub(crate) fn only_one(&self, reason: &Reason, hub: Option<Var>, others: &[Var]) -> String {
        let grouped = self.subject_list(others, "and");
        let others: Vec<String> = others.iter().map(|v| self.subject(*v)).collect();
        let (who, all) = match hub {
            Some(h) => (format!("{} and each of {grouped}", self.subject(h)), ""),
            None if others.len() == 2 => (list(&others, "and"), "both "),
            None => (list(&others, "and"), "all "),
        };
        match reason {
            Reason::OnePerPackage(p) => format!(
                "{who} are bundles of package {}, and only one bundle of a package can be installed",
                self.u.package_name(*p)
            ),
            Reason::OnePerGvk(g) => format!(
                "{who} {all}provide {}, and only one bundle in the answer may provide an API",
                self.u
                    .gvk(*g)
                    .map_or_else(|| "the same API".to_string(), |g| format!("API {g}"))
            ),
            other => self.reason(other, &[]),
        }
    }
}
