//! Pictures: a package's channel graphs (replaces, skips and skipRange edges, heads marked)
//! and a resolution (requirements, selected bundles, dependency edges; on failure the
//! bundles of the proof highlighted, and the bundles that would have met their requirements
//! and dependencies, with why they are not candidates), as Graphviz DOT or Mermaid.

use std::collections::BTreeSet;

use crate::catalog::{CatalogSet, ChannelGraph};
use crate::resolve::reason::{Exclusion, Mismatch, Reason, Rejection};
use crate::resolve::{Model, Outcome, Subject, Universe};
use crate::solver::{Constraint, Var};

/// Output syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Graphviz DOT.
    Dot,
    /// Mermaid flowchart.
    Mermaid,
}

/// Edge styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Style {
    Replaces,
    Skips,
    SkipRange,
    Needs,
    Chosen,
    Excluded,
}

/// A node: id, label, highlighted.
type Node = (String, String, bool);

/// A graph being built: named groups of nodes, and edges.
#[derive(Default)]
struct Picture {
    groups: Vec<(String, Vec<Node>)>,
    edges: BTreeSet<(String, String, Style, String)>,
}

fn id(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl Picture {
    fn dot(&self) -> String {
        let mut out = String::from(
            "digraph deppy {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n",
        );
        for (gi, (name, nodes)) in self.groups.iter().enumerate() {
            out.push_str(&format!(
                "  subgraph cluster_{gi} {{\n    label={name:?};\n"
            ));
            for (nid, label, hi) in nodes {
                let extra = match (*hi, label.ends_with("(head)")) {
                    (true, true) => ", style=bold, peripheries=2",
                    (true, false) => ", style=\"bold,filled\", fillcolor=\"#ffd6d6\"",
                    (false, _) => "",
                };
                out.push_str(&format!("    {nid} [label={label:?}{extra}];\n"));
            }
            out.push_str("  }\n");
        }
        for (a, b, style, label) in &self.edges {
            let attrs = match style {
                Style::Replaces => "",
                Style::Skips => "style=dashed, ",
                Style::SkipRange => "style=dotted, ",
                Style::Needs => "color=\"#c00000\", ",
                Style::Chosen => "",
                Style::Excluded => "style=dashed, color=\"#808080\", ",
            };
            out.push_str(&format!("  {a} -> {b} [{attrs}label={label:?}];\n"));
        }
        out.push_str("}\n");
        out
    }

    fn mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        for (gi, (name, nodes)) in self.groups.iter().enumerate() {
            out.push_str(&format!(
                "  subgraph g{gi}[\"{}\"]\n",
                name.replace('"', "'")
            ));
            for (nid, label, hi) in nodes {
                out.push_str(&format!("    {nid}[\"{}\"]\n", label.replace('"', "'")));
                if *hi && label.ends_with("(head)") {
                    out.push_str(&format!("    style {nid} stroke-width:3px\n"));
                } else if *hi {
                    out.push_str(&format!("    style {nid} fill:#ffd6d6,stroke:#c00000\n"));
                }
            }
            out.push_str("  end\n");
        }
        for (a, b, style, label) in &self.edges {
            let arrow = match style {
                Style::Skips | Style::SkipRange | Style::Excluded => "-.->",
                _ => "-->",
            };
            out.push_str(&format!("  {a} {arrow}|{label}| {b}\n"));
        }
        out
    }

    fn render(&self, syntax: Syntax) -> String {
        match syntax {
            Syntax::Dot => self.dot(),
            Syntax::Mermaid => self.mermaid(),
        }
    }
}

/// The channel graphs of `package` in every catalog: one group per catalog and channel,
/// entries as nodes (the head in bold), an edge from each entry to what it replaces, skips
/// or covers by its skipRange. None when no catalog has the package.
pub fn channels(set: &CatalogSet, package: &str, syntax: Syntax) -> Option<String> {
    let p = set.package_id(package)?;
    let mut pic = Picture::default();
    for entry in set.package_entries(p) {
        let catalog = set.catalog(entry.catalog).map_or("?", |c| c.name.as_str());
        for ch in &entry.channels {
            let g = ChannelGraph::build(ch).ok();
            let prefix = id(&format!("{catalog}_{}", ch.name));
            let node = |name: &str| format!("{prefix}__{}", id(name));
            let nodes = ch
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let head = g.as_ref().is_some_and(|g| g.head() == i);
                    let label = if head {
                        format!("{} (head)", e.name)
                    } else {
                        e.name.clone()
                    };
                    (node(&e.name), label, head)
                })
                .collect();
            pic.groups.push((format!("{catalog} / {}", ch.name), nodes));
            let names: rustc_hash::FxHashSet<&str> =
                ch.entries.iter().map(|x| x.name.as_str()).collect();
            for e in &ch.entries {
                if let Some(r) = &e.replaces
                    && names.contains(r.as_str())
                {
                    pic.edges
                        .insert((node(&e.name), node(r), Style::Replaces, "replaces".into()));
                }
                for s in e.skips.iter().filter(|s| names.contains(s.as_str())) {
                    pic.edges
                        .insert((node(&e.name), node(s), Style::Skips, "skips".into()));
                }
                let Some(range) = &e.skip_range else { continue };
                for x in &ch.entries {
                    let v = x.bundle.and_then(|b| set.bundle(b)).map(|b| &b.version);
                    if x.name != e.name && v.is_some_and(|v| range.matches(v)) {
                        let edge = (
                            node(&e.name),
                            node(&x.name),
                            Style::SkipRange,
                            "skipRange".into(),
                        );
                        pic.edges.insert(edge);
                    }
                }
            }
        }
    }
    Some(pic.render(syntax))
}

