//! Tokens of a rule file: identifiers, lifetimes, literals, one-character punctuation and
//! delimited groups, each with its line and whether whitespace followed it. Comments are
//! dropped. Enough of Rust's lexical grammar for crepe's rule syntax and the Rust
//! expressions inside rules; printing tokens back keeps the source's spacing decisions.

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier or keyword (`_` included).
    Ident(String),
    /// A lifetime (`'a`).
    Lifetime(String),
    /// A literal, verbatim (strings, characters, numbers).
    Lit(String),
    /// One punctuation character.
    Punct(char),
    /// A delimited group: its opening delimiter and its tokens.
    Group(char, Vec<Token>),
}

/// A token with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its line, from 1.
    pub line: usize,
    /// The next token follows without whitespace (`::`, `<-`, `==`).
    pub joint: bool,
}

impl Token {
    /// True when the token is the identifier `s`.
    pub fn is_ident(&self, s: &str) -> bool {
        matches!(&self.tok, Tok::Ident(i) if i == s)
    }

    /// True when the token is the punctuation `c`.
    pub fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }
}

/// The tokens of `src`, or an error naming the line.
pub fn lex(src: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut lexer = Lexer {
        chars,
        pos: 0,
        line: 1,
    };
    let (tokens, close) = lexer.group()?;
    match close {
        None => Ok(tokens),
        Some((c, line)) => Err(format!("line {line}: unmatched `{c}`")),
    }
}

