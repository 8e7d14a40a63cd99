//! The on-demand evaluator's code: a struct `OnDemand` over the input lookups, with one
//! table per propagated relation, one memo per demanded relation and query pattern, and
//! functions that fire each rule (analyze.rs for the roles, plan.rs for each rule's steps).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::analyze::{Analysis, analyze};
use super::lex::{Tok, Token, print};
use super::parse::{Arg, Clause, Kind, Program, Relation, Rule};
use super::plan::{Catalog, Pattern, Planner, is_test, snake};
use super::runtime::RUNTIME;
use super::tables::{Keep, classify};

/// What the generator is told besides the rules.
pub struct Config<'c> {
    /// The relation the driver expands one tuple at a time (its recursion deferred).
    pub expanded: Option<&'c str>,
    /// The queries the driver asks of demanded relations: (relation, pattern).
    pub queries: &'c [(&'c str, &'c str)],
    /// The lookups written for the input relations: (relation, pattern), in order.
    pub lookups: &'c [(String, String)],
    /// The type the lookups are methods of (one lifetime parameter).
    pub lookups_type: &'c str,
}

struct Gen<'p, 'c> {
    p: &'p Program,
    a: Analysis,
    keep: BTreeMap<String, Keep>,
    cfg: &'c Config<'c>,
    todo: Vec<(String, Pattern)>,
    queries: BTreeSet<(String, Pattern)>,
}

impl Catalog for Gen<'_, '_> {
    fn is_input(&self, rel: &str) -> bool {
        self.p.relation(rel).is_some_and(|r| r.kind == Kind::Input)
    }

    fn lookups(&self, rel: &str) -> Vec<Pattern> {
        (self.cfg.lookups.iter())
            .filter(|(r, _)| r == rel)
            .map(|(_, p)| p.clone())
            .collect()
    }

    fn queryable(&self, rel: &str) -> Vec<bool> {
        self.head_vars(rel)
    }

    fn query(&mut self, rel: &str, bound: &[bool]) -> Pattern {
        let vars = self.head_vars(rel);
        let p: Pattern = (bound.iter().zip(&vars))
            .map(|(b, v)| if *b && *v { 'b' } else { 'f' })
            .collect();
        if self.queries.insert((rel.to_string(), p.clone())) {
            self.todo.push((rel.to_string(), p.clone()));
        }
        p
    }

    fn test(&mut self, rel: &str, bound: &[bool]) -> Option<Pattern> {
        let free: Pattern = bound.iter().map(|b| if *b { 'b' } else { 'f' }).collect();
        if self
            .cfg
            .queries
            .iter()
            .any(|(q, p)| *q == rel && *p == free)
        {
            return None;
        }
        let p = free.replace('f', "i");
        if self.queries.insert((rel.to_string(), p.clone())) {
            self.todo.push((rel.to_string(), p.clone()));
        }
        Some(p)
    }
}

/// The type of `r`'s tuples.
fn ty(r: &Relation) -> String {
    if r.borrows {
        format!("{}<'a>", r.name)
    } else {
        r.name.clone()
    }
}

/// A head argument as an expression, as crepe writes it.
fn head_arg(a: &Arg) -> String {
    match a {
        Arg::Var(v) => v.clone(),
        Arg::Expr(t) => print(t),
        Arg::Ignored | Arg::Ref(_) => "_".into(),
    }
}

