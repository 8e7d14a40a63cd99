//! The model in each engine's input format: deppy's generic model (in memory and as
//! `model.json`), an FBC catalog plus a request, and a libsolv testcase.

use std::fmt::Write as _;
use std::path::Path;

use deppy::advanced::generic::{AtMostValue, GenericFile, RawConstraint, RawVariable};
use deppy::advanced::solver::{Constraint, Var};
use serde_json::json;

use crate::model::{Dep, Model, VERSIONS, bid, pkg_of, ver_of, version_str};

/// The full model as deppy's generic variables: one mandatory root variable per requirement
/// with a Dependency on its package's bundles (highest first), then one variable per bundle
/// with its ordered Dependency lists and Conflicts. AtMost(1) over a package's bundles is
/// carried by its highest bundle; AtMost(1) over a shared GVK's providers by its most preferred
/// provider.
pub fn generic_file(m: &Model) -> GenericFile {
    let names: Vec<String> = (0..m.bundles.len()).map(|b| m.bundle_name(b)).collect();
    let ids =
        |bs: Vec<usize>| -> Vec<String> { bs.into_iter().map(|b| names[b].clone()).collect() };
    let mut variables = Vec::with_capacity(m.roots.len() + m.bundles.len());
    for &p in &m.roots {
        variables.push(RawVariable {
            id: format!("require-{}", m.names[p as usize]),
            constraints: vec![
                RawConstraint::Mandatory(json!({})),
                RawConstraint::Dependency(ids(m.package_bundles(p))),
            ],
        });
    }
    // which bundle carries each shared GVK's AtMost
    let mut gvk_carrier: Vec<Vec<u32>> = vec![Vec::new(); m.bundles.len()];
    let mut gvk_lists = Vec::with_capacity(m.gvk_providers.len());
    for k in 0..m.gvk_providers.len() {
        let list = m.gvk_bundles(k as u32);
        gvk_carrier[list[0]].push(k as u32);
        gvk_lists.push(list);
    }
    for (b, bundle) in m.bundles.iter().enumerate() {
        let mut cs = Vec::new();
        for d in &bundle.deps {
            cs.push(RawConstraint::Dependency(ids(m.dep_bundles(d))));
        }
        for r in &bundle.conflicts {
            for v in r.lo..r.hi {
                cs.push(RawConstraint::Conflict(names[bid(r.pkg, v)].clone()));
            }
        }
        if ver_of(b) as usize == VERSIONS - 1 {
            cs.push(RawConstraint::AtMost(AtMostValue {
                n: 1,
                ids: ids(m.package_bundles(pkg_of(b))),
            }));
        }
        for k in &gvk_carrier[b] {
            cs.push(RawConstraint::AtMost(AtMostValue {
                n: 1,
                ids: ids(gvk_lists[*k as usize].clone()),
            }));
        }
        variables.push(RawVariable {
            id: names[b].clone(),
            constraints: cs,
        });
    }
    GenericFile { variables }
}

/// `deppy solve`'s JSON format.
pub fn generic_json(f: &GenericFile) -> String {
    let vars: Vec<serde_json::Value> = f
        .variables
        .iter()
        .map(|v| {
            let cs: Vec<serde_json::Value> = v
                .constraints
                .iter()
                .map(|c| {
                    #[allow(unreachable_patterns)]
                    match c {
                        RawConstraint::Mandatory(_) => json!({"mandatory": {}}),
                        RawConstraint::Prohibited(_) => json!({"prohibited": {}}),
                        RawConstraint::Dependency(d) => json!({ "dependency": d }),
                        RawConstraint::Conflict(o) => json!({ "conflict": o }),
                        RawConstraint::AtMost(a) => json!({"atMost": {"n": a.n, "ids": a.ids}}),
                        _ => panic!("constraint kind unknown to deppy-compare"),
                    }
                })
                .collect();
            if cs.is_empty() {
                json!({"id": v.id})
            } else {
                json!({"id": v.id, "constraints": cs})
            }
        })
        .collect();
    let mut out = String::from("{\"variables\": [\n");
    for (i, v) in vars.iter().enumerate() {
        out.push_str(&v.to_string());
        out.push_str(if i + 1 < vars.len() { ",\n" } else { "\n" });
    }
    out.push_str("]}\n");
    out
}

