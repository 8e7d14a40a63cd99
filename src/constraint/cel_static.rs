//! Static checks of CEL rules, none of which recurse: bracket nesting of the text, and one walk
//! of the syntax tree for its depth, its estimated cost and undeclared identifiers.

use std::rc::Rc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// How many elements a value that is only known when the rule is evaluated (`properties`,
/// a property's value) is assumed to hold when the rule is compiled. At evaluation the real
/// size is used (see [`max_dynamic`]).
pub(crate) const LOOP_FACTOR: u64 = 100;

/// Identifiers that need no declaration: the one variable and the type names.
const KNOWN_IDENTS: [&str; 12] = [
    "properties",
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
    "dyn",
];

/// What one walk of a syntax tree found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Analysis {
    /// Depth of the tree (a lone literal has depth 1); the walk stops just past the limit.
    pub(crate) depth: usize,
    /// Estimated cost (see [`super::CelRule::cost`]).
    pub(crate) cost: u64,
    /// The first identifier that is neither `properties`, a type name nor a macro variable in
    /// scope: its node id and name.
    pub(crate) undeclared: Option<(u64, String)>,
}

/// Variables bound by enclosing comprehensions, each with the size of what it holds.
type Scope<'e> = Option<Rc<ScopeNode<'e>>>;

struct ScopeNode<'e> {
    names: Vec<(&'e str, u64)>,
    parent: Scope<'e>,
}

/// The size bound of a variable in scope, if it is one.
fn lookup(scope: &Scope<'_>, name: &str) -> Option<u64> {
    let mut node = scope.as_ref();
    while let Some(n) = node {
        if let Some((_, size)) = n.names.iter().find(|(n, _)| *n == name) {
            return Some(*size);
        }
        node = n.parent.as_ref();
    }
    None
}

fn in_scope(scope: &Scope<'_>, name: &str) -> bool {
    lookup(scope, name).is_some()
}

/// An upper bound on the size of the value of `expr`: the most elements (or entries) of any
/// list or map in it, at any depth. Literals count what they hold; what is only known at
/// evaluation (`properties`, a field of a property) counts `dynamic`; `a + b` adds; a
/// comprehension's range binds its variable. Stops (at `dynamic`) past `depth` levels.
fn size(expr: &IdedExpr, scope: &Scope<'_>, dynamic: u64, depth: usize) -> u64 {
    let Some(depth) = depth.checked_sub(1) else {
        return dynamic;
    };
    let of = |e: &IdedExpr| size(e, scope, dynamic, depth);
    match &expr.expr {
        Expr::Literal(_) | Expr::Unspecified => 1,
        Expr::Ident(name) => lookup(scope, name).unwrap_or(dynamic),
        Expr::Select(select) => of(&select.operand),
        Expr::List(list) => list
            .elements
            .iter()
            .map(of)
            .fold(list.elements.len() as u64, u64::max),
        Expr::Map(map) => entries_size(&map.entries, scope, dynamic, depth),
        Expr::Struct(st) => entries_size(&st.entries, scope, dynamic, depth),
        Expr::Call(call) if call.func_name == "_+_" => {
            call.args.iter().map(of).fold(0u64, u64::saturating_add)
        }
        Expr::Call(call) => call
            .target
            .iter()
            .map(|t| of(t))
            .chain(call.args.iter().map(of))
            .fold(1, u64::max),
        Expr::Comprehension(c) => {
            let range = of(&c.iter_range);
            let init = of(&c.accu_init);
            let mut names = vec![(c.iter_var.as_str(), range)];
            names.extend(c.iter_var2.as_deref().map(|v| (v, range)));
            let first = range.saturating_add(init);
            names.push((c.accu_var.as_str(), first));
            let inner: Scope<'_> = Some(Rc::new(ScopeNode {
                names,
                parent: scope.clone(),
            }));
            let step = size(&c.loop_step, &inner, dynamic, depth);
            let accu: Scope<'_> = Some(Rc::new(ScopeNode {
                names: vec![(c.accu_var.as_str(), first.max(step))],
                parent: scope.clone(),
            }));
            size(&c.result, &accu, dynamic, depth)
        }
    }
}

