//! Projections read through: a demanded relation that one rule defines as a projection of
//! another demanded or an input relation (`IsExcluded(b) <- Excluded(b, _);`,
//! `Member(b) <- ChannelMember(b, _, _);`) is read, wherever a rule names it, as that
//! relation with the other arguments ignored (`!Excluded(b, _)`), so the evaluator keeps one
//! memo for both and asks it once, or none and looks the input up.

use std::collections::BTreeSet;

use super::parse::{Arg, Atom, Clause, Kind, Program, Rule};

/// The rule defining `rel` as a projection of a demanded relation, if it is one: `rel` is
/// neither an input, an output, asked by the driver nor derived forward; one rule derives it,
/// its head's arguments are distinct variables, and its body is one atom of another relation
/// not derived forward, whose arguments are `_` or variables used once.
fn projection<'p>(
    p: &'p Program,
    rel: &str,
    keep: &dyn Fn(&str) -> bool,
    propagated: &BTreeSet<String>,
) -> Option<&'p Rule> {
    let r = p.relation(rel)?;
    if r.kind != Kind::Internal || keep(rel) || propagated.contains(rel) {
        return None;
    }
    let mut rules = p.rules.iter().filter(|x| x.head.rel == rel);
    let rule = rules.next()?;
    if rules.next().is_some() {
        return None;
    }
    let [Clause::Atom(body)] = rule.body.as_slice() else {
        return None;
    };
    p.relation(&body.rel)?;
    if body.negated || body.rel == rel || propagated.contains(&body.rel) {
        return None;
    }
    let mut head = BTreeSet::new();
    for a in &rule.head.args {
        let Arg::Var(v) = a else { return None };
        if !head.insert(v.as_str()) {
            return None;
        }
    }
    let mut seen = BTreeSet::new();
    for a in &body.args {
        match a {
            Arg::Ignored => {}
            Arg::Var(v) if seen.insert(v.as_str()) => {}
            _ => return None,
        }
    }
    head.is_subset(&seen).then_some(rule)
}

/// `atom` of projection `def` read as `def`'s body atom.
fn read_through(atom: &Atom, def: &Rule) -> Atom {
    let Some(Clause::Atom(body)) = def.body.first() else {
        return atom.clone();
    };
    let args = (body.args.iter())
        .map(|b| match b {
            Arg::Var(v) => def
                .head_position(v)
                .map_or(Arg::Ignored, |i| atom.args[i].clone()),
            _ => Arg::Ignored,
        })
        .collect();
    Atom {
        negated: atom.negated,
        rel: body.rel.clone(),
        args,
    }
}

/// `p` with every atom of a projection read through (module documentation); `keep` names the
/// relations the driver asks for, which stay as they are.
pub fn read_projections_through(
    p: &Program,
    keep: &dyn Fn(&str) -> bool,
    propagated: &BTreeSet<String>,
) -> Program {
    let mut out = p.clone();
    // A projection of a projection is read through in a later round.
    for _ in 0..p.relations.len() {
        let mut changed = false;
        let snapshot = out.clone();
        for rule in &mut out.rules {
            for c in &mut rule.body {
                let Clause::Atom(a) = c else { continue };
                if let Some(def) = projection(&snapshot, &a.rel, keep, propagated) {
                    *a = read_through(a, def);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    out
}
