//! crepe's rule syntax, as the rule files use it: relation declarations
//! (`@input`/`@output`, `struct Name<'a>(T, …);`) and rules (`Head(…) <- clause, …;`) whose
//! clauses are atoms (negated with `!`), Rust guards `( … )`, `let` bindings and `for`
//! iterations. An atom's argument is `_`, `ref x`, a variable (a lowercase identifier: bound
//! by its first positive use, compared after) or a Rust expression (compared), as crepe reads
//! it. Each item keeps its file and line for messages.

use std::collections::BTreeSet;

use super::lex::{Tok, Token, lex, print};

/// How a relation is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `@input`: facts given by the program's caller.
    Input,
    /// `@output`: derived and returned.
    Output,
    /// Derived for other rules only.
    Internal,
}

/// A declared relation.
#[derive(Clone, Debug)]
pub struct Relation {
    /// Its name.
    pub name: String,
    /// How it is declared.
    pub kind: Kind,
    /// It borrows (`struct Name<'a>`).
    pub borrows: bool,
    /// Its field types, as written.
    pub fields: Vec<String>,
    /// Where it is declared.
    pub file: String,
    /// The line of its `struct`.
    pub line: usize,
}

/// An argument of an atom.
#[derive(Clone, Debug)]
pub enum Arg {
    /// `_`: any value.
    Ignored,
    /// `ref x`: binds `x` to a reference to the value.
    Ref(String),
    /// A variable: bound by its first positive use, compared after.
    Var(String),
    /// Any other Rust expression: compared.
    Expr(Vec<Token>),
}

/// `Rel(args)` or `!Rel(args)`.
#[derive(Clone, Debug)]
pub struct Atom {
    /// Negated (`!Rel(…)`).
    pub negated: bool,
    /// The relation.
    pub rel: String,
    /// Its arguments.
    pub args: Vec<Arg>,
}

/// A clause of a rule's body.
#[derive(Clone, Debug)]
pub enum Clause {
    /// An atom.
    Atom(Atom),
    /// `( expr )`: a Rust condition, the parenthesized group as written.
    Guard(Vec<Token>),
    /// `let pat = expr`: holds when the pattern matches, binding its variables.
    Let(Vec<Token>, Vec<Token>),
    /// `for pat in expr`: one binding per item.
    For(Vec<Token>, Vec<Token>),
}

/// `Head(…) <- body;`.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The head; its arguments are variables or expressions.
    pub head: Atom,
    /// The body, in written order.
    pub body: Vec<Clause>,
    /// The file it is in.
    pub file: String,
    /// The line it starts on.
    pub line: usize,
    /// The rule as written (one line).
    pub text: String,
}

impl Rule {
    /// `file:line` of the rule.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// The position of variable `v` among the head's arguments, if the head holds it as it is.
    pub fn head_position(&self, v: &str) -> Option<usize> {
        (self.head.args.iter()).position(|h| matches!(h, Arg::Var(w) if w == v))
    }
}

/// The relations and rules of the rule files, in file order.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Every declared relation.
    pub relations: Vec<Relation>,
    /// Every rule.
    pub rules: Vec<Rule>,
}

impl Program {
    /// The relation named `name`.
    pub fn relation(&self, name: &str) -> Option<&Relation> {
        self.relations.iter().find(|r| r.name == name)
    }
}

/// Adds the items of one rule file (`name` for messages) to `program`.
pub fn parse_file(program: &mut Program, name: &str, text: &str) -> Result<(), String> {
    let tokens = lex(text).map_err(|e| format!("{name}: {e}"))?;
    let mut p = Parser {
        toks: &tokens,
        pos: 0,
        file: name,
    };
    while p.pos < tokens.len() {
        let at = &tokens[p.pos];
        if at.is_punct('@') || at.is_punct('#') || at.is_ident("struct") || at.is_ident("pub") {
            program.relations.push(p.relation()?);
        } else {
            program.rules.push(p.rule()?);
        }
    }
    Ok(())
}

struct Parser<'t> {
    toks: &'t [Token],
    pos: usize,
    file: &'t str,
}