/// An OLM version range for versions `lo..hi`.
pub fn olm_range(lo: u8, hi: u8) -> String {
    if hi as usize >= VERSIONS {
        format!(">={}", version_str(lo))
    } else {
        format!(">={} <{}", version_str(lo), version_str(hi))
    }
}

fn own_gvk(m: &Model, p: usize) -> serde_json::Value {
    json!({"group": format!("{}.example.com", m.names[p]), "version": "v1", "kind": format!("K{}", m.names[p])})
}

fn shared_gvk(k: u32) -> serde_json::Value {
    json!({"group": "shared.example.com", "version": "v1", "kind": format!("S{k}")})
}

/// The model as one FBC JSON file: a package with channel `stable` (a replaces chain
/// 1.0.0 ← 1.1.0 ← … ← 1.9.0) per package, and per bundle its olm.package, its own olm.gvk,
/// the shared olm.gvk it provides, olm.package.required and olm.gvk.required. FBC cannot say
/// "conflicts": the caller passes the conflict-free variant.
pub fn fbc(m: &Model) -> String {
    assert!(
        m.bundles.iter().all(|b| b.conflicts.is_empty()),
        "FBC cannot carry conflicts"
    );
    let mut out = String::new();
    for p in 0..m.n {
        let name = &m.names[p];
        let _ = writeln!(
            out,
            "{}",
            json!({"schema": "olm.package", "name": name, "defaultChannel": "stable"})
        );
        let entries: Vec<serde_json::Value> = (0..VERSIONS as u8)
            .map(|v| {
                let b = m.bundle_name(bid(p as u32, v));
                if v == 0 {
                    json!({ "name": b })
                } else {
                    json!({"name": b, "replaces": m.bundle_name(bid(p as u32, v - 1))})
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "{}",
            json!({"schema": "olm.channel", "package": name, "name": "stable", "entries": entries})
        );
        for v in 0..VERSIONS as u8 {
            let b = bid(p as u32, v);
            let mut props = vec![
                json!({"type": "olm.package", "value": {"packageName": name, "version": version_str(v)}}),
                json!({"type": "olm.gvk", "value": own_gvk(m, p)}),
            ];
            for (k, from) in &m.provides[p] {
                if v >= *from {
                    props.push(json!({"type": "olm.gvk", "value": shared_gvk(*k)}));
                }
            }
            for d in &m.bundles[b].deps {
                props.push(match d {
                    Dep::Pkg(r) => json!({"type": "olm.package.required", "value": {
                        "packageName": m.names[r.pkg as usize], "versionRange": olm_range(r.lo, r.hi)}}),
                    Dep::Gvk(k) => json!({"type": "olm.gvk.required", "value": shared_gvk(*k)}),
                });
            }
            let _ = writeln!(
                out,
                "{}",
                json!({"schema": "olm.bundle", "name": m.bundle_name(b), "package": name,
                       "image": format!("example.com/{}:{}", name, version_str(v)), "properties": props})
            );
        }
    }
    out
}

/// A request naming `catalog/` beside it and requiring every root package.
pub fn request_yaml(m: &Model) -> String {
    let mut out = String::from(
        "apiVersion: deppy.io/v1alpha1\nkind: Request\ncatalogs:\n  - {name: synthetic, path: ./catalog, priority: 0}\nrequire:\n",
    );
    for p in &m.roots {
        let _ = writeln!(out, "  - package: {}", m.names[*p as usize]);
    }
    out
}

/// Which reader a testtags file is for: they spell a rich dependency differently.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RichSyntax {
    /// `testsolv` reads testtags with libsolv's testcase parser: `(a + b)` is `a with b`.
    Testcase,
    /// python3-solv reads the same text with `Repo.add_susetags`, which parses rpm rich
    /// dependencies: `(a with b)`.
    Rpm,
}

/// libsolv's testtags for the model (see README "Encodings"): each bundle is a package
/// `pNNN 1.V.0-1 noarch`; a range dependency on q in [lo, hi) is the rich dependency
/// `(q >= 1.lo.0 with q < 1.hi.0)` (one package satisfying both), or `q >= 1.lo.0` when the
/// range is open; a range conflict is one `Con: q = v` per version; a shared GVK is a
/// capability `gvk-Sk` that each provider both provides and conflicts with (libsolv ignores a
/// package's conflict with itself), which makes its providers pairwise exclusive.
pub fn testtags(m: &Model, syntax: RichSyntax) -> String {
    let mut out = String::new();
    for (b, bundle) in m.bundles.iter().enumerate() {
        let (p, v) = (pkg_of(b) as usize, ver_of(b));
        let _ = writeln!(out, "=Pkg: {} {} 1 noarch", m.names[p], version_str(v));
        let mut req = Vec::new();
        let mut con = Vec::new();
        let mut prv = Vec::new();
        for d in &bundle.deps {
            match d {
                Dep::Pkg(r) => {
                    let q = &m.names[r.pkg as usize];
                    let (lo, hi) = (version_str(r.lo), version_str(r.hi));
                    req.push(match (r.hi as usize) < VERSIONS {
                        false => format!("{q} >= {lo}"),
                        true if syntax == RichSyntax::Rpm => {
                            format!("({q} >= {lo} with {q} < {hi})")
                        }
                        true => format!("({q} >= {lo} + {q} < {hi})"),
                    });
                }
                Dep::Gvk(k) => req.push(format!("gvk-S{k}")),
            }
        }
        for r in &bundle.conflicts {
            for cv in r.lo..r.hi {
                con.push(format!("{} = {}", m.names[r.pkg as usize], version_str(cv)));
            }
        }
        for (k, from) in &m.provides[p] {
            if v >= *from {
                prv.push(format!("gvk-S{k}"));
                con.push(format!("gvk-S{k}"));
            }
        }
        for (tag, list) in [("Req", &req), ("Con", &con), ("Prv", &prv)] {
            if !list.is_empty() {
                let _ = writeln!(out, "+{tag}:");
                for x in list {
                    let _ = writeln!(out, "{x}");
                }
                let _ = writeln!(out, "-{tag}:");
            }
        }
    }
    out
}

/// A testcase reading `available.testtags` beside it; with `jobs`, one install job per root.
pub fn testcase(m: &Model, jobs: bool) -> String {
    let mut out = String::from(
        "repo system 0 testtags <inline>\nrepo available 0 testtags available.testtags\nsystem x86_64 rpm system\n",
    );
    if jobs {
        for p in &m.roots {
            let _ = writeln!(out, "job install name {}", m.names[*p as usize]);
        }
    }
    out.push_str("result transaction,problems <inline>\n");
    out
}

/// Writes every input format under `dir`: model.json and libsolv/ from the full model, and
/// catalog/catalog.json plus request.yaml from the conflict-free variant `nc`.
pub fn write_all(full: &Model, nc: &Model, dir: &Path) -> std::io::Result<()> {
    write_full(full, dir)?;
    write_fbc(nc, dir)
}

/// model.json and libsolv/ under `dir`.
pub fn write_full(m: &Model, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("model.json"), generic_json(&generic_file(m)))?;
    write_libsolv(m, &dir.join("libsolv"))
}

