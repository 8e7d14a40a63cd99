//! Oracle property test of whole OLM resolutions on random small catalogs, against a model
//! that shares no code with deppy.
//!
//! Each case is one or two catalogs (priorities 0 or 1; a package may be in both) of up to 4
//! packages and 12 bundles: channels `stable` (a replaces chain with optional skips and a
//! skipRange on the head) and sometimes `fast` (the head alone); bundles with `olm.gvk`,
//! `olm.label`, an opaque `certified` property, `olm.deprecated`, and dependencies of every
//! kind: `olm.package.required`, `olm.gvk.required`, `olm.label.required` and `olm.constraint`
//! (package, gvk, three CEL rules and one that fails to evaluate, under `all`/`any`/`not`).
//! The request has requirements (range, channel, pinned bundle, catalog; sometimes a package
//! or channel that does not exist), installed bundles, `keepInstalled`, admin constraints
//! (conflict, require, every prohibit form) and sometimes a cluster that serves an API.
//!
//! The model (below, from docs/semantics.md §2, §4, §6, §7) says which selections are valid.
//! Then:
//! * deppy resolves iff some subset of the bundles is valid (all subsets are tried);
//! * a resolved answer is valid in the model and passes the independent checker of
//!   `tests/support/checker/` (fed the same documents and the request as JSON), and it is the
//!   answer that checker's preference model (docs/semantics.md §5) computes;
//! * minimality (§5): every selected bundle meets a requirement, is kept by
//!   `keepInstalled`, or matches a dependency of another selected bundle that the cluster
//!   does not already meet;
//! * every 10th case is also written 20 more ways: documents shuffled, split into 1–3 files
//!   of JSON or YAML, catalogs listed in another order, installed bundles and admin
//!   constraints listed in another order. The JSON report must be byte-identical. The order
//!   of `require` is significant (§5 decides breadth-first in request order), so a shuffled
//!   `require` list must only give the same status, with an answer that is again valid and
//!   minimal.
//!
//! `DEPPY_ORACLE_OLM_CASES` (default 3,000) and `DEPPY_ORACLE_SEED` as in oracle_generic.rs;
//! a failure prints the case seed (rerun it alone with `DEPPY_ORACLE_SEED=<seed>
//! DEPPY_ORACLE_OLM_CASES=1`).

use deppy::advanced::catalog::{CatalogSet, CatalogSource, LoadOptions, SourceFile};
use deppy::advanced::explain::Detail;
use deppy::advanced::report::Report;
use deppy::advanced::request::{InstalledBundle, Request, Requirement};
use deppy::advanced::resolve::{Outcome, Resolver};
use serde_json::{Value, json};

#[path = "support/checker/mod.rs"]
mod checker;
#[path = "support/oracle.rs"]
mod oracle;
use oracle::{Rng, env_usize};

fn base_seed() -> u64 {
    oracle::base_seed(0x5EED_0000_01AA)
}

const CATALOGS: [&str; 2] = ["alpha", "beta"];
const MAX_BUNDLES: usize = 12;

// ---- the model ----------------------------------------------------------------------------

/// A version range over versions `1.v.0`.
#[derive(Clone, Copy, Debug)]
enum Range {
    Any,
    Ge(usize),
    Lt(usize),
    Eq(usize),
    Between(usize, usize),
}

impl Range {
    fn random(rng: &mut Rng) -> Range {
        let m = rng.below(4);
        match rng.below(5) {
            0 => Range::Any,
            1 => Range::Ge(m),
            2 => Range::Lt(m),
            3 => Range::Eq(m),
            _ => Range::Between(m, m + rng.range(1, 2)),
        }
    }
    fn text(self) -> String {
        match self {
            Range::Any => "*".into(),
            Range::Ge(m) => format!(">=1.{m}.0"),
            Range::Lt(m) => format!("<1.{m}.0"),
            Range::Eq(m) => format!("1.{m}.0"),
            Range::Between(a, b) => format!(">=1.{a}.0 <1.{b}.0"),
        }
    }
    fn matches(self, v: usize) -> bool {
        match self {
            Range::Any => true,
            Range::Ge(m) => v >= m,
            Range::Lt(m) => v < m,
            Range::Eq(m) => v == m,
            Range::Between(a, b) => a <= v && v < b,
        }
    }
}

/// CEL rules of the model, with their meaning computed natively in [`Subject::cel`].
const RULES: [&str; 4] = [
    r#"properties.exists(p, p.type == "certified")"#,
    r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.1.0") >= 0)"#,
    r#"properties.exists(p, p.type == "olm.gvk" && p.value.kind == "K1")"#,
    // Fails to evaluate on every property (no key `nope`): false, as in OLM.
    r#"properties.exists(p, p.value.nope == 1)"#,
];

/// An `olm.constraint` predicate.
#[derive(Clone, Debug)]
enum Pred {
    Package(usize, Range),
    Gvk(usize),
    Cel(usize),
    All(Vec<Pred>),
    Any(Vec<Pred>),
    Not(Vec<Pred>),
}

