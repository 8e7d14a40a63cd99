//! Turns derived candidates into a solver problem: one variable per requirement and per
//! reached bundle, Dependency constraints in preference order, at-most-one per package and
//! per API (docs/semantics.md §5–§7).

use rustc_hash::FxHashMap;

use crate::catalog::{BundleId, GvkId, PackageId};
use crate::request::Request;
use crate::solver::{Constraint, Entry, Problem, Var};

use super::candidates::{DependencyRanks, ListKind, order};
use super::constraints::{ConstraintMatches, cluster_satisfies, first_constraint_dependency};
use super::derive::Derived;
use super::reason::{Dependency, Reason, Rejection};
use super::universe::Universe;
use crate::constraint::Cluster;

/// What a solver variable stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// Requirement number `.0` of the request.
    Requirement(usize),
    /// A bundle.
    Bundle(BundleId),
}

/// The problem plus the maps back to the domain.
#[derive(Default)]
pub(crate) struct Built {
    pub problem: Problem<Reason>,
    pub subjects: Vec<Subject>,
    var_of: FxHashMap<BundleId, Var>,
}

/// What problem building needs beyond the derived facts.
pub struct Context<'c> {
    /// Bundles static variables make mandatory, with their rule.
    pub injected: &'c [(BundleId, u32)],
    /// The cluster node: a dependency it satisfies needs no bundle.
    pub cluster: Option<&'c Cluster>,
    /// Constraint dependencies' evaluation errors.
    pub matches: &'c ConstraintMatches,
    /// When derivation is on demand: the bundles whose dependency lists are derived. The
    /// others get a variable and no Dependency constraint yet ([`Growing::grow_for`] adds
    /// them once their lists are derived).
    pub derived_for: Option<&'c rustc_hash::FxHashSet<BundleId>>,
}

/// Builds the problem for `request` from the derived facts.
pub fn build(u: &Universe, d: &Derived, request: &Request, cx: &Context<'_>) -> Built {
    let mut b = Builder {
        u,
        d,
        cx,
        built: Built::default(),
        queue: Vec::new(),
        ranks: DependencyRanks::new(u, d),
    };
    b.roots(request);
    b.walk(0);
    b.built
}

/// A problem built in steps while dependency lists are derived on demand
/// ([`Context::derived_for`]): each step adds the Dependency constraints of the bundles
/// derived since the last, and of the bundles their candidates bring in.
#[derive(Default)]
pub struct Growing {
    /// The problem so far.
    pub built: Built,
    queue: Vec<BundleId>,
    next: usize,
    /// The bundle variables so far by package and by API.
    groups: Groups,
}

impl Growing {
    /// The requirements, installed and mandatory bundles, and what is derived of the rest.
    pub fn new(u: &Universe, d: &Derived, request: &Request, cx: &Context<'_>) -> Growing {
        let mut b = Builder {
            u,
            d,
            cx,
            built: Built::default(),
            queue: Vec::new(),
            // Lists are ordered by the key sort: the facts grow between steps.
            ranks: DependencyRanks::none(),
        };
        b.roots(request);
        let next = b.walk(0);
        Growing {
            built: b.built,
            queue: b.queue,
            next,
            groups: Groups::default(),
        }
    }

    /// Brings the global constraints in `problem` up to date with the variables added
    /// since the last call: a group that gained variables has its at-most entry extended,
    /// or added once it has two ([`Groups::sync`]).
    pub fn sync_global(&mut self, u: &Universe, problem: &mut Problem<Reason>) {
        self.groups.sync(u, &self.built.subjects, problem);
    }

    /// Adds the dependencies of `derived`, bundles whose lists were just derived, when they
    /// have variables, and what their candidates bring in.
    pub fn grow_for(&mut self, u: &Universe, d: &Derived, cx: &Context<'_>, derived: &[BundleId]) {
        let mut b = Builder {
            u,
            d,
            cx,
            built: std::mem::take(&mut self.built),
            queue: std::mem::take(&mut self.queue),
            ranks: DependencyRanks::none(),
        };
        // A bundle with a variable before this step has been walked (every queued bundle
        // is, below) and, its lists not derived then, left without dependencies: they are
        // added now. Variables made in this step are queued and walked once.
        let walked: Vec<BundleId> = (derived.iter())
            .filter(|x| b.built.var_of.contains_key(x))
            .copied()
            .collect();
        for bundle in walked {
            b.dependencies(bundle);
        }
        self.next = b.walk(self.next);
        self.built = b.built;
        self.queue = b.queue;
    }
}