/// A head argument as a pattern: a literal, a path to a constant or unit variant, or a
/// constructor of those (`Exclusion::Removed(i)` is `Exclusion::Removed(_)`); `_` else.
fn pattern(toks: &[Token]) -> String {
    let path = |t: &[Token]| {
        let shape = t.len() % 3 == 1
            && t.iter().enumerate().all(|(i, x)| match &x.tok {
                Tok::Ident(_) => i % 3 == 0,
                Tok::Punct(':') => i % 3 != 0,
                _ => false,
            });
        shape
            && matches!(t.last().map(|x| &x.tok), Some(Tok::Ident(i)) if i.starts_with(char::is_uppercase))
    };
    match toks {
        [t] => match &t.tok {
            Tok::Lit(l) => return l.clone(),
            Tok::Ident(i) if i == "true" || i == "false" => return i.clone(),
            _ => {}
        },
        [init @ .., last] if path(init) => {
            if let Tok::Group('(', inner) = &last.tok {
                let args: Vec<String> = super::parse::split_args(inner)
                    .iter()
                    .map(|a| pattern(a))
                    .collect();
                return format!("{}({})", print(init), args.join(", "));
            }
        }
        _ => {}
    }
    if path(toks) { print(toks) } else { "_".into() }
}

impl Gen<'_, '_> {
    fn rel(&self, name: &str) -> &Relation {
        self.p.relation(name).expect("checked by analyze")
    }

    /// Positions where every rule deriving `rel` has a variable in its head: the ones a
    /// query can bind.
    fn head_vars(&self, rel: &str) -> Vec<bool> {
        let n = self.rel(rel).fields.len();
        (0..n)
            .map(|i| {
                (self.p.rules.iter())
                    .filter(|r| r.head.rel == rel)
                    .all(|r| matches!(r.head.args[i], Arg::Var(_)))
            })
            .collect()
    }

    fn head(&self, rule: &Rule) -> String {
        let args: Vec<String> = rule.head.args.iter().map(head_arg).collect();
        format!("{}({})", rule.head.rel, args.join(", "))
    }

    /// One rule's code: entered from delta clause `delta` bound to `t`, or from the key
    /// parameters of `key`, or with nothing bound; `store` adds the head (empty: the rule is
    /// an existence test's, which answers true at its first tuple).
    fn rule_code(
        &mut self,
        rule: &Rule,
        delta: Option<usize>,
        key: Option<&str>,
        store: &str,
    ) -> Result<String, String> {
        let mut plan = Planner::new(rule, BTreeSet::new());
        if let Some(d) = delta {
            let Clause::Atom(a) = &rule.body[d] else {
                unreachable!("a delta is an atom")
            };
            plan.delta(a, "t");
        }
        if let Some(p) = key {
            for (i, c) in p.char_indices() {
                if let (Arg::Var(v), 'b') = (&rule.head.args[i], c) {
                    plan.key(v, &format!("k{i}"));
                }
            }
        }
        plan.clauses(self, delta)?;
        let inner = if store.is_empty() {
            format!("let _ = {}; return true;", self.head(rule))
        } else {
            format!("{store}({});", self.head(rule))
        };
        Ok(format!(
            "// {}: {}\n{{\n{}\n}}\n",
            rule.at(),
            rule.text,
            plan.nest.wrap(&inner)
        ))
    }

