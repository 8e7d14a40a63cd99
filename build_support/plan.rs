//! The order a rule's clauses are evaluated in, for the arguments bound on entry, and the
//! code of each step: a lookup of an input relation through the one written for that
//! pattern of bound arguments, a query of a demanded relation, a guard, a `let` or a `for`.
//!
//! The order is the written one where it can be: a clause whose variables are bound and
//! that only tests (a guard, a negation, an atom whose arguments are all bound, a `let`)
//! comes first; then the first atom (or `for`) in written order that can be looked up with
//! some argument bound, else the first that can be looked up at all. A rule whose clauses
//! cannot all be ordered so fails the build, naming the rule and the atom.

use std::collections::BTreeSet;

use super::lex::{Token, print};
use super::parse::{Arg, Atom, Clause, Rule, uses};

/// Bound ('b') and free ('f') positions, one letter per argument; an existence test's
/// ignored positions are 'i'.
pub type Pattern = String;

/// Code of nested steps: each opens a block the next ones sit in.
#[derive(Default)]
pub struct Nest {
    /// Opening lines, outermost first; each is closed by one `}` per `{` it opens.
    pub open: Vec<(String, usize)>,
}

impl Nest {
    fn push(&mut self, code: String, blocks: usize) {
        self.open.push((code, blocks));
    }

    /// The nest around `inner`.
    pub fn wrap(&self, inner: &str) -> String {
        let mut s = String::new();
        for (code, _) in &self.open {
            s.push_str(code);
            s.push('\n');
        }
        s.push_str(inner);
        s.push('\n');
        let closes: usize = self.open.iter().map(|(_, b)| b).sum();
        s.push_str(&"}".repeat(closes));
        s
    }
}

/// What the planner needs to know of the program.
pub trait Catalog {
    /// True for an input relation.
    fn is_input(&self, rel: &str) -> bool;
    /// The lookups written for input relation `rel`, in order.
    fn lookups(&self, rel: &str) -> Vec<Pattern>;
    /// The positions of demanded relation `rel` a query can bind (a variable in every head).
    fn queryable(&self, rel: &str) -> Vec<bool>;
    /// The pattern a demanded relation is queried with when `bound` are the positions its
    /// atom binds; records that query as needed.
    fn query(&mut self, rel: &str, bound: &[bool]) -> Pattern;
    /// The existence test of `rel` with `bound` positions bound and the others ignored
    /// (letter `i`), recorded as needed; `None` when the query with those positions free
    /// must keep its memo (the driver asks it).
    fn test(&mut self, rel: &str, bound: &[bool]) -> Option<Pattern>;
}

/// A pattern with no free argument (each bound, or ignored: `i`) is an existence test:
/// evaluated where it is asked, up to the first tuple, and kept in no memo (its answer is
/// one bit, often asked once).
pub fn is_test(p: &str) -> bool {
    !p.contains('f')
}

/// `snake_case` of a relation name.
pub fn snake(name: &str) -> String {
    let mut s = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(c.to_ascii_lowercase());
    }
    s
}

/// A bound argument as an expression.
fn value(arg: &Arg) -> String {
    match arg {
        Arg::Var(v) => v.clone(),
        Arg::Expr(t) => format!("({})", print(t)),
        Arg::Ignored | Arg::Ref(_) => unreachable!("only bound arguments have values"),
    }
}

/// Where a rule's evaluation stands: the variables bound, the steps so far.
pub struct Planner<'r> {
    rule: &'r Rule,
    known: BTreeSet<String>,
    /// Variables bound so far.
    pub bound: BTreeSet<String>,
    /// Of those, the ones only a `for` bound: as crepe reads it, an atom naming one binds it
    /// anew (a `for` binds a Rust variable, not a Datalog one).
    rust_only: BTreeSet<String>,
    /// The steps so far.
    pub nest: Nest,
    tmp: usize,
}

impl<'r> Planner<'r> {
    /// A plan of `rule` with `bound` variables bound on entry.
    pub fn new(rule: &'r Rule, bound: BTreeSet<String>) -> Planner<'r> {
        let mut known = super::parse::rule_vars(rule);
        known.extend(bound.iter().cloned());
        Planner {
            rule,
            known,
            bound,
            rust_only: BTreeSet::new(),
            nest: Nest::default(),
            tmp: 0,
        }
    }

    fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("__x{}", self.tmp)
    }

    fn fail<T>(&self, what: String) -> Result<T, String> {
        Err(format!(
            "{}: `{}`: {what} (docs/rules.md, Limits)",
            self.rule.at(),
            self.rule.text
        ))
    }

