//! An independent checker of resolutions (docs/semantics.md §1–§7): given the raw catalog
//! documents, the request as its file format writes it (and, optionally, a pipeline
//! configuration), it says whether a selection of bundles is a valid answer, recomputing
//! every exclusion itself: `olm.deprecated`, bundles on no channel's upgrade order (skipped
//! entries), admin constraints, cluster constraints and served APIs, and pipeline filters and
//! static variables.
//!
//! It shares no code with the resolver: it reads catalogs and requests as plain JSON values
//! and has its own version, range, channel-order and constraint code (CEL rules run in the
//! `cel` crate directly, with OLM's `properties` variable and `semver_compare` defined here).
//! `tests/checker.rs` enforces this by reading the `use` lines of these files.
//!
//! Installed bundles follow §7 as written: an installed entry is looked up by name in every
//! catalog (the named catalog wins among several; `@existing` matches none); one found in no
//! catalog keeps every property it declares and a requirement's catalog never makes it a
//! "requested" move; entries marked `keep` stay exactly, and only one installed bundle per
//! package may move.
#![allow(dead_code, unused_imports)]

pub mod catalog;
pub mod input;
pub mod predicate;
pub mod preference;
pub mod range;
pub mod version;

use std::collections::HashMap;

use serde_json::{Value, json};

use catalog::{Catalog, Deprecated, Entry};
pub use catalog::{CatalogInput, documents, read_tree};
use input::{Pipeline, Request, Requirement, Rule, Selector};
use predicate::{Gvk, Pred, Subject};
use range::Range;
use version::Version;

/// Why a bundle is never a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exclusion {
    Deprecated,
    OffChannel,
    MalformedChannel,
    Admin(usize),
    Cluster(usize),
    ClusterServes,
    Pipeline(usize),
}

/// A channel whose upgrade order holds a bundle.
#[derive(Clone, Debug)]
pub struct Member {
    pub channel: String,
    pub distance: u32,
    pub entry: Entry,
}

pub struct Bundle {
    /// Catalog index; None for an installed bundle found in no catalog.
    pub catalog: Option<usize>,
    pub package: String,
    pub name: String,
    pub version: Version,
    /// Every property, in document order (mutations appended).
    pub properties: Vec<(String, Value)>,
    pub gvks: Vec<Gvk>,
    /// Dependencies: package, then GVK, then label requirements, then constraints.
    pub deps: Vec<Pred>,
    /// Per dependency: the cluster node may meet it (GVK requirements and constraints; never
    /// package or label requirements, §6.3).
    pub cluster_may_meet: Vec<bool>,
    /// Has an `olm.deprecated` property.
    pub deprecated: bool,
    /// Deprecated by its catalog's `olm.deprecations` (package, bundle, or every channel
    /// that orders it).
    pub catalog_deprecated: bool,
    pub members: Vec<Member>,
    /// An entry of a channel with no usable order.
    pub in_malformed: bool,
    /// Entry of these channels (order or not).
    pub entry_of: Vec<String>,
}

pub struct World {
    /// Name and priority.
    pub catalogs: Vec<(String, i32)>,
    pub bundles: Vec<Bundle>,
    pub request: Request,
    /// The bundle of each installed entry.
    pub installed: Vec<usize>,
    pub excluded: Vec<Vec<Exclusion>>,
    /// Bundles static variables make mandatory.
    pub injected: Vec<usize>,
    /// Bundles static variables prefer.
    pub preferred: Vec<bool>,
    /// Default channel of (catalog, package).
    pub default_channel: HashMap<(usize, String), String>,
}