impl<'t> Parser<'t> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        let line = self
            .toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(0, |t| t.line);
        Err(format!("{}:{line}: {what}", self.file))
    }

    fn next(&mut self) -> Option<&'t Token> {
        let t = self.toks.get(self.pos)?;
        self.pos += 1;
        Some(t)
    }

    fn ident(&mut self) -> Result<String, String> {
        match self.toks.get(self.pos).map(|t| &t.tok) {
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                Ok(s.clone())
            }
            _ => self.err("expected a name"),
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<(), String> {
        match self.toks.get(self.pos) {
            Some(t) if t.is_punct(c) => {
                self.pos += 1;
                Ok(())
            }
            _ => self.err(&format!("expected `{c}`")),
        }
    }

    /// `@input`/`@output`, attributes, `pub …`, `struct Name<'a>(…);`.
    fn relation(&mut self) -> Result<Relation, String> {
        let mut kind = Kind::Internal;
        if self.toks[self.pos].is_punct('@') {
            self.pos += 1;
            kind = match self.ident()?.as_str() {
                "input" => Kind::Input,
                "output" => Kind::Output,
                other => return self.err(&format!("unknown attribute `@{other}`")),
            };
        }
        while self.toks.get(self.pos).is_some_and(|t| t.is_punct('#')) {
            self.pos += 2;
        }
        if self.toks.get(self.pos).is_some_and(|t| t.is_ident("pub")) {
            self.pos += 1;
            if matches!(
                self.toks.get(self.pos).map(|t| &t.tok),
                Some(Tok::Group('(', _))
            ) {
                self.pos += 1;
            }
        }
        let line = self.toks.get(self.pos).map_or(0, |t| t.line);
        if !self.next().is_some_and(|t| t.is_ident("struct")) {
            return self.err("expected `struct`");
        }
        let name = self.ident()?;
        let mut borrows = false;
        if self.toks.get(self.pos).is_some_and(|t| t.is_punct('<')) {
            let generics: Vec<&Token> = self.toks[self.pos..].iter().take(3).collect();
            let single_lifetime = matches!(generics.get(1).map(|t| &t.tok), Some(Tok::Lifetime(l)) if l == "'a")
                && generics.get(2).is_some_and(|t| t.is_punct('>'));
            if !single_lifetime {
                return self.err(&format!(
                    "{name}: a relation may have one lifetime, `<'a>`, and no other generics"
                ));
            }
            borrows = true;
            self.pos += 3;
        }
        let fields = match self.next().map(|t| &t.tok) {
            Some(Tok::Group('(', inner)) => split_types(inner),
            _ => return self.err(&format!("{name}: expected its fields in `( … )`")),
        };
        self.expect_punct(';')?;
        Ok(Relation {
            name,
            kind,
            borrows,
            fields,
            file: self.file.to_string(),
            line,
        })
    }

    /// `Head(…) <- clause, …;` or `Head(…);`.
    fn rule(&mut self) -> Result<Rule, String> {
        let start = self.pos;
        let line = self.toks[start].line;
        let head = self.atom()?;
        if head.negated
            || head
                .args
                .iter()
                .any(|a| matches!(a, Arg::Ignored | Arg::Ref(_)))
        {
            return self.err("a rule's head is a relation of variables and expressions");
        }
        let mut body = Vec::new();
        if self.toks.get(self.pos).is_some_and(|t| t.is_punct(';')) {
            self.pos += 1;
        } else {
            let arrow = self
                .toks
                .get(self.pos..self.pos + 2)
                .is_some_and(|t| t[0].is_punct('<') && t[0].joint && t[1].is_punct('-'));
            if !arrow {
                return self.err("expected `<-` or `;` after the rule's head");
            }
            self.pos += 2;
            loop {
                body.push(self.clause()?);
                match self.next() {
                    Some(t) if t.is_punct(',') => {}
                    Some(t) if t.is_punct(';') => break,
                    _ => {
                        self.pos -= 1;
                        return self.err("expected `,` or `;` after a clause");
                    }
                }
            }
        }
        let text = print(&self.toks[start..self.pos]);
        Ok(Rule {
            head,
            body,
            file: self.file.to_string(),
            line,
            text,
        })
    }

    fn atom(&mut self) -> Result<Atom, String> {
        let negated = self.toks.get(self.pos).is_some_and(|t| t.is_punct('!'));
        if negated {
            self.pos += 1;
        }
        let rel = self.ident()?;
        let args = match self.next().map(|t| &t.tok) {
            Some(Tok::Group('(', inner)) => split(inner, |t| t.is_punct(','))
                .into_iter()
                .map(arg)
                .collect(),
            _ => return self.err(&format!("expected `{rel}(…)`")),
        };
        Ok(Atom { negated, rel, args })
    }

    /// Tokens up to the `,` or `;` that ends a clause.
    fn until_clause_end(&mut self) -> Vec<Token> {
        let from = self.pos;
        while self
            .toks
            .get(self.pos)
            .is_some_and(|t| !t.is_punct(',') && !t.is_punct(';'))
        {
            self.pos += 1;
        }
        self.toks[from..self.pos].to_vec()
    }

    fn clause(&mut self) -> Result<Clause, String> {
        let Some(t) = self.toks.get(self.pos) else {
            return self.err("expected a clause");
        };
        if matches!(t.tok, Tok::Group('(', _)) {
            self.pos += 1;
            return Ok(Clause::Guard(vec![Token {
                joint: false,
                ..t.clone()
            }]));
        }
        if t.is_ident("let") {
            self.pos += 1;
            let rest = self.until_clause_end();
            let eq = (0..rest.len()).find(|&i| is_assign(&rest, i));
            let Some(eq) = eq else {
                return self.err("expected `let pattern = expression`");
            };
            return Ok(Clause::Let(rest[..eq].to_vec(), rest[eq + 1..].to_vec()));
        }
        if t.is_ident("for") {
            self.pos += 1;
            let rest = self.until_clause_end();
            let Some(k) = rest.iter().position(|t| t.is_ident("in")) else {
                return self.err("expected `for pattern in expression`");
            };
            return Ok(Clause::For(rest[..k].to_vec(), rest[k + 1..].to_vec()));
        }
        Ok(Clause::Atom(self.atom()?))
    }
}