    fn ready_tokens(&self, t: &[Token]) -> bool {
        uses(t, &self.known).is_subset(&self.bound)
    }

    /// Whether an argument's value is known here (a bound variable or an expression of bound ones).
    fn is_bound(&self, arg: &Arg) -> bool {
        match arg {
            Arg::Var(v) => self.bound.contains(v) && !self.rust_only.contains(v),
            Arg::Expr(t) => self.ready_tokens(t),
            Arg::Ignored | Arg::Ref(_) => false,
        }
    }

    /// Binds the arguments of `atom` at `free` positions from `names` (the variables the code
    /// destructures into); returns the tests of those already bound, and `let`s of `ref`s.
    /// `names[i]` is set for each free position: `_`, the variable, or a fresh temporary.
    fn bind(&mut self, atom: &Atom, free: &[usize]) -> (Vec<String>, Vec<String>, Vec<String>) {
        let mut names = Vec::new();
        let mut tests = Vec::new();
        let mut refs = Vec::new();
        for &i in free {
            let arg = &atom.args[i];
            match arg {
                Arg::Ignored => names.push("_".to_string()),
                Arg::Var(v) if !self.is_bound(arg) => {
                    self.bound.insert(v.clone());
                    self.rust_only.remove(v);
                    names.push(v.clone());
                }
                Arg::Ref(v) => {
                    let t = self.fresh();
                    refs.push(format!("let {v} = &{t};"));
                    self.bound.insert(v.clone());
                    names.push(t);
                }
                _ => {
                    let t = self.fresh();
                    tests.push(format!("{t} == {}", value(arg)));
                    names.push(t);
                }
            }
        }
        (names, tests, refs)
    }

    fn push_tests(&mut self, tests: Vec<String>) {
        if !tests.is_empty() {
            self.nest.push(format!("if {} {{", tests.join(" && ")), 1);
        }
    }

    /// Binds `t`, a tuple of `atom`'s relation, to `atom` (the rule's delta).
    pub fn delta(&mut self, atom: &Atom, var: &str) {
        let all: Vec<usize> = (0..atom.args.len()).collect();
        let (names, tests, refs) = self.bind(atom, &all);
        let pat: Vec<String> = names
            .iter()
            .zip(&atom.args)
            .map(|(n, a)| match a {
                Arg::Ref(v) => format!("ref {v}"),
                _ => n.clone(),
            })
            .collect();
        let _ = refs;
        self.nest.push(
            format!("{{ let {}({}) = {var};", atom.rel, pat.join(", ")),
            1,
        );
        self.push_tests(tests);
    }

    /// Binds head variable `var` to key parameter `key` (or tests it, when bound already).
    pub fn key(&mut self, var: &str, key: &str) {
        if self.bound.insert(var.to_string()) {
            self.nest.push(format!("{{ let {var} = {key};"), 1);
        } else {
            self.nest.push(format!("if {var} == {key} {{"), 1);
        }
    }

    /// Orders and emits every clause but `skip` (the delta).
    pub fn clauses(&mut self, c: &mut dyn Catalog, skip: Option<usize>) -> Result<(), String> {
        let mut left: Vec<usize> = (0..self.rule.body.len())
            .filter(|i| Some(*i) != skip)
            .collect();
        while !left.is_empty() {
            let pick = self.pick(c, &left)?;
            left.retain(|i| *i != pick);
            self.emit(c, pick)?;
        }
        let head = &self.rule.head;
        for arg in &head.args {
            if !self.is_bound(arg) {
                return self.fail(format!(
                    "the head's argument `{}` is never bound",
                    print_arg(arg)
                ));
            }
        }
        Ok(())
    }

    /// The lookup pattern of input atom `a` here: the written one binding most of the
    /// arguments that are bound here, and no other.
    fn lookup(&self, c: &dyn Catalog, a: &Atom) -> Option<Pattern> {
        let bound: Vec<bool> = a.args.iter().map(|x| self.is_bound(x)).collect();
        let fits = |p: &Pattern| p.chars().zip(&bound).all(|(ch, b)| ch == 'f' || *b);
        let count = |p: &Pattern| p.chars().filter(|c| *c == 'b').count();
        let mut best: Option<Pattern> = None;
        for p in c.lookups(&a.rel).into_iter().filter(fits) {
            if best.as_ref().is_none_or(|b| count(&p) > count(b)) {
                best = Some(p);
            }
        }
        best
    }

