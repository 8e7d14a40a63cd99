//! The rule compiler (`build_support/`) on a rule set of its own (`tests/rules/graph.dl`):
//! build.rs compiles it into crepe's program and into the on-demand evaluator, and every
//! answer of the evaluator, on random graphs, is held against crepe's whole program: the
//! tuples derived forward (all of them once every reached node is expanded, a subset
//! before), and every query answered. Then the compiler's refusals: a rule it cannot
//! express fails with a message naming the rule's file and line.

use std::collections::BTreeSet;

use proptest::prelude::*;

#[path = "../build_support/mod.rs"]
#[allow(unused_imports)]
mod build_support;

/// Why a node is bad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Why {
    /// It is blocked.
    Blocked,
    /// Its name is empty.
    Unnamed,
    /// An edge out of it weighs this much.
    Heavy(u32),
}

/// The program build.rs generated from `tests/rules/`: crepe's, `Outputs`, `OnDemand`.
#[allow(dead_code, clippy::all)]
mod program {
    pub use super::{Lookups, Why};
    include!(concat!(env!("OUT_DIR"), "/generator_test.rs"));
}

/// A graph's facts, as lookups (one per input relation and pattern the rules need).
#[derive(Debug)]
pub struct Lookups<'a> {
    nodes: Vec<(u32, &'a str)>,
    edges: Vec<(u32, u32, u32)>,
    starts: Vec<u32>,
    blocked: Vec<u32>,
}

impl<'a> Lookups<'a> {
    pub fn node_bf(&self, n: u32) -> impl Iterator<Item = &'a str> + '_ {
        self.nodes.iter().filter(move |x| x.0 == n).map(|x| x.1)
    }
    pub fn node_fb(&self, name: &'a str) -> impl Iterator<Item = u32> + '_ {
        self.nodes.iter().filter(move |x| x.1 == name).map(|x| x.0)
    }
    pub fn node_ff(&self) -> impl Iterator<Item = (u32, &'a str)> + '_ {
        self.nodes.iter().copied()
    }
    pub fn edge_bff(&self, a: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.edges
            .iter()
            .filter(move |x| x.0 == a)
            .map(|x| (x.1, x.2))
    }
    pub fn edge_fff(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.edges.iter().copied()
    }
    pub fn start_f(&self) -> impl Iterator<Item = u32> + '_ {
        self.starts.iter().copied()
    }
    pub fn start_b(&self, n: u32) -> bool {
        self.starts.contains(&n)
    }
    pub fn blocked_b(&self, n: u32) -> bool {
        self.blocked.contains(&n)
    }
    pub fn blocked_f(&self) -> impl Iterator<Item = u32> + '_ {
        self.blocked.iter().copied()
    }
}

const NAMES: [&str; 5] = ["", "a", "to3", "to9", "b"];

/// A random graph over nodes 0..12.
fn graph() -> impl Strategy<Value = Lookups<'static>> {
    let node = (0u32..12, 0usize..NAMES.len()).prop_map(|(n, k)| (n, NAMES[k]));
    (
        prop::collection::vec(node, 0..14),
        prop::collection::vec((0u32..12, 0u32..12, 0u32..11), 0..30),
        prop::collection::vec(0u32..12, 0..4),
        prop::collection::vec(0u32..12, 0..3),
    )
        .prop_map(|(nodes, edges, starts, blocked)| Lookups {
            nodes,
            edges,
            starts,
            blocked,
        })
}

/// crepe's whole program over the facts of `l`.
fn whole<'a>(l: &Lookups<'a>) -> program::Outputs<'a> {
    let mut rt = program::Crepe::new();
    rt.extend(l.nodes.iter().map(|&(n, s)| program::Node(n, s)));
    rt.extend(l.edges.iter().map(|&(a, b, w)| program::Edge(a, b, w)));
    rt.extend(l.starts.iter().map(|&n| program::Start(n)));
    rt.extend(l.blocked.iter().map(|&n| program::Blocked(n)));
    rt.run_with_hasher::<rustc_hash::FxBuildHasher>().into()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Before any expansion only the rules that need none have fired; expanding part of the
    /// reached nodes derives a part of the whole program's tuples; expanding all of them,
    /// all; and every query answered on the way is the whole program's.
    #[test]
    fn the_evaluator_derives_what_crepe_derives(l in graph(), order in prop::collection::vec(any::<u16>(), 0..12)) {
        let all = whole(&l);
        let mut ev = program::OnDemand::new(&l);
        prop_assert!(ev.step.log.is_empty(), "a step derived before any expansion");
        let starts: BTreeSet<u32> = ev.reached.log.iter().map(|r| r.0).collect();
        prop_assert!(starts.iter().all(|n| l.starts.contains(n)));
        for n in 0..12 {
            ev.bad_bf(n);
        }
        ev.kin_ff();
        // expand some reached nodes, in an order the test picks
        for k in &order {
            let log = &ev.reached.log;
            if log.is_empty() { break; }
            let r = log[*k as usize % log.len()];
            ev.expand_reached(r);
        }
        ev.agrees_with(&all, false).map_err(TestCaseError::fail)?;
        // then every reached node
        while let Some(r) = ev.reached.log.iter().copied().find(|r| !expanded(&ev, *r)) {
            ev.expand_reached(r);
        }
        let compared = ev.agrees_with(&all, true).map_err(TestCaseError::fail)?;
        prop_assert!(compared >= all.reached.len());
        prop_assert_eq!(ev.bad_ff().len(), all.bad.len());
    }
}