struct Builder<'u, 'd> {
    u: &'u Universe,
    d: &'d Derived,
    cx: &'d Context<'d>,
    built: Built,
    /// Bundles with variables, in creation order; their dependencies are added in turn.
    queue: Vec<BundleId>,
    /// Dependency list order, ranked once.
    ranks: DependencyRanks,
}

impl Builder<'_, '_> {
    /// Requirement variables with their candidates, installed and injected bundles.
    fn roots(&mut self, request: &Request) {
        let u = self.u;
        let req_vars: Vec<Var> = (0..request.require.len())
            .map(|r| self.new_var(Subject::Requirement(r)))
            .collect();
        for (r, &v) in req_vars.iter().enumerate() {
            self.built
                .problem
                .add(v, Constraint::Mandatory, Reason::Required(r));
        }
        for (r, &v) in req_vars.iter().enumerate() {
            self.requirement(r, v, request);
        }
        for &i in &u.installed {
            let iv = self.bundle_var(i);
            let required = request
                .require
                .iter()
                .any(|q| Some(u.package_of(i)) == u.package_id(&q.package));
            if u.is_kept(i) {
                self.built
                    .problem
                    .add(iv, Constraint::Mandatory, Reason::Kept(i));
            } else if request.keep_installed && !required {
                self.built
                    .problem
                    .add(iv, Constraint::Mandatory, Reason::KeepInstalled(i));
            }
        }
        for &(bundle, rule) in self.cx.injected {
            let v = self.bundle_var(bundle);
            self.built
                .problem
                .add(v, Constraint::Mandatory, Reason::Injected { bundle, rule });
        }
    }

    /// Adds the dependencies of every queued bundle from position `next` on; returns the
    /// position after the last.
    fn walk(&mut self, mut next: usize) -> usize {
        while let Some(&bundle) = self.queue.get(next) {
            next += 1;
            self.dependencies(bundle);
        }
        next
    }

    fn new_var(&mut self, s: Subject) -> Var {
        self.built.subjects.push(s);
        self.built.problem.add_var()
    }

    fn bundle_var(&mut self, b: BundleId) -> Var {
        if let Some(v) = self.built.var_of.get(&b) {
            return *v;
        }
        let v = self.new_var(Subject::Bundle(b));
        self.built.var_of.insert(b, v);
        self.queue.push(b);
        v
    }

    fn requirement(&mut self, r: usize, v: Var, request: &Request) {
        let rq = r as u32;
        let channel = request.require.get(r).and_then(|q| q.channel.as_deref());
        let fits = self
            .d
            .requirements
            .installed_fits
            .iter()
            .find(|(x, _)| *x == rq)
            .map(|(_, i)| *i);
        let matches: Vec<BundleId> = self
            .d
            .requirements
            .matches
            .iter()
            .filter(|(x, _)| *x == rq)
            .map(|(_, b)| *b)
            .collect();
        let mut rejected: Vec<(BundleId, Rejection)> = self
            .d
            .requirements
            .mismatches
            .iter()
            .filter(|(x, _, _)| *x == rq)
            .map(|(_, b, m)| (*b, Rejection::Mismatch(*m)))
            .collect();
        let cands = match fits {
            Some(installed) => {
                let mut ups: Vec<BundleId> = self
                    .d
                    .requirements
                    .upgrades
                    .iter()
                    .filter(|(x, _, _)| *x == rq)
                    .map(|(_, e, _)| *e)
                    .collect();
                ups.dedup();
                order(self.u, self.d, ListKind::Upgrade(channel), &mut ups);
                rejected.extend(
                    matches
                        .iter()
                        .filter(|m| !ups.contains(m) && **m != installed)
                        .map(|m| (*m, Rejection::NotAnUpgrade)),
                );
                ups.push(installed);
                ups
            }
            None => {
                let mut m = matches;
                order(self.u, self.d, ListKind::Install(channel), &mut m);
                m
            }
        };
        self.add_excluded_of_package(r, request, &mut rejected);
        // The installed bundle stays a candidate even when it fails a restriction (another
        // catalog, channel): it is not rejected.
        rejected.retain(|(b, _)| !cands.contains(b));
        rejected.sort();
        rejected.dedup_by_key(|(b, _)| *b);
        let vars = cands.iter().map(|c| self.bundle_var(*c)).collect();
        let reason = Reason::RequirementCandidates {
            requirement: r,
            rejected,
        };
        self.built
            .problem
            .add(v, Constraint::Dependency(vars), reason);
    }

