//! A seeded generator of OLM-shaped synthetic catalogs (the shape of issue 7): N packages ×
//! 10 bundles (1.0.0..1.9.0, replaces chain in channel `stable`), each providing its own GVK;
//! N/4 shared GVKs provided by 2–4 packages from some version up; per bundle a Poisson(1)
//! number of package-range dependencies on later packages (window 50) and a shared-GVK
//! dependency with probability 0.3.

use std::fmt::Write as _;

/// xorshift64*: small, seeded, good enough for workload generation.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    /// Poisson(1) by inversion.
    pub fn poisson1(&mut self) -> u32 {
        let mut k = 0;
        let mut p = (-1.0f64).exp();
        let mut s = p;
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        while u > s && k < 20 {
            k += 1;
            p /= k as f64;
            s += p;
        }
        k
    }
}

/// Writes the catalog as one FBC JSON file; returns the package names of the roots.
pub fn generate(packages: usize, roots: usize, density: f64, seed: u64) -> (String, Vec<String>) {
    let mut rng = Rng::new(seed);
    let shared = (packages / 4).max(1);
    // shared GVK k is provided by 2-4 packages, from some version up
    let mut providers: Vec<Vec<(usize, u32)>> = vec![Vec::new(); shared];
    let mut provides: Vec<Vec<(usize, u32)>> = vec![Vec::new(); packages];
    for (k, prov) in providers.iter_mut().enumerate() {
        for _ in 0..2 + rng.below(3) {
            let p = rng.below(packages as u64) as usize;
            let from = rng.below(10) as u32;
            prov.push((p, from));
            provides[p].push((k, from));
        }
    }
    let mut out = String::new();
    for (p, provided) in provides.iter().enumerate() {
        let _ = writeln!(
            out,
            r#"{{"schema":"olm.package","name":"p{p}","defaultChannel":"stable"}}"#
        );
        let entries: Vec<String> = (0..10)
            .map(|v| match v {
                0 => format!(r#"{{"name":"p{p}.v1.{v}.0"}}"#),
                _ => format!(
                    r#"{{"name":"p{p}.v1.{v}.0","replaces":"p{p}.v1.{}.0"}}"#,
                    v - 1
                ),
            })
            .collect();
        let _ = writeln!(
            out,
            r#"{{"schema":"olm.channel","package":"p{p}","name":"stable","entries":[{}]}}"#,
            entries.join(",")
        );
        for v in 0..10u32 {
            let mut props = vec![
                format!(
                    r#"{{"type":"olm.package","value":{{"packageName":"p{p}","version":"1.{v}.0"}}}}"#
                ),
                format!(
                    r#"{{"type":"olm.gvk","value":{{"group":"p{p}.example.com","version":"v1","kind":"K{p}"}}}}"#
                ),
            ];
            for (k, from) in provided {
                if v >= *from {
                    props.push(format!(
                        r#"{{"type":"olm.gvk","value":{{"group":"shared.example.com","version":"v1","kind":"S{k}"}}}}"#
                    ));
                }
            }
            if rng.chance(density) {
                for _ in 0..rng.poisson1() {
                    if p + 1 >= packages {
                        break;
                    }
                    let q = p + 1 + rng.below(50.min((packages - p - 1) as u64)) as usize;
                    let lo = rng.below(10);
                    props.push(format!(
                        r#"{{"type":"olm.package.required","value":{{"packageName":"p{q}","versionRange":">=1.{lo}.0"}}}}"#
                    ));
                }
                if rng.chance(0.3) {
                    let k = rng.below(shared as u64);
                    props.push(format!(
                        r#"{{"type":"olm.gvk.required","value":{{"group":"shared.example.com","version":"v1","kind":"S{k}"}}}}"#
                    ));
                }
            }
            let _ = writeln!(
                out,
                r#"{{"schema":"olm.bundle","package":"p{p}","name":"p{p}.v1.{v}.0","image":"example.com/p{p}:1.{v}.0","properties":[{}]}}"#,
                props.join(",")
            );
        }
    }
    let mut root_names = Vec::new();
    let mut step = 0;
    while root_names.len() < roots.min(packages) {
        let p = (step * 7919) % packages;
        step += 1;
        let name = format!("p{p}");
        if !root_names.contains(&name) {
            root_names.push(name);
        }
    }
    (out, root_names)
}
