//! Go's regular expressions (RE2 syntax, `regexp.Compile`), as Kubernetes compiles a CRD's
//! `pattern`, on the `regex` crate's linear-time engine. The two syntaxes are close; this
//! reads Go's (its escapes, classes, flags, `\Q…\E`, repetition and nesting limits, what it
//! refuses: lookaround, backreferences) and writes the same expression in the `regex`
//! crate's, every literal escaped and every Perl class spelled out as Go means it (ASCII).
//! Differences that remain: Unicode class names the `regex` crate knows and Go does not are
//! accepted, and a pattern over the `regex` crate's size limit is refused even when Go would
//! compile it (docs/semantics.md §11.4). Tested against Go's own test tables
//! (`tests/gore/cases.jsonl`).

use std::fmt;

/// A pattern compiled with Go's syntax and meaning.
#[derive(Clone, Debug)]
pub struct GoRegex {
    re: regex::Regex,
}

/// Why Go refuses a pattern, in Go's words (`error parsing regexp: …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoRegexError {
    /// What is wrong, as Go says it (`invalid escape sequence`).
    pub code: String,
    /// The part of the pattern at fault.
    pub expr: String,
}

impl fmt::Display for GoRegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

impl std::error::Error for GoRegexError {}

/// The largest repetition count, and the largest product of nested counts, Go allows.
const MAX_REPEAT: u64 = 1000;
/// The deepest parse tree Go allows.
const MAX_HEIGHT: u64 = 1000;
/// The most instructions Go compiles a pattern to (128 MiB of 40-byte instructions).
const MAX_SIZE: u64 = (128 << 20) / 40;
/// What the `regex` crate may compile a pattern to.
const SIZE_LIMIT: usize = 64 << 20;

impl GoRegex {
    /// Compiles `pattern` as Go's `regexp.Compile` does.
    pub fn new(pattern: &str) -> Result<GoRegex, GoRegexError> {
        let rust = translate(pattern)?;
        let re = regex::RegexBuilder::new(&rust)
            .size_limit(SIZE_LIMIT)
            .nest_limit(4 * MAX_HEIGHT as u32)
            .build()
            .map_err(|e| GoRegexError {
                code: match e {
                    regex::Error::CompiledTooBig(_) => "expression too large".into(),
                    other => format!("not translated: {other}"),
                },
                expr: pattern.to_string(),
            })?;
        Ok(GoRegex { re })
    }

    /// True when the pattern matches somewhere in `text` (Go's `MatchString`).
    pub fn is_match(&self, text: &str) -> bool {
        self.re.is_match(text)
    }

    /// Where the leftmost-first match is, as byte offsets (Go's `FindStringIndex`).
    pub fn find(&self, text: &str) -> Option<(usize, usize)> {
        self.re.find(text).map(|m| (m.start(), m.end()))
    }
}

fn err(code: &str, expr: &str) -> GoRegexError {
    GoRegexError {
        code: code.to_string(),
        expr: expr.to_string(),
    }
}

/// Size, height and repetition needs of a parsed piece (Go's limits are on these).
#[derive(Clone, Copy, Debug)]
struct Piece {
    size: u64,
    height: u64,
    /// The smallest budget of nested counted repetitions under which the piece is valid.
    repeat: u64,
}

const LEAF: Piece = Piece {
    size: 1,
    height: 1,
    repeat: 0,
};

/// Several pieces in sequence (or as alternatives).
#[derive(Clone, Copy, Debug, Default)]
struct Many {
    size: u64,
    height: u64,
    repeat: u64,
    count: u64,
}

impl Many {
    fn push(&mut self, p: Piece) {
        self.size = self.size.saturating_add(p.size);
        self.height = self.height.max(p.height);
        self.repeat = self.repeat.max(p.repeat);
        self.count += 1;
    }

    /// The pieces as one: a concatenation, or an alternation.
    fn whole(&self, alternation: bool) -> Piece {
        let mut size = self.size;
        if alternation && self.count > 1 {
            size = size.saturating_add(self.count - 1);
        }
        Piece {
            size: size.max(1),
            height: if self.count > 1 {
                self.height + 1
            } else {
                self.height.max(1)
            },
            repeat: self.repeat,
        }
    }
}