    /// The rules of propagated relations: their firing from each delta, the expansion, and
    /// the rules with no propagated atom, fired once.
    fn propagation(&mut self, out: &mut String) -> Result<Vec<String>, String> {
        let mut fired = Vec::new();
        let p = self.p;
        let mut base = String::new();
        let mut expand = String::new();
        let mut fire: BTreeMap<String, String> = BTreeMap::new();
        for rule in &p.rules {
            if !self.a.is_propagated(&rule.head.rel) {
                continue;
            }
            let store = format!("self.ins_{}", snake(&rule.head.rel));
            match self.a.delta(rule) {
                None => base.push_str(&self.rule_code(rule, None, None, &store)?),
                Some(d) => {
                    let Clause::Atom(atom) = &rule.body[d] else {
                        continue;
                    };
                    let code = self.rule_code(rule, Some(d), None, &store)?;
                    if self.a.deferred(rule) {
                        expand.push_str(&code);
                    } else {
                        fire.entry(atom.rel.clone()).or_default().push_str(&code);
                    }
                }
            }
        }
        let _ = writeln!(
            out,
            "fn base(&mut self) {{ let facts = self.facts; {base} }}"
        );
        for (rel, code) in &fire {
            let r = self.rel(rel);
            let tables: Vec<(&String, usize)> = (self.keep.iter())
                .filter(|(_, k)| matches!(k, Keep::Fired(d) if d == rel))
                .map(|(t, _)| (t, self.rel(t).fields.len()))
                .collect();
            let (starts, ends) = step_bounds(&tables);
            let _ = writeln!(
                out,
                "fn fire_{}(&mut self, t: {}) {{ {starts} let facts = self.facts; {code} {ends} }}",
                snake(rel),
                ty(r)
            );
            fired.push(rel.clone());
        }
        if let Some(x) = self.a.expanded.clone() {
            let r = self.rel(&x);
            let s = snake(&x);
            let scoped: Vec<(&String, usize)> = (self.keep.iter())
                .filter(|(_, k)| matches!(k, Keep::Scoped(_)))
                .map(|(t, _)| (t, self.rel(t).fields.len()))
                .collect();
            let (starts, ends) = step_bounds(&scoped);
            // The tuples the expansion's own rules derived lose their repeats before they
            // fire; what propagation adds, after.
            let mut mids = String::new();
            let mut again = String::new();
            for (t, arity) in &scoped {
                let n = snake(t);
                let _ = write!(mids, "let __m_{n} = self.{n}.log.len(); ");
                let _ = write!(
                    again,
                    "if self.{n}.log.len() != __m_{n} {{ {} }} ",
                    end_step(&n, *arity)
                );
            }
            let _ = writeln!(
                out,
                "/// Expands `t`: fires the rules that derive from it what the search asks for, then propagates.\npub fn expand_{s}(&mut self, t: {}) {{ if !self.expanded.insert(t) {{ return; }} self.ins_{s}(t); {starts} let facts = self.facts; {{ {expand} }} {ends} {mids} self.propagate(); {again} }}",
                ty(r)
            );
            let _ = writeln!(
                out,
                "/// True when `t` has been expanded.\npub fn is_expanded(&self, t: &{}) -> bool {{ self.expanded.contains(t) }}",
                ty(r)
            );
        }
        Ok(fired)
    }

    /// The query of demanded relation `rel` with pattern `p`.
    fn query_fn(&mut self, rel: &str, p: &str) -> Result<String, String> {
        let r = self.rel(rel).clone();
        let name = format!("{}_{p}", snake(rel));
        let params: Vec<String> = (p.char_indices())
            .filter(|(_, c)| *c == 'b')
            .map(|(i, _)| format!("k{i}: {}", r.fields[i]))
            .collect();
        let key = key_tuple(p, "k");
        let mut body = String::new();
        let rules: Vec<Rule> = (self.p.rules.iter())
            .filter(|x| x.head.rel == rel)
            .cloned()
            .collect();
        let exists = is_test(p);
        // An existence test stops at the first tuple a rule derives; a query keeps each
        // binding's answers in its memo.
        let store = if exists {
            String::new()
        } else {
            format!("self.m_{name}.rows.push")
        };
        for rule in &rules {
            let code = self.rule_code(rule, None, Some(p), &store);
            body.push_str(&code.map_err(|e| {
                format!("{e}\n  (evaluating {rel} with pattern `{p}`: `b` bound, `f` free)")
            })?);
        }
        if exists {
            return Ok(format!(
                "fn q_{name}(&mut self, {}) -> bool {{\n let facts = self.facts;\n{body}\n false\n}}\n",
                params.join(", ")
            ));
        }
        Ok(format!(
            "fn q_{name}(&mut self, {}) -> (u32, u32) {{\n if let Some(&r) = self.m_{name}.index.get(&{key}) {{ return r; }}\n let facts = self.facts; let start = self.m_{name}.rows.len();\n{body}\n dedup_tail(&mut self.m_{name}.rows, start);\n let r = (start as u32, self.m_{name}.rows.len() as u32); self.m_{name}.index.insert({key}, r); r\n}}\n",
            params.join(", ")
        ))
    }
}

