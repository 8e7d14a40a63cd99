//! OLM version ranges (blang/semver v4 `ParseRange`), as docs/semantics.md §3 describes them:
//! comparators separated by spaces are ANDed, `||` separates OR'ed sets, operators
//! `= == != ! > >= < <=` (a space after `<`, `>` or `=` does not split), a bare version means
//! `=`, wildcards `1.2.x` / `1.x` (also `X` and `*`) expand as blang expands them (including
//! its `!=1.2.x` that matches nothing), a lone wildcard matches everything. Tolerant input as
//! real catalogs write it: wrapping quotes (ASCII or typographic) are dropped, versions are
//! read tolerantly, stray one-byte tokens are ignored.

use std::cmp::Ordering;

use super::version::Version;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Clone, Debug)]
pub struct Range {
    /// OR of ANDs; an empty AND matches everything.
    sets: Vec<Vec<(Op, Version)>>,
}

fn is_wild(p: &str) -> bool {
    matches!(p, "x" | "X" | "*")
}

/// blang's tokenizer: a space ends a token unless the last non-space character was one of
/// `<`, `>`, `=`; spaces inside a token are then removed.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut last: Option<char> = None;
    for c in text.chars() {
        if c.is_whitespace() {
            if !matches!(last, Some('<' | '>' | '=')) && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
                last = None;
            }
        } else {
            cur.push(c);
            last = Some(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn split_op(token: &str) -> (Op, &str) {
    for (prefix, op) in [
        (">=", Op::Ge),
        ("<=", Op::Le),
        ("!=", Op::Ne),
        ("==", Op::Eq),
        (">", Op::Gt),
        ("<", Op::Lt),
        ("=", Op::Eq),
        ("!", Op::Ne),
    ] {
        if let Some(rest) = token.strip_prefix(prefix) {
            return (op, rest);
        }
    }
    (Op::Eq, token)
}

/// Expands a wildcard comparator into ANDed comparators (blang's `expandWildcardVersion`).
fn wildcard(op: Op, text: &str) -> Option<Vec<(Op, Version)>> {
    let body = text
        .strip_prefix('v')
        .or_else(|| text.strip_prefix('V'))
        .unwrap_or(text);
    let parts: Vec<&str> = body.split('.').collect();
    let last = parts.last()?;
    if !is_wild(last) || parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let major: u64 = parts[0].parse().ok()?;
    // `1.x.x` reads as `1.0.x`, as in blang.
    let minor: u64 = if parts.len() == 3 && !is_wild(parts[1]) {
        parts[1].parse().ok()?
    } else {
        0
    };
    let low = Version::new(major, minor, 0);
    let high = if parts.len() == 3 {
        Version::new(major, minor + 1, 0)
    } else {
        Version::new(major + 1, 0, 0)
    };
    Some(match op {
        Op::Gt => vec![(Op::Ge, high)],
        Op::Ge => vec![(Op::Ge, low)],
        Op::Lt => vec![(Op::Lt, low)],
        Op::Le => vec![(Op::Lt, high)],
        Op::Eq => vec![(Op::Ge, low), (Op::Lt, high)],
        // blang's expansion is an AND of both: it matches nothing.
        Op::Ne => vec![(Op::Lt, low), (Op::Ge, high)],
    })
}

impl Range {
    pub fn parse(text: &str) -> Option<Range> {
        let quotes: &[char] = &['"', '\'', '\u{201C}', '\u{201D}', '\u{2018}', '\u{2019}'];
        let text = text.trim().trim_matches(quotes);
        let mut sets = vec![Vec::new()];
        let mut seen_any = false;
        for token in tokens(text) {
            if token == "||" {
                sets.push(Vec::new());
                continue;
            }
            if is_wild(&token) {
                seen_any = true;
                continue;
            }
            if token.chars().count() < 2 {
                continue;
            }
            let (op, rest) = split_op(&token);
            let set = sets.last_mut()?;
            match wildcard(op, rest) {
                Some(cs) => set.extend(cs),
                None => set.push((op, Version::parse(rest)?)),
            }
            seen_any = true;
        }
        if !seen_any {
            return None;
        }
        Some(Range { sets })
    }

    pub fn matches(&self, v: &Version) -> bool {
        self.sets.iter().any(|set| {
            set.iter().all(|(op, w)| {
                let o = v.precedence(w);
                match op {
                    Op::Eq => o == Ordering::Equal,
                    Op::Ne => o != Ordering::Equal,
                    Op::Gt => o == Ordering::Greater,
                    Op::Ge => o != Ordering::Less,
                    Op::Lt => o == Ordering::Less,
                    Op::Le => o != Ordering::Greater,
                }
            })
        })
    }
}