/// One open group (or the whole pattern).
struct Frame {
    /// Whether `U` was on when it opened (flags end with their group).
    ungreedy: bool,
    capture: bool,
    /// The alternatives before the current one.
    alts: Many,
    /// The current alternative's pieces before the last.
    seq: Many,
    /// The last piece, which a repetition applies to.
    last: Option<Piece>,
}

impl Frame {
    fn new(ungreedy: bool, capture: bool) -> Frame {
        Frame {
            ungreedy,
            capture,
            alts: Many::default(),
            seq: Many::default(),
            last: None,
        }
    }

    fn push(&mut self, p: Piece) {
        if let Some(l) = self.last.take() {
            self.seq.push(l);
        }
        self.last = Some(p);
    }

    /// The group's alternatives as one piece.
    fn whole(&mut self) -> Piece {
        if let Some(l) = self.last.take() {
            self.seq.push(l);
        }
        let p = self.seq.whole(false);
        if self.alts.count == 0 {
            return p;
        }
        let mut alts = self.alts;
        alts.push(p);
        alts.whole(true)
    }
}

/// The translation of a whole pattern.
struct Translator<'p> {
    pattern: &'p str,
    out: String,
    stack: Vec<Frame>,
    /// Go's `U` flag now.
    ungreedy: bool,
    /// A flags-only group (`(?i)`) not written yet: a repetition right after one applies to
    /// the piece before it, as in Go.
    pending: String,
    /// The `U` flag as the `regex` crate sees it where the output ends.
    written_ungreedy: bool,
}

/// `pattern` (Go syntax) as a pattern of the `regex` crate with the same meaning.
pub fn translate(pattern: &str) -> Result<String, GoRegexError> {
    let mut t = Translator {
        pattern,
        out: String::with_capacity(pattern.len() * 2),
        stack: vec![Frame::new(false, false)],
        ungreedy: false,
        pending: String::new(),
        written_ungreedy: false,
    };
    t.run()?;
    Ok(t.out)
}

/// A literal character, escaped unless it is a letter or digit.
fn lit(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:x}}}", c as u32));
    }
}

/// Go's Perl classes (`\d`, `\s`, `\w` and their negations), ASCII only.
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    Some(match c {
        'd' => ("0-9", false),
        'D' => ("0-9", true),
        's' => ("\\x{9}\\x{a}\\x{c}\\x{d}\\x{20}", false),
        'S' => ("\\x{9}\\x{a}\\x{c}\\x{d}\\x{20}", true),
        'w' => ("0-9A-Za-z_", false),
        'W' => ("0-9A-Za-z_", true),
        _ => return None,
    })
}

/// Go's POSIX classes (`[:alpha:]`), which the `regex` crate has with the same meaning.
const POSIX: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// `{n}`, `{n,}` or `{n,m}` at the start of `s`: its length, min and max (None: no
/// maximum). Not one (a literal `{` in Go): None. A number too large for Go: u64::MAX.
fn parse_repeat(s: &str) -> Option<(usize, u64, Option<u64>)> {
    let b = s.as_bytes();
    let mut i = 1;
    let num = |i: &mut usize| -> Option<u64> {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        let digits = s.get(start..*i)?;
        // Go refuses leading zeros and reads at most 8 digits' worth.
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        Some(if digits.len() > 8 {
            u64::MAX
        } else {
            digits.parse().unwrap_or(u64::MAX)
        })
    };
    let min = num(&mut i)?;
    let max = match b.get(i)? {
        b',' => {
            i += 1;
            if b.get(i)? == &b'}' {
                None
            } else {
                Some(num(&mut i)?)
            }
        }
        _ => Some(min),
    };
    (b.get(i)? == &b'}').then_some((i + 1, min, max))
}