/// Source text of `tokens`, with whitespace where the source had some.
pub fn print(tokens: &[Token]) -> String {
    let mut s = String::new();
    for t in tokens {
        match &t.tok {
            Tok::Ident(x) | Tok::Lifetime(x) | Tok::Lit(x) => s.push_str(x),
            Tok::Punct(c) => s.push(*c),
            Tok::Group(open, inner) => {
                s.push(*open);
                s.push_str(&print(inner));
                s.push(closing(*open));
            }
        }
        if !t.joint {
            s.push(' ');
        }
    }
    s.trim_end().to_string()
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// A closing delimiter and its line.
type Close = (char, usize);

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Skips whitespace and comments; true when it skipped anything.
    fn skip(&mut self) -> Result<bool, String> {
        let start = self.pos;
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let line = self.line;
                    let mut depth = 0;
                    loop {
                        match (self.peek(0), self.peek(1)) {
                            (Some('/'), Some('*')) => {
                                depth += 1;
                                self.bump();
                            }
                            (Some('*'), Some('/')) => {
                                depth -= 1;
                                self.bump();
                            }
                            (None, _) => return Err(format!("line {line}: unclosed comment")),
                            _ => {}
                        }
                        self.bump();
                        if depth == 0 {
                            break;
                        }
                    }
                }
                _ => return Ok(self.pos != start),
            }
        }
    }

    /// Tokens up to a closing delimiter (returned with its line) or the end.
    fn group(&mut self) -> Result<(Vec<Token>, Option<Close>), String> {
        let mut out: Vec<Token> = Vec::new();
        loop {
            let spaced = self.skip()?;
            if let Some(last) = out.last_mut() {
                last.joint = !spaced;
            }
            let line = self.line;
            let Some(c) = self.peek(0) else {
                return Ok((out, None));
            };
            let tok = match c {
                ')' | ']' | '}' => {
                    self.bump();
                    if let Some(last) = out.last_mut() {
                        last.joint = false;
                    }
                    return Ok((out, Some((c, line))));
                }
                '(' | '[' | '{' => {
                    self.bump();
                    let (inner, close) = self.group()?;
                    match close {
                        Some((d, _)) if d == closing(c) => Tok::Group(c, inner),
                        Some((d, l)) => return Err(format!("line {l}: `{d}` closes `{c}`")),
                        None => return Err(format!("line {line}: unclosed `{c}`")),
                    }
                }
                '"' => Tok::Lit(self.string(String::new())?),
                '\'' => self.quote()?,
                c if c.is_ascii_digit() => Tok::Lit(self.number()),
                c if c == '_' || c.is_alphabetic() => self.word()?,
                c => {
                    self.bump();
                    Tok::Punct(c)
                }
            };
            out.push(Token {
                tok,
                line,
                joint: false,
            });
        }
    }

    /// A string literal from its opening quote, after `prefix` (`b`, `r#`).
    fn string(&mut self, mut s: String) -> Result<String, String> {
        let line = self.line;
        s.push(self.bump().unwrap_or('"'));
        loop {
            match self.bump() {
                None => return Err(format!("line {line}: unclosed string")),
                Some('\\') => {
                    s.push('\\');
                    s.extend(self.bump());
                }
                Some('"') => {
                    s.push('"');
                    return Ok(s);
                }
                Some(c) => s.push(c),
            }
        }
    }

    /// The rest of a raw string `r#*"…"#*` after its prefix `s` (`r`, `br`).
    fn raw_string(&mut self, mut s: String) -> Result<String, String> {
        let line = self.line;
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            s.extend(self.bump());
        }
        if self.peek(0) != Some('"') {
            return Err(format!("line {line}: malformed raw string"));
        }
        s.extend(self.bump());
        loop {
            match self.bump() {
                None => return Err(format!("line {line}: unclosed raw string")),
                Some('"') if (0..hashes).all(|k| self.peek(k) == Some('#')) => {
                    s.push('"');
                    for _ in 0..hashes {
                        s.extend(self.bump());
                    }
                    return Ok(s);
                }
                Some(c) => s.push(c),
            }
        }
    }

    /// A character literal or a lifetime, from its quote.
    fn quote(&mut self) -> Result<Tok, String> {
        let line = self.line;
        let is_char = matches!(
            (self.peek(1), self.peek(2)),
            (Some('\\'), _) | (Some(_), Some('\''))
        );
        let mut s = String::new();
        s.extend(self.bump());
        if !is_char {
            while self
                .peek(0)
                .is_some_and(|c| c == '_' || c.is_alphanumeric())
            {
                s.extend(self.bump());
            }
            return Ok(Tok::Lifetime(s));
        }
        loop {
            match self.bump() {
                None => return Err(format!("line {line}: unclosed character literal")),
                Some('\\') => {
                    s.push('\\');
                    s.extend(self.bump());
                }
                Some('\'') => {
                    s.push('\'');
                    return Ok(Tok::Lit(s));
                }
                Some(c) => s.push(c),
            }
        }
    }

    /// A number with its suffix; a `.` joins it only when a digit follows (`1.5`, not `t.0.1`).
    fn number(&mut self) -> String {
        let mut s = String::new();
        let mut dot = false;
        while let Some(c) = self.peek(0) {
            let fraction = c == '.' && !dot && self.peek(1).is_some_and(|d| d.is_ascii_digit());
            if fraction {
                dot = true;
            } else if !(c == '_' || c.is_alphanumeric()) {
                break;
            }
            s.extend(self.bump());
        }
        s
    }

    /// An identifier, or a literal it prefixes (`b"…"`, `r"…"`, `br#"…"#`, `b'x'`).
    fn word(&mut self) -> Result<Tok, String> {
        let mut s = String::new();
        while self
            .peek(0)
            .is_some_and(|c| c == '_' || c.is_alphanumeric())
        {
            s.extend(self.bump());
        }
        match (s.as_str(), self.peek(0)) {
            ("b", Some('"')) => Ok(Tok::Lit(self.string(s)?)),
            ("r" | "br", Some('"' | '#')) => Ok(Tok::Lit(self.raw_string(s)?)),
            ("b", Some('\'')) => match self.quote()? {
                Tok::Lit(l) => Ok(Tok::Lit(format!("b{l}"))),
                other => Ok(other),
            },
            _ => Ok(Tok::Ident(s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_back_what_it_read() {
        let src = "Foo(a, &'a str) <- Bar(x, Exclusion::Removed(i)), (x != 'c' && y >= 1.5), // c\n let Ok(n) = s.parse::<u32>();";
        let printed = print(&lex(src).expect("lexes"));
        assert_eq!(
            printed,
            "Foo(a, &'a str) <- Bar(x, Exclusion::Removed(i)), (x != 'c' && y >= 1.5), let Ok(n) = s.parse::<u32>();"
        );
    }

    #[test]
    fn names_the_line_of_an_unclosed_group() {
        let e = lex("A(x) <- B(x;\n").expect_err("unclosed");
        assert!(e.contains("line 1"), "{e}");
    }
}
