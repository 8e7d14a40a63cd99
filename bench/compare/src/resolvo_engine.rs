//! The model as a resolvo `DependencyProvider` (resolvo 0.12).
//!
//! Encoding (README "Encodings"):
//! - each package is a resolvo name whose candidates are its 10 bundles, sorted highest
//!   version first; resolvo selects at most one candidate per name, which is AtMost(1) per
//!   package;
//! - a package-range dependency is a requirement on that name with a version set (a bitmask of
//!   the allowed version indices);
//! - a range conflict is a `constrains` entry with the complement version set ("if q is
//!   selected, it is outside the range");
//! - a shared GVK Sk, by default (`union`): a dependency on Sk is a union requirement over
//!   its providers (package q at versions >= q's from), and a bundle that provides Sk
//!   constrains every other providing package to its versions below their from (AtMost(1)).
//!   Alternatively (`virtual`): a virtual name `gvk:Sk` whose candidates are one virtual
//!   solvable per providing bundle (highest version first, ties by package name); a providing
//!   bundle requires its own virtual solvable and a virtual solvable requires its bundle, so at
//!   most one provider is selected; a dependency on Sk requires any `gvk:Sk` candidate;
//! - the roots are the problem's requirements, one per root package (any version).
//!
//! Eager mode answers `get_candidates` with `HintDependenciesAvailable::All` and returns
//! dependencies precomputed when the provider was built; lazy mode builds each solvable's
//! dependencies when the solver asks for them and gives no hint.

use std::fmt::{self, Display};

use resolvo::utils::{Pool, VersionSet};
use resolvo::{
    Candidates, Condition, ConditionId, ConditionalRequirement, Dependencies, DependencyProvider,
    HintDependenciesAvailable, Interner, KnownDependencies, NameId, Problem, SolvableId, Solver,
    SolverCache, StringId, UnsolvableOrCancelled, VersionSetId, VersionSetUnionId,
};

use crate::model::{Dep, Model, VERSIONS, bid, pkg_of, ver_of};

/// Shared GVKs as union requirements plus constrains (`union`, the default: 4–7× faster in
/// resolvo on these shapes) or as virtual names (`virtual`). Set by `--resolvo-gvk`, passed to
/// child processes through the environment.
pub fn union_gvks() -> bool {
    std::env::var("DEPPY_COMPARE_RESOLVO_GVK").map_or(true, |v| v != "virtual")
}

const ALL_VERSIONS: u16 = (1 << VERSIONS) - 1;

/// A version set. A bundle solvable's record is its bundle index; a virtual solvable's record
/// is the bundle index of the provider it stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VSet {
    /// Bundles whose version index bit is set.
    Versions(u16),
    /// Any virtual candidate.
    Any,
    /// The virtual candidate standing for this bundle.
    Exact(u32),
}

impl Display for VSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VSet::Versions(mask) => {
                let vs: Vec<String> = (0..VERSIONS)
                    .filter(|v| mask & (1 << v) != 0)
                    .map(|v| format!("1.{v}.0"))
                    .collect();
                write!(f, "{}", vs.join("|"))
            }
            VSet::Any => write!(f, "*"),
            VSet::Exact(b) => write!(f, "via bundle #{b}"),
        }
    }
}

impl VersionSet for VSet {
    type V = u32;
}

#[derive(Clone, Copy)]
enum Kind {
    Bundle(usize),
    Virtual(usize),
}

pub struct Provider<'m> {
    m: &'m Model,
    eager: bool,
    /// Shared GVKs as union requirements and constrains instead of virtual names.
    union: bool,
    pool: Pool<VSet>,
    pkg_names: Vec<NameId>,
    gvk_names: Vec<NameId>,
    /// Candidates per name (indexed by the name's raw id): packages, then shared GVKs.
    candidates: Vec<Vec<SolvableId>>,
    /// What each solvable (by raw id) stands for.
    kinds: Vec<Kind>,
    /// Eager mode: every solvable's dependencies, computed up front.
    known: Vec<KnownDependencies>,
}

fn mask(lo: u8, hi: u8) -> u16 {
    (lo..hi).fold(0, |m, v| m | (1 << v))
}