impl Pred {
    fn random(rng: &mut Rng, packages: usize, depth: usize) -> Pred {
        let leaf = depth >= 2 || rng.chance(50);
        if leaf {
            return match rng.below(3) {
                0 => Pred::Package(rng.below(packages), Range::random(rng)),
                1 => Pred::Gvk(rng.below(3)),
                _ => Pred::Cel(rng.below(RULES.len())),
            };
        }
        let children = (0..rng.range(1, 2))
            .map(|_| Pred::random(rng, packages, depth + 1))
            .collect();
        match rng.below(3) {
            0 => Pred::All(children),
            1 => Pred::Any(children),
            _ => Pred::Not(children),
        }
    }
    fn json(&self) -> Value {
        let list =
            |cs: &[Pred]| json!({"constraints": cs.iter().map(Pred::json).collect::<Vec<_>>()});
        match self {
            Pred::Package(p, r) => {
                json!({"package": {"packageName": format!("p{p}"), "versionRange": r.text()}})
            }
            Pred::Gvk(k) => json!({"gvk": gvk_json(*k)}),
            Pred::Cel(i) => json!({"cel": {"rule": RULES[*i]}}),
            Pred::All(cs) => json!({"all": list(cs)}),
            Pred::Any(cs) => json!({"any": list(cs)}),
            Pred::Not(cs) => json!({"not": list(cs)}),
        }
    }
}

fn gvk_json(k: usize) -> Value {
    json!({"group": "g.example.com", "version": "v1", "kind": format!("K{k}")})
}

/// A bundle dependency.
#[derive(Clone, Debug)]
enum Dep {
    Package(usize, Range),
    Gvk(usize),
    Label(usize),
    Constraint(Pred),
}

/// What a bundle is, the same in every catalog that has its package.
#[derive(Clone, Debug)]
struct BundleSpec {
    gvk: Option<usize>,
    label: Option<usize>,
    certified: bool,
    deprecated: bool,
    deps: Vec<Dep>,
}

#[derive(Clone, Debug)]
struct PackageSpec {
    catalogs: Vec<usize>,
    bundles: Vec<BundleSpec>,
    /// Entry v skips v-1 (which leaves the channel's order).
    skips_prev: Vec<bool>,
    /// The head's skipRange `<1.head.0`.
    head_skip_range: bool,
    /// Channel `fast` holds the head alone (replacing the one below it).
    fast: bool,
    default_fast: bool,
}

impl PackageSpec {
    fn head(&self) -> usize {
        self.bundles.len() - 1
    }
    /// On the order of `stable` (skipped entries are not).
    fn on_stable(&self, v: usize) -> bool {
        !self.skips_prev.get(v + 1).copied().unwrap_or(false)
    }
    fn on_fast(&self, v: usize) -> bool {
        self.fast && v == self.head()
    }
    fn on_channel(&self, v: usize, channel: &str) -> bool {
        match channel {
            "stable" => self.on_stable(v),
            "fast" => self.on_fast(v),
            _ => false,
        }
    }
    fn on_any(&self, v: usize) -> bool {
        self.on_stable(v) || self.on_fast(v)
    }
    /// A channel entry of `to` replaces, skips or skipRanges installed version `from`.
    fn successor(&self, from: usize, to: usize) -> bool {
        to == from + 1 || (to == self.head() && self.head_skip_range && from < to)
    }
}