    /// Bundles of the required package excluded everywhere (deprecated, not in a channel).
    fn add_excluded_of_package(
        &self,
        r: usize,
        request: &Request,
        out: &mut Vec<(BundleId, Rejection)>,
    ) {
        let Some(p) = request
            .require
            .get(r)
            .and_then(|q| self.u.package_id(&q.package))
        else {
            return;
        };
        let pinned = request.require.get(r).and_then(|q| q.bundle.as_deref());
        for &b in self.u.set.bundles_of(p) {
            if let Some(e) = self.d.excluded.get(&b) {
                let pin_allows = pinned == Some(self.u.bundle(b).name.as_str())
                    && *e == super::derive::Exclusion::NotInChannel;
                if !pin_allows {
                    out.push((b, Rejection::Excluded(*e)));
                }
            }
        }
    }

    fn dependencies(&mut self, bundle: BundleId) {
        let Some(&v) = self.built.var_of.get(&bundle) else {
            return;
        };
        let bd = self.u.bundle(bundle);
        if requires_anything(bd) && self.cx.derived_for.is_some_and(|s| !s.contains(&bundle)) {
            return;
        }
        let deps: Vec<Dependency> = bd
            .requires_packages
            .iter()
            .map(|p| Dependency::Package {
                package: p.package.clone(),
                range: p.range.clone(),
            })
            .chain(bd.requires_gvks.iter().map(|g| Dependency::Gvk(*g)))
            .chain(
                bd.requires_labels
                    .iter()
                    .map(|l| Dependency::Label(l.clone())),
            )
            .chain(bd.requires_constraints.iter().enumerate().map(|(k, c)| {
                let key = (bundle, first_constraint_dependency(bd) + k as u32);
                Dependency::Constraint {
                    text: c.describe(),
                    failure_message: c.failure_message.clone(),
                    errors: self
                        .cx
                        .matches
                        .errors
                        .get(&key)
                        .cloned()
                        .unwrap_or_default(),
                }
            }))
            .collect();
        for (i, dependency) in deps.into_iter().enumerate() {
            let key = (bundle, i as u32);
            let by_cluster = self
                .cx
                .cluster
                .is_some_and(|c| cluster_satisfies(c, self.u, bd, i as u32));
            if by_cluster {
                continue;
            }
            let mut cands = self
                .d
                .dependencies
                .candidates
                .get(&key)
                .cloned()
                .unwrap_or_default();
            self.ranks.order(self.u, self.d, bundle, &mut cands);
            let excluded = self
                .d
                .dependencies
                .matches
                .get(&key)
                .into_iter()
                .flatten()
                .filter_map(|b| self.d.excluded.get(b).map(|e| (*b, *e)))
                .collect();
            let vars = cands.iter().map(|c| self.bundle_var(*c)).collect();
            let reason = Reason::Dependency {
                bundle,
                dependency,
                excluded,
            };
            self.built
                .problem
                .add(v, Constraint::Dependency(vars), reason);
        }
    }
}

/// Whether bundle `b` states any dependency: a bundle that states none has no lists to
/// derive.
pub(crate) fn requires_anything(b: &crate::catalog::Bundle) -> bool {
    !(b.requires_packages.is_empty()
        && b.requires_gvks.is_empty()
        && b.requires_labels.is_empty()
        && b.requires_constraints.is_empty())
}

/// The global constraints (docs/semantics.md §6.1): at most one selected bundle per package
/// and per API, over the bundles `built` has variables for, in variable order.
pub fn global_constraints(u: &Universe, built: &Built) -> Vec<Entry<Reason>> {
    let mut groups = Groups::default();
    groups.extend(u, &built.subjects);
    groups.constraints()
}

