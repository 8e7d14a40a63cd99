//! OLM version ranges (`github.com/blang/semver/v4` `ParseRange`).
//!
//! # Grammar ([`VersionRange::parse`])
//!
//! * A range is a list of comparators separated by whitespace (AND). The sets are joined
//!   by `||` tokens (OR). AND binds tighter than OR, and brackets are not supported.
//!   `||` must be a separate token (`1.0.0||2.0.0` is an error, as in blang), and it
//!   cannot be first, last or repeated.
//! * A comparator is an optional operator followed by a version. The operators are `=`,
//!   `==`, `!=`, `!`, `>`, `>=`, `<` and `<=`. A bare version means `=`. As in blang,
//!   whitespace after an operator that ends in `<`, `>` or `=` is skipped, so
//!   `>= 1.18.0 < 1.28.0` and `!= 1.2.1` work. A lone `!` is **not** joined to the next
//!   token. blang would silently drop it and read `! 1.2.3` as `=1.2.3`, so strict
//!   parsing rejects it.
//! * Versions are strict semver `major.minor.patch[-pre][+build]` with an optional
//!   leading `v`/`V` (a deppy extension: blang rejects `v`).
//! * Wildcards expand exactly as in blang's `expandWildcardVersion`. With `L` the wildcard's
//!   lower bound and `U` the next minor (`1.2.x`) or next major (`1.x`):
//!   `>W` → `>=U`, `>=W` → `>=L`, `<W` → `<L`, `<=W` → `<U`, `W`/`=W`/`==W` →
//!   `>=L <U`, `!=W`/`!W` → `<L >=U`. The last is an AND, so it never matches. That is
//!   a bug in blang, which OLM inherits, and deppy reproduces it. `1.x.x` is read like
//!   blang reads it, as `1.0.x`. deppy also accepts `X` and `*` as aliases of `x`
//!   (blang rejects them), and a lone `x`/`X`/`*` without an operator as "any version".
//! * Matching uses semver precedence and ignores build metadata (`=1.0.0` matches
//!   `1.0.0+build`). Pre-releases are not excluded (`>=1.0.0` matches `1.1.0-alpha`).
//!
//! Strict parsing also rejects some input that blang accepts, because blang gives it a
//! meaning the author almost never intended. blang silently ignores one-byte tokens, so
//! in `1.2.3 - 2.0.0` it drops the `-` and the range means `=1.2.3 =2.0.0`, which matches
//! nothing. [`VersionRange::parse`] rejects such tokens. [`VersionRange::parse_tolerant`]
//! drops them as OLM does and warns.
//!
//! # Tolerant parsing ([`VersionRange::parse_tolerant`])
//!
//! Tolerant parsing accepts real-catalog mess and reports every repair, and every
//! construct OLM would reject or read surprisingly, as a human-readable warning:
//! wrapping ASCII or typographic quotes, tabs/newlines/non-ASCII whitespace, a `v` prefix,
//! `X`/`*` wildcards, versions with missing minor/patch or leading zeros (`>=1.2` →
//! `>=1.2.0`), stray one-byte tokens (dropped, as OLM does), and blang's wildcard quirks.
//! If repairs were needed, [`VersionRange::raw`] holds the repaired text, which strict
//! [`VersionRange::parse`] accepts with the same meaning. Serialization therefore
//! round-trips. Otherwise `raw` is the input unchanged.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::version::{Version, parse_tolerant_core};