    /// The clause to evaluate next (module documentation).
    fn pick(&self, c: &dyn Catalog, left: &[usize]) -> Result<usize, String> {
        let mut first_generator = None;
        let mut first_bound_generator = None;
        for &i in left {
            let (ready, test, some_bound) = match &self.rule.body[i] {
                Clause::Guard(t) => (self.ready_tokens(t), true, false),
                Clause::Let(_, e) => (self.ready_tokens(e), true, false),
                Clause::For(_, e) => (self.ready_tokens(e), false, false),
                Clause::Atom(a) => {
                    let exprs_ready = a.args.iter().all(|x| match x {
                        Arg::Expr(t) => self.ready_tokens(t),
                        _ => true,
                    });
                    let all_bound = a
                        .args
                        .iter()
                        .all(|x| matches!(x, Arg::Ignored) || self.is_bound(x));
                    let lookup = !c.is_input(&a.rel) || self.lookup(c, a).is_some();
                    let ready = exprs_ready && lookup && (!a.negated || all_bound);
                    let some = if c.is_input(&a.rel) {
                        self.lookup(c, a).is_some_and(|p| p.contains('b'))
                    } else {
                        let q = c.queryable(&a.rel);
                        a.args.iter().zip(q).any(|(x, q)| q && self.is_bound(x))
                    };
                    (ready, all_bound || a.negated, some)
                }
            };
            if !ready {
                continue;
            }
            if test {
                return Ok(i);
            }
            first_generator.get_or_insert(i);
            if some_bound {
                first_bound_generator.get_or_insert(i);
            }
        }
        if let Some(i) = first_bound_generator.or(first_generator) {
            return Ok(i);
        }
        self.stuck(c, left)
    }

    /// The error for clauses none of which can be evaluated next.
    fn stuck(&self, c: &dyn Catalog, left: &[usize]) -> Result<usize, String> {
        let bound: Vec<&String> = self.bound.iter().collect();
        for &i in left {
            if let Clause::Atom(a) = &self.rule.body[i] {
                let args: Vec<String> = a.args.iter().map(print_arg).collect();
                let what = format!(
                    "{}{}({})",
                    if a.negated { "!" } else { "" },
                    a.rel,
                    args.join(", ")
                );
                if a.negated
                    && !a
                        .args
                        .iter()
                        .all(|x| matches!(x, Arg::Ignored) || self.is_bound(x))
                {
                    return self.fail(format!("`{what}` negates unbound variables"));
                }
                if c.is_input(&a.rel) && self.lookup(c, a).is_none() {
                    let pattern: String = a
                        .args
                        .iter()
                        .map(|x| if self.is_bound(x) { 'b' } else { 'f' })
                        .collect();
                    let have = c.lookups(&a.rel);
                    return self.fail(format!(
                        "no clause can be evaluated with {bound:?} bound: input `{what}` would be looked up as `{}_{pattern}`, and its lookups are {have:?} (write one, or reorder the rule)",
                        snake(&a.rel)
                    ));
                }
            }
        }
        self.fail(format!("no clause can be evaluated with {bound:?} bound"))
    }

    /// Emits clause `i`.
    fn emit(&mut self, c: &mut dyn Catalog, i: usize) -> Result<(), String> {
        if let Clause::Let(p, _) | Clause::For(p, _) = &self.rule.body[i]
            && let Some(v) = super::parse::binds(p).intersection(&self.bound).next()
        {
            return self.fail(format!("`{}` binds `{v}` again: name it anew", print(p)));
        }
        match &self.rule.body[i] {
            Clause::Guard(t) => self.nest.push(format!("if {} {{", print(t)), 1),
            Clause::Let(p, e) => {
                self.nest
                    .push(format!("if let {} = {} {{", print(p), print(e)), 1);
                self.bound.extend(super::parse::binds(p));
            }
            Clause::For(p, e) => {
                self.nest
                    .push(format!("for {} in {} {{", print(p), print(e)), 1);
                for v in super::parse::binds(p) {
                    if self.bound.insert(v.clone()) {
                        self.rust_only.insert(v);
                    }
                }
            }
            Clause::Atom(a) if c.is_input(&a.rel) => {
                let p = self.lookup(c, a).expect("picked with a lookup");
                self.input(a, &p);
            }
            Clause::Atom(a) => {
                let bound: Vec<bool> = a.args.iter().map(|x| self.is_bound(x)).collect();
                let keys: Vec<bool> = (bound.iter().zip(c.queryable(&a.rel)))
                    .map(|(b, v)| *b && v)
                    .collect();
                // Only asked whether a tuple exists: every position a key or ignored.
                let exists = keys.contains(&true)
                    && (a.args.iter().zip(&keys)).all(|(x, k)| *k || matches!(x, Arg::Ignored));
                let p = match exists.then(|| c.test(&a.rel, &keys)).flatten() {
                    Some(p) => p,
                    None => c.query(&a.rel, &bound),
                };
                self.demanded(a, &p);
            }
        }
        Ok(())
    }

