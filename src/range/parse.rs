//! The range parser: text to comparator sets, strict or tolerant (see the docs of
//! [`super`] for the grammar and the repairs).

use super::{Comparator, Op, RangeError, VersionRange};
use crate::version::{Version, parse_tolerant_core};

/// At most this many warnings are reported individually by `parse_tolerant`.
pub(super) const MAX_WARNINGS: usize = 32;
/// Offending text quoted in messages is cut to this many characters.
const MAX_QUOTED: usize = 64;

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

pub(super) struct Parser<'a> {
    input: &'a str,
    tolerant: bool,
    warnings: Vec<String>,
    suppressed: usize,
    /// Set when tolerant parsing changed something strict parsing would reject.
    repaired: bool,
}

impl<'a> Parser<'a> {
    pub(super) fn new(input: &'a str, tolerant: bool) -> Self {
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

    pub(super) fn run(mut self) -> Result<(VersionRange, Vec<String>), RangeError> {
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