fn expanded(ev: &program::OnDemand<'_, '_>, r: program::Reached) -> bool {
    ev.is_expanded(&r)
}

/// The first rule of `Bad` whose head matches names the reason a reader prefers.
#[test]
fn rule_order_is_the_order_of_the_rules() {
    assert_eq!(program::Bad(1, Why::Blocked).rule_order(), 0);
    assert_eq!(program::Bad(1, Why::Unnamed).rule_order(), 1);
    assert_eq!(program::Bad(1, Why::Heavy(9)).rule_order(), 2);
}

/// The compiler's answer for `graph.dl` plus `extra` lines, with `lookups` written.
fn compile(extra: &str, lookups: &[(&str, &str)]) -> Result<String, String> {
    compile_asking(extra, lookups, &[("Bad", "bf")])
}

/// The same, with the driver asking `queries`.
fn compile_asking(
    extra: &str,
    lookups: &[(&str, &str)],
    queries: &[(&str, &str)],
) -> Result<String, String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rules/graph.dl"))
            .expect("graph.dl")
            + extra;
    let lines = text.lines().count();
    let files = [build_support::RuleFile {
        name: "graph.dl".into(),
        text,
    }];
    let program = build_support::parse(&files)?;
    let lookups: Vec<(String, String)> = lookups
        .iter()
        .map(|(r, p)| (r.to_string(), p.to_string()))
        .collect();
    let cfg = build_support::Config {
        expanded: Some("Reached"),
        queries,
        lookups: &lookups,
        lookups_type: "Lookups",
    };
    let _ = lines;
    build_support::emit::evaluator(&program, &cfg)
}

const ALL_LOOKUPS: &[(&str, &str)] = &[
    ("Node", "bf"),
    ("Node", "fb"),
    ("Node", "ff"),
    ("Edge", "bff"),
    ("Edge", "fff"),
    ("Start", "f"),
    ("Blocked", "b"),
    ("Blocked", "f"),
];

/// The line `extra`'s first rule is on, after graph.dl.
fn line_after() -> usize {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rules/graph.dl"))
            .expect("graph.dl");
    text.lines().count() + 2
}

#[test]
fn the_shipped_test_rules_compile() {
    compile("", ALL_LOOKUPS).expect("compiles");
}

#[test]
fn negating_a_relation_derived_forward_fails_naming_the_rule() {
    let extra =
        "\n// Unreached.\nstruct Unreached(u32);\nUnreached(n) <- Node(n, _), !Reached(n);\n";
    let e = compile(extra, ALL_LOOKUPS).expect_err("refused");
    let at = format!("graph.dl:{}", line_after() + 2);
    assert!(e.contains(&at) && e.contains("negates Reached"), "{e}");
}

#[test]
fn joining_two_relations_derived_forward_fails_naming_the_rule() {
    let extra = "\n// Both.\nstruct Both(u32, u32);\nBoth(a, b) <- Reached(a), Step(a, b, _);\n";
    let e = compile(extra, ALL_LOOKUPS).expect_err("refused");
    let at = format!("graph.dl:{}", line_after() + 2);
    assert!(e.contains(&at) && e.contains("joins 2 relations"), "{e}");
}

#[test]
fn a_pattern_no_lookup_serves_fails_naming_the_rule_and_the_lookup() {
    let without: Vec<(&str, &str)> = ALL_LOOKUPS
        .iter()
        .copied()
        .filter(|l| *l != ("Edge", "fff"))
        .collect();
    let e = compile("", &without).expect_err("refused");
    assert!(
        e.contains("graph.dl:") && e.contains("looked up as `edge_"),
        "{e}"
    );
}

#[test]
fn a_recursive_demanded_relation_is_derived_forward() {
    // HeavyPath is recursive and read by no expansion: derived whole, as crepe does
    let code = compile("", ALL_LOOKUPS).expect("compiles");
    assert!(code.contains("pub heavy_path: Table<HeavyPath>"), "{code}");
}

#[test]
fn a_driver_query_binding_every_argument_is_refused() {
    let e = compile_asking("", ALL_LOOKUPS, &[("Bad", "bb")]).expect_err("refused");
    assert!(
        e.contains("Bad_bb") && e.contains("binds every argument"),
        "{e}"
    );
}

#[test]
fn an_atom_asked_only_whether_a_tuple_exists_is_an_existence_test() {
    let code = compile("", ALL_LOOKUPS).expect("compiles");
    assert!(
        code.contains("fn q_kin_bi(&mut self, k0: u32) -> bool"),
        "{code}"
    );
    assert!(!code.contains("m_kin_bi"), "{code}");
}