/// The escape at the start of `s` (a backslash and more) as one character: Go's octal,
/// hex, C and punctuation escapes; its length.
fn escaped_char(s: &str) -> Result<(char, usize), GoRegexError> {
    let mut chars = s.char_indices().skip(1);
    let Some((_, c)) = chars.next() else {
        return Err(err("trailing backslash at end of expression", ""));
    };
    let bad = |n: usize| err("invalid escape sequence", s.get(..n).unwrap_or(s));
    let b = s.as_bytes();
    let octal = |i: usize| b.get(i).is_some_and(|d| (b'0'..=b'7').contains(d));
    match c {
        '1'..='7' if !octal(2) => Err(bad(2)),
        '0'..='7' => {
            let mut v = c as u32 - '0' as u32;
            let mut n = 2;
            while n < 4 && octal(n) {
                v = v * 8 + b.get(n).map_or(0, |d| u32::from(d - b'0'));
                n += 1;
            }
            Ok((char::from_u32(v).unwrap_or_default(), n))
        }
        'x' => {
            if b.get(2) == Some(&b'{') {
                let Some(end) = s.find('}') else {
                    return Err(bad(s.len()));
                };
                let digits = &s[3..end];
                let v = (!digits.is_empty() && digits.len() <= 8)
                    .then(|| u32::from_str_radix(digits, 16).ok())
                    .flatten()
                    .and_then(char::from_u32);
                return v.map(|c| (c, end + 1)).ok_or_else(|| bad(end + 1));
            }
            let two = s
                .get(2..4)
                .filter(|h| h.bytes().all(|d| d.is_ascii_hexdigit()));
            match two.and_then(|h| u32::from_str_radix(h, 16).ok()) {
                Some(v) => Ok((char::from_u32(v).unwrap_or_default(), 4)),
                None => Err(bad(s.len().min(4))),
            }
        }
        'a' => Ok(('\x07', 2)),
        'f' => Ok(('\x0c', 2)),
        'n' => Ok(('\n', 2)),
        'r' => Ok(('\r', 2)),
        't' => Ok(('\t', 2)),
        'v' => Ok(('\x0b', 2)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, 2)),
        c => Err(bad(1 + c.len_utf8())),
    }
}

/// `\p{Name}`, `\pN`, `\P…`, `\p{^Name}` at the start of `s`: the `regex` crate's class and
/// its length. Go knows general categories, scripts, `Any`, `ASCII` and `Assigned`.
fn unicode_class(s: &str) -> Result<(String, usize), GoRegexError> {
    let negated = s.as_bytes().get(1) == Some(&b'P');
    let (mut name, len) = match s.get(2..3) {
        Some("{") => {
            let end = s
                .find('}')
                .ok_or_else(|| err("invalid character class range", s))?;
            (&s[3..end], end + 1)
        }
        Some(_) => {
            let c = s[2..].chars().next().unwrap_or_default();
            (&s[2..2 + c.len_utf8()], 2 + c.len_utf8())
        }
        None => return Err(err("invalid character class range", s)),
    };
    let mut negated = negated;
    if let Some(n) = name.strip_prefix('^') {
        negated = !negated;
        name = n;
    }
    let bad = || err("invalid character class range", &s[..len]);
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
    {
        return Err(bad());
    }
    let canonical: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    let class = match canonical.as_str() {
        "any" | "ascii" | "assigned" => name.to_string(),
        _ => ["gc", "sc"]
            .iter()
            .map(|k| format!("{k}={name}"))
            .find(|c| regex::Regex::new(&format!("\\p{{{c}}}")).is_ok())
            .ok_or_else(bad)?,
    };
    let p = if negated { 'P' } else { 'p' };
    Ok((format!("\\{p}{{{class}}}"), len))
}

