//! Static checks of CEL rules, none of which recurse: bracket nesting of the text, and one walk
//! of the syntax tree for its depth, its estimated cost and undeclared identifiers.

use std::rc::Rc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// How many elements a comprehension is assumed to iterate over, for the cost estimate.
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

/// Variables bound by enclosing comprehensions.
type Scope<'e> = Option<Rc<ScopeNode<'e>>>;

struct ScopeNode<'e> {
    names: Vec<&'e str>,
    parent: Scope<'e>,
}

fn in_scope(scope: &Scope<'_>, name: &str) -> bool {
    let mut node = scope.as_ref();
    while let Some(n) = node {
        if n.names.contains(&name) {
            return true;
        }
        node = n.parent.as_ref();
    }
    false
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

/// Walks the tree with an explicit stack; stops descending past `max_depth`.
pub(crate) fn analyze(root: &IdedExpr, max_depth: usize) -> Analysis {
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
        push_children(&item, &mut stack, &mut out);
    }
    out
}

fn push_children<'e>(item: &Item<'e>, stack: &mut Vec<Item<'e>>, out: &mut Analysis) {
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
            let mut names = vec![c.iter_var.as_str(), c.accu_var.as_str()];
            names.extend(c.iter_var2.as_deref());
            let inner: Scope<'e> = Some(Rc::new(ScopeNode {
                names,
                parent: scope.clone(),
            }));
            let accu: Scope<'e> = Some(Rc::new(ScopeNode {
                names: vec![c.accu_var.as_str()],
                parent: scope.clone(),
            }));
            let looped = w.saturating_mul(LOOP_FACTOR);
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
        analyze(program.expression(), 1000)
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