#[derive(Clone, Debug)]
enum Admin {
    Conflict(Pred),
    Require(Pred),
    ProhibitPackage(usize),
    ProhibitBundle(usize, usize),
    ProhibitCatalog(usize),
    ProhibitChannel(usize, &'static str),
}

#[derive(Clone, Debug)]
struct Req {
    /// `packages.len()` and above name no package.
    package: usize,
    range: Option<Range>,
    channel: Option<&'static str>,
    pin: Option<usize>,
    catalog: Option<usize>,
}

#[derive(Clone, Debug)]
struct Case {
    catalogs: usize,
    priorities: [i32; 2],
    packages: Vec<PackageSpec>,
    require: Vec<Req>,
    /// (catalog, package, version)
    installed: Vec<(usize, usize, usize)>,
    keep_installed: bool,
    admin: Vec<Admin>,
    /// The cluster serves K2.
    cluster: bool,
}

fn random_case(rng: &mut Rng) -> Case {
    let catalogs = rng.range(1, 2);
    let n = rng.range(1, 4);
    let mut packages: Vec<PackageSpec> = Vec::new();
    let mut total = 0;
    for _ in 0..n {
        let cats = match (catalogs, rng.below(10)) {
            (1, _) => vec![0],
            (_, 0..=1) => vec![0, 1],
            (_, x) => vec![x % 2],
        };
        let room = (MAX_BUNDLES - total) / cats.len();
        if room == 0 {
            break;
        }
        let count = rng.range(1, 4).min(room);
        total += count * cats.len();
        let bundles = (0..count)
            .map(|_| BundleSpec {
                gvk: rng.chance(35).then(|| rng.below(3)),
                label: rng.chance(30).then(|| rng.below(2)),
                certified: rng.chance(40),
                deprecated: rng.chance(8),
                deps: (0..[0, 0, 1, 1, 2][rng.below(5)])
                    .map(|_| match rng.below(7) {
                        0..=2 => Dep::Package(rng.below(n), Range::random(rng)),
                        3 | 4 => Dep::Gvk(rng.below(3)),
                        5 => Dep::Label(rng.below(2)),
                        _ => Dep::Constraint(Pred::random(rng, n, 0)),
                    })
                    .collect(),
            })
            .collect();
        let fast = rng.chance(30);
        packages.push(PackageSpec {
            catalogs: cats,
            bundles,
            skips_prev: (0..count).map(|v| v > 0 && rng.chance(15)).collect(),
            head_skip_range: rng.chance(25),
            fast,
            default_fast: fast && rng.chance(30),
        });
    }
    let n = packages.len();
    let require = (0..rng.range(1, 2))
        .map(|_| {
            let package = if rng.chance(4) { n } else { rng.below(n) };
            Req {
                package,
                range: rng.chance(35).then(|| Range::random(rng)),
                channel: rng
                    .chance(20)
                    .then(|| ["stable", "fast", "nope"][rng.below(3)]),
                pin: rng.chance(10).then(|| rng.below(4)),
                catalog: (catalogs > 1 && rng.chance(15)).then(|| rng.below(2)),
            }
        })
        .collect();
    let mut installed = Vec::new();
    for (p, spec) in packages.iter().enumerate() {
        if rng.chance(25) {
            let cat = spec.catalogs[rng.below(spec.catalogs.len())];
            installed.push((cat, p, rng.below(spec.bundles.len())));
        }
    }
    rng.shuffle(&mut installed);
    let admin = if rng.chance(30) {
        (0..rng.range(1, 2))
            .map(|_| match rng.below(7) {
                0 => Admin::Conflict(Pred::random(rng, n, 1)),
                1 => Admin::Require(Pred::random(rng, n, 1)),
                2 => Admin::ProhibitPackage(rng.below(n)),
                3 => Admin::ProhibitBundle(rng.below(n), rng.below(3)),
                4 => Admin::ProhibitCatalog(rng.below(catalogs)),
                5 => Admin::ProhibitChannel(rng.below(n), ["stable", "fast"][rng.below(2)]),
                _ => Admin::Conflict(Pred::Cel(0)),
            })
            .collect()
    } else {
        Vec::new()
    };
    Case {
        catalogs,
        priorities: [rng.below(2) as i32, rng.below(2) as i32],
        packages,
        require,
        installed,
        keep_installed: rng.chance(30),
        admin,
        cluster: rng.chance(12),
    }
}

/// A bundle of the model: package `pkg`, version `1.v.0`, in catalog `cat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct B {
    cat: usize,
    pkg: usize,
    v: usize,
}

/// What a predicate is tested against: a bundle, or the cluster node.
struct Subject<'a> {
    package: Option<(usize, usize)>,
    gvks: Vec<usize>,
    spec: Option<&'a BundleSpec>,
}

impl Subject<'_> {
    fn cel(&self, rule: usize) -> bool {
        match rule {
            0 => self.spec.is_some_and(|s| s.certified),
            1 => self.package.is_some_and(|(_, v)| v >= 1),
            2 => self.gvks.contains(&1),
            _ => false,
        }
    }
    fn matches(&self, p: &Pred) -> bool {
        match p {
            Pred::Package(pkg, r) => self.package.is_some_and(|(x, v)| x == *pkg && r.matches(v)),
            Pred::Gvk(k) => self.gvks.contains(k),
            Pred::Cel(i) => self.cel(*i),
            Pred::All(cs) => cs.iter().all(|c| self.matches(c)),
            Pred::Any(cs) => cs.iter().any(|c| self.matches(c)),
            Pred::Not(cs) => !cs.iter().any(|c| self.matches(c)),
        }
    }
}

struct Model<'c> {
    case: &'c Case,
    bundles: Vec<B>,
}