/// At most this many warnings are reported individually by `parse_tolerant`.
const MAX_WARNINGS: usize = 32;
/// Offending text quoted in messages is cut to this many characters.
const MAX_QUOTED: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn from_str(s: &str) -> Option<Op> {
        Some(match s {
            "" | "=" | "==" => Op::Eq,
            "!" | "!=" => Op::Ne,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "<" => Op::Lt,
            "<=" => Op::Le,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Comparator {
    op: Op,
    version: Version,
}

impl Comparator {
    fn matches(&self, v: &Version) -> bool {
        let o = v.cmp_precedence(&self.version);
        match self.op {
            Op::Eq => o == Ordering::Equal,
            Op::Ne => o != Ordering::Equal,
            Op::Gt => o == Ordering::Greater,
            Op::Ge => o != Ordering::Less,
            Op::Lt => o == Ordering::Less,
            Op::Le => o != Ordering::Greater,
        }
    }
}

/// An OLM version range: an OR of AND-sets of comparators, plus the text it was parsed from.
///
/// Equality and hashing compare both the raw text and the parsed comparators, so two
/// spellings of the same range (`>=1.0.0` and `>= 1.0.0`) are not equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VersionRange {
    raw: String,
    /// Never empty. An empty AND-set matches every version.
    sets: Vec<Vec<Comparator>>,
}

/// Error returned when a range string cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid version range {input:?}: {reason}")]
pub struct RangeError {
    /// The text that failed to parse.
    pub input: String,
    /// Why it failed.
    pub reason: String,
}

impl VersionRange {
    /// Parses a range with the blang/semver v4 grammar, plus `v` prefixes, `X`/`*`
    /// wildcards and whitespace after operators (see the module docs).
    pub fn parse(s: &str) -> Result<VersionRange, RangeError> {
        Parser::new(s, false).run().map(|(range, _)| range)
    }

    /// Like [`VersionRange::parse`], but repairs common catalog mistakes. The `Vec` holds
    /// one human-readable warning per repair or OLM incompatibility (see the module docs).
    pub fn parse_tolerant(s: &str) -> Result<(VersionRange, Vec<String>), RangeError> {
        Parser::new(s, true).run()
    }

    /// True if `v` satisfies the range (semver precedence, build metadata ignored).
    pub fn matches(&self, v: &Version) -> bool {
        self.sets.iter().any(|set| set.iter().all(|c| c.matches(v)))
    }

    /// The text this range was parsed from. For `parse_tolerant` with repairs, this is the
    /// repaired text.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// A range that matches every version. Its raw text is `*`, which [`VersionRange::parse`]
    /// accepts but OLM does not.
    pub fn any() -> VersionRange {
        VersionRange {
            raw: "*".to_string(),
            sets: vec![Vec::new()],
        }
    }

    /// A range matching exactly `v` by precedence (so build metadata is ignored). Its raw
    /// text is `=<v>`.
    pub fn exact(v: &Version) -> VersionRange {
        VersionRange {
            raw: format!("={v}"),
            sets: vec![vec![Comparator {
                op: Op::Eq,
                version: v.clone(),
            }]],
        }
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl FromStr for VersionRange {
    type Err = RangeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        VersionRange::parse(s)
    }
}

impl serde::Serialize for VersionRange {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.raw)
    }
}

impl<'de> serde::Deserialize<'de> for VersionRange {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = VersionRange;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a version range string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<VersionRange, E> {
                VersionRange::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// Cuts `s` for display in messages.
fn quoted(s: &str) -> String {
    let mut chars = s.chars();
    let head: String = chars.by_ref().take(MAX_QUOTED).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

fn is_open_quote(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '`'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{201e}'
            | '\u{201f}'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201a}'
            | '\u{201b}'
            | '\u{00ab}'
            | '\u{00bb}'
            | '\u{2039}'
            | '\u{203a}'
            | '\u{2032}'
            | '\u{2033}'
    )
}

/// A whitespace-separated token: its text with absorbed whitespace removed, and the byte
/// length of its span in the input (blang drops spans of one byte).
struct Token {
    text: String,
    span_len: usize,
}

/// The kind of version in a comparator, after wildcard detection.
enum Target {
    /// `x`, `X` or `*` alone: any version.
    Any,
    /// `N.x` (`minor == None`), `N.M.x`, or blang's `N.x.x`, which it reads as `N.0.x`.
    Wildcard {
        major: u64,
        minor: Option<u64>,
    },
    Exact(Version),
}

struct Parser<'a> {
    input: &'a str,
    tolerant: bool,
    warnings: Vec<String>,
    suppressed: usize,
    /// Set when tolerant parsing changed something strict parsing would reject.
    repaired: bool,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str, tolerant: bool) -> Self {
        Parser {
            input,
            tolerant,
            warnings: Vec::new(),
            suppressed: 0,
            repaired: false,
        }
    }

    fn error(&self, reason: impl Into<String>) -> RangeError {
        RangeError {
            input: self.input.to_string(),
            reason: reason.into(),
        }
    }

    fn warn(&mut self, msg: impl Into<String>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(msg.into());
        } else {
            self.suppressed += 1;
        }
    }

    /// A construct strict parsing rejects: an error, or a warning plus a repair in
    /// tolerant mode.
    fn repair(&mut self, msg: impl Into<String>) -> Result<(), RangeError> {
        if self.tolerant {
            self.repaired = true;
            self.warn(msg);
            Ok(())
        } else {
            Err(self.error(msg))
        }
    }

    /// A construct strict parsing accepts but OLM rejects or reads surprisingly. Only
    /// tolerant parsing reports it.
    fn note(&mut self, msg: impl Into<String>) {
        if self.tolerant {
            self.warn(msg);
        }
    }

    fn run(mut self) -> Result<(VersionRange, Vec<String>), RangeError> {
        let text = self.strip_quotes();
        if text.trim().is_empty() {
            return Err(self.error("empty range"));
        }
        let tokens = self.tokenize(text);

        // Split into OR-groups. Each kept token is also recorded as repaired text.
        let mut sets: Vec<Vec<Comparator>> = Vec::new();
        let mut current: Vec<Comparator> = Vec::new();
        let mut current_len = 0usize;
        let mut rebuilt: Vec<String> = Vec::new();
        let mut seen_any = false;
        for tok in tokens {
            if tok.text == "||" {
                if current_len == 0 {
                    let reason = if seen_any {
                        "empty alternative between '||'"
                    } else {
                        "range starts with '||'"
                    };
                    return Err(self.error(reason));
                }
                sets.push(std::mem::take(&mut current));
                current_len = 0;
                rebuilt.push("||".to_string());
                continue;
            }
            seen_any = true;
            let canonical = self.comparator(&tok.text, &mut current)?;
            current_len += 1;
            rebuilt.push(canonical.unwrap_or(tok.text));
        }
        if current_len == 0 {
            let reason = if seen_any {
                "range ends with '||'"
            } else {
                "empty range"
            };
            return Err(self.error(reason));
        }
        sets.push(current);

        if self.suppressed > 0 {
            let n = self.suppressed;
            self.warnings.push(format!("… and {n} more warnings"));
        }
        let raw = if self.repaired {
            rebuilt.join(" ")
        } else {
            self.input.to_string()
        };
        Ok((VersionRange { raw, sets }, self.warnings))
    }

    /// Tolerant mode: trims whitespace and wrapping quotes (ASCII or typographic, any
    /// nesting, balanced or not).
    fn strip_quotes(&mut self) -> &'a str {
        let mut text = self.input;
        if !self.tolerant {
            return text;
        }
        let (mut ascii, mut typographic) = (false, false);
        loop {
            let trimmed = text.trim();
            let mut chars = trimmed.chars();
            let mut cut = trimmed;
            if let Some(c) = chars.next().filter(|c| is_open_quote(*c)) {
                if c.is_ascii() {
                    ascii = true
                } else {
                    typographic = true
                }
                cut = cut.get(c.len_utf8()..).unwrap_or("");
            }
            if let Some(c) = cut.chars().next_back().filter(|c| is_open_quote(*c)) {
                if c.is_ascii() {
                    ascii = true
                } else {
                    typographic = true
                }
                cut = cut.get(..cut.len() - c.len_utf8()).unwrap_or("");
            }
            if cut.len() == trimmed.len() {
                break;
            }
            text = cut;
        }
        if typographic {
            self.repaired = true;
            self.warn("stripped typographic quotes around the range");
        }
        if ascii {
            self.repaired = true;
            self.warn("stripped ASCII quotes around the range");
        }
        text
    }

    /// Splits on whitespace like blang's `splitAndTrim`: whitespace that follows a token
    /// ending in `<`, `>` or `=` is skipped, joining the operator to the next word.
    /// Strict mode splits on ASCII whitespace and tolerant mode on any Unicode whitespace.
    /// In tolerant mode, one-byte tokens are dropped as blang does, except the `x`/`X`/`*`
    /// wildcards.
    fn tokenize(&mut self, text: &str) -> Vec<Token> {
        let mut tokens = Vec::new();
        let mut cur = String::new();
        let mut start: Option<usize> = None;
        let mut end = 0usize;
        let mut odd_space = false;
        for (i, c) in text.char_indices() {
            let sep = if self.tolerant {
                c.is_whitespace()
            } else {
                c.is_ascii_whitespace()
            };
            if sep {
                if c != ' ' {
                    odd_space = true;
                }
                if cur.ends_with(['<', '>', '=']) {
                    // Absorbed whitespace counts towards the span, as in blang.
                    end = i + c.len_utf8();
                    continue;
                }
                if let Some(s) = start.take() {
                    tokens.push(Token {
                        text: std::mem::take(&mut cur),
                        span_len: end - s,
                    });
                }
            } else {
                if start.is_none() {
                    start = Some(i);
                }
                cur.push(c);
                end = i + c.len_utf8();
            }
        }
        if let Some(s) = start {
            tokens.push(Token {
                text: cur,
                span_len: end - s,
            });
        }
        if odd_space && self.tolerant {
            self.repaired = true;
            self.warn("whitespace other than plain spaces (tabs, newlines, non-ASCII spaces) treated as spaces; OLM only splits on ' '");
        }
        if self.tolerant {
            let mut kept = Vec::with_capacity(tokens.len());
            for tok in tokens {
                if tok.span_len == 1 && !matches!(tok.text.as_str(), "x" | "X" | "*") {
                    let hint = match tok.text.as_str() {
                        "-" => "; OLM has no hyphen ranges, so `A - B` means `=A =B`",
                        "!" => "; OLM ignores a lone '!', so `! 1.2.3` means `=1.2.3`",
                        _ => "",
                    };
                    self.repaired = true;
                    self.warn(format!(
                        "ignored one-character token {}, as OLM does{hint}",
                        quoted(&tok.text)
                    ));
                } else {
                    kept.push(tok);
                }
            }
            tokens = kept;
        }
        tokens
    }

    /// Parses one comparator token, pushing its expansion onto `out`. Returns repaired
    /// token text if the token needed a repair that strict parsing would reject.
    fn comparator(
        &mut self,
        tok: &str,
        out: &mut Vec<Comparator>,
    ) -> Result<Option<String>, RangeError> {
        let op_len = tok
            .find(|c: char| !matches!(c, '<' | '>' | '=' | '!'))
            .unwrap_or(tok.len());
        let (op_str, ver_str) = tok.split_at(op_len);
        let Some(op) = Op::from_str(op_str) else {
            return Err(self.error(format!(
                "invalid operator {} in {}",
                quoted(op_str),
                quoted(tok)
            )));
        };
        if ver_str.is_empty() {
            let reason = format!("missing version in {}", quoted(tok));
            return Err(self.error(reason));
        }
        let body = match ver_str.strip_prefix(['v', 'V']) {
            Some(rest) => {
                self.note(format!(
                    "leading 'v' in {} is not accepted by OLM",
                    quoted(tok)
                ));
                rest
            }
            None => ver_str,
        };
        let (target, canonical) = self.target(tok, op_str, body)?;
        match target {
            Target::Any => {
                if !op_str.is_empty() {
                    let reason = format!(
                        "operator {} cannot be used with a bare wildcard in {}",
                        quoted(op_str),
                        quoted(tok)
                    );
                    return Err(self.error(reason));
                }
                self.note(format!(
                    "{} (any version) is not accepted by OLM",
                    quoted(tok)
                ));
            }
            Target::Exact(version) => out.push(Comparator { op, version }),
            Target::Wildcard { major, minor } => {
                let overflow = || format!("version component overflows in {}", quoted(tok));
                let lower = Version::new(major, minor.unwrap_or(0), 0);
                let upper = match minor {
                    Some(m) => m.checked_add(1).map(|m| Version::new(major, m, 0)),
                    None => major.checked_add(1).map(|n| Version::new(n, 0, 0)),
                };
                let upper = || upper.clone().ok_or_else(|| self.error(overflow()));
                let push = |out: &mut Vec<Comparator>, op, version| {
                    out.push(Comparator { op, version });
                };
                match op {
                    Op::Gt => push(out, Op::Ge, upper()?),
                    Op::Ge => push(out, Op::Ge, lower),
                    Op::Lt => push(out, Op::Lt, lower),
                    Op::Le => push(out, Op::Lt, upper()?),
                    Op::Eq => {
                        let u = upper()?;
                        push(out, Op::Ge, lower);
                        push(out, Op::Lt, u);
                    }
                    Op::Ne => {
                        let u = upper()?;
                        push(out, Op::Lt, lower);
                        push(out, Op::Ge, u);
                        self.note(format!(
                            "{} never matches: OLM expands it to an AND of `<` and `>=` bounds",
                            quoted(tok)
                        ));
                    }
                }
            }
        }
        Ok(canonical)
    }

    /// Classifies a version body (operator and `v` removed). Returns the target and, if a
    /// tolerant repair was applied, the repaired token text.
    fn target(
        &mut self,
        tok: &str,
        op_str: &str,
        body: &str,
    ) -> Result<(Target, Option<String>), RangeError> {
        let is_wild = |p: &str| matches!(p, "x" | "X" | "*");
        if !body.contains(['-', '+']) && body.split('.').any(is_wild) {
            if body.contains(['X', '*']) {
                self.note(format!(
                    "wildcard in {} uses 'X' or '*', which OLM rejects (it only accepts 'x')",
                    quoted(tok)
                ));
            }
            let mut parts = body.split('.');
            let (p0, p1, p2, rest) = (parts.next(), parts.next(), parts.next(), parts.next());
            let shape_err = || format!("unsupported wildcard {}", quoted(tok));
            return match (p0, p1, p2, rest) {
                (Some(w), None, None, None) if is_wild(w) => Ok((Target::Any, None)),
                (Some(n), Some(w), None, None)
                | (Some(n), Some(w), Some("x" | "X" | "*"), None)
                    if is_wild(w) =>
                {
                    if p2.is_some() {
                        self.note(format!(
                            "OLM reads {} as {}: `N.x.x` is treated like `N.0.x`",
                            quoted(tok),
                            quoted(&format!("{op_str}{n}.0.x"))
                        ));
                    }
                    let (major, fixed_major) = self.number(tok, n)?;
                    let canonical = fixed_major.then(|| {
                        let tail = if p2.is_some() { "x.x" } else { "x" };
                        format!("{op_str}{major}.{tail}")
                    });
                    // blang: `N.x.x` is a patch wildcard on `N.0`.
                    let minor = p2.map(|_| 0);
                    Ok((Target::Wildcard { major, minor }, canonical))
                }
                (Some(n), Some(m), Some(w), None) if is_wild(w) => {
                    let (major, fixed_major) = self.number(tok, n)?;
                    let (minor, fixed_minor) = self.number(tok, m)?;
                    let canonical =
                        (fixed_major || fixed_minor).then(|| format!("{op_str}{major}.{minor}.x"));
                    Ok((
                        Target::Wildcard {
                            major,
                            minor: Some(minor),
                        },
                        canonical,
                    ))
                }
                _ => Err(self.error(shape_err())),
            };
        }
        match semver::Version::parse(body) {
            Ok(v) => Ok((Target::Exact(Version::from(v)), None)),
            Err(strict_err) => {
                let bad = format!(
                    "invalid version {} in {}: {strict_err}",
                    quoted(body),
                    quoted(tok)
                );
                if !self.tolerant {
                    return Err(self.error(bad));
                }
                match parse_tolerant_core(body) {
                    Ok(v) => {
                        let fixed = Version::from(v);
                        self.repair(format!(
                            "version {} in {} is not strict semver (missing minor/patch or leading zeros); read as {}",
                            quoted(body),
                            quoted(tok),
                            quoted(&fixed.to_string())
                        ))?;
                        let canonical = format!("{op_str}{fixed}");
                        Ok((Target::Exact(fixed), Some(canonical)))
                    }
                    Err(_) => Err(self.error(bad)),
                }
            }
        }
    }

    /// Parses a numeric wildcard component. Leading zeros are a tolerant repair, reported
    /// by the returned flag.
    fn number(&mut self, tok: &str, s: &str) -> Result<(u64, bool), RangeError> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error(format!("invalid number {} in {}", quoted(s), quoted(tok))));
        }
        let n: u64 = s.parse().map_err(|_| {
            self.error(format!("number {} too large in {}", quoted(s), quoted(tok)))
        })?;
        let leading_zero = s.len() > 1 && s.starts_with('0');
        if leading_zero {
            self.repair(format!(
                "number {} in {} has leading zeros, which OLM rejects",
                quoted(s),
                quoted(tok)
            ))?;
        }
        Ok((n, leading_zero))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(s: &str) -> Version {
        match Version::parse(s) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    fn r(s: &str) -> VersionRange {
        match VersionRange::parse(s) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    /// Versions every table case is checked against.
    const UNIVERSE: &[&str] = &[
        "0.1.0",
        "0.4.9",
        "0.5.0",
        "0.9.2",
        "1.0.0-alpha",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.0+build.7",
        "1.0.1",
        "1.1.0-alpha",
        "1.1.0-rc.1",
        "1.1.9",
        "1.2.0",
        "1.2.1",
        "1.2.2",
        "1.2.3",
        "1.2.3+meta",
        "1.2.4",
        "1.2.6",
        "1.3.0",
        "1.9.0",
        "1.17.9",
        "1.18.0",
        "1.27.99",
        "1.28.0",
        "2.0.0-alpha",
        "2.0.0",
        "2.0.1",
        "2.1.8",
        "2.2.0",
        "3.0.0",
    ];

    fn check(range: &VersionRange, label: &str, expected: &[&str]) {
        for e in expected {
            assert!(UNIVERSE.contains(e), "{label}: {e} is not in UNIVERSE");
        }
        let got: Vec<&str> = UNIVERSE
            .iter()
            .copied()
            .filter(|s| range.matches(&v(s)))
            .collect();
        let want: Vec<&str> = UNIVERSE
            .iter()
            .copied()
            .filter(|s| expected.contains(s))
            .collect();
        assert_eq!(got, want, "range {label:?}");
    }

    #[test]
    fn strict_match_table() {
        let cases: &[(&str, &[&str])] = &[
            (
                ">=1.0.0 <2.0.0",
                &[
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                    "1.3.0",
                    "1.9.0",
                    "1.17.9",
                    "1.18.0",
                    "1.27.99",
                    "1.28.0",
                    "2.0.0-alpha",
                ],
            ),
            (
                ">1.0.0 !1.2.1",
                &[
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                    "1.3.0",
                    "1.9.0",
                    "1.17.9",
                    "1.18.0",
                    "1.27.99",
                    "1.28.0",
                    "2.0.0-alpha",
                    "2.0.0",
                    "2.0.1",
                    "2.1.8",
                    "2.2.0",
                    "3.0.0",
                ],
            ),
            (
                ">=1.0.0 || <0.5.0",
                &[
                    "0.1.0",
                    "0.4.9",
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                    "1.3.0",
                    "1.9.0",
                    "1.17.9",
                    "1.18.0",
                    "1.27.99",
                    "1.28.0",
                    "2.0.0-alpha",
                    "2.0.0",
                    "2.0.1",
                    "2.1.8",
                    "2.2.0",
                    "3.0.0",
                ],
            ),
            (
                "1.2.x",
                &[
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                ],
            ),
            (
                "1.x",
                &[
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                    "1.3.0",
                    "1.9.0",
                    "1.17.9",
                    "1.18.0",
                    "1.27.99",
                    "1.28.0",
                    "2.0.0-alpha",
                ],
            ),
            (
                ">1.2.x",
                &[
                    "1.3.0",
                    "1.9.0",
                    "1.17.9",
                    "1.18.0",
                    "1.27.99",
                    "1.28.0",
                    "2.0.0-alpha",
                    "2.0.0",
                    "2.0.1",
                    "2.1.8",
                    "2.2.0",
                    "3.0.0",
                ],
            ),
            (
                "<=1.2.x",
                &[
                    "0.1.0",
                    "0.4.9",
                    "0.5.0",
                    "0.9.2",
                    "1.0.0-alpha",
                    "1.0.0-rc.1",
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                ],
            ),
            (
                "<1.2.x",
                &[
                    "0.1.0",
                    "0.4.9",
                    "0.5.0",
                    "0.9.2",
                    "1.0.0-alpha",
                    "1.0.0-rc.1",
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                ],
            ),
            (">1.x", &["2.0.0", "2.0.1", "2.1.8", "2.2.0", "3.0.0"]),
            (
                "< 1.0.0",
                &[
                    "0.1.0",
                    "0.4.9",
                    "0.5.0",
                    "0.9.2",
                    "1.0.0-alpha",
                    "1.0.0-rc.1",
                ],
            ),
            (">= 1.18.0 < 1.28.0", &["1.18.0", "1.27.99"]),
            ("1.2.3", &["1.2.3", "1.2.3+meta"]),
            ("=1.2.3", &["1.2.3", "1.2.3+meta"]),
            ("==1.2.3", &["1.2.3", "1.2.3+meta"]),
            ("v1.2.3", &["1.2.3", "1.2.3+meta"]),
            ("V1.2.3", &["1.2.3", "1.2.3+meta"]),
            ("=v1.2.3", &["1.2.3", "1.2.3+meta"]),
            ("1.2.3+other", &["1.2.3", "1.2.3+meta"]),
            ("=1.0.0", &["1.0.0", "1.0.0+build.7"]),
            ("<=1.0.0 >=1.0.0", &["1.0.0", "1.0.0+build.7"]),
            (">1.0.0 <1.0.1", &[]),
            ("<1.0.0 >1.0.0", &[]),
            (
                ">=1.0.0-alpha <1.0.1",
                &["1.0.0-alpha", "1.0.0-rc.1", "1.0.0", "1.0.0+build.7"],
            ),
            (
                ">1.0.0-alpha <=1.0.0",
                &["1.0.0-rc.1", "1.0.0", "1.0.0+build.7"],
            ),
            ("1.1.0-rc.1", &["1.1.0-rc.1"]),
            (
                ">1.2.2 <1.2.4 || >=2.0.0 <3.0.0",
                &["1.2.3", "1.2.3+meta", "2.0.0", "2.0.1", "2.1.8", "2.2.0"],
            ),
            (
                "1.x || >=2.0.x <2.2.x",
                &[
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                    "1.3.0",
                    "1.9.0",
                    "1.17.9",
                    "1.18.0",
                    "1.27.99",
                    "1.28.0",
                    "2.0.0-alpha",
                    "2.0.0",
                    "2.0.1",
                    "2.1.8",
                ],
            ),
            (
                "<1.2.2 || >1.2.4 <1.3.0 || =3.0.0",
                &[
                    "0.1.0",
                    "0.4.9",
                    "0.5.0",
                    "0.9.2",
                    "1.0.0-alpha",
                    "1.0.0-rc.1",
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                    "1.1.9",
                    "1.2.0",
                    "1.2.1",
                    "1.2.6",
                    "3.0.0",
                ],
            ),
            // X and * are aliases of x (a deppy extension).
            (
                "1.2.X",
                &[
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                ],
            ),
            (
                "1.2.*",
                &[
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                ],
            ),
            (
                "v1.2.x",
                &[
                    "1.2.0",
                    "1.2.1",
                    "1.2.2",
                    "1.2.3",
                    "1.2.3+meta",
                    "1.2.4",
                    "1.2.6",
                ],
            ),
            // blang quirks, reproduced: `1.x.x` is `1.0.x`, and `!=` with a wildcard never matches.
            (
                "1.x.x",
                &[
                    "1.0.0",
                    "1.0.0+build.7",
                    "1.0.1",
                    "1.1.0-alpha",
                    "1.1.0-rc.1",
                ],
            ),
            ("!=1.2.x", &[]),
            ("!1.x", &[]),
        ];
        for (input, expected) in cases {
            check(&r(input), input, expected);
        }
        // `!=`, `!` and `!= ` (space after operator) all exclude exactly one version.
        let all_but = |skip: &[&str]| -> Vec<&str> {
            UNIVERSE
                .iter()
                .copied()
                .filter(|s| !skip.contains(s))
                .collect()
        };
        for input in ["!=1.2.1", "!1.2.1", "!= 1.2.1", "!=v1.2.1"] {
            check(&r(input), input, &all_but(&["1.2.1"]));
        }
        for input in [">1.0.0 != 1.2.1", ">1.0.0 !=1.2.1", "> 1.0.0 != 1.2.1"] {
            check(&r(input), input, &matching(&r(">1.0.0 !1.2.1")));
        }
        for input in ["*", "x", "X", "1.0.0 || *", " * "] {
            check(&r(input), input, UNIVERSE);
        }
    }

    fn matching(range: &VersionRange) -> Vec<&'static str> {
        UNIVERSE
            .iter()
            .copied()
            .filter(|s| range.matches(&v(s)))
            .collect()
    }

    #[test]
    fn spacing_variants_are_equivalent() {
        let base = r(">=1.18.0 <1.28.0");
        for input in [
            ">= 1.18.0 < 1.28.0",
            ">=   1.18.0    <   1.28.0",
            "  >=1.18.0 <1.28.0  ",
            ">=1.18.0\t<1.28.0",
            ">=1.18.0\n<1.28.0\n",
            "> =1.18.0 <1.28.0",
            ">= v1.18.0 <v1.28.0",
        ] {
            let got = r(input);
            assert_eq!(got.sets, base.sets, "{input:?}");
            assert_eq!(got.raw(), input);
        }
    }

    #[test]
    fn blang_wildcard_expansion() {
        // Each wildcard form expands to the same comparators as blang's rewritten text.
        let cases = [
            (">=1.2.x", ">=1.2.0"),
            ("<=1.2.x", "<1.3.0"),
            (">1.2.x", ">=1.3.0"),
            ("<1.2.x", "<1.2.0"),
            ("!=1.2.x", "<1.2.0 >=1.3.0"),
            (">=1.x", ">=1.0.0"),
            ("<=1.x", "<2.0.0"),
            (">1.x", ">=2.0.0"),
            ("<1.x", "<1.0.0"),
            ("!=1.x", "<1.0.0 >=2.0.0"),
            ("1.2.x", ">=1.2.0 <1.3.0"),
            ("=1.2.x", ">=1.2.0 <1.3.0"),
            ("==1.2.x", ">=1.2.0 <1.3.0"),
            ("1.x", ">=1.0.0 <2.0.0"),
            ("1.x.x", ">=1.0.0 <1.1.0"),
            ("> 1.x.x", ">=1.1.0"),
            ("1.2.*", ">=1.2.0 <1.3.0"),
            ("1.X", ">=1.0.0 <2.0.0"),
            ("0.0.x", ">=0.0.0 <0.1.0"),
            ("1.x || 3.1.x", ">=1.0.0 <2.0.0 || >=3.1.0 <3.2.0"),
        ];
        for (wild, plain) in cases {
            assert_eq!(r(wild).sets, r(plain).sets, "{wild:?}");
        }
    }

    #[test]
    fn strict_errors() {
        let cases = [
            "",
            "   ",
            ">=",
            ">= ",
            "<",
            "!",
            "||",
            ">=1.0.0 ||",
            "|| >=1.0.0",
            "1.0.0 || || 2.0.0",
            "1.0.0||2.0.0",
            "foo",
            "string",
            ">>1.0.0",
            "=>1.0.0",
            "<==1.0.0",
            "~1.2.3",
            "^1.2.3",
            "1.0",
            ">=1.2",
            ">=1",
            ">=01.2.3",
            "1.2.3 - 2.0.0",
            "! 1.2.3",
            ">=1.0.0 x1",
            "fo.ob.ar.x",
            "1.x.3",
            "1.2.3.x",
            "x.x",
            "*.1",
            "1.2.x-alpha",
            ">x",
            ">=*",
            "01.x",
            "99999999999999999999.x",
            "18446744073709551615.x",
            "<=1.18446744073709551615.x",
            ">=1.0.0 <2.0.0 ,",
            "\u{201c}>=1.0.0\u{201d}",
            "'>=1.0.0'",
            ">=1.0.0\u{a0}<2.0.0",
            "vv1.0.0",
            ">=v",
            "1.2.3-",
            "1.2.3+",
            "1.2.3-01",
            ">=1.0.0 <2.0.0 || 3.0",
            ">=1.0.0 <",
            ">=1.0.0 < ",
            "1.0.0 ||2.0.0",
            "<>1.0.0",
            "=1.0.0=",
        ];
        for input in cases {
            match VersionRange::parse(input) {
                Ok(range) => panic!("{input:?} parsed as {range:?}"),
                Err(e) => {
                    assert_eq!(e.input, input);
                    assert!(!e.reason.is_empty(), "{input:?}");
                    assert!(e.to_string().starts_with("invalid version range "));
                }
            }
        }
        // Large components that do not overflow when incremented are fine.
        assert!(VersionRange::parse("18446744073709551614.x").is_ok());
        assert!(VersionRange::parse(">=18446744073709551615.x").is_ok());
    }

    fn tolerant(s: &str) -> (VersionRange, Vec<String>) {
        match VersionRange::parse_tolerant(s) {
            Ok(x) => x,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn tolerant_table() {
        // (input, repaired raw text (None = unchanged), warning substrings, equivalent strict range)
        let cases: &[(&str, Option<&str>, &[&str], &str)] = &[
            (
                "\u{201c}>=1.0.0 <2.0.0\u{201d}",
                Some(">=1.0.0 <2.0.0"),
                &["typographic quotes"],
                ">=1.0.0 <2.0.0",
            ),
            ("'>=1.0.0'", Some(">=1.0.0"), &["ASCII quotes"], ">=1.0.0"),
            ("\">=1.0.0\"", Some(">=1.0.0"), &["ASCII quotes"], ">=1.0.0"),
            (
                "  \u{2018}\"<1.0.0\"\u{2019} ",
                Some("<1.0.0"),
                &["typographic quotes", "ASCII quotes"],
                "<1.0.0",
            ),
            (
                "\u{201e}>=1.0.0",
                Some(">=1.0.0"),
                &["typographic quotes"],
                ">=1.0.0",
            ),
            (
                "'<v1.2.0'",
                Some("<v1.2.0"),
                &["ASCII quotes", "leading 'v'"],
                "<1.2.0",
            ),
            ("<v1.2.0", None, &["leading 'v'"], "<1.2.0"),
            (">=1.2", Some(">=1.2.0"), &["not strict semver"], ">=1.2.0"),
            (">=1", Some(">=1.0.0"), &["not strict semver"], ">=1.0.0"),
            (
                ">= v1.2",
                Some(">=1.2.0"),
                &["leading 'v'", "not strict semver"],
                ">=1.2.0",
            ),
            ("1.2", Some("1.2.0"), &["not strict semver"], "=1.2.0"),
            (
                ">=01.02.03",
                Some(">=1.2.3"),
                &["not strict semver"],
                ">=1.2.3",
            ),
            (">=01.2.x", Some(">=1.2.x"), &["leading zeros"], ">=1.2.0"),
            (
                ">=1.0.0\t<2.0.0\n",
                Some(">=1.0.0 <2.0.0"),
                &["whitespace"],
                ">=1.0.0 <2.0.0",
            ),
            (
                ">=1.0.0\u{a0}<2.0.0",
                Some(">=1.0.0 <2.0.0"),
                &["whitespace"],
                ">=1.0.0 <2.0.0",
            ),
            (
                "1.2.3 - 2.0.0",
                Some("1.2.3 2.0.0"),
                &["one-character token \"-\"", "hyphen"],
                "=1.2.3 =2.0.0",
            ),
            ("! 1.2.3", Some("1.2.3"), &["lone '!'"], "=1.2.3"),
            (
                ">=1.0.0 <",
                Some(">=1.0.0"),
                &["one-character token \"<\""],
                ">=1.0.0",
            ),
            ("1.2.X", None, &["'X' or '*'"], ">=1.2.0 <1.3.0"),
            ("*", None, &["any version"], "*"),
            ("1.x.x", None, &["N.0.x"], ">=1.0.0 <1.1.0"),
            ("!=1.2.x", None, &["never matches"], "<1.2.0 >=1.3.0"),
            (">=1.0.0 <2.0.0", None, &[], ">=1.0.0 <2.0.0"),
            (
                "\u{201c}>=1.2 || 3.x\u{201d}",
                Some(">=1.2.0 || 3.x"),
                &["typographic quotes", "not strict semver"],
                ">=1.2.0 || >=3.0.0 <4.0.0",
            ),
        ];
        for (input, raw, warnings, equivalent) in cases {
            let (range, got_warnings) = tolerant(input);
            assert_eq!(range.raw(), raw.unwrap_or(input), "raw for {input:?}");
            assert_eq!(range.sets, r(equivalent).sets, "meaning of {input:?}");
            for w in *warnings {
                assert!(
                    got_warnings.iter().any(|g| g.contains(w)),
                    "{input:?}: no warning containing {w:?} in {got_warnings:?}"
                );
            }
            if warnings.is_empty() {
                assert!(got_warnings.is_empty(), "{input:?}: {got_warnings:?}");
            }
            // The repaired text parses strictly to the same range.
            assert_eq!(r(range.raw()).sets, range.sets, "reparse of {input:?}");
        }
    }

    #[test]
    fn tolerant_errors() {
        for input in [
            "",
            "\u{201c}\u{201d}",
            "''",
            "-",
            "||",
            ">=1.0.0 ||",
            "foo",
            ">>1.0.0",
            ">=1.2-alpha",
            "~1.2",
            "1.x.3",
            ">=1.0.0 || -",
            ">=\u{201c}1.0.0\u{201d}",
            ">=1.0.0 < ",
            "1.0.0 ||2.0.0",
            "\u{2265}1.0.0",
        ] {
            assert!(
                VersionRange::parse_tolerant(input).is_err(),
                "{input:?} should fail"
            );
        }
    }

    #[test]
    fn warnings_are_capped() {
        let input = format!(">=1.0.0 {}", "- ".repeat(1000));
        let (range, warnings) = tolerant(&input);
        assert_eq!(range.raw(), ">=1.0.0");
        assert_eq!(warnings.len(), MAX_WARNINGS + 1);
        assert!(warnings.last().is_some_and(|w| w.contains("968 more")));
    }

    #[test]
    fn any_and_exact() {
        let any = VersionRange::any();
        assert_eq!(any.raw(), "*");
        check(&any, "any", UNIVERSE);
        assert_eq!(r(any.raw()), any);

        let exact = VersionRange::exact(&v("1.2.3"));
        assert_eq!(exact.to_string(), "=1.2.3");
        check(&exact, "exact", &["1.2.3", "1.2.3+meta"]);
        assert_eq!(r(exact.raw()), exact);
        let with_build = VersionRange::exact(&v("1.2.3+meta"));
        assert_eq!(with_build.raw(), "=1.2.3+meta");
        check(&with_build, "exact+build", &["1.2.3", "1.2.3+meta"]);
    }

    #[test]
    fn display_fromstr_serde() {
        let input = ">= 1.18.0 < 1.28.0 || 2.x";
        let range: VersionRange = input.parse().expect("parse");
        assert_eq!(range.to_string(), input);
        let json = serde_json::to_string(&range).expect("serialize");
        assert_eq!(json, serde_json::to_string(input).expect("json string"));
        let back: VersionRange = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, range);
        // Deserialize is strict.
        assert!(serde_json::from_str::<VersionRange>("\">=1.2\"").is_err());
        assert!(serde_json::from_str::<VersionRange>("\"\"").is_err());
        assert!(serde_json::from_str::<VersionRange>("3").is_err());
        // Ranges repaired by parse_tolerant serialize to text that strict Deserialize accepts.
        let (repaired, _) = tolerant("\u{201c}>=1.2\u{201d}");
        let json = serde_json::to_string(&repaired).expect("serialize");
        let back: VersionRange = serde_json::from_str(&json).expect("deserialize repaired");
        assert_eq!(back, repaired);
    }

    #[test]
    fn error_display() {
        let err = VersionRange::parse(">>1.0.0").expect_err(">>");
        assert_eq!(err.input, ">>1.0.0");
        assert!(
            err.to_string()
                .starts_with("invalid version range \">>1.0.0\": "),
            "{err}"
        );
        assert!(err.reason.contains("operator"), "{err}");
    }

    #[test]
    fn huge_inputs_are_linear() {
        let start = std::time::Instant::now();
        let mb = 1 << 20;
        // Many valid comparators.
        let many = ">=1.0.0 <2.0.0 || ".repeat(mb / 18) + "3.0.0";
        let range = r(&many);
        assert!(range.matches(&v("1.5.0")));
        assert!(!range.matches(&v("2.5.0")));
        let (_, warnings) = tolerant(&many);
        assert!(warnings.is_empty());
        // Pathological ones.
        for bad in [
            "1".repeat(mb),
            ">".repeat(mb),
            ">= ".repeat(mb / 3),
            "|| ".repeat(mb / 3),
            "x.".repeat(mb / 2),
            "\u{201c}".repeat(mb / 3),
            " ".repeat(mb),
            format!("1.0.0-{}", "a.".repeat(mb / 2)),
            "- ".repeat(mb / 2),
        ] {
            assert!(VersionRange::parse(&bad).is_err());
            let _ = VersionRange::parse_tolerant(&bad);
        }
        let (ok, warnings) = tolerant(&format!("{}>=1.0.0", "- ".repeat(mb / 2)));
        assert_eq!(ok.raw(), ">=1.0.0");
        assert_eq!(warnings.len(), MAX_WARNINGS + 1);
        // Generous bound: quadratic behaviour on 1 MB inputs would take far longer.
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    }

    fn arb_version() -> impl Strategy<Value = Version> {
        let pre = prop_oneof![
            Just(""),
            Just("-alpha"),
            Just("-alpha.1"),
            Just("-beta"),
            Just("-rc.1"),
            Just("-0"),
            Just("-1"),
        ];
        let build = prop_oneof![Just(""), Just("+b1"), Just("+001")];
        (0u64..3, 0u64..3, 0u64..3, pre, build)
            .prop_map(|(a, b, c, pre, build)| v(&format!("{a}.{b}.{c}{pre}{build}")))
    }

    fn arb_range_text() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            Just(">=1.0.0"),
            Just("<2.0.0"),
            Just("1.2.x"),
            Just("!=1.0.1"),
            Just("v1.0.0"),
            Just(">= 1.2"),
            Just("||"),
            Just("-"),
            Just("*"),
            Just("\u{201c}"),
            Just("'"),
            Just("1.x.x"),
            Just(">"),
            Just("\t"),
            Just("01.2.3"),
        ];
        proptest::collection::vec(atom, 0..8).prop_map(|atoms| atoms.join(" "))
    }

    proptest! {
        #[test]
        fn ge_matches_iff_not_less(a in arb_version(), b in arb_version()) {
            let range = r(&format!(">={a}"));
            prop_assert_eq!(range.matches(&b), b.cmp_precedence(&a) != Ordering::Less);
            let range = r(&format!("<{a}"));
            prop_assert_eq!(range.matches(&b), b.cmp_precedence(&a) == Ordering::Less);
            let range = r(&format!("{a}"));
            prop_assert_eq!(range.matches(&b), b.cmp_precedence(&a) == Ordering::Equal);
        }

        #[test]
        fn never_panics(s in "\\PC{0,60}") {
            let _ = VersionRange::parse(&s);
            let _ = VersionRange::parse_tolerant(&s);
        }

        #[test]
        fn tolerant_raw_reparses_strictly(s in arb_range_text()) {
            if let Ok(range) = VersionRange::parse(&s) {
                let (t, _) = tolerant(&s);
                prop_assert_eq!(&t.sets, &range.sets);
            }
            if let Ok((range, _)) = VersionRange::parse_tolerant(&s) {
                let strict = VersionRange::parse(range.raw());
                prop_assert!(strict.is_ok(), "{:?} -> {:?}", s, range.raw());
                if let Ok(strict) = strict {
                    prop_assert_eq!(strict.sets, range.sets);
                }
            }
        }
    }
}
