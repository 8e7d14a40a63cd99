//! The seeded generator: one in-memory model that every engine is fed.
//!
//! N packages × 10 bundles (versions 1.0.0..1.9.0, higher preferred). Every bundle provides
//! its package's own GVK; N/4 shared GVKs are each provided by 2–4 distinct packages from some
//! version up. Per bundle: a Poisson(1) number of package-range dependencies on later packages
//! (index window 50), a shared-GVK dependency with probability 0.3 and a range conflict with
//! probability 0.05 (on a later package, same window). In the realistic shape only 2.5 % of
//! bundles get dependencies at all. At most one bundle per package and one provider per GVK.
//! The rates can be changed with `--dep-rate`, `--gvk-rate` and `--con-rate` ([`Rates`]).

use crate::rng::Rng;

/// Bundles per package; bundle version index `v` is version `1.v.0`.
pub const VERSIONS: usize = 10;
/// Dependencies and conflicts point at most this many packages ahead.
pub const WINDOW: usize = 50;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// R=10 roots, satisfiable.
    N,
    /// R=10, a core c at a random place needs c+1==1.0.0 and c+2, c+2 needs c+1==1.9.0:
    /// unsatisfiable; c is at a random position among the roots.
    U,
    /// R=N/10 roots among packages that provide no shared GVK.
    C,
    /// R=10, only 2.5 % of bundles have dependencies (the real catalogs' density).
    Real,
}

impl Shape {
    pub fn parse(s: &str) -> Option<Shape> {
        Some(match s {
            "n" => Shape::N,
            "u" => Shape::U,
            "c" => Shape::C,
            "real" | "r" => Shape::Real,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Shape::N => "n",
            Shape::U => "u",
            Shape::C => "c",
            Shape::Real => "real",
        }
    }
}

/// Versions `lo..hi` (exclusive) of package `pkg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub pkg: u32,
    pub lo: u8,
    pub hi: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dep {
    /// Some bundle of the package within the range.
    Pkg(Range),
    /// Some provider of shared GVK `k`.
    Gvk(u32),
}

#[derive(Clone, Debug, Default)]
pub struct Bundle {
    pub deps: Vec<Dep>,
    /// Never selected together with any bundle in these ranges.
    pub conflicts: Vec<Range>,
}

#[derive(Clone, Debug)]
pub struct Model {
    pub shape: Shape,
    pub n: usize,
    pub seed: u64,
    /// False for the conflict-free (FBC) variant.
    pub with_conflicts: bool,
    /// Zero-padded so that name order is index order.
    pub names: Vec<String>,
    /// Shared GVK k: (package, from version index).
    pub gvk_providers: Vec<Vec<(u32, u8)>>,
    /// Per package: (shared GVK, from version index).
    pub provides: Vec<Vec<(u32, u8)>>,
    /// Bundle `p * VERSIONS + v`.
    pub bundles: Vec<Bundle>,
    /// Root requirements: "some bundle of package p", mandatory.
    pub roots: Vec<u32>,
}

/// Bundle index of (package, version index).
pub fn bid(p: u32, v: u8) -> usize {
    p as usize * VERSIONS + v as usize
}
pub fn pkg_of(b: usize) -> u32 {
    (b / VERSIONS) as u32
}
pub fn ver_of(b: usize) -> u8 {
    (b % VERSIONS) as u8
}
pub fn version_str(v: u8) -> String {
    format!("1.{v}.0")
}

/// Dependency ranges: `bounded` (`>=1.lo.0 <1.hi.0`, the default: the highest version does not
/// always fit) or `open` (`>=1.lo.0`, as in deppy's own synthetic benchmark). Set by
/// `--ranges`, passed to child processes through the environment.
pub fn open_ranges() -> bool {
    std::env::var("DEPPY_COMPARE_RANGES").is_ok_and(|v| v == "open")
}

/// The per-bundle rates of the generator, overridable with `--dep-rate`, `--gvk-rate` and
/// `--con-rate` (passed to child processes through the environment).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Share of bundles that have dependencies at all (1 by default, 0.025 for `real`).
    pub dep: f64,
    /// Probability of a shared-GVK dependency, over all bundles (0.3 by default, 0.0075 for
    /// `real`).
    pub gvk: f64,
    /// Probability of a range conflict, over all bundles (0.05 by default, 0.00125 for `real`).
    pub con: f64,
}

