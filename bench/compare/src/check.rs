//! The one independent checker every engine's answer is held against. It reads only the
//! model (not any engine's encoding, and none of deppy's code).

use crate::model::{Dep, Model, VERSIONS, pkg_of, ver_of};

/// Checks a selected set of bundles; returns the first violation in words.
pub fn check(m: &Model, selected: &[usize]) -> Result<(), String> {
    let mut on = vec![false; m.bundles.len()];
    for &b in selected {
        if b >= on.len() {
            return Err(format!("bundle index {b} out of range"));
        }
        if on[b] {
            return Err(format!("{} selected twice", m.bundle_name(b)));
        }
        on[b] = true;
    }
    // at most one bundle per package
    let mut chosen: Vec<Option<u8>> = vec![None; m.n];
    for &b in selected {
        let p = pkg_of(b) as usize;
        if let Some(v) = chosen[p] {
            return Err(format!(
                "two bundles of {}: versions index {v} and {}",
                m.names[p],
                ver_of(b)
            ));
        }
        chosen[p] = Some(ver_of(b));
    }
    // at most one provider per shared GVK
    for (k, provs) in m.gvk_providers.iter().enumerate() {
        let mut count = 0;
        for (p, from) in provs {
            if let Some(v) = chosen[*p as usize]
                && v >= *from
            {
                count += 1;
            }
        }
        if count > 1 {
            return Err(format!("{count} providers of shared GVK S{k} selected"));
        }
    }
    let satisfied = |d: &Dep| -> bool {
        match d {
            Dep::Pkg(r) => chosen[r.pkg as usize].is_some_and(|v| r.lo <= v && v < r.hi),
            Dep::Gvk(k) => m.gvk_providers[*k as usize]
                .iter()
                .any(|(p, from)| chosen[*p as usize].is_some_and(|v| v >= *from)),
        }
    };
    for &p in &m.roots {
        if chosen[p as usize].is_none() {
            return Err(format!("root {} not satisfied", m.names[p as usize]));
        }
    }
    for &b in selected {
        let bundle = &m.bundles[b];
        for d in &bundle.deps {
            if !satisfied(d) {
                return Err(format!(
                    "{}: dependency {d:?} not satisfied",
                    m.bundle_name(b)
                ));
            }
        }
        for r in &bundle.conflicts {
            if let Some(v) = chosen[r.pkg as usize]
                && r.lo <= v
                && v < r.hi
            {
                return Err(format!(
                    "{} conflicts with selected {}",
                    m.bundle_name(b),
                    m.bundle_name(r.pkg as usize * VERSIONS + v as usize)
                ));
            }
        }
    }
    Ok(())
}

/// Preference quality of a selection: how many versions below its package's newest each
/// selected bundle is, summed (0 = every selected bundle is its package's newest). Beside the
/// selection's size, this compares answers that are all valid but not equally good.
pub fn older(selected: &[usize]) -> usize {
    selected
        .iter()
        .map(|b| VERSIONS - 1 - ver_of(*b) as usize)
        .sum()
}