    /// An input atom through lookup `p`.
    fn input(&mut self, a: &Atom, p: &str) {
        let call = format!("facts.{}_{p}({})", snake(&a.rel), key_args(a, p).join(", "));
        let free: Vec<usize> = p
            .char_indices()
            .filter(|(_, c)| *c == 'f')
            .map(|(i, _)| i)
            .collect();
        if free.is_empty() {
            let not = if a.negated { "!" } else { "" };
            self.nest.push(format!("if {not}{call} {{"), 1);
            return;
        }
        let all_bound = a
            .args
            .iter()
            .all(|x| matches!(x, Arg::Ignored) || self.is_bound(x));
        if all_bound {
            // a test: does some tuple have the other bound arguments too?
            let (names, tests, _) = self.bind(a, &free);
            let not = if a.negated { "!" } else { "" };
            let test = if tests.is_empty() {
                "true".to_string()
            } else {
                tests.join(" && ")
            };
            self.nest.push(
                format!(
                    "if {not}{call}.into_iter().any(|{}| {test}) {{",
                    tuple(&names)
                ),
                1,
            );
            return;
        }
        let (names, tests, refs) = self.bind(a, &free);
        self.nest.push(
            format!("for {} in {call} {{ {}", tuple(&names), refs.join(" ")),
            1,
        );
        self.push_tests(tests);
    }

    /// A demanded atom through query `p` of its relation.
    fn demanded(&mut self, a: &Atom, p: &str) {
        let name = format!("{}_{p}", snake(&a.rel));
        let call = format!("self.q_{name}({})", key_args(a, p).join(", "));
        if is_test(p) {
            let not = if a.negated { "!" } else { "" };
            self.nest.push(format!("if {not}{call} {{"), 1);
            return;
        }
        let rest: Vec<usize> = p
            .char_indices()
            .filter(|(_, c)| *c == 'f')
            .map(|(i, _)| i)
            .collect();
        let all_bound = a
            .args
            .iter()
            .all(|x| matches!(x, Arg::Ignored) || self.is_bound(x));
        let t = self.fresh();
        if all_bound {
            let (names, tests, _) = self.bind(a, &rest);
            let fields: Vec<String> = rest
                .iter()
                .zip(&names)
                .filter(|(_, n)| *n != "_")
                .map(|(i, n)| format!("let {n} = {t}.{i};"))
                .collect();
            let test = if tests.is_empty() {
                "true".to_string()
            } else {
                tests.join(" && ")
            };
            let not = if a.negated { "!" } else { "" };
            self.nest.push(
                format!(
                    "if {not}{{ let (s, e) = {call}; (s..e).any(|k| self.m_{name}.rows.get(k as usize).is_some_and(|&{t}| {{ {} {test} }})) }} {{",
                    fields.join(" ")
                ),
                1,
            );
            return;
        }
        let (names, tests, refs) = self.bind(a, &rest);
        let fields: Vec<String> = rest
            .iter()
            .zip(&names)
            .filter(|(_, n)| *n != "_")
            .map(|(i, n)| format!("let {n} = {t}.{i};"))
            .collect();
        self.nest.push(
            format!(
                "{{ let (s, e) = {call}; for k in s..e {{ let Some(&{t}) = self.m_{name}.rows.get(k as usize) else {{ continue }}; {} {}",
                fields.join(" "),
                refs.join(" ")
            ),
            2,
        );
        self.push_tests(tests);
    }
}

/// The arguments at the bound positions of `p`.
fn key_args(a: &Atom, p: &str) -> Vec<String> {
    p.char_indices()
        .filter(|(_, c)| *c == 'b')
        .map(|(i, _)| value(&a.args[i]))
        .collect()
}

fn tuple(names: &[String]) -> String {
    match names {
        [one] => one.clone(),
        many => format!("({})", many.join(", ")),
    }
}

fn print_arg(a: &Arg) -> String {
    match a {
        Arg::Ignored => "_".into(),
        Arg::Ref(v) => format!("ref {v}"),
        Arg::Var(v) => v.clone(),
        Arg::Expr(t) => print(t),
    }
}