impl Rates {
    pub fn for_shape(shape: Shape) -> Rates {
        let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<f64>().ok());
        let dep = if shape == Shape::Real { 0.025 } else { 1.0 };
        let dep = env("DEPPY_COMPARE_DEP_RATE").unwrap_or(dep);
        Rates {
            dep,
            gvk: env("DEPPY_COMPARE_GVK_RATE").unwrap_or(0.3 * dep),
            con: env("DEPPY_COMPARE_CON_RATE").unwrap_or(0.05 * dep),
        }
    }

    /// The rates as flags, for the tables' header.
    pub fn describe(shape: Shape) -> String {
        let r = Rates::for_shape(shape);
        format!(
            "--dep-rate {} --gvk-rate {} --con-rate {}",
            r.dep, r.gvk, r.con
        )
    }
}

fn dep_range(rng: &mut Rng, p: usize, n: usize, open: bool) -> Option<Range> {
    let mut r = range(rng, p, n)?;
    if open {
        r.hi = VERSIONS as u8;
    }
    Some(r)
}

fn range(rng: &mut Rng, p: usize, n: usize) -> Option<Range> {
    if p + 1 >= n {
        return None;
    }
    let q = p + 1 + rng.below(WINDOW.min(n - p - 1) as u64) as usize;
    let lo = rng.below(VERSIONS as u64) as u8;
    let hi = lo + 1 + rng.below((VERSIONS - lo as usize) as u64) as u8;
    Some(Range {
        pkg: q as u32,
        lo,
        hi,
    })
}

impl Model {
    #[allow(clippy::needless_range_loop)]
    pub fn generate(shape: Shape, n: usize, seed: u64, with_conflicts: bool) -> Model {
        assert!(n >= 10, "need at least 10 packages");
        let mut rng = Rng::new(seed);
        let width = (n - 1).to_string().len();
        let names: Vec<String> = (0..n).map(|i| format!("p{i:0width$}")).collect();
        let shared = (n / 4).max(1);
        let mut gvk_providers: Vec<Vec<(u32, u8)>> = vec![Vec::new(); shared];
        let mut provides: Vec<Vec<(u32, u8)>> = vec![Vec::new(); n];
        for (k, prov) in gvk_providers.iter_mut().enumerate() {
            let count = 2 + rng.below(3) as usize;
            while prov.len() < count {
                let p = rng.below(n as u64) as u32;
                if prov.iter().any(|(q, _)| *q == p) {
                    continue;
                }
                let from = rng.below(VERSIONS as u64) as u8;
                prov.push((p, from));
                provides[p as usize].push((k as u32, from));
            }
        }
        let rates = Rates::for_shape(shape);
        let density = rates.dep;
        // within the bundles that have dependencies, the chances that give the overall rates
        let within = |rate: f64| {
            if density > 0.0 {
                (rate / density).min(1.0)
            } else {
                0.0
            }
        };
        let (gvk_chance, con_chance) = (within(rates.gvk), within(rates.con));
        let open = open_ranges();
        let mut bundles = Vec::with_capacity(n * VERSIONS);
        for p in 0..n {
            for _v in 0..VERSIONS {
                let mut b = Bundle::default();
                if density >= 1.0 || rng.chance(density) {
                    for _ in 0..rng.poisson(1.0) {
                        if let Some(r) = dep_range(&mut rng, p, n, open) {
                            b.deps.push(Dep::Pkg(r));
                        }
                    }
                    if rng.chance(gvk_chance) {
                        let k = rng.below(shared as u64) as u32;
                        // a bundle never needs a GVK its own package provides
                        if !provides[p].iter().any(|(g, _)| *g == k) {
                            b.deps.push(Dep::Gvk(k));
                        }
                    }
                    // drawn in both variants, so the conflict-free one differs only here
                    if rng.chance(con_chance)
                        && let Some(r) = range(&mut rng, p, n)
                        && with_conflicts
                    {
                        b.conflicts.push(r);
                    }
                    if density < 1.0
                        && b.deps.is_empty()
                        && let Some(r) = dep_range(&mut rng, p, n, open)
                    {
                        b.deps.push(Dep::Pkg(r));
                    }
                }
                bundles.push(b);
            }
        }
        // shape u: the unsatisfiable core sits at a random package c (c needs c+1 == 1.0.0
        // and c+2; c+2 needs c+1 == 1.9.0), and c goes to a random place among the roots
        let core = if shape == Shape::U {
            rng.below((n - 2) as u64) as u32
        } else {
            0
        };
        if shape == Shape::U {
            let (c1, c2) = (core + 1, core + 2);
            for v in 0..VERSIONS as u8 {
                let b0 = &mut bundles[bid(core, v)];
                b0.deps.push(Dep::Pkg(Range {
                    pkg: c1,
                    lo: 0,
                    hi: 1,
                }));
                b0.deps.push(Dep::Pkg(Range {
                    pkg: c2,
                    lo: 0,
                    hi: VERSIONS as u8,
                }));
                bundles[bid(c2, v)].deps.push(Dep::Pkg(Range {
                    pkg: c1,
                    lo: 9,
                    hi: 10,
                }));
            }
        }
        // roots among packages that provide no shared GVK (two such roots never clash on one)
        let mut pool: Vec<u32> = (0..n as u32)
            .filter(|p| provides[*p as usize].is_empty())
            .filter(|p| shape != Shape::U || !(core..=core + 2).contains(p))
            .collect();
        let r = match shape {
            Shape::C => n / 10,
            _ => 10,
        };
        let mut roots = Vec::with_capacity(r);
        let mut i = 0;
        let others = if shape == Shape::U { r - 1 } else { r };
        while roots.len() < others && i < pool.len() {
            let j = i + rng.below((pool.len() - i) as u64) as usize;
            pool.swap(i, j);
            roots.push(pool[i]);
            i += 1;
        }
        if shape == Shape::U {
            let at = rng.below(roots.len() as u64 + 1) as usize;
            roots.insert(at, core);
        }
        Model {
            shape,
            n,
            seed,
            with_conflicts,
            names,
            gvk_providers,
            provides,
            bundles,
            roots,
        }
    }