fn entries_size(
    entries: &[cel::common::ast::IdedEntryExpr],
    scope: &Scope<'_>,
    dynamic: u64,
    depth: usize,
) -> u64 {
    entries
        .iter()
        .map(|entry| match &entry.expr {
            EntryExpr::StructField(field) => size(&field.value, scope, dynamic, depth),
            EntryExpr::MapEntry(e) => {
                size(&e.key, scope, dynamic, depth).max(size(&e.value, scope, dynamic, depth))
            }
        })
        .fold(entries.len() as u64, u64::max)
}

/// One pending node of the walk.
struct Item<'e> {
    expr: &'e IdedExpr,
    depth: usize,
    weight: u64,
    scope: Scope<'e>,
    /// The node is the target of a call (`ns.f(x)`): a bare identifier there may be a
    /// namespace, so it is not reported as undeclared.
    call_target: bool,
}

/// Walks the tree with an explicit stack; stops descending past `max_depth`. Values known
/// only at evaluation hold at most `dynamic` elements.
pub(crate) fn analyze(root: &IdedExpr, max_depth: usize, dynamic: u64) -> Analysis {
    let mut out = Analysis {
        depth: 0,
        cost: 0,
        undeclared: None,
    };
    let mut stack = vec![Item {
        expr: root,
        depth: 1,
        weight: 1,
        scope: None,
        call_target: false,
    }];
    while let Some(item) = stack.pop() {
        out.depth = out.depth.max(item.depth);
        out.cost = out.cost.saturating_add(item.weight);
        if item.depth > max_depth {
            break;
        }
        push_children(&item, &mut stack, &mut out, (max_depth, dynamic));
    }
    out
}

/// The largest size of the values known only at evaluation (see [`size`]) for which the
/// estimated cost of the rule stays within `limit`: `u64::MAX` when the cost does not grow
/// with it. The cost never falls as the size grows, so a doubling search then a halving one
/// find it.
pub(crate) fn max_dynamic(root: &IdedExpr, max_depth: usize, limit: u64) -> u64 {
    let fits = |n: u64| analyze(root, max_depth, n).cost <= limit;
    const TOP: u64 = 1 << 40;
    if fits(TOP) {
        return u64::MAX;
    }
    if !fits(0) {
        return 0;
    }
    let (mut ok, mut bad) = (0u64, 1u64);
    while fits(bad) {
        ok = bad;
        bad *= 2;
    }
    while bad - ok > 1 {
        let mid = ok + (bad - ok) / 2;
        if fits(mid) {
            ok = mid;
        } else {
            bad = mid;
        }
    }
    ok
}