/// catalog/catalog.json and request.yaml under `dir` (a conflict-free model).
pub fn write_fbc(nc: &Model, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("catalog"))?;
    std::fs::write(dir.join("catalog/catalog.json"), fbc(nc))?;
    std::fs::write(dir.join("request.yaml"), request_yaml(nc))
}

pub fn write_libsolv(m: &Model, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("available.testtags"),
        testtags(m, RichSyntax::Testcase),
    )?;
    std::fs::write(dir.join("available.susetags"), testtags(m, RichSyntax::Rpm))?;
    std::fs::write(dir.join("testcase.t"), testcase(m, true))?;
    std::fs::write(dir.join("parse-only.t"), testcase(m, false))?;
    let roots: Vec<&str> = m
        .roots
        .iter()
        .map(|p| m.names[*p as usize].as_str())
        .collect();
    std::fs::write(dir.join("roots.txt"), roots.join("\n") + "\n")
}

/// A constraint of [`generic_file`]'s model with variable indices in place of names (roots
/// first, then bundles), as a library caller builds a `Problem` without names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Typed {
    Mandatory,
    Dependency(Vec<u32>),
    Conflict(u32),
    AtMost(Vec<u32>),
}

impl Typed {
    /// The solver's constraint.
    pub fn into_constraint(self) -> Constraint {
        let vars = |vs: Vec<u32>| vs.into_iter().map(Var).collect();
        match self {
            Typed::Mandatory => Constraint::Mandatory,
            Typed::Dependency(vs) => Constraint::Dependency(vars(vs)),
            Typed::Conflict(o) => Constraint::Conflict(Var(o)),
            Typed::AtMost(vs) => Constraint::AtMost {
                n: 1,
                vars: vars(vs),
            },
        }
    }
}