/// The bundle variables of each package and of each provided API, in variable order: what
/// the global constraints are made of. [`Growing`] keeps them, and their entries in the
/// problem, as variables are added.
#[derive(Default)]
struct Groups {
    by_package: FxHashMap<PackageId, Group>,
    by_gvk: FxHashMap<GvkId, Group>,
    /// Subjects grouped so far.
    seen: usize,
}

/// One group's variables, and its at-most entry once the problem has one.
#[derive(Default)]
struct Group {
    vars: Vec<Var>,
    /// The entry and how many of `vars` it counts.
    entry: Option<(usize, usize)>,
}

impl Groups {
    /// Groups the subjects from the first not seen yet; returns the packages and APIs
    /// whose groups gained variables.
    fn extend(&mut self, u: &Universe, subjects: &[Subject]) -> (Vec<PackageId>, Vec<GvkId>) {
        let (mut packages, mut gvks) = (Vec::new(), Vec::new());
        for (i, s) in subjects.iter().enumerate().skip(self.seen) {
            let Subject::Bundle(b) = *s else { continue };
            let v = Var(i as u32);
            let bd = u.bundle(b);
            self.by_package.entry(bd.package).or_default().vars.push(v);
            packages.push(bd.package);
            for g in &bd.provides {
                self.by_gvk.entry(*g).or_default().vars.push(v);
                gvks.push(*g);
            }
        }
        self.seen = self.seen.max(subjects.len());
        packages.sort_unstable();
        packages.dedup();
        gvks.sort_unstable();
        gvks.dedup();
        (packages, gvks)
    }

    /// Groups the new subjects and brings their at-most entries in `problem` up to date:
    /// packages first, then APIs, each in id order (the order [`Groups::constraints`]
    /// gives).
    fn sync(&mut self, u: &Universe, subjects: &[Subject], problem: &mut Problem<Reason>) {
        let (packages, gvks) = self.extend(u, subjects);
        for p in packages {
            if let Some(g) = self.by_package.get_mut(&p) {
                g.sync(problem, || Reason::OnePerPackage(p));
            }
        }
        for a in gvks {
            if let Some(g) = self.by_gvk.get_mut(&a) {
                g.sync(problem, || Reason::OnePerGvk(a));
            }
        }
    }

    /// At most one bundle per package, then one provider per API, each in id order; groups
    /// of one variable bind nothing and are left out.
    fn constraints(&self) -> Vec<Entry<Reason>> {
        let mut packages: Vec<_> = self
            .by_package
            .iter()
            .filter(|(_, g)| g.vars.len() > 1)
            .collect();
        packages.sort_unstable_by_key(|(p, _)| **p);
        let mut gvks: Vec<_> = (self.by_gvk.iter())
            .filter(|(_, g)| g.vars.len() > 1)
            .collect();
        gvks.sort_unstable_by_key(|(g, _)| **g);
        let packages = packages
            .into_iter()
            .map(|(p, g)| at_most_one(g.vars.clone(), Reason::OnePerPackage(*p)));
        let gvks = gvks
            .into_iter()
            .map(|(a, g)| at_most_one(g.vars.clone(), Reason::OnePerGvk(*a)));
        packages.chain(gvks).collect()
    }
}

impl Group {
    /// Extends this group's entry by the variables it does not count yet, or adds the
    /// entry once the group has two variables.
    fn sync(&mut self, problem: &mut Problem<Reason>, label: impl FnOnce() -> Reason) {
        match self.entry {
            Some((entry, counted)) if counted < self.vars.len() => {
                problem.extend_at_most(entry, self.vars.get(counted..).unwrap_or_default());
                self.entry = Some((entry, self.vars.len()));
            }
            None if self.vars.len() > 1 => {
                let e = at_most_one(self.vars.clone(), label());
                self.entry = Some((problem.entries().len(), self.vars.len()));
                problem.add(e.subject, e.constraint, e.label);
            }
            _ => {}
        }
    }
}

fn at_most_one(vars: Vec<Var>, label: Reason) -> Entry<Reason> {
    Entry {
        subject: vars.first().copied().unwrap_or(Var(0)),
        constraint: Constraint::AtMost { n: 1, vars },
        label,
    }
}