    pub fn bundle_name(&self, b: usize) -> String {
        format!(
            "{}.v{}",
            self.names[pkg_of(b) as usize],
            version_str(ver_of(b))
        )
    }

    /// The bundles of package p, highest version first.
    pub fn package_bundles(&self, p: u32) -> Vec<usize> {
        (0..VERSIONS as u8).rev().map(|v| bid(p, v)).collect()
    }

    /// The providers of shared GVK k: highest version first, ties by package name.
    pub fn gvk_bundles(&self, k: u32) -> Vec<usize> {
        let mut out: Vec<usize> = self.gvk_providers[k as usize]
            .iter()
            .flat_map(|(p, from)| (*from..VERSIONS as u8).map(move |v| bid(*p, v)))
            .collect();
        out.sort_by_key(|b| (std::cmp::Reverse(ver_of(*b)), pkg_of(*b)));
        out
    }

    /// The candidates of a dependency, most preferred first.
    pub fn dep_bundles(&self, d: &Dep) -> Vec<usize> {
        match d {
            Dep::Pkg(r) => (r.lo..r.hi).rev().map(|v| bid(r.pkg, v)).collect(),
            Dep::Gvk(k) => self.gvk_bundles(*k),
        }
    }

    /// Parses `pNNN.v1.V.0` (deppy) or `pNNN-1.V.0...` (libsolv) back to a bundle index.
    pub fn parse_bundle(&self, s: &str) -> Option<usize> {
        let (name, rest) = s.split_once(".v").or_else(|| s.split_once('-'))?;
        let p: u32 = name.strip_prefix('p')?.parse().ok()?;
        let v: u8 = rest.strip_prefix("1.")?.split('.').next()?.parse().ok()?;
        if p as usize >= self.n || v as usize >= VERSIONS {
            return None;
        }
        Some(bid(p, v))
    }

    /// Counts for a one-line summary.
    pub fn stats(&self) -> String {
        let with_deps = self.bundles.iter().filter(|b| !b.deps.is_empty()).count();
        let deps: usize = self.bundles.iter().map(|b| b.deps.len()).sum();
        let conflicts: usize = self.bundles.iter().map(|b| b.conflicts.len()).sum();
        format!(
            "{} packages, {} bundles ({} with dependencies), {} dependencies, {} range conflicts, {} shared GVKs, {} roots",
            self.n,
            self.bundles.len(),
            with_deps,
            deps,
            conflicts,
            self.gvk_providers.len(),
            self.roots.len()
        )
    }
}