impl Translator<'_> {
    fn run(&mut self) -> Result<(), GoRegexError> {
        let p = self.pattern;
        let mut i = 0;
        // Where the last token began, when it was a repetition (Go refuses `a**`).
        let mut last_repeat: Option<usize> = None;
        while let Some(c) = p[i..].chars().next() {
            let rest = &p[i..];
            let mut repeat = None;
            let len = match c {
                '(' => self.open(rest)?,
                '|' => {
                    self.flush();
                    self.out.push('|');
                    let top = self.top();
                    if let Some(l) = top.last.take() {
                        top.seq.push(l);
                    }
                    let seq = std::mem::take(&mut top.seq).whole(false);
                    top.alts.push(seq);
                    1
                }
                ')' => {
                    self.close()?;
                    1
                }
                '^' | '$' | '.' => {
                    self.flush();
                    self.out.push(c);
                    self.top().push(LEAF);
                    1
                }
                '[' => {
                    self.flush();
                    let n = self.class(rest)?;
                    self.top().push(LEAF);
                    n
                }
                '*' | '+' | '?' => {
                    let (min, max) = match c {
                        '*' => (0, None),
                        '+' => (1, None),
                        _ => (0, Some(1)),
                    };
                    repeat = Some(i);
                    self.repeat(rest, 1, (min, max), last_repeat.map(|r| &p[r..i]), false)?
                }
                '{' => match parse_repeat(rest) {
                    Some((n, min, max)) => {
                        let counted = &rest[..n];
                        if min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT || min > m) {
                            return Err(err("invalid repeat count", counted));
                        }
                        repeat = Some(i);
                        self.repeat(rest, n, (min, max), last_repeat.map(|r| &p[r..i]), true)?
                    }
                    None => {
                        self.flush();
                        self.literal('{');
                        1
                    }
                },
                '\\' => self.escape(rest)?,
                other => {
                    self.flush();
                    self.literal(other);
                    other.len_utf8()
                }
            };
            last_repeat = repeat;
            i += len;
        }
        if self.stack.len() != 1 {
            return Err(err("missing closing )", p));
        }
        let whole = self.top().whole();
        self.check(whole)
    }

    // The stack always holds the whole pattern's frame: `close` never pops the last one.
    #[allow(clippy::indexing_slicing)]
    fn top(&mut self) -> &mut Frame {
        let n = self.stack.len().saturating_sub(1);
        &mut self.stack[n]
    }

    fn literal(&mut self, c: char) {
        lit(&mut self.out, c);
        self.top().push(LEAF);
    }

    /// Writes a pending flags-only group.
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.out.push_str(&self.pending);
            self.pending.clear();
        }
        self.written_ungreedy = self.ungreedy;
    }

    fn check(&self, p: Piece) -> Result<(), GoRegexError> {
        if p.height > MAX_HEIGHT {
            return Err(err("expression nests too deeply", self.pattern));
        }
        if p.size > MAX_SIZE {
            return Err(err("expression too large", self.pattern));
        }
        Ok(())
    }

    /// A repetition of the last piece; `len` is the operator's length (`*`, `{2,3}`),
    /// `before` the repetition right before it, if any.
    fn repeat(
        &mut self,
        rest: &str,
        len: usize,
        (min, max): (u64, Option<u64>),
        before: Option<&str>,
        counted: bool,
    ) -> Result<usize, GoRegexError> {
        let lazy = rest.as_bytes().get(len) == Some(&b'?');
        let op = &rest[..len + usize::from(lazy)];
        if let Some(b) = before {
            return Err(err(
                "invalid nested repetition operator",
                &format!("{b}{op}"),
            ));
        }
        let Some(sub) = self.top().last else {
            return Err(err("missing argument to repetition operator", &rest[..len]));
        };
        let greedy = !(self.ungreedy ^ lazy);
        // Written as a count (`{0,1}`, not `?`), so that a repetition after a repetition
        // (`a*(?i)?`, which Go allows) never reads as a lazy one.
        self.out.push_str(&match max {
            Some(m) => format!("{{{min},{m}}}"),
            None => format!("{{{min},}}"),
        });
        if greedy == self.written_ungreedy {
            self.out.push('?');
        }
        let m = max.unwrap_or(min);
        let piece = Piece {
            size: match max {
                None if min == 0 => 2 + sub.size,
                None => (1 + min.saturating_mul(sub.size)).max(1),
                Some(x) => x.saturating_mul(sub.size).saturating_add(x - min).max(1),
            },
            height: sub.height + 1,
            repeat: match (counted, m) {
                (false, _) => sub.repeat,
                (true, 0) => 0,
                (true, m) => m.max(m.saturating_mul(sub.repeat)),
            },
        };
        if counted && (min >= 2 || max.is_some_and(|x| x >= 2)) && piece.repeat > MAX_REPEAT {
            return Err(err("invalid repeat count", &rest[..len]));
        }
        self.top().last = Some(piece);
        self.check(piece)?;
        Ok(op.len())
    }

    /// `)`: the group ends and becomes the last piece of the one around it.
    fn close(&mut self) -> Result<(), GoRegexError> {
        if self.stack.len() < 2 {
            return Err(err("unexpected )", self.pattern));
        }
        self.pending.clear();
        let mut frame = self.stack.pop().unwrap_or_else(|| Frame::new(false, false));
        self.out.push(')');
        let mut p = frame.whole();
        if frame.capture {
            p.size = p.size.saturating_add(2);
            p.height += 1;
        }
        self.ungreedy = frame.ungreedy;
        self.written_ungreedy = frame.ungreedy;
        self.top().push(p);
        self.check(p)
    }

    /// `(`, `(?:`, `(?flags)`, `(?flags:`, `(?P<name>` and `(?<name>`; its length.
    fn open(&mut self, rest: &str) -> Result<usize, GoRegexError> {
        if !rest.starts_with("(?") {
            return self.push_group(true, "(?:", 1);
        }
        let named = if rest.starts_with("(?P<") {
            Some(4)
        } else if rest.starts_with("(?<") && rest.len() > 3 {
            Some(3)
        } else {
            None
        };
        if let Some(start) = named {
            let Some(end) = rest.find('>') else {
                return Err(err("invalid named capture", rest));
            };
            let name = &rest[start..end];
            let valid = !name.is_empty() && name.chars().all(|c| c == '_' || c.is_alphanumeric());
            if !valid {
                return Err(err("invalid named capture", &rest[..=end]));
            }
            return self.push_group(true, "(?:", end + 1);
        }
        // Flags, then `)` or `:`. A `-` negates what follows; it needs a flag after it.
        let mut flags = String::new();
        let (mut negated, mut saw) = (false, false);
        let mut ungreedy = self.ungreedy;
        for (k, c) in rest[2..].char_indices() {
            let consumed = 2 + k + c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => {
                    flags.push(c);
                    saw = true;
                    if c == 'U' {
                        ungreedy = !negated;
                    }
                }
                '-' if !negated => {
                    flags.push('-');
                    negated = true;
                    saw = false;
                }
                ':' | ')' if saw || (!negated && c == ':') => {
                    if c == ':' {
                        let text = format!("(?{flags}:");
                        let n = self.push_group(false, &text, consumed)?;
                        self.ungreedy = ungreedy;
                        self.written_ungreedy = ungreedy;
                        return Ok(n);
                    }
                    self.pending.push_str(&format!("(?{flags})"));
                    self.ungreedy = ungreedy;
                    return Ok(consumed);
                }
                _ => return Err(err("invalid or unsupported Perl syntax", &rest[..consumed])),
            }
        }
        Err(err("invalid or unsupported Perl syntax", rest))
    }

    fn push_group(&mut self, capture: bool, text: &str, len: usize) -> Result<usize, GoRegexError> {
        self.flush();
        self.out.push_str(text);
        self.stack.push(Frame::new(self.ungreedy, capture));
        if self.stack.len() as u64 > MAX_HEIGHT + 1 {
            return Err(err("expression nests too deeply", self.pattern));
        }
        Ok(len)
    }

    /// An escape outside a class: assertions, `\Q…\E`, classes, or one character.
    fn escape(&mut self, rest: &str) -> Result<usize, GoRegexError> {
        let c = rest[1..].chars().next();
        match c {
            Some('A' | 'z') => {
                self.flush();
                self.out.push_str(&rest[..2]);
                self.top().push(LEAF);
                Ok(2)
            }
            Some(b @ ('b' | 'B')) => {
                self.flush();
                self.out.push_str(&format!("(?-u:\\{b})"));
                self.top().push(LEAF);
                Ok(2)
            }
            Some('C') => Err(err("invalid escape sequence", "\\C")),
            Some('Q') => {
                let body = &rest[2..];
                let (lit_text, len) = match body.find("\\E") {
                    Some(e) => (&body[..e], 2 + e + 2),
                    None => (body, rest.len()),
                };
                for ch in lit_text.chars() {
                    self.flush();
                    self.literal(ch);
                }
                Ok(len)
            }
            Some('p' | 'P') => {
                self.flush();
                let (class, len) = unicode_class(rest)?;
                self.out.push_str(&class);
                self.top().push(LEAF);
                Ok(len)
            }
            Some(k) if perl_class(k).is_some() => {
                self.flush();
                let (set, negated) = perl_class(k).unwrap_or_default();
                self.out
                    .push_str(&format!("[{}{set}]", if negated { "^" } else { "" }));
                self.top().push(LEAF);
                Ok(2)
            }
            _ => {
                self.flush();
                let (ch, len) = escaped_char(rest)?;
                self.literal(ch);
                Ok(len)
            }
        }
    }

    /// A bracketed class at the start of `s`, written out; its length.
    fn class(&mut self, s: &str) -> Result<usize, GoRegexError> {
        let missing = || err("missing closing ]", s);
        let mut i = 1;
        let mut body = String::new();
        if s[i..].starts_with('^') {
            body.push('^');
            i += 1;
        }
        let mut first = true;
        loop {
            let rest = s.get(i..).filter(|r| !r.is_empty()).ok_or_else(missing)?;
            if rest.starts_with(']') && !first {
                i += 1;
                break;
            }
            first = false;
            // [:alpha:]
            if rest.starts_with("[:")
                && let Some(end) = rest[2..].find(":]")
            {
                let name = &rest[2..2 + end];
                let plain = name.strip_prefix('^').unwrap_or(name);
                if !POSIX.contains(&plain) {
                    return Err(err("invalid character class range", &rest[..end + 4]));
                }
                body.push_str(&rest[..end + 4]);
                i += end + 4;
                continue;
            }
            if rest.starts_with("\\p") || rest.starts_with("\\P") {
                let (class, len) = unicode_class(rest)?;
                body.push_str(&class);
                i += len;
                continue;
            }
            if let Some((set, negated)) = rest
                .strip_prefix('\\')
                .and_then(|r| r.chars().next())
                .and_then(perl_class)
            {
                if negated {
                    body.push_str(&format!("[^{set}]"));
                } else {
                    body.push_str(set);
                }
                i += 2;
                continue;
            }
            let (lo, n) = class_char(rest, s)?;
            i += n;
            let after = &s[i..];
            let mut hi = lo;
            if after.starts_with('-') && !after.starts_with("-]") && after.len() > 1 {
                let (h, m) = class_char(&after[1..], s)?;
                if h < lo {
                    let range = &rest[..n + 1 + m];
                    return Err(err("invalid character class range", range));
                }
                hi = h;
                i += 1 + m;
            }
            let mut one = String::new();
            lit(&mut one, lo);
            body.push_str(&one);
            if hi != lo {
                body.push('-');
                let mut two = String::new();
                lit(&mut two, hi);
                body.push_str(&two);
            }
        }
        self.out.push('[');
        self.out.push_str(&body);
        self.out.push(']');
        Ok(i)
    }
}

