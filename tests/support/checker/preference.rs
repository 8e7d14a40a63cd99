//! The most preferred answer, computed from docs/semantics.md §5 as written:
//!
//! * a requirement's candidates: when its package's installed bundle still fits, the
//!   successors head-most first and staying last; else every matching bundle, catalog-major
//!   (priority descending, a local catalog first, then catalog name), default channel first,
//!   then channel name, then nearer the head;
//! * a dependency's candidates: installed first, then the dependent's own catalog, higher
//!   priority, a local catalog, catalog name, default channel, package name, channel name,
//!   nearer the head;
//! * in every list, bundles deprecated by `olm.deprecations` come last (a bundle a pipeline's
//!   static variable prefers comes first);
//! * breadth-first from the requirements in request order (then bundles `keepInstalled` keeps
//!   and static requires): a dependency already met by a selected bundle pulls in nothing;
//!   otherwise it takes its first candidate that some valid selection extends (perfect
//!   look-ahead over every valid selection).
//!
//! Ties the text leaves open are broken by higher version, then name. A bundle's own
//! dependencies are taken in the order package, GVK, label, constraint requirements.

use std::cmp::Reverse;

use super::World;

/// Where `b` sits in its channels, restricted to `only`: (not the default channel, channel
/// name, distance from the head); off every such channel sorts last.
fn channel_key(w: &World, b: usize, only: Option<&str>) -> (bool, String, u32) {
    let x = &w.bundles[b];
    let default = x
        .catalog
        .and_then(|c| w.default_channel.get(&(c, x.package.clone())));
    x.members
        .iter()
        .filter(|m| only.is_none_or(|o| o == m.channel))
        .map(|m| (Some(&m.channel) != default, m.channel.clone(), m.distance))
        .min()
        .unwrap_or((true, "\u{10FFFF}".into(), u32::MAX))
}

/// Catalog priority (higher first), a local catalog first, catalog name.
fn catalog_key(w: &World, b: usize) -> (Reverse<i32>, bool, String) {
    match w.bundles[b].catalog {
        Some(c) => {
            let (name, priority) = &w.catalogs[c];
            let local = w.request.local_catalogs.contains(name);
            (Reverse(*priority), !local, name.clone())
        }
        None => (Reverse(0), true, "@installed".into()),
    }
}

/// Sorts `list` by `key`, then by higher version and name.
fn sort<K: Ord>(w: &World, list: &mut [usize], key: impl Fn(usize) -> K) {
    list.sort_by(|&a, &b| {
        key(a).cmp(&key(b)).then_with(|| {
            let (x, y) = (&w.bundles[a], &w.bundles[b]);
            y.version
                .precedence(&x.version)
                .then_with(|| x.name.cmp(&y.name))
        })
    });
}

/// Requirement `r`'s candidates, most preferred first.
pub fn requirement_candidates(w: &World, r: usize) -> Vec<usize> {
    let q = &w.request.require[r];
    let mut cands: Vec<usize> = (0..w.bundles.len()).filter(|&b| w.meets(q, b)).collect();
    let only = if q.bundle.is_some() {
        None
    } else {
        q.channel.as_deref()
    };
    let head = |b: usize| {
        (
            !w.preferred[b],
            w.bundles[b].catalog_deprecated,
            catalog_key(w, b),
        )
    };
    match w.installed_of(&q.package) {
        Some(i) if w.fits(q, i) => {
            cands.retain(|&b| b != i);
            sort(w, &mut cands, |b| {
                let (not_default, channel, distance) = channel_key(w, b, only);
                (head(b), not_default, distance, channel)
            });
            cands.push(i);
        }
        _ => sort(w, &mut cands, |b| (head(b), channel_key(w, b, only))),
    }
    cands
}

/// Candidates of dependency `d` of `a`, most preferred first.
pub fn dependency_candidates(w: &World, a: usize, d: usize) -> Vec<usize> {
    let mut cands = w.providers(a, d);
    let own = w.bundles[a].catalog;
    sort(w, &mut cands, |b| {
        let (not_default, channel, distance) = channel_key(w, b, None);
        (
            !w.preferred[b],
            w.bundles[b].catalog_deprecated,
            !w.is_installed(b),
            own.is_none() || w.bundles[b].catalog != own,
            catalog_key(w, b),
            not_default,
            w.bundles[b].package.clone(),
            channel,
            distance,
        )
    });
    cands
}

enum Item {
    Requirement(usize),
    Bundle(usize),
}

/// The §5 answer, in selection order; None when no valid selection exists. `valid` lists
/// every valid selection as a bit mask ([`super::Masks::all_valid`]).
pub fn preferred_answer(w: &World, valid: &[u32]) -> Option<Vec<usize>> {
    let extendable = |m: u32| valid.iter().any(|s| s & m == m);
    let mut sel: Vec<usize> = Vec::new();
    let mut mask = 0u32;
    let mut queue: Vec<Item> = (0..w.request.require.len())
        .map(Item::Requirement)
        .collect();
    for k in w.kept() {
        if mask & (1 << k) == 0 {
            sel.push(k);
            mask |= 1 << k;
            queue.push(Item::Bundle(k));
        }
    }
    if !extendable(mask) {
        return None;
    }
    let mut next = 0;
    while let Some(item) = queue.get(next) {
        next += 1;
        let lists: Vec<Vec<usize>> = match *item {
            Item::Requirement(r) => vec![requirement_candidates(w, r)],
            Item::Bundle(b) => (0..w.bundles[b].deps.len())
                .filter(|&d| !w.cluster_meets(b, d))
                .map(|d| dependency_candidates(w, b, d))
                .collect(),
        };
        for list in lists {
            if list.iter().any(|c| mask & (1 << c) != 0) {
                continue;
            }
            let pick = *list
                .iter()
                .find(|&&c| extendable(mask | 1 << c))
                .expect("a valid selection extending the answer meets this dependency");
            sel.push(pick);
            mask |= 1 << pick;
            queue.push(Item::Bundle(pick));
        }
    }
    Some(sel)
}
