//! Version constraints as OLM v1 writes them in `spec.source.catalog.version`: the syntax and
//! meaning of Masterminds semver v3 (`1.2.x`, `~1.2`, `^1.2`, `>=1.0.0, <2.0.0`,
//! `1.0.0 || 2.0.0`, `1.0 - 2.0`), not the blang ranges OLM v0 uses for `skipRange`
//! (docs/semantics.md §10). No maintained Rust crate implements these semantics (the
//! `semver` crate follows Cargo's), so this module does; its cases live in
//! tests/masterminds/constraints.tsv.

use std::cmp::Ordering;
use std::fmt;

use semver::Prerelease;

/// A constraint that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("version constraint {constraint:?} is invalid: {message}")]
pub struct ConstraintError {
    /// The constraint as written.
    pub constraint: String,
    /// What is wrong.
    pub message: String,
}

/// The comparison of one term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// No operator or `=`: equal, or a tilde range when a part is a wildcard.
    TildeOrEqual,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

/// The version a term compares with: a wildcard part reads as 0 and marks the term dirty.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bound {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Prerelease,
}

impl Bound {
    fn cmp(&self, other: &Bound) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| self.pre.cmp(&other.pre))
    }
}

/// One term such as `>= 1.2`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Term {
    op: Op,
    at: Bound,
    /// The minor part was a wildcard or absent.
    minor_dirty: bool,
    /// The patch part was a wildcard or absent.
    patch_dirty: bool,
    /// Some part was a wildcard or absent.
    dirty: bool,
}

/// A parsed constraint: alternatives (`||`) of conjunctions (`,` or spaces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    raw: String,
    any_of: Vec<Vec<Term>>,
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Constraint {
    /// Parses a constraint.
    pub fn parse(s: &str) -> Result<Constraint, ConstraintError> {
        let bad = |m: String| ConstraintError {
            constraint: s.to_string(),
            message: m,
        };
        let rewritten = rewrite_hyphen_ranges(s);
        let any_of = rewritten
            .split("||")
            .map(|alt| conjunction(alt).map_err(&bad))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Constraint {
            raw: s.to_string(),
            any_of,
        })
    }

    /// Whether a version satisfies the constraint (build metadata is ignored).
    pub fn matches(&self, v: &semver::Version) -> bool {
        let v = Bound {
            major: v.major,
            minor: v.minor,
            patch: v.patch,
            pre: v.pre.clone(),
        };
        self.any_of
            .iter()
            .any(|all| all.iter().all(|t| t.matches(&v)))
    }
}

/// The operators, longest first so `>=` is not read as `>`.
const OPS: [(&str, Op); 12] = [
    ("!=", Op::NotEqual),
    (">=", Op::GreaterEqual),
    ("=>", Op::GreaterEqual),
    ("<=", Op::LessEqual),
    ("=<", Op::LessEqual),
    ("~>", Op::Tilde),
    (">", Op::Greater),
    ("<", Op::Less),
    ("=", Op::TildeOrEqual),
    ("~", Op::Tilde),
    ("^", Op::Caret),
    ("", Op::TildeOrEqual),
];

/// A small cursor over one alternative.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    /// Skips whitespace; whether there was any.
    fn space(&mut self) -> bool {
        let before = self.rest.len();
        self.rest = self.rest.trim_start();
        self.rest.len() != before
    }

    fn eat(&mut self, prefix: &str) -> bool {
        match self.rest.strip_prefix(prefix) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    /// The longest prefix of characters accepted by `f`.
    fn take(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let end = self.rest.find(|c: char| !f(c)).unwrap_or(self.rest.len());
        let (head, tail) = self.rest.split_at(end);
        self.rest = tail;
        head
    }
}

/// `A - B` (spaces around the hyphen) is `>= A, <= B`.
fn rewrite_hyphen_ranges(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words.get(i).copied().unwrap_or_default();
        let next = words.get(i + 1).copied();
        let after = words.get(i + 2).copied();
        let upper = after.map(|a| a.strip_suffix(',').map_or((a, ""), |b| (b, ",")));
        if next == Some("-")
            && starts_version(w)
            && let Some((b, comma)) = upper.filter(|(b, _)| starts_version(b))
        {
            out.push(format!(">= {w}, <= {b}{comma}"));
            i += 3;
        } else {
            out.push(w.to_string());
            i += 1;
        }
    }
    out.join(" ")
}