/// The code around one step of the evaluation (a firing, an expansion) of tables that
/// remove their repeats at its end: their lengths when it starts, and the removal.
fn step_bounds(tables: &[(&String, usize)]) -> (String, String) {
    let mut starts = String::new();
    let mut ends = String::new();
    for (t, arity) in tables {
        let n = snake(t);
        let _ = write!(starts, "let __s_{n} = self.{n}.log.len(); ");
        let _ = write!(ends, "{} ", end_step(&n, *arity));
    }
    (starts, ends)
}

/// The end of a step of table `n` with `arity` fields: its tuples ordered by every field.
fn end_step(n: &str, arity: usize) -> String {
    let fields: String = (0..arity).map(|i| format!("t.{i}, ")).collect();
    format!("self.{n}.end_step(__s_{n}, |t| ({fields}));")
}

/// `(k0, k2,)`: the key of pattern `p` from variables named `prefix` + position.
fn key_tuple(p: &str, prefix: &str) -> String {
    let ks: Vec<String> = (p.char_indices())
        .filter(|(_, c)| *c == 'b')
        .map(|(i, _)| format!("{prefix}{i}"))
        .collect();
    format!("({},)", ks.join(", ")).replace("(,)", "()")
}

/// The key type of pattern `p` of `r`.
fn key_type(r: &Relation, p: &str) -> String {
    let ts: Vec<&str> = (p.char_indices())
        .filter(|(_, c)| *c == 'b')
        .map(|(i, _)| r.fields[i].as_str())
        .collect();
    format!("({},)", ts.join(", ")).replace("(,)", "()")
}

/// The evaluator of `p` (module documentation).
pub fn evaluator(p: &Program, cfg: &Config<'_>) -> Result<String, String> {
    let first = analyze(p, cfg.expanded)?;
    let asked = |rel: &str| cfg.queries.iter().any(|(q, _)| *q == rel);
    let read = super::alias::read_projections_through(p, &asked, &first.propagated);
    let p = &read;
    let a = analyze(p, cfg.expanded)?;
    let keep = classify(p, &a);
    let mut g = Gen {
        p,
        a,
        keep,
        cfg,
        todo: Vec::new(),
        queries: BTreeSet::new(),
    };
    for (rel, pat) in cfg.queries {
        let r = p
            .relation(rel)
            .ok_or_else(|| format!("the driver's query {rel}_{pat} names no relation"))?;
        if r.kind == Kind::Input || g.a.is_propagated(rel) || pat.len() != r.fields.len() {
            return Err(format!(
                "the driver's query {rel}_{pat} is not one of a demanded relation's patterns"
            ));
        }
        if is_test(pat) {
            return Err(format!(
                "the driver's query {rel}_{pat} binds every argument: ask it with one free"
            ));
        }
        let bound: Vec<bool> = pat.chars().map(|c| c == 'b').collect();
        let got = g.query(rel, &bound);
        if got != *pat {
            return Err(format!(
                "{rel}_{pat}: a rule's head has an expression where the driver binds an argument"
            ));
        }
    }
    let mut fns = String::new();
    let fired = g.propagation(&mut fns)?;
    while let Some((rel, pat)) = g.todo.pop() {
        let code = g.query_fn(&rel, &pat)?;
        fns.push_str(&code);
    }
    Ok(assemble(&g, &fired, &fns))
}

