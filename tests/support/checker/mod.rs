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
mod installed;
pub mod predicate;
pub mod preference;
pub mod range;
mod rules;
pub mod stranding;
pub mod version;

pub use rules::Masks;

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

    /// Provided APIs, dependencies and the deprecated flag from the final properties.
    fn derive(&mut self, b: usize) -> Result<(), String> {
        let bundle = &self.bundles[b];
        let mut gvks = Vec::new();
        let mut groups: [Vec<Pred>; 4] = Default::default();
        let mut deprecated = false;
        // `olm.deprecated` deprecates with any value or none (docs/semantics.md §2.1); any
        // other property without a value states nothing (real catalogs have some).
        deprecated |= bundle.properties.iter().any(|(t, _)| t == "olm.deprecated");
        for (t, v) in bundle.properties.iter().filter(|(_, v)| !v.is_null()) {
            if t == "olm.gvk" {
                gvks.push(predicate::gvk_of(v)?);
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
}