fn push_children<'e>(
    item: &Item<'e>,
    stack: &mut Vec<Item<'e>>,
    out: &mut Analysis,
    (max_depth, dynamic): (usize, u64),
) {
    let child = |expr: &'e IdedExpr, weight: u64, scope: &Scope<'e>, call_target: bool| Item {
        expr,
        depth: item.depth + 1,
        weight,
        scope: scope.clone(),
        call_target,
    };
    let (w, scope) = (item.weight, &item.scope);
    match &item.expr.expr {
        Expr::Ident(name) => {
            let known = KNOWN_IDENTS.contains(&name.as_str())
                || name.starts_with('@')
                || in_scope(scope, name);
            if !known && !item.call_target && out.undeclared.is_none() {
                out.undeclared = Some((item.expr.id, name.clone()));
            }
        }
        Expr::Call(call) => {
            if let Some(target) = &call.target {
                stack.push(child(target, w, scope, true));
            }
            stack.extend(call.args.iter().map(|a| child(a, w, scope, false)));
        }
        Expr::Comprehension(c) => {
            // The body runs once per element of the range, as many as the range can hold.
            let depth = max_depth.saturating_sub(item.depth);
            let range = size(&c.iter_range, scope, dynamic, depth);
            let init = size(&c.accu_init, scope, dynamic, depth);
            let mut names = vec![
                (c.iter_var.as_str(), range),
                (c.accu_var.as_str(), range.saturating_add(init)),
            ];
            names.extend(c.iter_var2.as_deref().map(|v| (v, range)));
            let inner: Scope<'e> = Some(Rc::new(ScopeNode {
                names,
                parent: scope.clone(),
            }));
            let accu: Scope<'e> = Some(Rc::new(ScopeNode {
                names: vec![(c.accu_var.as_str(), range.saturating_add(init))],
                parent: scope.clone(),
            }));
            let looped = w.saturating_mul(range);
            stack.push(child(&c.iter_range, w, scope, false));
            stack.push(child(&c.accu_init, w, scope, false));
            stack.push(child(&c.loop_cond, looped, &inner, false));
            stack.push(child(&c.loop_step, looped, &inner, false));
            stack.push(child(&c.result, w, &accu, false));
        }
        Expr::List(list) => stack.extend(list.elements.iter().map(|e| child(e, w, scope, false))),
        Expr::Map(map) => push_entries(&map.entries, item, stack),
        Expr::Struct(s) => push_entries(&s.entries, item, stack),
        Expr::Select(select) => stack.push(child(&select.operand, w, scope, false)),
        Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn push_entries<'e>(
    entries: &'e [cel::common::ast::IdedEntryExpr],
    item: &Item<'e>,
    stack: &mut Vec<Item<'e>>,
) {
    for entry in entries {
        let exprs: Vec<&'e IdedExpr> = match &entry.expr {
            EntryExpr::StructField(field) => vec![&field.value],
            EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
        };
        stack.extend(exprs.into_iter().map(|expr| Item {
            expr,
            depth: item.depth + 1,
            weight: item.weight,
            scope: item.scope.clone(),
            call_target: false,
        }));
    }
}

/// Deepest nesting of `(`, `[` and `{` in a rule's text, outside string literals and `//`
/// comments. A best-effort scan (the thread stack and the tree depth are the hard bounds); it
/// gives a clear error before the parser sees a rule like `((((...))))`.
pub(crate) fn bracket_depth(rule: &str) -> usize {
    let bytes = rule.as_bytes();
    let (mut i, mut depth, mut max) = (0usize, 0usize, 0usize);
    while let Some(&b) = bytes.get(i) {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = find_from(bytes, i, |c| c == b'\n').unwrap_or(bytes.len());
            }
            b'"' | b'\'' => i = skip_string(bytes, i),
            _ => i += 1,
        }
    }
    max
}

fn find_from(bytes: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> Option<usize> {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&c| pred(c)))
        .map(|p| from + p)
}