impl<'c> Model<'c> {
    fn new(case: &'c Case) -> Model<'c> {
        let mut bundles = Vec::new();
        for cat in 0..case.catalogs {
            for (pkg, spec) in case.packages.iter().enumerate() {
                if spec.catalogs.contains(&cat) {
                    bundles.extend((0..spec.bundles.len()).map(|v| B { cat, pkg, v }));
                }
            }
        }
        Model { case, bundles }
    }
    fn spec(&self, b: B) -> &'c BundleSpec {
        &self.case.packages[b.pkg].bundles[b.v]
    }
    fn subject(&self, b: B) -> Subject<'c> {
        let spec = self.spec(b);
        Subject {
            package: Some((b.pkg, b.v)),
            gvks: spec.gvk.into_iter().collect(),
            spec: Some(spec),
        }
    }
    fn cluster(&self) -> Option<Subject<'c>> {
        self.case.cluster.then(|| Subject {
            package: None,
            gvks: vec![2],
            spec: None,
        })
    }
    fn installed(&self, b: B) -> bool {
        self.case.installed.contains(&(b.cat, b.pkg, b.v))
    }
    fn installed_of(&self, pkg: usize) -> Option<B> {
        self.case
            .installed
            .iter()
            .find(|i| i.1 == pkg)
            .map(|&(cat, pkg, v)| B { cat, pkg, v })
    }
    /// Removed by an admin constraint or the cluster (installed bundles are exempt).
    fn removed(&self, b: B) -> bool {
        if self.installed(b) {
            return false;
        }
        let spec = &self.case.packages[b.pkg];
        let subject = self.subject(b);
        let by_admin = self.case.admin.iter().any(|a| match a {
            Admin::Conflict(p) => subject.matches(p),
            Admin::Require(p) => !subject.matches(p),
            Admin::ProhibitPackage(p) => *p == b.pkg,
            Admin::ProhibitBundle(p, v) => *p == b.pkg && *v == b.v,
            Admin::ProhibitCatalog(c) => *c == b.cat,
            // Entries that no other channel of the package lists.
            Admin::ProhibitChannel(p, ch) => {
                *p == b.pkg && *ch == "stable" && !(spec.fast && b.v == spec.head())
            }
        });
        let serves = self.case.cluster && self.spec(b).gvk == Some(2);
        by_admin || serves
    }
    /// A candidate of dependencies: installed, or not deprecated, on a channel, not removed.
    fn usable(&self, b: B) -> bool {
        self.installed(b)
            || (!self.spec(b).deprecated
                && self.case.packages[b.pkg].on_any(b.v)
                && !self.removed(b))
    }
    fn pinned(&self, b: B) -> bool {
        self.case
            .require
            .iter()
            .any(|q| q.package == b.pkg && q.pin == Some(b.v))
    }
    fn selectable(&self, b: B) -> bool {
        self.usable(b) || (self.pinned(b) && !self.spec(b).deprecated && !self.removed(b))
    }
    /// Does `b` meet requirement `q` (docs/semantics.md §7: an installed bundle that still fits
    /// moves one upgrade edge at most)?
    fn meets(&self, q: &Req, b: B) -> bool {
        let spec = &self.case.packages[b.pkg];
        let fits = |x: B| {
            q.catalog.is_none_or(|c| c == x.cat)
                && q.range.is_none_or(|r| r.matches(x.v))
                && q.pin.is_none_or(|p| p == x.v)
        };
        // An excluded bundle (a skipped entry) is a candidate only of the requirement that
        // pins it: it does not meet another requirement of its package.
        if q.package != b.pkg || !fits(b) || !(self.usable(b) || q.pin == Some(b.v)) {
            return false;
        }
        let on_channel = q.pin.is_some() || q.channel.is_none_or(|c| spec.on_channel(b.v, c));
        match self.installed_of(b.pkg) {
            Some(i) if fits(i) => i == b || (on_channel && spec.successor(i.v, b.v)),
            _ => on_channel,
        }
    }
    fn dep_met_by_cluster(&self, d: &Dep) -> bool {
        let Some(c) = self.cluster() else {
            return false;
        };
        match d {
            Dep::Gvk(k) => c.gvks.contains(k),
            Dep::Constraint(p) => c.matches(p),
            Dep::Package(..) | Dep::Label(_) => false,
        }
    }
    fn dep_met_by(&self, d: &Dep, x: B) -> bool {
        let spec = self.spec(x);
        match d {
            Dep::Package(p, r) => x.pkg == *p && r.matches(x.v),
            Dep::Gvk(k) => spec.gvk == Some(*k),
            Dep::Label(l) => spec.label == Some(*l),
            Dep::Constraint(p) => self.subject(x).matches(p),
        }
    }
    fn required_package(&self, pkg: usize) -> bool {
        self.case.require.iter().any(|q| q.package == pkg)
    }
}

/// The model as bit masks over `Model::bundles`, for trying every subset.
struct Masks {
    selectable: u32,
    packages: Vec<u32>,
    gvks: Vec<u32>,
    requirements: Vec<u32>,
    /// For each bundle, the masks of its dependencies' possible providers (cluster-met
    /// dependencies left out).
    deps: Vec<Vec<u32>>,
    kept: u32,
}

impl Masks {
    fn new(m: &Model<'_>) -> Masks {
        let mask = |f: &dyn Fn(B) -> bool| {
            m.bundles
                .iter()
                .enumerate()
                .filter(|(_, b)| f(**b))
                .fold(0u32, |acc, (i, _)| acc | (1 << i))
        };
        let case = m.case;
        Masks {
            selectable: mask(&|b| m.selectable(b)),
            packages: (0..case.packages.len())
                .map(|p| mask(&|b| b.pkg == p))
                .collect(),
            gvks: (0..3)
                .map(|k| mask(&|b| m.spec(b).gvk == Some(k)))
                .collect(),
            requirements: case
                .require
                .iter()
                .map(|q| mask(&|b| m.meets(q, b)))
                .collect(),
            deps: m
                .bundles
                .iter()
                .map(|&b| {
                    m.spec(b)
                        .deps
                        .iter()
                        .filter(|d| !m.dep_met_by_cluster(d))
                        .map(|d| mask(&|x| m.usable(x) && m.dep_met_by(d, x)))
                        .collect()
                })
                .collect(),
            kept: if case.keep_installed {
                mask(&|b| m.installed(b) && !m.required_package(b.pkg))
            } else {
                0
            },
        }
    }
    fn valid(&self, s: u32) -> bool {
        s & !self.selectable == 0
            && s & self.kept == self.kept
            && self.packages.iter().all(|p| (s & p).count_ones() <= 1)
            && self.gvks.iter().all(|g| (s & g).count_ones() <= 1)
            && self.requirements.iter().all(|r| s & r != 0)
            && self
                .deps
                .iter()
                .enumerate()
                .all(|(i, ds)| s & (1 << i) == 0 || ds.iter().all(|d| s & d != 0))
    }
    fn any_valid(&self, n: usize) -> bool {
        (0u32..(1 << n)).any(|s| self.valid(s))
    }
    /// Every selected bundle meets a requirement, is kept, or provides for a dependency of
    /// a justified selected bundle (§5 minimality).
    fn justified(&self, s: u32) -> bool {
        let mut j = self.kept & s;
        for r in &self.requirements {
            j |= r & s;
        }
        loop {
            let mut next = j;
            for (i, ds) in self.deps.iter().enumerate() {
                if j & (1 << i) != 0 {
                    for d in ds {
                        next |= d & s;
                    }
                }
            }
            if next == j {
                return j == s;
            }
            j = next;
        }
    }
}