impl<'m> Provider<'m> {
    pub fn new(m: &'m Model, eager: bool) -> Provider<'m> {
        let pool = Pool::new();
        let mut p = Provider {
            m,
            eager,
            union: union_gvks(),
            pool,
            pkg_names: Vec::with_capacity(m.n),
            gvk_names: Vec::with_capacity(m.gvk_providers.len()),
            candidates: Vec::new(),
            kinds: Vec::new(),
            known: Vec::new(),
        };
        for (i, name) in m.names.iter().enumerate() {
            let id = p.pool.intern_package_name(name.clone());
            p.pkg_names.push(id);
            assert_eq!(id.into_raw() as usize, p.candidates.len());
            let mut cands = Vec::with_capacity(VERSIONS);
            for v in 0..VERSIONS as u8 {
                let b = bid(i as u32, v);
                let s = p.pool.intern_solvable(id, b as u32);
                assert_eq!(s.into_raw() as usize, p.kinds.len());
                p.kinds.push(Kind::Bundle(b));
                cands.push(s);
            }
            p.candidates.push(cands);
        }
        for k in 0..m.gvk_providers.len() {
            let id = p.pool.intern_package_name(format!("gvk:S{k}"));
            p.gvk_names.push(id);
            assert_eq!(id.into_raw() as usize, p.candidates.len());
            let mut cands = Vec::new();
            for b in m.gvk_bundles(k as u32) {
                let s = p.pool.intern_solvable(id, b as u32);
                assert_eq!(s.into_raw() as usize, p.kinds.len());
                p.kinds.push(Kind::Virtual(b));
                cands.push(s);
            }
            p.candidates.push(cands);
        }
        if eager {
            p.known = (0..p.kinds.len())
                .map(|i| p.dependencies_of(p.kinds[i]))
                .collect();
        }
        p
    }

    fn kind(&self, s: SolvableId) -> Kind {
        self.kinds[s.into_raw() as usize]
    }

    fn dependencies_of(&self, kind: Kind) -> KnownDependencies {
        let mut deps = KnownDependencies::default();
        match kind {
            Kind::Bundle(b) => {
                let bundle = &self.m.bundles[b];
                for d in &bundle.deps {
                    let req = match d {
                        Dep::Pkg(r) => ConditionalRequirement::from(self.pool.intern_version_set(
                            self.pkg_names[r.pkg as usize],
                            VSet::Versions(mask(r.lo, r.hi)),
                        )),
                        Dep::Gvk(k) if self.union => {
                            let mut sets =
                                self.m.gvk_providers[*k as usize].iter().map(|(q, from)| {
                                    self.pool.intern_version_set(
                                        self.pkg_names[*q as usize],
                                        VSet::Versions(mask(*from, VERSIONS as u8)),
                                    )
                                });
                            let first = sets.next().expect("a GVK has providers");
                            ConditionalRequirement::from(
                                self.pool.intern_version_set_union(first, sets),
                            )
                        }
                        Dep::Gvk(k) => ConditionalRequirement::from(
                            self.pool
                                .intern_version_set(self.gvk_names[*k as usize], VSet::Any),
                        ),
                    };
                    deps.requirements.push(req);
                }
                let p = pkg_of(b) as usize;
                for (k, from) in &self.m.provides[p] {
                    if ver_of(b) < *from {
                        continue;
                    }
                    if self.union {
                        // every other provider package must stay below its providing versions
                        for (q, qfrom) in &self.m.gvk_providers[*k as usize] {
                            if *q as usize != p {
                                deps.constrains.push(self.pool.intern_version_set(
                                    self.pkg_names[*q as usize],
                                    VSet::Versions(mask(0, *qfrom)),
                                ));
                            }
                        }
                    } else {
                        let vs = self
                            .pool
                            .intern_version_set(self.gvk_names[*k as usize], VSet::Exact(b as u32));
                        deps.requirements.push(ConditionalRequirement::from(vs));
                    }
                }
                for r in &bundle.conflicts {
                    deps.constrains.push(self.pool.intern_version_set(
                        self.pkg_names[r.pkg as usize],
                        VSet::Versions(!mask(r.lo, r.hi) & ALL_VERSIONS),
                    ));
                }
            }
            Kind::Virtual(b) => {
                let vs = self.pool.intern_version_set(
                    self.pkg_names[pkg_of(b) as usize],
                    VSet::Versions(1 << ver_of(b)),
                );
                deps.requirements.push(ConditionalRequirement::from(vs));
            }
        }
        deps
    }

    pub fn problem(&self) -> Problem<SolvableId> {
        let reqs =
            self.m
                .roots
                .iter()
                .map(|p| {
                    ConditionalRequirement::from(self.pool.intern_version_set(
                        self.pkg_names[*p as usize],
                        VSet::Versions(ALL_VERSIONS),
                    ))
                })
                .collect();
        Problem::new().requirements(reqs)
    }

    fn record(&self, s: SolvableId) -> usize {
        self.pool.resolve_solvable(s).record as usize
    }
}

impl Interner for Provider<'_> {
    type NameId = NameId;
    type SolvableId = SolvableId;