/// True when `toks[i]` is a lone `=` (not part of `==`, `!=`, `<=`, `>=`, `=>`).
fn is_assign(toks: &[Token], i: usize) -> bool {
    let joined_before = i > 0
        && toks[i - 1].joint
        && ['=', '!', '<', '>']
            .iter()
            .any(|c| toks[i - 1].is_punct(*c));
    let joined_after = toks[i].joint
        && toks
            .get(i + 1)
            .is_some_and(|t| t.is_punct('=') || t.is_punct('>'));
    toks[i].is_punct('=') && !joined_before && !joined_after
}

/// The arguments of a call's group: its tokens split at top-level commas.
pub fn split_args(toks: &[Token]) -> Vec<Vec<Token>> {
    split(toks, |t| t.is_punct(','))
}

/// `toks` split where `sep` holds (outside groups, which nest by themselves).
fn split(toks: &[Token], sep: impl Fn(&Token) -> bool) -> Vec<Vec<Token>> {
    let mut out = vec![Vec::new()];
    for t in toks {
        if sep(t) {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(t.clone());
        }
    }
    if out.last().is_some_and(Vec::is_empty) {
        out.pop();
    }
    out
}

/// Field types split at commas outside `< >`.
fn split_types(toks: &[Token]) -> Vec<String> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for t in toks {
        match &t.tok {
            Tok::Punct('<') => depth += 1,
            Tok::Punct('>') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(t.clone());
        }
    }
    out.into_iter()
        .filter(|f| !f.is_empty())
        .map(|f| print(&f))
        .collect()
}

/// A variable as crepe reads one: a lone identifier starting lowercase or with `_`.
fn is_var_name(s: &str) -> bool {
    s != "_"
        && !matches!(s, "true" | "false" | "self")
        && s.starts_with(|c: char| c == '_' || c.is_lowercase())
}

fn arg(toks: Vec<Token>) -> Arg {
    match toks.as_slice() {
        [t] if t.is_ident("_") => Arg::Ignored,
        [r, x] if r.is_ident("ref") => match &x.tok {
            Tok::Ident(name) => Arg::Ref(name.clone()),
            _ => Arg::Expr(toks),
        },
        [t] => match &t.tok {
            Tok::Ident(name) if is_var_name(name) => Arg::Var(name.clone()),
            _ => Arg::Expr(toks),
        },
        _ => Arg::Expr(toks),
    }
}

/// The variables of `known` that `toks` uses (not as a field, method or path segment).
pub fn uses(toks: &[Token], known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, t) in toks.iter().enumerate() {
        match &t.tok {
            Tok::Ident(name) if known.contains(name) => {
                let after_dot = i > 0 && toks[i - 1].is_punct('.');
                let after_path = i > 0 && toks[i - 1].is_punct(':');
                if !after_dot && !after_path {
                    out.insert(name.clone());
                }
            }
            Tok::Group(_, inner) => out.extend(uses(inner, known)),
            _ => {}
        }
    }
    out
}

/// The variables a `let` or `for` pattern binds.
pub fn binds(pat: &[Token]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, t) in pat.iter().enumerate() {
        match &t.tok {
            Tok::Ident(name) if is_var_name(name) && !matches!(name.as_str(), "ref" | "mut") => {
                let next = pat.get(i + 1);
                let constructor = next
                    .is_some_and(|n| matches!(n.tok, Tok::Group('(' | '{', _)) || n.is_punct(':'));
                let after_path = i > 0 && pat[i - 1].is_punct(':');
                if !constructor && !after_path {
                    out.insert(name.clone());
                }
            }
            Tok::Group(_, inner) => out.extend(binds(inner)),
            _ => {}
        }
    }
    out
}

/// The variables a rule binds: in positive atoms, `ref`s, `let` and `for` patterns.
pub fn rule_vars(rule: &Rule) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in &rule.body {
        match c {
            Clause::Atom(a) if !a.negated => {
                for arg in &a.args {
                    if let Arg::Var(v) | Arg::Ref(v) = arg {
                        out.insert(v.clone());
                    }
                }
            }
            Clause::Let(pat, _) | Clause::For(pat, _) => out.extend(binds(pat)),
            _ => {}
        }
    }
    out
}