fn version_of(properties: &[(String, Value)]) -> Option<String> {
    properties
        .iter()
        .find(|(t, _)| t == "olm.package")
        .and_then(|(_, v)| match v.get("version")? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
}

impl World {
    /// Reads everything; an error when the input is not something the rules can judge.
    pub fn new(
        catalogs: &[CatalogInput],
        request: &Value,
        pipeline: Option<&Value>,
    ) -> Result<World, String> {
        let request = Request::read(request)?;
        let pipeline = match pipeline {
            Some(p) => Pipeline::read(p)?,
            None => Pipeline::default(),
        };
        let cats: Vec<Catalog> = catalogs
            .iter()
            .map(Catalog::read)
            .collect::<Result<_, _>>()?;
        let mut w = World {
            catalogs: cats
                .iter()
                .map(|c| {
                    let p = pipeline
                        .priorities
                        .iter()
                        .rev()
                        .find(|(n, _)| *n == c.name)
                        .map_or(c.priority, |(_, p)| *p);
                    (c.name.clone(), p)
                })
                .collect(),
            bundles: Vec::new(),
            request,
            installed: Vec::new(),
            excluded: Vec::new(),
            injected: Vec::new(),
            preferred: Vec::new(),
            default_channel: HashMap::new(),
        };
        for (ci, c) in cats.iter().enumerate() {
            w.read_catalog(ci, c)?;
        }
        for (sel, t, v) in &pipeline.added {
            for b in 0..w.bundles.len() {
                if w.selects(sel, b) {
                    w.bundles[b].properties.push((t.clone(), v.clone()));
                }
            }
        }
        w.find_installed()?;
        for b in 0..w.bundles.len() {
            w.derive(b)?;
        }
        w.exclude(&pipeline);
        for s in &pipeline.required {
            let found: Vec<usize> = (0..w.bundles.len()).filter(|b| w.selects(s, *b)).collect();
            let [one] = found.as_slice() else {
                return Err(format!("a static require selects {} bundles", found.len()));
            };
            w.injected.push(*one);
        }
        w.preferred = (0..w.bundles.len())
            .map(|b| pipeline.preferred.iter().any(|s| w.selects(s, b)))
            .collect();
        Ok(w)
    }

    fn read_catalog(&mut self, ci: usize, c: &Catalog) -> Result<(), String> {
        let first = self.bundles.len();
        for rb in &c.bundles {
            let version = version_of(&rb.properties)
                .ok_or_else(|| format!("{}: no olm.package version", rb.name))?;
            self.bundles.push(Bundle {
                catalog: Some(ci),
                package: rb.package.clone(),
                name: rb.name.clone(),
                version: Version::parse(&version)
                    .ok_or_else(|| format!("{}: bad version {version:?}", rb.name))?,
                properties: rb.properties.clone(),
                gvks: Vec::new(),
                deps: Vec::new(),
                cluster_may_meet: Vec::new(),
                deprecated: false,
                catalog_deprecated: false,
                members: Vec::new(),
                in_malformed: false,
                entry_of: Vec::new(),
            });
        }
        let find = |bundles: &[Bundle], package: &str, name: &str| {
            (first..bundles.len())
                .find(|&b| bundles[b].package == package && bundles[b].name == name)
        };
        for (p, dc) in &c.packages {
            if let Some(dc) = dc {
                self.default_channel.insert((ci, p.clone()), dc.clone());
            }
        }
        for ch in &c.channels {
            for e in &ch.entries {
                if let Some(b) = find(&self.bundles, &ch.package, &e.name) {
                    self.bundles[b].entry_of.push(ch.name.clone());
                }
            }
            match ch.order() {
                Some(order) => {
                    for (name, distance) in order {
                        if let (Some(b), Some(entry)) =
                            (find(&self.bundles, &ch.package, &name), ch.entry(&name))
                        {
                            self.bundles[b].members.push(Member {
                                channel: ch.name.clone(),
                                distance,
                                entry: entry.clone(),
                            });
                        }
                    }
                }
                None => {
                    for e in &ch.entries {
                        if let Some(b) = find(&self.bundles, &ch.package, &e.name) {
                            self.bundles[b].in_malformed = true;
                        }
                    }
                }
            }
        }
        for b in first..self.bundles.len() {
            let bundle = &self.bundles[b];
            let deprecated = c.deprecations.iter().any(|(p, what)| {
                *p == bundle.package
                    && match what {
                        Deprecated::Package => true,
                        Deprecated::Bundle(n) => *n == bundle.name,
                        Deprecated::Channel(_) => {
                            !bundle.members.is_empty()
                                && bundle.members.iter().all(|m| {
                                    c.deprecations.iter().any(|(q, x)| {
                                        *q == bundle.package
                                            && *x == Deprecated::Channel(m.channel.clone())
                                    })
                                })
                        }
                    }
            });
            self.bundles[b].catalog_deprecated = deprecated;
        }
        Ok(())
    }

    fn catalog_index(&self, name: &str) -> Option<usize> {
        self.catalogs.iter().position(|(n, _)| n == name)
    }

    /// §7: an entry is looked up by name (and package, when given) in every catalog; when
    /// several have it, the catalog the entry names wins, else it is bad input; `@existing`
    /// never matches a catalog bundle. One found nowhere is a bundle of no catalog, its
    /// package and version from the entry or its `olm.package` property.
    fn find_installed(&mut self) -> Result<(), String> {
        let entries: Vec<_> = self
            .request
            .installed
            .iter()
            .map(|i| {
                (
                    i.bundle.clone(),
                    i.package.clone(),
                    i.version.clone(),
                    i.catalog.clone(),
                    i.properties.clone(),
                )
            })
            .collect();
        for (name, package, version, catalog, properties) in entries {
            let existing = catalog.as_deref() == Some("@existing");
            let found: Vec<usize> = (0..self.bundles.len())
                .filter(|&b| {
                    let x = &self.bundles[b];
                    !existing
                        && x.catalog.is_some()
                        && x.name == name
                        && package.as_ref().is_none_or(|p| *p == x.package)
                })
                .collect();
            let named: Vec<usize> = found
                .iter()
                .copied()
                .filter(|&b| catalog.is_some() && self.catalog_name(b) == catalog.as_deref())
                .collect();
            let b = match (found.as_slice(), named.as_slice()) {
                ([one], _) | (_, [one]) => *one,
                ([], _) => self.installed_only(&name, package, version, properties)?,
                (several, _) => {
                    return Err(format!(
                        "installed {name}: in {} catalogs, name one",
                        several.len()
                    ));
                }
            };
            self.installed.push(b);
        }
        let movable: Vec<&str> = self
            .installed
            .iter()
            .zip(&self.request.installed)
            .filter(|(_, i)| !i.keep)
            .map(|(b, _)| self.bundles[*b].package.as_str())
            .filter(|p| !p.is_empty())
            .collect();
        if let Some(p) = movable
            .iter()
            .find(|p| movable.iter().filter(|q| q == p).count() > 1)
        {
            return Err(format!("two movable installed bundles of package {p}"));
        }
        Ok(())
    }

    fn installed_only(
        &mut self,
        name: &str,
        package: Option<String>,
        version: Option<String>,
        properties: Vec<(String, Value)>,
    ) -> Result<usize, String> {
        let declared = properties
            .iter()
            .find(|(t, _)| t == "olm.package")
            .map(|(_, v)| v);
        let package = package
            .or_else(|| declared.and_then(|v| v.get("packageName")?.as_str().map(str::to_string)))
            .ok_or_else(|| format!("installed {name}: in no catalog and no package"))?;
        let version = version
            .or_else(|| declared.and_then(|v| v.get("version")?.as_str().map(str::to_string)))
            .ok_or_else(|| format!("installed {name}: in no catalog and no version"))?;
        let mut props = properties;
        if !props.iter().any(|(t, _)| t == "olm.package") {
            props.insert(
                0,
                (
                    "olm.package".into(),
                    json!({"packageName": package, "version": version}),
                ),
            );
        }
        self.bundles.push(Bundle {
            catalog: None,
            package,
            name: name.to_string(),
            version: Version::parse(&version)
                .ok_or_else(|| format!("installed {name}: bad version {version:?}"))?,
            properties: props,
            gvks: Vec::new(),
            deps: Vec::new(),
            cluster_may_meet: Vec::new(),
            deprecated: false,
            catalog_deprecated: false,
            members: Vec::new(),
            in_malformed: false,
            entry_of: Vec::new(),
        });
        Ok(self.bundles.len() - 1)
    }

    /// Provided APIs, dependencies and the deprecated flag from the final properties.
    fn derive(&mut self, b: usize) -> Result<(), String> {
        let bundle = &self.bundles[b];
        let mut gvks = Vec::new();
        let mut groups: [Vec<Pred>; 4] = Default::default();
        let mut deprecated = false;
        // A property without a value states nothing (real catalogs have some).
        for (t, v) in bundle.properties.iter().filter(|(_, v)| !v.is_null()) {
            match t.as_str() {
                "olm.gvk" => gvks.push(predicate::gvk_of(v)?),
                "olm.deprecated" => deprecated = true,
                _ => {}
            }
            if let Some(p) = predicate::typed(t, v).map_err(|e| format!("{}: {e}", bundle.name))? {
                let group = match t.as_str() {
                    "olm.package.required" => 0,
                    "olm.gvk.required" => 1,
                    "olm.label.required" => 2,
                    _ => 3,
                };
                groups[group].push(p);
            }
        }
        let bundle = &mut self.bundles[b];
        bundle.gvks = gvks;
        bundle.deprecated = deprecated;
        bundle.cluster_may_meet = groups
            .iter()
            .enumerate()
            .flat_map(|(g, ds)| std::iter::repeat_n(g == 1 || g == 3, ds.len()))
            .collect();
        bundle.deps = groups.into_iter().flatten().collect();
        Ok(())
    }

    pub fn subject(&self, b: usize) -> Subject<'_> {
        let x = &self.bundles[b];
        Subject {
            package: Some((&x.package, &x.version)),
            gvks: &x.gvks,
            properties: &x.properties,
        }
    }

    fn cluster_subject(&self) -> Option<Subject<'_>> {
        self.request.cluster.as_ref().map(|c| Subject {
            package: None,
            gvks: &c.gvks,
            properties: &c.properties,
        })
    }

    pub fn catalog_name(&self, b: usize) -> Option<&str> {
        self.bundles[b].catalog.map(|c| self.catalogs[c].0.as_str())
    }

    fn selects(&self, s: &Selector, b: usize) -> bool {
        let x = &self.bundles[b];
        x.catalog.is_some()
            && s.package.as_ref().is_none_or(|p| *p == x.package)
            && s.bundle.as_ref().is_none_or(|n| *n == x.name)
            && s.catalog
                .as_deref()
                .is_none_or(|c| self.catalog_name(b) == Some(c))
            && s.range.as_ref().is_none_or(|r| r.matches(&x.version))
            && s.channel.as_ref().is_none_or(|c| x.entry_of.contains(c))
    }

    fn rule_hits(&self, rule: &Rule, b: usize) -> bool {
        let x = &self.bundles[b];
        match rule {
            Rule::Require(p) => !p.matches(&self.subject(b)),
            Rule::Conflict(p) => p.matches(&self.subject(b)),
            Rule::ProhibitPackage(p) => x.package == *p,
            Rule::ProhibitBundle(n) => x.name == *n,
            Rule::ProhibitCatalog(c) => self.catalog_name(b) == Some(c.as_str()),
            // Nothing is installed through the channel: its entries no other channel lists.
            Rule::ProhibitChannel(p, c) => {
                x.package == *p && x.entry_of.contains(c) && x.entry_of.iter().all(|e| e == c)
            }
        }
    }

    fn exclude(&mut self, pipeline: &Pipeline) {
        let mut out = Vec::with_capacity(self.bundles.len());
        for b in 0..self.bundles.len() {
            let mut why = Vec::new();
            if self.installed.contains(&b) {
                out.push(why);
                continue;
            }
            let x = &self.bundles[b];
            if x.deprecated {
                why.push(Exclusion::Deprecated);
            }
            if x.members.is_empty() {
                why.push(if x.in_malformed {
                    Exclusion::MalformedChannel
                } else {
                    Exclusion::OffChannel
                });
            }
            for (i, r) in self.request.admin.iter().enumerate() {
                if self.rule_hits(r, b) {
                    why.push(Exclusion::Admin(i));
                }
            }
            if let Some(c) = &self.request.cluster {
                for (i, r) in c.rules.iter().enumerate() {
                    if self.rule_hits(r, b) {
                        why.push(Exclusion::Cluster(i));
                    }
                }
                if x.gvks.iter().any(|g| c.gvks.contains(g)) {
                    why.push(Exclusion::ClusterServes);
                }
            }
            for (i, s) in pipeline.removed.iter().enumerate() {
                if self.selects(s, b) {
                    why.push(Exclusion::Pipeline(i));
                }
            }
            out.push(why);
        }
        self.excluded = out;
    }

    pub fn is_installed(&self, b: usize) -> bool {
        self.installed.contains(&b)
    }

    /// A candidate of dependencies: installed, or excluded by nothing.
    pub fn usable(&self, b: usize) -> bool {
        self.excluded[b].is_empty()
    }

    /// Pinned by name by a requirement of its package.
    fn pinned(&self, b: usize) -> bool {
        let x = &self.bundles[b];
        self.request
            .require
            .iter()
            .any(|q| q.package == x.package && q.bundle.as_deref() == Some(x.name.as_str()))
    }

    /// May be selected at all: usable, or a pinned bundle whose only exclusion is being on
    /// no channel's order.
    pub fn selectable(&self, b: usize) -> bool {
        self.usable(b) || (self.pinned(b) && self.excluded[b] == [Exclusion::OffChannel])
    }

    /// The installed bundle of `package` a requirement may move (not one marked `keep`).
    pub fn installed_of(&self, package: &str) -> Option<usize> {
        self.installed
            .iter()
            .zip(&self.request.installed)
            .find(|(i, e)| !e.keep && self.bundles[**i].package == package)
            .map(|(i, _)| *i)
    }

    /// Installed bundle `i` still fits `q` (channel aside); an installed bundle in no catalog
    /// is never in "the wrong catalog".
    pub fn fits(&self, q: &Requirement, i: usize) -> bool {
        let x = &self.bundles[i];
        (x.catalog.is_none()
            || q.catalog
                .as_deref()
                .is_none_or(|c| self.catalog_name(i) == Some(c)))
            && q.range.as_ref().is_none_or(|r| r.matches(&x.version))
            && q.bundle.as_ref().is_none_or(|p| *p == x.name)
    }

    fn on_channel(&self, q: &Requirement, b: usize) -> bool {
        q.bundle.is_some()
            || q.channel
                .as_ref()
                .is_none_or(|c| self.bundles[b].members.iter().any(|m| m.channel == *c))
    }

    /// Catalog, range, pin and exclusions of `q` (channel aside).
    fn admits(&self, q: &Requirement, b: usize) -> bool {
        let x = &self.bundles[b];
        let allowed = self.usable(b)
            || (q.bundle.as_deref() == Some(x.name.as_str())
                && self.excluded[b] == [Exclusion::OffChannel]);
        x.package == q.package
            && allowed
            && q.catalog
                .as_deref()
                .is_none_or(|c| self.catalog_name(b) == Some(c))
            && q.range.as_ref().is_none_or(|r| r.matches(&x.version))
            && q.bundle.as_ref().is_none_or(|p| *p == x.name)
    }

    /// The edge from installed `i` to `b` (§4): an entry of `b` in a channel whose order holds
    /// it (`q`'s channel when given) replaces `i`, skips it, or has a skipRange holding its
    /// version.
    pub fn edge(&self, q: &Requirement, i: usize, b: usize) -> Option<(&'static str, &Member)> {
        let inst = &self.bundles[i];
        let x = &self.bundles[b];
        if x.package != inst.package {
            return None;
        }
        x.members
            .iter()
            .filter(|m| q.bundle.is_some() || q.channel.as_ref().is_none_or(|c| m.channel == *c))
            .find_map(|m| {
                let e = &m.entry;
                if e.replaces.as_deref() == Some(inst.name.as_str()) {
                    Some(("replaces", m))
                } else if e.skips.contains(&inst.name) {
                    Some(("skips", m))
                } else if e
                    .skip_range
                    .as_deref()
                    .and_then(Range::parse)
                    .is_some_and(|r| r.matches(&inst.version))
                {
                    Some(("skipRange", m))
                } else {
                    None
                }
            })
    }

    /// Does `b` meet requirement `q` (§7: an installed bundle that still fits moves one edge
    /// at most; otherwise any bundle matching `q` on its channel)?
    pub fn meets(&self, q: &Requirement, b: usize) -> bool {
        if self.bundles[b].package != q.package {
            return false;
        }
        match self.installed_of(&q.package) {
            Some(i) if self.fits(q, i) => {
                i == b
                    || (self.admits(q, b) && self.on_channel(q, b) && self.edge(q, i, b).is_some())
            }
            _ => self.admits(q, b) && self.on_channel(q, b),
        }
    }

    /// The cluster node meets dependency `d` of `b`.
    pub fn cluster_meets(&self, b: usize, d: usize) -> bool {
        self.bundles[b].cluster_may_meet[d]
            && self
                .cluster_subject()
                .is_some_and(|s| self.bundles[b].deps[d].matches(&s))
    }

    /// Usable bundles meeting dependency `d` of `b`.
    pub fn providers(&self, b: usize, d: usize) -> Vec<usize> {
        let dep = &self.bundles[b].deps[d];
        (0..self.bundles.len())
            .filter(|&x| self.usable(x) && dep.matches(&self.subject(x)))
            .collect()
    }

    fn required_package(&self, package: &str) -> bool {
        self.request.require.iter().any(|q| q.package == package)
    }

    /// Bundles that must be selected: installed ones marked `keep`, those `keepInstalled`
    /// keeps (of packages no requirement names), and static requires.
    pub fn kept(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .installed
            .iter()
            .zip(&self.request.installed)
            .filter(|(i, e)| {
                e.keep
                    || (self.request.keep_installed
                        && !self.required_package(&self.bundles[**i].package))
            })
            .map(|(i, _)| *i)
            .collect();
        for b in &self.injected {
            if !out.contains(b) {
                out.push(*b);
            }
        }
        out
    }

    pub fn describe(&self, b: usize) -> String {
        let x = &self.bundles[b];
        format!(
            "{}/{}",
            self.catalog_name(b).unwrap_or("@installed"),
            x.name
        )
    }

    /// Bundle index of a reported selection entry (installed bundles in no catalog match by
    /// name whatever catalog the report names).
    pub fn find(&self, catalog: &str, name: &str) -> Option<usize> {
        (0..self.bundles.len())
            .find(|&b| self.bundles[b].name == name && self.catalog_name(b) == Some(catalog))
            .or_else(|| {
                (0..self.bundles.len())
                    .find(|&b| self.bundles[b].catalog.is_none() && self.bundles[b].name == name)
            })
    }

    /// The selection a JSON report (`selected: [{bundle, catalog}]`) names.
    pub fn selection_of_report(&self, report: &Value) -> Result<Vec<usize>, String> {
        let list = report["selected"]
            .as_array()
            .ok_or("a report without selected")?;
        list.iter()
            .map(|s| {
                let b = s["bundle"].as_str().unwrap_or_default();
                let c = s["catalog"].as_str().unwrap_or_default();
                self.find(c, b)
                    .ok_or_else(|| format!("the report selects {c}/{b}, which no input has"))
            })
            .collect()
    }

    /// Every rule a valid answer obeys; Err names the first one `sel` breaks.
    pub fn check(&self, sel: &[usize]) -> Result<(), String> {
        let mut sorted = sel.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != sel.len() {
            return Err("a bundle is selected twice".into());
        }
        let name = |b: usize| self.describe(b);
        for (k, &a) in sel.iter().enumerate() {
            for &b in &sel[k + 1..] {
                let package = &self.bundles[a].package;
                if !package.is_empty() && *package == self.bundles[b].package {
                    return Err(format!("{} and {} share a package", name(a), name(b)));
                }
                if self.bundles[a]
                    .gvks
                    .iter()
                    .any(|g| self.bundles[b].gvks.contains(g))
                {
                    return Err(format!("{} and {} provide the same API", name(a), name(b)));
                }
            }
        }
        for &b in sel {
            if !self.selectable(b) {
                return Err(format!("{} is excluded: {:?}", name(b), self.excluded[b]));
            }
        }
        for (r, q) in self.request.require.iter().enumerate() {
            if !sel.iter().any(|&b| self.meets(q, b)) {
                return Err(format!("requirement {r} ({}) is not met", q.package));
            }
        }
        for &b in sel {
            for d in 0..self.bundles[b].deps.len() {
                if self.cluster_meets(b, d) {
                    continue;
                }
                let dep = &self.bundles[b].deps[d];
                let met = sel
                    .iter()
                    .any(|&x| self.usable(x) && dep.matches(&self.subject(x)));
                if !met {
                    return Err(format!("{}: dependency {d} is not met", name(b)));
                }
            }
        }
        for k in self.kept() {
            if !sel.contains(&k) {
                return Err(format!("{} must stay selected", name(k)));
            }
        }
        Ok(())
    }

    /// Every selected bundle meets a requirement, is kept, or meets a dependency (one the
    /// cluster does not meet) of a bundle justified so (§5 minimality).
    pub fn justified(&self, sel: &[usize]) -> Result<(), String> {
        let mut ok: Vec<usize> = self
            .kept()
            .into_iter()
            .filter(|k| sel.contains(k))
            .collect();
        for q in &self.request.require {
            ok.extend(sel.iter().copied().filter(|&b| self.meets(q, b)));
        }
        loop {
            let before = ok.len();
            for &b in ok.clone().iter() {
                for d in 0..self.bundles[b].deps.len() {
                    if self.cluster_meets(b, d) {
                        continue;
                    }
                    let dep = &self.bundles[b].deps[d];
                    for &x in sel {
                        if !ok.contains(&x) && self.usable(x) && dep.matches(&self.subject(x)) {
                            ok.push(x);
                        }
                    }
                }
            }
            if ok.len() == before {
                break;
            }
        }
        match sel.iter().find(|b| !ok.contains(b)) {
            Some(&b) => Err(format!(
                "{} is selected but nothing needs it",
                self.describe(b)
            )),
            None => Ok(()),
        }
    }

    /// The rules as bit masks, for trying every subset (at most 24 bundles).
    pub fn masks(&self) -> Option<Masks> {
        let n = self.bundles.len();
        if n > 24 {
            return None;
        }
        let mask =
            |f: &dyn Fn(usize) -> bool| (0..n).filter(|&b| f(b)).fold(0u32, |m, b| m | 1 << b);
        let mut packages: Vec<String> = self
            .bundles
            .iter()
            .map(|b| b.package.clone())
            .filter(|p| !p.is_empty())
            .collect();
        packages.sort();
        packages.dedup();
        let mut gvks: Vec<Gvk> = self.bundles.iter().flat_map(|b| b.gvks.clone()).collect();
        gvks.sort();
        gvks.dedup();
        Some(Masks {
            n,
            selectable: mask(&|b| self.selectable(b)),
            packages: packages
                .iter()
                .map(|p| mask(&|b| self.bundles[b].package == *p))
                .collect(),
            gvks: gvks
                .iter()
                .map(|g| mask(&|b| self.bundles[b].gvks.contains(g)))
                .collect(),
            requirements: self
                .request
                .require
                .iter()
                .map(|q| mask(&|b| self.meets(q, b)))
                .collect(),
            deps: (0..n)
                .map(|b| {
                    (0..self.bundles[b].deps.len())
                        .filter(|&d| !self.cluster_meets(b, d))
                        .map(|d| self.providers(b, d).iter().fold(0u32, |m, x| m | 1 << x))
                        .collect()
                })
                .collect(),
            kept: self.kept().iter().fold(0u32, |m, b| m | 1 << b),
        })
    }
}

/// [`World::check`] over bit masks.
pub struct Masks {
    pub n: usize,
    pub selectable: u32,
    pub packages: Vec<u32>,
    pub gvks: Vec<u32>,
    pub requirements: Vec<u32>,
    pub deps: Vec<Vec<u32>>,
    pub kept: u32,
}

impl Masks {
    pub fn valid(&self, s: u32) -> bool {
        s & !self.selectable == 0
            && s & self.kept == self.kept
            && self.packages.iter().all(|p| (s & p).count_ones() <= 1)
            && self.gvks.iter().all(|g| (s & g).count_ones() <= 1)
            && self.requirements.iter().all(|r| s & r != 0)
            && self
                .deps
                .iter()
                .enumerate()
                .all(|(b, ds)| s & (1 << b) == 0 || ds.iter().all(|d| s & d != 0))
    }

    /// Every valid selection.
    pub fn all_valid(&self) -> Vec<u32> {
        (0u32..(1 << self.n)).filter(|&s| self.valid(s)).collect()
    }
}