/// Index just past the string literal whose opening quote is at `start`.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes.get(start).copied().unwrap_or(b'"');
    let raw = is_raw_prefix(bytes, start);
    let triple = bytes.get(start + 1) == Some(&quote) && bytes.get(start + 2) == Some(&quote);
    let mut i = if triple { start + 3 } else { start + 1 };
    while let Some(&c) = bytes.get(i) {
        if c == b'\\' && !raw {
            i += 2;
        } else if triple {
            if c == quote && bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) {
                return i + 3;
            }
            i += 1;
        } else if c == quote || c == b'\n' || c == b'\r' {
            return i + 1;
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// True when the quote at `quote_at` opens a raw string: `r"..."`, `R'...'`, `br"..."`.
fn is_raw_prefix(bytes: &[u8], quote_at: usize) -> bool {
    let at = |i: Option<usize>| i.and_then(|i| bytes.get(i)).copied();
    let ident = |c: Option<u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
    let r = quote_at.checked_sub(1);
    if !matches!(at(r), Some(b'r' | b'R')) {
        return false;
    }
    let before = r.and_then(|r| r.checked_sub(1));
    if matches!(at(before), Some(b'b' | b'B')) {
        return !ident(at(before.and_then(|b| b.checked_sub(1))));
    }
    !ident(at(before))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(rule: &str) -> Analysis {
        let program = cel::Env::stdlib().compile(rule).expect("compiles");
        analyze(program.expression(), 1000, LOOP_FACTOR)
    }

    fn max_n(rule: &str, limit: u64) -> u64 {
        let program = cel::Env::stdlib().compile(rule).expect("compiles");
        max_dynamic(program.expression(), 1000, limit)
    }

    fn literal(n: usize) -> String {
        format!("[{}]", vec!["1"; n].join(","))
    }

    #[test]
    fn literal_lists_count_their_elements() {
        let l = literal(3_900);
        let two = analysis(&format!("{l}.exists(a, {l}.exists(b, a == 1 && b == 1))"));
        assert!(two.cost > 3_900 * 3_900, "{two:?}");
        let map = analysis(&format!("{l}.map(a, {l}).size() == 0"));
        assert!(map.cost > 3_900 * 3_900, "{map:?}");
        // A comprehension over a computed list: its size is the sum, or the range's.
        let sum = analysis(&format!("({l} + {l}).exists(a, a == 1)"));
        assert!(sum.cost >= 7_800, "{sum:?}");
        let nested = analysis(&format!("{l}.map(a, {l}).exists(x, x.exists(y, y == 2))"));
        assert!(nested.cost > 3_900 * 3_900, "{nested:?}");
        let small = analysis("[1, 2, 3].exists(a, a == 2)");
        assert!(small.cost < 100, "{small:?}");
    }

    #[test]
    fn the_largest_size_a_rule_can_afford() {
        let rule = "properties.exists(p, properties.exists(q, p.type == q.type))";
        let n = max_n(rule, 1_000_000);
        let program = cel::Env::stdlib().compile(rule).expect("compiles");
        let cost = |n| analyze(program.expression(), 1000, n).cost;
        assert!(cost(n) <= 1_000_000 && cost(n + 1) > 1_000_000, "{n}");
        assert!((100..1_000).contains(&n), "{n}");
        assert_eq!(max_n("1 == 1", 1_000_000), u64::MAX);
        assert_eq!(max_n("[1, 2].exists(a, a == 2)", 1_000_000), u64::MAX);
    }

    #[test]
    fn bracket_depth_skips_strings_and_comments() {
        assert_eq!(bracket_depth("((a))"), 2);
        assert_eq!(bracket_depth(r#"f("((((", '[[[') // ((((("#), 1);
        assert_eq!(bracket_depth(r#"f("\")(((")"#), 1);
        assert_eq!(bracket_depth(r#"f(r"\")"#), 1);
        assert_eq!(bracket_depth(r#"f("""a"b(((""")"#), 1);
        assert_eq!(bracket_depth(&"[".repeat(100_000)), 100_000);
    }

    #[test]
    fn comprehensions_multiply_cost() {
        let one = analysis("properties.exists(p, p.type == 'a')");
        let two = analysis("properties.exists(p, properties.exists(q, p.type == q.type))");
        let three = analysis(
            "properties.exists(p, properties.exists(q, properties.exists(r, p.type == r.type)))",
        );
        assert!(
            one.cost >= LOOP_FACTOR && one.cost < LOOP_FACTOR * LOOP_FACTOR,
            "{one:?}"
        );
        assert!(
            two.cost >= LOOP_FACTOR.pow(2) && two.cost < LOOP_FACTOR.pow(3),
            "{two:?}"
        );
        assert!(three.cost >= LOOP_FACTOR.pow(3), "{three:?}");
        assert_eq!(one.undeclared, None);
        assert_eq!(three.undeclared, None);
    }

    #[test]
    fn undeclared_identifiers_are_found() {
        let a = analysis("properties.exists(p, p.type == q)");
        assert_eq!(a.undeclared.map(|(_, n)| n), Some("q".to_string()));
        assert_eq!(analysis("type(1) == int").undeclared, None);
        assert_eq!(
            analysis("[1, 2].map(x, x * 2).size() == 2").undeclared,
            None
        );
    }

    #[test]
    fn depth_of_chains() {
        assert_eq!(analysis("1").depth, 1);
        assert!(analysis(&format!("1{}", " + 1".repeat(50))).depth > 50);
    }
}