/// The model of [`generic_file`] with indices, constraint by constraint: the variables are
/// the roots, then the bundles. `tests::typed_matches_generic` holds the two against each
/// other.
pub struct TypedModel<'m> {
    m: &'m Model,
    /// Per bundle: the shared GVKs whose AtMost it carries.
    gvk_carrier: Vec<Vec<u32>>,
    /// Per shared GVK: its providers' variables, most preferred first.
    gvk_lists: Vec<Vec<u32>>,
}

impl<'m> TypedModel<'m> {
    pub fn new(m: &'m Model) -> TypedModel<'m> {
        let roots = m.roots.len() as u32;
        let mut gvk_carrier: Vec<Vec<u32>> = vec![Vec::new(); m.bundles.len()];
        let mut gvk_lists = Vec::with_capacity(m.gvk_providers.len());
        for k in 0..m.gvk_providers.len() {
            let list = m.gvk_bundles(k as u32);
            gvk_carrier[list[0]].push(k as u32);
            gvk_lists.push(list.into_iter().map(|b| roots + b as u32).collect());
        }
        TypedModel {
            m,
            gvk_carrier,
            gvk_lists,
        }
    }

    pub fn var_count(&self) -> u32 {
        (self.m.roots.len() + self.m.bundles.len()) as u32
    }

    fn var(&self, b: usize) -> u32 {
        (self.m.roots.len() + b) as u32
    }

    fn vars(&self, bs: Vec<usize>) -> Vec<u32> {
        bs.into_iter().map(|b| self.var(b)).collect()
    }

    /// The constraints of variable `v`, in the order [`generic_file`] lists them.
    pub fn constraints(&self, v: u32, mut add: impl FnMut(Typed)) {
        let m = self.m;
        let Some(b) = (v as usize).checked_sub(m.roots.len()) else {
            add(Typed::Mandatory);
            add(Typed::Dependency(
                self.vars(m.package_bundles(m.roots[v as usize])),
            ));
            return;
        };
        let bundle = &m.bundles[b];
        for d in &bundle.deps {
            add(Typed::Dependency(match d {
                Dep::Gvk(k) => self.gvk_lists[*k as usize].clone(),
                Dep::Pkg(_) => self.vars(m.dep_bundles(d)),
            }));
        }
        for r in &bundle.conflicts {
            for x in r.lo..r.hi {
                add(Typed::Conflict(self.var(bid(r.pkg, x))));
            }
        }
        if ver_of(b) as usize == VERSIONS - 1 {
            add(Typed::AtMost(self.vars(m.package_bundles(pkg_of(b)))));
        }
        for k in &self.gvk_carrier[b] {
            add(Typed::AtMost(self.gvk_lists[*k as usize].clone()));
        }
    }

    /// How many of the variables are root requirements (the bundles follow).
    pub fn roots(&self) -> u32 {
        self.m.roots.len() as u32
    }

    /// The variables whose constraints hold an at-most set counting bundle variable `v`:
    /// its package's highest version (one bundle per package) and the first provider of
    /// each shared GVK it provides.
    pub fn at_most_carriers(&self, v: u32) -> Vec<u32> {
        let m = self.m;
        let Some(b) = (v as usize).checked_sub(m.roots.len()) else {
            return Vec::new();
        };
        let p = pkg_of(b);
        let mut out = vec![self.var(bid(p, (VERSIONS - 1) as u8))];
        for (k, from) in &m.provides[p as usize] {
            if ver_of(b) >= *from {
                out.push(self.gvk_lists[*k as usize][0]);
            }
        }
        out
    }

    /// The name of variable `v` in [`generic_file`].
    pub fn name(&self, v: u32) -> String {
        let m = self.m;
        match (v as usize).checked_sub(m.roots.len()) {
            None => format!("require-{}", m.names[m.roots[v as usize] as usize]),
            Some(b) => m.bundle_name(b),
        }
    }

    /// The file an explanation of the typed problem is worded from: the variables of `keep`
    /// with their constraints, named, and the variables those constraints name; every other
    /// variable keeps its place with an empty name (a proof over the constraints of `keep`
    /// names no other variable).
    pub fn named_file(&self, keep: &[u32]) -> GenericFile {
        let mut variables: Vec<RawVariable> = (0..self.var_count())
            .map(|_| RawVariable {
                id: String::new(),
                constraints: Vec::new(),
            })
            .collect();
        let name = |variables: &mut Vec<RawVariable>, v: u32| -> String {
            let slot = &mut variables[v as usize].id;
            if slot.is_empty() {
                *slot = self.name(v);
            }
            slot.clone()
        };
        for &v in keep {
            name(&mut variables, v);
            let mut raws = Vec::new();
            self.constraints(v, |c| raws.push(c));
            for c in raws {
                let mut names = |vs: &[u32]| -> Vec<String> {
                    vs.iter().map(|x| name(&mut variables, *x)).collect()
                };
                let raw = match c {
                    Typed::Mandatory => RawConstraint::Mandatory(json!({})),
                    Typed::Dependency(vs) => RawConstraint::Dependency(names(&vs)),
                    Typed::Conflict(o) => RawConstraint::Conflict(names(&[o]).remove(0)),
                    Typed::AtMost(vs) => RawConstraint::AtMost(AtMostValue {
                        n: 1,
                        ids: names(&vs),
                    }),
                };
                variables[v as usize].constraints.push(raw);
            }
        }
        GenericFile { variables }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Shape;

    #[test]
    fn typed_matches_generic() {
        for shape in [Shape::N, Shape::U, Shape::C, Shape::Real] {
            for conflicts in [true, false] {
                let m = Model::generate(shape, 200, 7, conflicts);
                let generic = generic_file(&m).problem().expect("well-formed");
                let mut typed = Vec::new();
                let t = TypedModel::new(&m);
                for v in 0..t.var_count() {
                    t.constraints(v, |c| {
                        typed.push((Var(v), c.into_constraint()));
                    });
                }
                let want: Vec<(Var, Constraint)> = generic
                    .entries()
                    .iter()
                    .map(|e| (e.subject, e.constraint.clone()))
                    .collect();
                assert_eq!(typed, want, "{shape:?} conflicts {conflicts}");
                let all: Vec<u32> = (0..t.var_count()).collect();
                assert_eq!(t.named_file(&all).variables, generic_file(&m).variables);
            }
        }
    }
}