fn starts_version(w: &str) -> bool {
    let w = w.strip_prefix('v').unwrap_or(w);
    w.starts_with(|c: char| c.is_ascii_digit() || matches!(c, 'x' | 'X' | '*')) && !w.contains(',')
}

/// One alternative: terms separated by commas or whitespace.
fn conjunction(alt: &str) -> Result<Vec<Term>, String> {
    let mut c = Cursor { rest: alt };
    let mut terms = Vec::new();
    c.space();
    loop {
        terms.push(term(&mut c)?);
        let spaced = c.space();
        if c.rest.is_empty() {
            return Ok(terms);
        }
        if c.eat(",") {
            c.space();
        } else if !spaced {
            return Err(format!("unexpected {:?}", c.rest));
        }
    }
}

fn is_x(part: &str) -> bool {
    matches!(part, "x" | "X" | "*")
}

/// One version part: digits or a wildcard; `None` for a wildcard.
fn part(s: &str) -> Result<Option<u64>, String> {
    if is_x(s) {
        return Ok(None);
    }
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} is not a number or a wildcard"));
    }
    s.parse::<u64>()
        .map(Some)
        .map_err(|_| format!("{s:?} is too large"))
}

fn term(c: &mut Cursor<'_>) -> Result<Term, String> {
    let op = OPS
        .iter()
        .find(|(p, _)| c.eat(p))
        .map_or(Op::TildeOrEqual, |(_, op)| *op);
    c.space();
    c.eat("v");
    let ident = |ch: char| ch.is_ascii_digit() || matches!(ch, 'x' | 'X' | '*');
    let major = c.take(ident);
    if major.is_empty() {
        return Err(match c.rest {
            "" => "a version is missing".to_string(),
            r => format!("expected a version at {r:?}"),
        });
    }
    let mut parts = vec![major];
    while parts.len() < 3 && c.rest.starts_with('.') {
        c.eat(".");
        parts.push(c.take(ident));
    }
    let word = |ch: char| ch.is_ascii_alphanumeric() || ch == '-' || ch == '.';
    let pre = if c.eat("-") { c.take(word) } else { "" };
    if c.eat("+") {
        c.take(word);
    }
    let pre = Prerelease::new(pre).map_err(|e| format!("prerelease {pre:?}: {e}"))?;
    let nums = parts
        .iter()
        .map(|p| part(p))
        .collect::<Result<Vec<_>, _>>()?;
    let get = |i: usize| nums.get(i).copied().flatten();
    let (major, minor, patch) = (get(0), get(1), get(2));
    let mut t = Term {
        op,
        at: Bound {
            major: major.unwrap_or(0),
            minor: minor.unwrap_or(0),
            patch: patch.unwrap_or(0),
            pre,
        },
        minor_dirty: false,
        patch_dirty: false,
        dirty: false,
    };
    if major.is_none() {
        t.dirty = true;
        (t.at.minor, t.at.patch) = (0, 0);
    } else if minor.is_none() {
        (t.dirty, t.minor_dirty) = (true, true);
        t.at.patch = 0;
    } else if patch.is_none() {
        (t.dirty, t.patch_dirty) = (true, true);
    }
    Ok(t)
}

impl Term {
    fn matches(&self, v: &Bound) -> bool {
        // A prerelease satisfies only terms that name a prerelease themselves.
        if !v.pre.is_empty() && self.at.pre.is_empty() {
            return false;
        }
        let c = &self.at;
        match self.op {
            Op::TildeOrEqual if self.dirty => self.tilde(v),
            Op::TildeOrEqual => v.cmp(c).is_eq(),
            Op::NotEqual => self.not_equal(v),
            Op::Greater => self.greater(v),
            Op::Less => v.cmp(c).is_lt(),
            Op::GreaterEqual => v.cmp(c).is_ge(),
            Op::LessEqual => self.less_equal(v),
            Op::Tilde => self.tilde(v),
            Op::Caret => self.caret(v),
        }
    }

    fn not_equal(&self, v: &Bound) -> bool {
        let c = &self.at;
        if !self.dirty {
            return !v.cmp(c).is_eq();
        }
        if c.major != v.major {
            return true;
        }
        if self.minor_dirty {
            return false;
        }
        if c.minor != v.minor {
            return true;
        }
        // The patch is the wildcard: equal unless the prereleases differ.
        (!v.pre.is_empty() || !c.pre.is_empty()) && v.pre != c.pre
    }