// ---- the case as deppy input ----------------------------------------------------------------

fn bundle_name(pkg: usize, v: usize) -> String {
    format!("p{pkg}.v{v}")
}

/// One catalog's FBC documents, each one JSON object on one line.
fn documents(case: &Case, cat: usize) -> Vec<String> {
    let mut docs = Vec::new();
    for (p, spec) in case.packages.iter().enumerate() {
        if !spec.catalogs.contains(&cat) {
            continue;
        }
        let default = if spec.default_fast { "fast" } else { "stable" };
        docs.push(
            json!({"schema": "olm.package", "name": format!("p{p}"), "defaultChannel": default})
                .to_string(),
        );
        let head = spec.head();
        let entry = |v: usize| {
            let mut e = json!({"name": bundle_name(p, v)});
            if v > 0 {
                e["replaces"] = json!(bundle_name(p, v - 1));
                if spec.skips_prev[v] {
                    e["skips"] = json!([bundle_name(p, v - 1)]);
                }
            }
            if v == head && spec.head_skip_range {
                e["skipRange"] = json!(format!("<1.{head}.0"));
            }
            e
        };
        let stable: Vec<Value> = (0..spec.bundles.len()).map(entry).collect();
        docs.push(
            json!({"schema": "olm.channel", "package": format!("p{p}"), "name": "stable", "entries": stable})
                .to_string(),
        );
        if spec.fast {
            docs.push(
                json!({"schema": "olm.channel", "package": format!("p{p}"), "name": "fast", "entries": [entry(head)]})
                    .to_string(),
            );
        }
        for (v, b) in spec.bundles.iter().enumerate() {
            let mut props = vec![
                json!({"type": "olm.package", "value": {"packageName": format!("p{p}"), "version": format!("1.{v}.0")}}),
            ];
            if let Some(k) = b.gvk {
                props.push(json!({"type": "olm.gvk", "value": gvk_json(k)}));
            }
            if let Some(l) = b.label {
                props.push(json!({"type": "olm.label", "value": {"label": format!("L{l}")}}));
            }
            if b.certified {
                props.push(json!({"type": "certified", "value": {}}));
            }
            if b.deprecated {
                props.push(json!({"type": "olm.deprecated", "value": {}}));
            }
            for d in &b.deps {
                props.push(match d {
                    Dep::Package(t, r) => json!({"type": "olm.package.required", "value": {"packageName": format!("p{t}"), "versionRange": r.text()}}),
                    Dep::Gvk(k) => json!({"type": "olm.gvk.required", "value": gvk_json(*k)}),
                    Dep::Label(l) => json!({"type": "olm.label.required", "value": {"label": format!("L{l}")}}),
                    Dep::Constraint(pred) => json!({"type": "olm.constraint", "value": pred.json()}),
                });
            }
            docs.push(
                json!({"schema": "olm.bundle", "name": bundle_name(p, v), "package": format!("p{p}"), "image": "x", "properties": props})
                    .to_string(),
            );
        }
    }
    docs
}

fn request(case: &Case) -> Request {
    let require = case
        .require
        .iter()
        .map(|q| Requirement {
            package: format!("p{}", q.package),
            channel: q.channel.map(str::to_string),
            version_range: q.range.map(|r| r.text().parse().expect("a valid range")),
            bundle: q.pin.map(|v| bundle_name(q.package, v)),
            catalog: q.catalog.map(|c| CATALOGS[c].to_string()),
            ..Requirement::default()
        })
        .collect();
    let installed = case
        .installed
        .iter()
        .map(|&(cat, pkg, v)| InstalledBundle {
            bundle: bundle_name(pkg, v),
            package: Some(format!("p{pkg}")),
            version: Some(format!("1.{v}.0").parse().expect("a valid version")),
            catalog: Some(CATALOGS[cat].to_string()),
            ..InstalledBundle::default()
        })
        .collect();
    let constraints = case
        .admin
        .iter()
        .map(|a| match a {
            Admin::Conflict(p) => with_action(p.json(), "conflict"),
            Admin::Require(p) => with_action(p.json(), "require"),
            Admin::ProhibitPackage(p) => json!({"prohibit": {"package": format!("p{p}")}}),
            Admin::ProhibitBundle(p, v) => json!({"prohibit": {"bundle": bundle_name(*p, *v)}}),
            Admin::ProhibitCatalog(c) => json!({"prohibit": {"catalog": CATALOGS[*c]}}),
            Admin::ProhibitChannel(p, ch) => {
                json!({"prohibit": {"channel": {"package": format!("p{p}"), "name": ch}}})
            }
        })
        .collect();
    Request {
        require,
        installed,
        keep_installed: case.keep_installed,
        constraints,
        cluster: case
            .cluster
            .then(|| json!({"properties": [{"type": "olm.gvk", "value": gvk_json(2)}]})),
        ..Request::default()
    }
}