fn assemble(g: &Gen<'_, '_>, fired: &[String], fns: &str) -> String {
    let lt = g.cfg.lookups_type;
    let mut s = String::from(RUNTIME);
    s.push_str("\n/// The rules evaluated for what the driver asks (generated by build.rs).\npub struct OnDemand<'f, 'a> {\n    facts: &'f ");
    let _ = writeln!(s, "{lt}<'a>,");
    for rel in &g.a.propagated {
        let r = g.rel(rel);
        let _ = writeln!(
            s,
            "    /// `{rel}`, derived forward.\n    pub {}: Table<{}>,",
            snake(rel),
            ty(r)
        );
    }
    for (rel, pat) in g.queries.iter().filter(|(_, p)| !is_test(p)) {
        let r = g.rel(rel);
        let _ = writeln!(
            s,
            "    m_{}_{pat}: Memo<{}, {}>,",
            snake(rel),
            key_type(r, pat),
            ty(r)
        );
    }
    if let Some(x) = &g.a.expanded {
        let _ = writeln!(
            s,
            "    expanded: ::rustc_hash::FxHashSet<{}>,",
            ty(g.rel(x))
        );
    }
    s.push_str("}\n\n#[allow(dead_code, unused_variables, unused_parens, irrefutable_let_patterns, for_loops_over_fallibles, clippy::all)]\nimpl<'f, 'a> OnDemand<'f, 'a> {\n");
    let _ = writeln!(
        s,
        "    /// The rules over `facts`, with the rules that need no expansion fired.\n    pub fn new(facts: &'f {lt}<'a>) -> Self {{\n        let mut s = OnDemand {{ facts,"
    );
    for rel in &g.a.propagated {
        let _ = write!(s, " {}: Table::default(),", snake(rel));
    }
    for (rel, pat) in g.queries.iter().filter(|(_, p)| !is_test(p)) {
        let _ = write!(s, " m_{}_{pat}: Memo::default(),", snake(rel));
    }
    if g.a.expanded.is_some() {
        s.push_str(" expanded: Default::default(),");
    }
    s.push_str(" };\n        s.base();\n        s.propagate();\n        s\n    }\n\n");
    s.push_str("    /// Fires the rules of every tuple derived and not fired yet.\n    pub fn propagate(&mut self) {\n        loop {\n            let mut busy = false;\n");
    for rel in fired {
        let n = snake(rel);
        let _ = writeln!(
            s,
            "            while let Some(&t) = self.{n}.log.get(self.{n}.done) {{ self.{n}.done += 1; self.fire_{n}(t); busy = true; }}"
        );
    }
    s.push_str("            if !busy { break; }\n        }\n    }\n\n");
    for rel in &g.a.propagated {
        let n = snake(rel);
        let how = if g.keep.get(rel) == Some(&Keep::Hashed) {
            "insert"
        } else {
            "push"
        };
        let _ = writeln!(
            s,
            "    fn ins_{n}(&mut self, t: {}) {{ self.{n}.{how}(t); }}",
            ty(g.rel(rel))
        );
    }
    for (rel, pat) in g.cfg.queries {
        let r = g.rel(rel);
        let params: Vec<String> = (pat.char_indices())
            .filter(|(_, c)| *c == 'b')
            .map(|(i, _)| format!("k{i}: {}", r.fields[i]))
            .collect();
        let args: Vec<String> = (pat.char_indices())
            .filter(|(_, c)| *c == 'b')
            .map(|(i, _)| format!("k{i}"))
            .collect();
        let name = format!("{}_{pat}", snake(rel));
        let _ = writeln!(
            s,
            "    /// `{rel}` with the arguments marked `b` in `{pat}` bound.\n    pub fn {name}(&mut self, {}) -> &[{}] {{ let (s, e) = self.q_{name}({}); self.m_{name}.rows.get(s as usize..e as usize).unwrap_or_default() }}\n    /// Every answer of `{name}` so far, for every binding asked, in the order evaluated (each binding's answers once).\n    pub fn {name}_answers(&self) -> &[{t}] {{ &self.m_{name}.rows }}",
            params.join(", "),
            ty(r),
            args.join(", "),
            t = ty(r),
        );
    }
    s.push_str(fns);
    s.push_str(&agreement(g));
    s.push_str("}\n");
    s.push_str(&rule_orders(g));
    s
}