    fn greater(&self, v: &Bound) -> bool {
        let c = &self.at;
        if !self.dirty {
            return v.cmp(c).is_gt();
        }
        match v.major.cmp(&c.major) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal if self.minor_dirty => false,
            Ordering::Equal if self.patch_dirty => v.minor > c.minor,
            Ordering::Equal => v.cmp(c).is_gt(),
        }
    }

    fn less_equal(&self, v: &Bound) -> bool {
        let c = &self.at;
        if !self.dirty {
            return v.cmp(c).is_le();
        }
        !(v.major > c.major || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
    }

    fn tilde(&self, v: &Bound) -> bool {
        let c = &self.at;
        if v.cmp(c).is_lt() {
            return false;
        }
        let zero = c.major == 0 && c.minor == 0 && c.patch == 0;
        if zero && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        v.major == c.major && (self.minor_dirty || v.minor == c.minor)
    }

    fn caret(&self, v: &Bound) -> bool {
        let c = &self.at;
        if v.cmp(c).is_lt() {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        v.minor == 0 && v.patch == c.patch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(c: &str, v: &str) -> bool {
        Constraint::parse(c)
            .unwrap()
            .matches(&semver::Version::parse(v).unwrap())
    }

    #[test]
    fn the_syntaxes_of_olm_v1_docs() {
        assert!(ok("1.2.x", "1.2.9") && !ok("1.2.x", "1.3.0"));
        assert!(ok("~1.2", "1.2.5") && !ok("~1.2", "1.3.0"));
        assert!(ok("^1.2", "1.9.0") && !ok("^1.2", "2.0.0"));
        assert!(ok(">=1.0.0, <2.0.0", "1.5.0") && !ok(">=1.0.0, <2.0.0", "2.0.0"));
        assert!(ok("1.0.0 || 2.0.0", "2.0.0") && !ok("1.0.0 || 2.0.0", "1.5.0"));
        // As Masterminds reads `<= 2.0`: every 2.0.x.
        assert!(ok("1.0 - 2.0", "2.0.5") && !ok("1.0 - 2.0", "2.1.0"));
    }

    /// Masterminds' NewVersion reads `1` and `1.4` as `1.0.0` and `1.4.0`.
    fn version(v: &str) -> semver::Version {
        let (core, pre) = v.split_once('-').map_or((v, None), |(c, p)| (c, Some(p)));
        let mut parts: Vec<&str> = core.split('.').collect();
        parts.resize(3, "0");
        let full = match pre {
            Some(p) => format!("{}-{p}", parts.join(".")),
            None => parts.join("."),
        };
        semver::Version::parse(&full).unwrap()
    }

    #[test]
    fn masterminds_own_cases() {
        let table = include_str!("../../../tests/masterminds/constraints.tsv");
        let mut n = 0;
        for line in table
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            let [c, v, want] = cols[..] else {
                panic!("bad row {line:?}")
            };
            let parsed = Constraint::parse(c);
            match want {
                "error" => assert!(parsed.is_err(), "{c:?} should not parse"),
                _ => {
                    let got = parsed
                        .unwrap_or_else(|e| panic!("{e}"))
                        .matches(&version(v));
                    assert_eq!(got.to_string(), want, "{c:?} against {v}");
                }
            }
            n += 1;
        }
        assert!(n > 200, "{n} cases");
    }

    #[test]
    fn hyphen_ranges_are_rewritten() {
        assert_eq!(
            rewrite_hyphen_ranges("2 - 3, 4.0.0 - 5.1"),
            ">= 2, <= 3, >= 4.0.0, <= 5.1"
        );
    }

    #[test]
    fn bad_constraints_say_what_is_wrong() {
        for bad in [
            "foo",
            ">= bar",
            "BAR >= 1.2.3",
            "12.3.4.1234",
            "12.3.34~ 1.2.3",
            "",
        ] {
            assert!(Constraint::parse(bad).is_err(), "{bad}");
        }
        let e = Constraint::parse(">= bar").unwrap_err().to_string();
        assert!(e.contains("\">= bar\""), "{e}");
    }
}