/// A resolution: requirements and the bundles they lead to. Resolved: each Dependency
/// constraint of a selected subject points to the candidate chosen for it. Unsatisfiable:
/// the subjects of the proof, highlighted, with every Dependency edge between them.
pub fn resolution(model: &Model, outcome: &Outcome, syntax: Syntax) -> String {
    let u = &model.universe;
    let subjects = model.subjects();
    let name = |v: Var| match subjects.get(v.0 as usize) {
        Some(Subject::Requirement(r)) => {
            let q = model.request.require.get(*r);
            format!("require {}", q.map_or("?", |q| q.package.as_str()))
        }
        Some(Subject::Bundle(b)) => u.bundle(*b).name.clone(),
        None => format!("v{}", v.0),
    };
    let (shown, failed): (Vec<bool>, bool) = match outcome {
        Outcome::Resolved(a) => {
            let chosen: rustc_hash::FxHashSet<_> = a.bundles.iter().copied().collect();
            let shown = subjects
                .iter()
                .map(|s| match s {
                    Subject::Requirement(_) => true,
                    Subject::Bundle(b) => chosen.contains(b),
                })
                .collect();
            (shown, false)
        }
        Outcome::Unsatisfiable(f) => {
            let mut on = vec![false; subjects.len()];
            for t in f.tree.nodes.iter().flat_map(|n| n.terms.iter()) {
                if let Some(x) = on.get_mut(t.var.0 as usize) {
                    *x = true;
                }
            }
            (on, true)
        }
    };
    let is = |v: &Var| shown.get(v.0 as usize).copied().unwrap_or(false);
    let mut pic = Picture::default();
    let mut nodes: Vec<Node> = Vec::new();
    for (i, _) in subjects
        .iter()
        .enumerate()
        .filter(|(i, _)| is(&Var(*i as u32)))
    {
        let v = Var(i as u32);
        nodes.push((format!("v{i}"), name(v), failed));
    }
    pic.groups.push((
        if failed {
            "unsatisfiable: the proof".into()
        } else {
            "answer".into()
        },
        nodes,
    ));
    let mut excluded: Vec<Node> = Vec::new();
    for e in model.problem().entries().iter().filter(|e| is(&e.subject)) {
        let Constraint::Dependency(list) = &e.constraint else {
            continue;
        };
        // A failure's dependency or requirement: the bundles that would have met it, and why
        // they do not.
        let out: Vec<(crate::catalog::BundleId, String)> = match (failed, &e.label) {
            (true, Reason::Dependency { excluded, .. }) => excluded
                .iter()
                .map(|(b, why)| (*b, format!("excluded: {}", why_excluded(u, *why))))
                .collect(),
            (true, Reason::RequirementCandidates { rejected, .. }) => rejected
                .iter()
                .map(|(b, why)| (*b, format!("rejected: {}", why_rejected(u, *why))))
                .collect(),
            _ => Vec::new(),
        };
        for (b, why) in out {
            let nid = format!("x{}", b.0);
            if !excluded.iter().any(|n| n.0 == nid) {
                excluded.push((nid.clone(), format!("{} ({why})", u.bundle(b).name), false));
            }
            let edge = (
                format!("v{}", e.subject.0),
                nid,
                Style::Excluded,
                "not a candidate".into(),
            );
            pic.edges.insert(edge);
        }
        let targets: Vec<&Var> = if failed {
            list.iter().filter(|v| is(v)).collect()
        } else {
            list.iter().find(|v| is(v)).into_iter().collect()
        };
        for t in targets {
            let style = if failed { Style::Needs } else { Style::Chosen };
            pic.edges.insert((
                format!("v{}", e.subject.0),
                format!("v{}", t.0),
                style,
                "needs".into(),
            ));
        }
    }
    if !excluded.is_empty() {
        pic.groups.push(("not candidates".into(), excluded));
    }
    pic.render(syntax)
}

/// Why a bundle is excluded, in a few words for a node label.
fn why_excluded(u: &Universe, e: Exclusion) -> String {
    match e {
        Exclusion::Removed(i) => u.rules.get(i as usize).map_or("removed".to_string(), |r| {
            format!("removed by {}", r.origin)
        }),
        Exclusion::Deprecated => "deprecated".to_string(),
        Exclusion::NotInChannel => "on no channel's upgrade path".to_string(),
        Exclusion::MalformedChannel => "only in a malformed channel".to_string(),
    }
}

/// Why a bundle of a required package is not one of its candidates, in a few words.
fn why_rejected(u: &Universe, r: Rejection) -> String {
    match r {
        Rejection::Excluded(e) => why_excluded(u, e),
        Rejection::Mismatch(Mismatch::OtherCatalog) => "another catalog".to_string(),
        Rejection::Mismatch(Mismatch::OtherChannel) => "another channel".to_string(),
        Rejection::Mismatch(Mismatch::OutOfRange) => "outside the range".to_string(),
        Rejection::Mismatch(Mismatch::NotPinned) => "not the pinned bundle".to_string(),
        Rejection::NotAnUpgrade => "not one upgrade edge away".to_string(),
    }
}
