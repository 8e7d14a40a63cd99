//! What the on-demand evaluator does with each relation, from the rules' dependency graph.
//!
//! - A relation of a recursive component (a cycle of rules), of the expanded relation's
//!   component, or one that a rule derives from such a relation, is *propagated*: derived
//!   forward, rule by rule, from each new tuple of the one propagated relation in the rule's
//!   body (its *delta*). The expanded relation's own recursion is *deferred*: the rules that
//!   derive its component from one of its tuples fire only when the driver expands that
//!   tuple, so a search derives the dependencies of a bundle when it selects the bundle.
//! - Every other derived relation is *demanded*: evaluated top-down for the arguments a
//!   rule or the driver binds, and kept per binding.
//!
//! Negation follows the strata: a rule may negate a demanded or input relation (evaluated
//! completely for the bound arguments before the negation is read), never a propagated one.

use std::collections::{BTreeMap, BTreeSet};

use super::parse::{Clause, Kind, Program, Rule};

/// Each derived relation's role, and the rules each role fires.
pub struct Analysis {
    /// Relations derived forward.
    pub propagated: BTreeSet<String>,
    /// The expanded relation, when the program has one.
    pub expanded: Option<String>,
    /// The relations of the expanded relation's component.
    pub expanded_component: BTreeSet<String>,
}

impl Analysis {
    /// True when `rel` is derived forward.
    pub fn is_propagated(&self, rel: &str) -> bool {
        self.propagated.contains(rel)
    }

    /// The body clause of `rule` that is its delta (its one propagated atom), if any.
    pub fn delta(&self, rule: &Rule) -> Option<usize> {
        rule.body
            .iter()
            .position(|c| matches!(c, Clause::Atom(a) if !a.negated && self.is_propagated(&a.rel)))
    }

    /// True when `rule` fires only as the driver expands a tuple of its delta.
    pub fn deferred(&self, rule: &Rule) -> bool {
        let Some(d) = self.delta(rule) else {
            return false;
        };
        let Clause::Atom(a) = &rule.body[d] else {
            return false;
        };
        self.expanded.as_deref() == Some(a.rel.as_str())
            && self.expanded_component.contains(&rule.head.rel)
    }
}

/// The positive and negative dependencies of each derived relation.
fn edges(p: &Program) -> BTreeMap<&str, Vec<(&str, bool)>> {
    let mut out: BTreeMap<&str, Vec<(&str, bool)>> = BTreeMap::new();
    for rule in &p.rules {
        let e = out.entry(rule.head.rel.as_str()).or_default();
        for c in &rule.body {
            if let Clause::Atom(a) = c {
                e.push((a.rel.as_str(), a.negated));
            }
        }
    }
    out
}

/// Strongly connected components (Tarjan), each a set of relation names.
fn components<'p>(
    nodes: &[&'p str],
    edges: &BTreeMap<&'p str, Vec<(&'p str, bool)>>,
) -> Vec<BTreeSet<&'p str>> {
    struct State<'p> {
        index: BTreeMap<&'p str, usize>,
        low: BTreeMap<&'p str, usize>,
        stack: Vec<&'p str>,
        on: BTreeSet<&'p str>,
        out: Vec<BTreeSet<&'p str>>,
    }
    fn visit<'p>(v: &'p str, e: &BTreeMap<&'p str, Vec<(&'p str, bool)>>, s: &mut State<'p>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on.insert(v);
        for &(w, _) in e.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, e, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut c = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                c.insert(w);
                if w == v {
                    break;
                }
            }
            s.out.push(c);
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in nodes {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.out
}

/// Checks the program's shape and classifies its relations (module documentation).
pub fn analyze(p: &Program, expanded: Option<&str>) -> Result<Analysis, String> {
    for rule in &p.rules {
        let Some(head) = p.relation(&rule.head.rel) else {
            return Err(format!(
                "{}: `{}` derives the undeclared relation {}",
                rule.at(),
                rule.text,
                rule.head.rel
            ));
        };
        if head.kind == Kind::Input {
            return Err(format!(
                "{}: `{}` derives {}, an input relation",
                rule.at(),
                rule.text,
                head.name
            ));
        }
        for c in &rule.body {
            if let Clause::Atom(a) = c {
                let Some(r) = p.relation(&a.rel) else {
                    return Err(format!(
                        "{}: `{}` reads the undeclared relation {}",
                        rule.at(),
                        rule.text,
                        a.rel
                    ));
                };
                if r.fields.len() != a.args.len() {
                    return Err(format!(
                        "{}: `{}` gives {} {} arguments, it has {}",
                        rule.at(),
                        rule.text,
                        a.rel,
                        a.args.len(),
                        r.fields.len()
                    ));
                }
            }
        }
    }
    let e = edges(p);
    let nodes: Vec<&str> = p.relations.iter().map(|r| r.name.as_str()).collect();
    let comps = components(&nodes, &e);
    let mut propagated: BTreeSet<String> = BTreeSet::new();
    let mut expanded_component = BTreeSet::new();
    if let Some(x) = expanded
        && p.relation(x).is_none_or(|r| r.kind == Kind::Input)
    {
        return Err(format!(
            "the expanded relation {x} is not a derived relation of the rules"
        ));
    }
    for c in &comps {
        let recursive = c.len() > 1
            || c.iter()
                .any(|v| e.get(v).is_some_and(|d| d.iter().any(|(w, _)| w == v)));
        let holds_expanded = expanded.is_some_and(|x| c.contains(x));
        if holds_expanded {
            expanded_component = c.iter().map(|s| s.to_string()).collect();
        }
        if recursive || holds_expanded {
            propagated.extend(c.iter().map(|s| s.to_string()));
        }
    }
    loop {
        let before = propagated.len();
        for rule in &p.rules {
            let reads = rule
                .body
                .iter()
                .any(|c| matches!(c, Clause::Atom(a) if !a.negated && propagated.contains(&a.rel)));
            if reads {
                propagated.insert(rule.head.rel.clone());
            }
        }
        if propagated.len() == before {
            break;
        }
    }
    let a = Analysis {
        propagated,
        expanded: expanded.map(str::to_string),
        expanded_component,
    };
    for rule in &p.rules {
        check_rule(&a, rule)?;
    }
    Ok(a)
}

/// A rule negates no propagated relation and reads at most one.
fn check_rule(a: &Analysis, rule: &Rule) -> Result<(), String> {
    let mut read = Vec::new();
    for c in &rule.body {
        let Clause::Atom(atom) = c else { continue };
        if !a.is_propagated(&atom.rel) {
            continue;
        }
        if atom.negated {
            return Err(format!(
                "{}: `{}` negates {}, which is derived forward from the expanded or a recursive relation: the on-demand evaluator cannot negate it (docs/rules.md, Limits)",
                rule.at(),
                rule.text,
                atom.rel
            ));
        }
        read.push(atom.rel.as_str());
    }
    if read.len() > 1 {
        return Err(format!(
            "{}: `{}` joins {} relations derived forward ({}): the on-demand evaluator joins one per rule (docs/rules.md, Limits)",
            rule.at(),
            rule.text,
            read.len(),
            read.join(", ")
        ));
    }
    Ok(())
}