    fn display_solvable(&self, solvable: SolvableId) -> impl Display + '_ {
        match self.kind(solvable) {
            Kind::Bundle(b) => self.m.bundle_name(b),
            Kind::Virtual(b) => format!(
                "{} via {}",
                self.pool
                    .resolve_package_name(self.pool.resolve_solvable(solvable).name),
                self.m.bundle_name(b)
            ),
        }
    }

    fn display_name(&self, name: NameId) -> impl Display + '_ {
        self.pool.resolve_package_name(name).clone()
    }

    fn display_version_set(&self, version_set: VersionSetId) -> impl Display + '_ {
        self.pool.resolve_version_set(version_set).to_string()
    }

    fn display_string(&self, string_id: StringId) -> impl Display + '_ {
        self.pool.resolve_string(string_id).to_owned()
    }

    fn version_set_name(&self, version_set: VersionSetId) -> NameId {
        self.pool.resolve_version_set_package_name(version_set)
    }

    fn solvable_name(&self, solvable: SolvableId) -> NameId {
        self.pool.resolve_solvable(solvable).name
    }

    fn version_sets_in_union(
        &self,
        version_set_union: VersionSetUnionId,
    ) -> impl Iterator<Item = VersionSetId> {
        self.pool.resolve_version_set_union(version_set_union)
    }

    fn resolve_condition(&self, condition: ConditionId) -> Condition {
        self.pool.resolve_condition(condition).clone()
    }
}

impl DependencyProvider for Provider<'_> {
    async fn filter_candidates(
        &self,
        candidates: &[SolvableId],
        version_set: VersionSetId,
        inverse: bool,
    ) -> Vec<SolvableId> {
        let set = self.pool.resolve_version_set(version_set);
        candidates
            .iter()
            .copied()
            .filter(|s| {
                let r = self.record(*s);
                let hit = match set {
                    VSet::Versions(m) => m & (1 << ver_of(r)) != 0,
                    VSet::Any => true,
                    VSet::Exact(b) => r == *b as usize,
                };
                hit != inverse
            })
            .collect()
    }

    async fn get_candidates(&self, name: NameId) -> Option<Candidates<SolvableId>> {
        let cands = self.candidates.get(name.into_raw() as usize)?;
        Some(Candidates {
            candidates: cands.clone(),
            hint_dependencies_available: if self.eager {
                HintDependenciesAvailable::All
            } else {
                HintDependenciesAvailable::None
            },
            ..Candidates::default()
        })
    }

    async fn sort_candidates(&self, _solver: &SolverCache<Self>, solvables: &mut [SolvableId]) {
        // highest version first; for a GVK's virtual candidates, ties by package name
        solvables.sort_by_key(|s| {
            let b = self.record(*s);
            (std::cmp::Reverse(ver_of(b)), pkg_of(b))
        });
    }

    async fn get_dependencies(&self, solvable: SolvableId) -> Dependencies {
        if self.eager {
            Dependencies::Known(self.known[solvable.into_raw() as usize].clone())
        } else {
            Dependencies::Known(self.dependencies_of(self.kind(solvable)))
        }
    }
}

/// One solve: Ok(selected bundles) or Err(the user-facing explanation). The solver is
/// returned so that the caller can drop it outside the timed part.
pub fn solve<'m>(provider: Provider<'m>) -> (Result<Vec<usize>, String>, Solver<Provider<'m>>) {
    let problem = provider.problem();
    let mut solver = Solver::new(provider);
    let result = match solver.solve(problem) {
        Ok(sel) => {
            let p = solver.provider();
            Ok(sel
                .into_iter()
                .filter_map(|s| match p.kind(s) {
                    Kind::Bundle(b) => Some(b),
                    Kind::Virtual(_) => None,
                })
                .collect())
        }
        Err(UnsolvableOrCancelled::Unsolvable(conflict)) => {
            Err(conflict.display_user_friendly(&solver).to_string())
        }
        Err(UnsolvableOrCancelled::Cancelled(_)) => Err("cancelled".into()),
    };
    if std::env::var_os("DEPPY_COMPARE_STATS").is_some() {
        eprintln!("resolvo: {} clauses", solver.clause_count());
    }
    (result, solver)
}