fn with_action(mut v: Value, action: &str) -> Value {
    v["action"] = json!(action);
    v
}

/// How the catalogs are written: per catalog, files of (name, documents, YAML?); and the
/// order the catalogs are listed in.
struct Layout {
    files: Vec<Vec<(String, Vec<String>, bool)>>,
    order: Vec<usize>,
}

fn plain_layout(case: &Case) -> Layout {
    Layout {
        files: (0..case.catalogs)
            .map(|c| vec![("catalog.json".to_string(), documents(case, c), false)])
            .collect(),
        order: (0..case.catalogs).collect(),
    }
}

fn shuffled_layout(case: &Case, rng: &mut Rng, reorder_catalogs: bool) -> Layout {
    let files = (0..case.catalogs)
        .map(|c| {
            let mut docs = documents(case, c);
            rng.shuffle(&mut docs);
            let k = rng.range(1, 3);
            let mut files: Vec<(String, Vec<String>, bool)> = (0..k)
                .map(|f| {
                    let yaml = rng.chance(50);
                    let ext = if yaml { "yaml" } else { "json" };
                    (format!("f{f}.{ext}"), Vec::new(), yaml)
                })
                .collect();
            for d in docs {
                let f = rng.below(k);
                files[f].1.push(d);
            }
            files
        })
        .collect();
    let mut order: Vec<usize> = (0..case.catalogs).collect();
    if reorder_catalogs {
        rng.shuffle(&mut order);
    }
    Layout { files, order }
}

struct Resolved {
    json: String,
    /// The selected bundles as model bundles, sorted (None when unsatisfiable).
    selection: Option<Vec<B>>,
}

fn resolve(case: &Case, layout: &Layout, req: &Request) -> Result<Resolved, String> {
    let catalogs: Vec<(CatalogSource, Vec<SourceFile>)> = layout
        .order
        .iter()
        .map(|&c| {
            let files = layout.files[c]
                .iter()
                .map(|(name, docs, yaml)| SourceFile {
                    path: format!("{}/{name}", CATALOGS[c]),
                    text: if *yaml {
                        docs.iter().map(|d| format!("---\n{d}\n")).collect()
                    } else {
                        docs.join("\n")
                    },
                })
                .collect();
            let source = CatalogSource {
                name: CATALOGS[c].into(),
                path: CATALOGS[c].into(),
                priority: case.priorities[c],
            };
            (source, files)
        })
        .collect();
    let set = CatalogSet::load_files(&catalogs, &LoadOptions::default())
        .map_err(|e| format!("the generated catalog does not load: {e}"))?;
    let resolver = Resolver::new(set);
    let (u, outcome) = resolver
        .resolve(req)
        .map_err(|e| format!("resolve error: {e}"))?;
    let selection = match &outcome {
        Outcome::Resolved(a) => {
            let mut sel = Vec::new();
            for id in &a.bundles {
                let b = u.bundle(*id);
                let cat = CATALOGS
                    .iter()
                    .position(|c| *c == u.catalog_name(b.catalog))
                    .ok_or("a bundle of an unknown catalog")?;
                let (pkg, v) = b
                    .name
                    .strip_prefix('p')
                    .and_then(|s| s.split_once(".v"))
                    .and_then(|(p, v)| Some((p.parse().ok()?, v.parse().ok()?)))
                    .ok_or("an unknown bundle")?;
                sel.push(B { cat, pkg, v });
            }
            sel.sort();
            Some(sel)
        }
        Outcome::Unsatisfiable(_) => None,
    };
    let report = Report::new(&u, req, &outcome, Detail::Full, resolver.channel_warnings());
    let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    Ok(Resolved { json, selection })
}

