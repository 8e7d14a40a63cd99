//! The rules a valid answer obeys (docs/semantics.md §4, §6, §7): which bundles may be
//! selected, when a bundle meets a requirement (one upgrade edge from an installed bundle that
//! still fits), dependencies met by selected bundles or the cluster, bundles that must stay;
//! and the same rules as bit masks, for trying every subset.

use serde_json::Value;

use super::input::Requirement;
use super::predicate::Gvk;
use super::range::Range;
use super::{Exclusion, Member, World};

impl World {
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