/// `agrees_with`: every tuple derived on demand is the whole program's; with `complete`
/// (every tuple of the expanded relation expanded), every propagated output is the whole
/// program's; and every query of a demanded output answered is the whole program's tuples
/// with those arguments.
fn agreement(g: &Gen<'_, '_>) -> String {
    let mut s = String::from(
        "    /// Holds what was derived against the whole program's outputs `whole`: every tuple derived forward is one of its (all of its when `complete`: every tuple of the expanded relation expanded), every query answered gives its tuples with the arguments bound. Returns the number of tuples and answers compared.\n    pub fn agrees_with(&self, whole: &Outputs<'a>, complete: bool) -> Result<usize, String> {\n        let mut n = 0;\n",
    );
    for rel in &g.a.propagated {
        if g.rel(rel).kind != Kind::Output {
            continue;
        }
        let f = snake(rel);
        let _ = writeln!(
            s,
            "        {{\n            let mine: ::rustc_hash::FxHashSet<_> = self.{f}.log.iter().copied().collect();\n            if mine.len() != self.{f}.log.len() {{ return Err(format!(\"{f}: a tuple derived twice on demand\")); }}\n            for t in &self.{f}.log {{ if !whole.{f}.contains(t) {{ return Err(format!(\"{{t:?}} derived on demand, not by the whole program\")); }} }}\n            n += self.{f}.log.len();\n            if complete {{ if let Some(t) = whole.{f}.iter().find(|t| !mine.contains(*t)) {{ return Err(format!(\"{{t:?}} derived by the whole program, not on demand\")); }} }}\n        }}"
        );
    }
    for (rel, pat) in &g.queries {
        let r = g.rel(rel);
        if r.kind != Kind::Output || is_test(pat) {
            continue;
        }
        let f = snake(rel);
        let m = format!("m_{f}_{pat}");
        let key: Vec<String> = (pat.char_indices())
            .filter(|(_, c)| *c == 'b')
            .map(|(i, _)| format!("t.{i}"))
            .collect();
        let key = format!("({},)", key.join(", ")).replace("(,)", "()");
        let _ = writeln!(
            s,
            "        {{\n            let mut by: ::rustc_hash::FxHashMap<{kt}, Vec<{t}>> = Default::default();\n            for t in &whole.{f} {{ by.entry({key}).or_default().push(*t); }}\n            for (k, &(s, e)) in &self.{m}.index {{\n                let mine = self.{m}.rows.get(s as usize..e as usize).unwrap_or_default();\n                let theirs = by.get(k).map_or(&[][..], |v| &v[..]);\n                if mine.len() != theirs.len() || mine.iter().any(|t| !theirs.contains(t)) {{\n                    return Err(format!(\"{rel}_{pat}{{k:?}}: on demand {{mine:?}}, whole program {{theirs:?}}\"));\n                }}\n                n += 1;\n            }}\n        }}",
            kt = key_type(r, pat),
            t = ty(r),
        );
    }
    s.push_str("        Ok(n)\n    }\n");
    s
}

/// `rule_order`: per output relation, the position (in file order) of the first of its
/// rules whose head matches a tuple, so a reader can prefer what the first rule says.
fn rule_orders(g: &Gen<'_, '_>) -> String {
    let mut s = String::new();
    for r in g.p.relations.iter().filter(|r| r.kind == Kind::Output) {
        let rules: Vec<&Rule> = g.p.rules.iter().filter(|x| x.head.rel == r.name).collect();
        let _ = writeln!(
            s,
            "impl {} {{\n    /// The position of the first rule deriving `{}` whose head matches this tuple (usize::MAX if none).\n    #[allow(dead_code, unreachable_patterns)]\n    pub fn rule_order(&self) -> usize {{",
            if r.borrows {
                format!("<'a> {}", ty(r))
            } else {
                ty(r)
            },
            r.name
        );
        for (i, rule) in rules.iter().enumerate() {
            let pats: Vec<String> = rule
                .head
                .args
                .iter()
                .map(|a| match a {
                    Arg::Expr(t) => pattern(t),
                    _ => "_".into(),
                })
                .collect();
            let _ = writeln!(
                s,
                "        if matches!(self, {}({})) {{ return {i}; }}",
                r.name,
                pats.join(", ")
            );
        }
        s.push_str("        usize::MAX\n    }\n}\n");
    }
    s
}