/// Holds one resolution against the model.
fn check_against_model(model: &Model<'_>, masks: &Masks, got: &Resolved) -> Result<(), String> {
    let exists = masks.any_valid(model.bundles.len());
    match &got.selection {
        Some(sel) => {
            let mut s = 0u32;
            for b in sel {
                let i = model
                    .bundles
                    .iter()
                    .position(|x| x == b)
                    .ok_or(format!("{b:?} is not a bundle of the case"))?;
                s |= 1 << i;
            }
            if !masks.valid(s) {
                return Err(format!("the answer {sel:?} is not valid in the model"));
            }
            if !masks.justified(s) {
                return Err(format!("the answer {sel:?} holds a bundle nothing needs"));
            }
            Ok(())
        }
        None if exists => {
            let witness = (0u32..(1 << model.bundles.len()))
                .find(|s| masks.valid(*s))
                .map(|s| {
                    model
                        .bundles
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| s & (1 << i) != 0)
                        .map(|(_, b)| *b)
                        .collect::<Vec<_>>()
                });
            Err(format!(
                "deppy finds no answer, the model has a valid selection {witness:?}"
            ))
        }
        None => Ok(()),
    }
}

/// Holds one resolution against the independent checker and its §5 preference model.
fn check_independently(case: &Case, req: &Request, got: &Resolved) -> Result<(), String> {
    let inputs: Vec<checker::CatalogInput> = (0..case.catalogs)
        .map(|c| checker::CatalogInput {
            name: CATALOGS[c].into(),
            priority: case.priorities[c],
            docs: documents(case, c)
                .iter()
                .map(|d| serde_json::from_str(d).unwrap_or(Value::Null))
                .collect(),
        })
        .collect();
    let request = serde_json::to_value(req).map_err(|e| e.to_string())?;
    let world = checker::World::new(&inputs, &request, None)
        .map_err(|e| format!("the checker cannot read the case: {e}"))?;
    let masks = world.masks().ok_or("more than 24 bundles")?;
    let valid = masks.all_valid();
    let want = checker::preference::preferred_answer(&world, &valid);
    let names = |sel: &[usize]| {
        let mut v: Vec<String> = sel.iter().map(|b| world.describe(*b)).collect();
        v.sort();
        v
    };
    match (&got.selection, want) {
        (Some(sel), Some(want)) => {
            let ids = sel
                .iter()
                .map(|b| {
                    world
                        .find(CATALOGS[b.cat], &bundle_name(b.pkg, b.v))
                        .ok_or(format!("the checker has no {b:?}"))
                })
                .collect::<Result<Vec<usize>, String>>()?;
            world
                .check(&ids)
                .map_err(|e| format!("the independent checker rejects the answer: {e}"))?;
            world.justified(&ids)?;
            if names(&ids) != names(&want) {
                return Err(format!(
                    "deppy selects {:?}, docs/semantics.md §5 prefers {:?}",
                    names(&ids),
                    names(&want)
                ));
            }
            Ok(())
        }
        (None, None) => Ok(()),
        (None, Some(want)) => Err(format!(
            "deppy finds no answer, the checker accepts {:?}",
            names(&want)
        )),
        (Some(_), None) => Err("deppy resolved, the checker finds no valid selection".into()),
    }
}

#[derive(Default)]
struct Tally {
    cases: usize,
    resolved: usize,
    variants: usize,
    order_moved_answer: usize,
    words_moved: usize,
}

/// How a variant of a case is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    /// Documents shuffled and split into 1–3 JSON or YAML files per catalog.
    Documents,
    /// That, and the catalogs listed in another order.
    Catalogs,
    /// Documents, and the installed and admin-constraint lists shuffled.
    RequestLists,
    /// Documents, and the require list reversed.
    RequireReversed,
}

impl Variant {
    const ALL: [Variant; 4] = [
        Variant::Documents,
        Variant::Catalogs,
        Variant::RequestLists,
        Variant::RequireReversed,
    ];
}