/// One character of a class (an escape or itself) at the start of `s`; its length.
fn class_char(s: &str, whole: &str) -> Result<(char, usize), GoRegexError> {
    match s.chars().next() {
        None => Err(err("missing closing ]", whole)),
        Some('\\') => escaped_char(s),
        Some(c) => Ok((c, c.len_utf8())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(p: &str) -> GoRegex {
        GoRegex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn go_syntax_that_javascript_lacks_is_read() {
        assert!(ok("(?i)^abc$").is_match("ABC"));
        assert!(ok("^[[:alpha:]]+$").is_match("abc"));
        assert!(!ok("^[[:alpha:]]+$").is_match("ab1"));
        assert!(ok(r"\Aab\z").is_match("ab"));
        assert!(!ok(r"\Aab\z").is_match("ab\n"));
        assert!(ok(r"^\pL+$").is_match("héllo"));
        assert!(ok(r"^\Q.*\E$").is_match(".*"));
        assert!(!ok(r"^\Q.*\E$").is_match("ab"));
        assert!(ok("^(?P<x>a+)$").is_match("aa"));
        // Go's \d, \s, \w and \b are ASCII only.
        assert!(!ok(r"^\d$").is_match("٣"));
        assert!(!ok(r"^\s$").is_match("\u{a0}"));
        assert!(!ok(r"^\s$").is_match("\x0b"));
        assert!(!ok(r"^\w$").is_match("é"));
    }

    #[test]
    fn go_refuses_lookaround_and_backreferences() {
        for p in [
            r"(?=a)", r"(?!a)b", r"(?<=a)b", r"(a)\1", r"\k<x>", r"a**", r"x{1001}", r"[b-a]",
        ] {
            assert!(GoRegex::new(p).is_err(), "{p}");
        }
        let e = GoRegex::new("(?=x)").unwrap_err().to_string();
        assert_eq!(
            e,
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
        );
    }
}