fn run(first: usize, count: usize, stride: usize) -> Tally {
    let base = base_seed();
    let mut t = Tally::default();
    let mut i = first;
    while i < count {
        let seed = base.wrapping_add(i as u64);
        let mut rng = Rng(seed);
        let case = random_case(&mut rng);
        let fail = |what: String| -> ! {
            panic!(
                "case seed {seed}: {what}\ncase: {case:#?}\ncatalog alpha:\n{}",
                documents(&case, 0).join("\n")
            )
        };
        let model = Model::new(&case);
        let masks = Masks::new(&model);
        let req = request(&case);
        let got = resolve(&case, &plain_layout(&case), &req).unwrap_or_else(|e| fail(e));
        check_against_model(&model, &masks, &got).unwrap_or_else(|e| fail(e));
        check_independently(&case, &req, &got).unwrap_or_else(|e| fail(e));
        t.cases += 1;
        t.resolved += usize::from(got.selection.is_some());
        if seed.is_multiple_of(10) {
            for k in 0..20 {
                let kind = Variant::ALL[k % 4];
                let mut variant = case.clone();
                match kind {
                    Variant::Documents | Variant::Catalogs => {}
                    Variant::RequestLists => {
                        rng.shuffle(&mut variant.installed);
                        rng.shuffle(&mut variant.admin);
                    }
                    Variant::RequireReversed => variant.require.reverse(),
                }
                let layout = shuffled_layout(&case, &mut rng, kind == Variant::Catalogs);
                let other = resolve(&variant, &layout, &request(&variant))
                    .unwrap_or_else(|e| fail(format!("variant {k} ({kind:?}): {e}")));
                // The model does not depend on list order: the variant's answer is valid and
                // minimal again.
                check_against_model(&model, &masks, &other)
                    .unwrap_or_else(|e| fail(format!("variant {k} ({kind:?}): {e}")));
                let parsed = |r: &Resolved| -> Value {
                    serde_json::from_str(&r.json).unwrap_or(Value::Null)
                };
                let (a, b) = (parsed(&got), parsed(&other));
                let strict = |what: &str, x: &Value, y: &Value| {
                    if x != y {
                        fail(format!(
                            "variant {k} ({kind:?}) changes the {what}:\n{}\n{}",
                            got.json, other.json
                        ));
                    }
                };
                strict("status", &a["status"], &b["status"]);
                // §5: mandatory bundles are decided in list order, so the order of `require`,
                // and of `installed` under keepInstalled, may pick another valid answer.
                let order_matters = kind == Variant::RequireReversed
                    || (kind == Variant::RequestLists
                        && case.keep_installed
                        && case.installed.len() > 1);
                if order_matters {
                    t.order_moved_answer += usize::from(other.selection != got.selection);
                } else {
                    strict(
                        "answer",
                        &json!([a["selected"], a["unneeded"]]),
                        &json!([b["selected"], b["unneeded"]]),
                    );
                }
                // Words: explanations name admin constraints by position and list candidates in
                // catalog order, and warnings about installed bundles follow the installed list
                // (see fuzz/README.md). Everything else is byte-identical.
                let words_may_move = match kind {
                    Variant::Documents => false,
                    Variant::Catalogs => case.catalogs > 1,
                    Variant::RequestLists => case.admin.len() > 1 || order_matters,
                    Variant::RequireReversed => true,
                };
                let sorted_warnings = |mut v: Value| {
                    if kind == Variant::RequestLists
                        && let Some(w) = v["warnings"].as_array_mut()
                    {
                        w.sort_by_key(Value::to_string);
                    }
                    v
                };
                if sorted_warnings(a) != sorted_warnings(b) {
                    if !words_may_move {
                        fail(format!(
                            "variant {k} ({kind:?}) is not byte-identical:\n{}\n{}",
                            got.json, other.json
                        ));
                    }
                    t.words_moved += 1;
                }
                t.variants += 1;
            }
        }
        i += stride;
    }
    t
}

#[test]
fn olm_resolution_matches_brute_force_model() {
    let count = env_usize("DEPPY_ORACLE_OLM_CASES", 3_000);
    let start = std::time::Instant::now();
    let tallies: Vec<Tally> = oracle::on_every_core(count, run);
    let sum = |f: fn(&Tally) -> usize| tallies.iter().map(f).sum::<usize>();
    let cases = sum(|t| t.cases);
    println!(
        "oracle_olm: {cases} random catalogs+requests ({} resolved) and {} rewritten variants ({} moved to another valid answer where §5 makes list order significant; {} moved only the words) checked in {:.1} s on {} threads (seed {})",
        sum(|t| t.resolved),
        sum(|t| t.variants),
        sum(|t| t.order_moved_answer),
        sum(|t| t.words_moved),
        start.elapsed().as_secs_f64(),
        tallies.len(),
        base_seed()
    );
    assert_eq!(cases, count);
}

/// Found by this test: a requirement pinned to a skipped channel entry selected it even when
/// an admin constraint removed it (the pin exception in rules/candidates.dl admitted a bundle
/// excluded for any reason as long as it was also off every channel's order).
#[test]
fn pinned_skipped_entry_obeys_admin_constraints() {
    let catalog = [
        r#"{"schema":"olm.package","name":"p","defaultChannel":"stable"}"#,
        r#"{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v0"},{"name":"p.v1","replaces":"p.v0","skips":["p.v0"]}]}"#,
        r#"{"schema":"olm.bundle","name":"p.v0","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}"#,
        r#"{"schema":"olm.bundle","name":"p.v1","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.1.0"}}]}"#,
    ]
    .join("\n");
    let source = CatalogSource {
        name: "alpha".into(),
        path: "alpha".into(),
        priority: 0,
    };
    let file = SourceFile {
        path: "alpha/catalog.json".into(),
        text: catalog,
    };
    let set = CatalogSet::load_files(&[(source, vec![file])], &LoadOptions::default())
        .expect("the catalog loads");
    let resolver = Resolver::new(set);
    let pinned = |constraints: Vec<Value>| Request {
        require: vec![Requirement {
            package: "p".into(),
            bundle: Some("p.v0".into()),
            ..Requirement::default()
        }],
        constraints,
        ..Request::default()
    };
    let resolved = |r: &Request| {
        matches!(
            resolver.resolve(r).expect("no bad input").1,
            Outcome::Resolved(_)
        )
    };
    assert!(
        resolved(&pinned(Vec::new())),
        "a pin may name a skipped entry"
    );
    for rule in [
        json!({"prohibit": {"bundle": "p.v0"}}),
        json!({"prohibit": {"package": "p"}}),
        json!({"action": "conflict", "package": {"packageName": "p", "versionRange": "1.0.0"}}),
        json!({"action": "require", "cel": {"rule": RULES[0]}}),
    ] {
        assert!(!resolved(&pinned(vec![rule.clone()])), "{rule} is ignored");
    }
}
