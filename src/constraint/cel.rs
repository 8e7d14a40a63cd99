//! CEL rules: compilation (once per distinct text, through [`CelCache`]), the static checks
//! that keep hostile rules out, and the compiled form kept by [`CelRule`].
//!
//! Compilation order: the rule's length ([`Limits::max_cel_bytes`]); its bracket nesting,
//! scanned without recursion ([`Limits::max_cel_nesting`]); then the `cel` crate's parser, on a
//! dedicated thread whose stack is sized for the rule (the parser recurses once per operator of
//! a chain such as `x + x + ...`, so a stack-sized check is the only robust one), under
//! `catch_unwind`; then, on that thread still, the syntax tree's depth
//! ([`Limits::max_cel_ast_depth`], so evaluation on the caller's thread recurses a bounded
//! amount) and undeclared identifiers; last, the estimated cost ([`Limits::max_cel_cost`]).

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

use super::cel_static::{Analysis, LOOP_FACTOR, analyze, bracket_depth, max_dynamic};
use super::{ConstraintError, Limits};

/// The `cel` parser's own limit on nested expressions.
const CEL_PARSER_DEPTH: usize = 96;
/// Stack of the compile thread: a base plus room per byte of rule (measured: about 1.7 KiB of
/// stack per operator of a `x+x+...` chain, i.e. under 1 KiB per byte).
const COMPILE_STACK_BASE: usize = 8 << 20;
const COMPILE_STACK_PER_BYTE: usize = 2 << 10;
const COMPILE_STACK_MAX: usize = 1 << 30;

/// A compiled CEL rule. Clones share the compiled program; equality compares the rule text.
#[derive(Clone)]
pub struct CelRule {
    rule: Arc<str>,
    compiled: Arc<Compiled>,
}

/// What compilation keeps.
pub(crate) struct Compiled {
    pub(crate) program: cel::Program,
    pub(crate) analysis: Analysis,
    /// The largest size of `properties` (and of any list or map in a property's value) the
    /// rule may be evaluated against within the cost limit.
    pub(crate) max_dynamic: u64,
    /// The limits it was compiled with (for the cost at another size, in messages).
    pub(crate) max_ast_depth: usize,
}

impl CelRule {
    /// The rule text.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// The estimated evaluation cost: one per syntax node, each node inside a comprehension
    /// (`exists`, `all`, `exists_one`, `map`, `filter`) counted once per element its range
    /// can hold: a literal list its real length, `properties` and property values 100 (the
    /// size assumed when compiling; see [`CelRule::max_dynamic_size`]). Two nested `exists`
    /// over `properties` multiply by 10,000.
    pub fn cost(&self) -> u64 {
        self.compiled.analysis.cost
    }

    /// The largest number of properties (or of elements of a list or map in a property's
    /// value) the rule can be evaluated against within the cost limit it was compiled with;
    /// past it an evaluation is refused (the rule is false for that subject, with an error).
    pub fn max_dynamic_size(&self) -> u64 {
        self.compiled.max_dynamic
    }

    /// The estimated cost against values of `size` elements.
    pub(crate) fn cost_at(&self, size: u64) -> u64 {
        super::cel_static::analyze(
            self.compiled.program.expression(),
            self.compiled.max_ast_depth,
            size,
        )
        .cost
    }

    pub(crate) fn program(&self) -> &cel::Program {
        &self.compiled.program
    }
}

impl PartialEq for CelRule {
    fn eq(&self, other: &Self) -> bool {
        self.rule == other.rule
    }
}

impl fmt::Debug for CelRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CelRule")
            .field("rule", &self.rule)
            .field("cost", &self.cost())
            .finish()
    }
}

/// Compiled rules keyed by rule text, so each distinct rule is compiled once. Results
/// (failures included) depend on the [`Limits`]; using the cache with other limits empties it.
#[derive(Default)]
pub struct CelCache {
    limits: Option<Limits>,
    rules: HashMap<String, Result<CelRule, ConstraintError>>,
}

impl fmt::Debug for CelCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CelCache")
            .field("rules", &self.rules.len())
            .finish()
    }
}

impl CelCache {
    /// An empty cache.
    pub fn new() -> CelCache {
        CelCache::default()
    }

    /// Number of distinct rules seen (compiled or rejected).
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when no rule was seen yet.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Compiles `rule` (or returns the cached result); errors name `path`.
    pub fn compile(
        &mut self,
        rule: &str,
        limits: &Limits,
        path: &str,
    ) -> Result<CelRule, ConstraintError> {
        if self.limits.as_ref() != Some(limits) {
            self.rules.clear();
            self.limits = Some(limits.clone());
        }
        let result = match self.rules.get(rule) {
            Some(cached) => cached.clone(),
            None => {
                let fresh = compile_uncached(rule, limits);
                self.rules.insert(rule.to_string(), fresh.clone());
                fresh
            }
        };
        result.map_err(|e| e.prefixed(path))
    }
}

/// The shared CEL environment: the standard library and macros. `semver_compare` is added to
/// each evaluation context (see `cel_eval`).
pub(crate) fn env() -> Arc<cel::Env> {
    static ENV: OnceLock<Arc<cel::Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| Arc::new(cel::Env::stdlib())))
}

/// Every check and the compilation, with errors at path "".
fn compile_uncached(rule: &str, limits: &Limits) -> Result<CelRule, ConstraintError> {
    if rule.len() > limits.max_cel_bytes {
        return Err(ConstraintError::CelTooLong {
            path: String::new(),
            len: rule.len(),
            limit: limits.max_cel_bytes,
        });
    }
    if bracket_depth(rule) > limits.max_cel_nesting {
        return Err(too_deep(rule, "brackets", limits.max_cel_nesting));
    }
    let compiled = compile_isolated(rule, limits.max_cel_ast_depth, limits.max_cel_cost)?;
    if compiled.analysis.cost > limits.max_cel_cost {
        return Err(ConstraintError::CelTooCostly {
            path: String::new(),
            rule: rule.to_string(),
            cost: compiled.analysis.cost,
            limit: limits.max_cel_cost,
        });
    }
    Ok(CelRule {
        rule: Arc::from(rule),
        compiled: Arc::new(compiled),
    })
}

fn too_deep(rule: &str, what: &'static str, limit: usize) -> ConstraintError {
    ConstraintError::CelTooDeep {
        path: String::new(),
        rule: rule.to_string(),
        what,
        limit,
    }
}

fn compile_error(rule: &str, line: usize, column: usize, message: String) -> ConstraintError {
    ConstraintError::CelCompile {
        path: String::new(),
        rule: rule.to_string(),
        line,
        column,
        message,
    }
}

/// Parses and analyses on a thread with a stack sized for the rule. A program deeper than
/// `max_ast_depth` is dropped on that thread (dropping recurses too).
fn compile_isolated(
    rule: &str,
    max_ast_depth: usize,
    max_cost: u64,
) -> Result<Compiled, ConstraintError> {
    let stack = rule
        .len()
        .saturating_mul(COMPILE_STACK_PER_BYTE)
        .saturating_add(COMPILE_STACK_BASE)
        .min(COMPILE_STACK_MAX);
    let text = rule.to_string();
    let spawned = std::thread::Builder::new()
        .name("deppy-cel-compile".to_string())
        .stack_size(stack)
        .spawn(move || compile_here(&text, max_ast_depth, max_cost));
    match spawned {
        Ok(handle) => handle.join().unwrap_or_else(|_| {
            Err(compile_error(
                rule,
                1,
                1,
                "the CEL compiler panicked".to_string(),
            ))
        }),
        Err(e) => Err(compile_error(
            rule,
            1,
            1,
            format!("could not start the CEL compiler thread: {e}"),
        )),
    }
}

fn compile_here(
    rule: &str,
    max_ast_depth: usize,
    max_cost: u64,
) -> Result<Compiled, ConstraintError> {
    let env = env();
    let parsed = catch_unwind(AssertUnwindSafe(|| env.compile(rule)))
        .map_err(|_| compile_error(rule, 1, 1, "the CEL parser panicked".to_string()))?;
    let program = parsed.map_err(|errors| first_parse_error(rule, &errors))?;
    let analysis = analyze(program.expression(), max_ast_depth, LOOP_FACTOR);
    if analysis.depth > max_ast_depth {
        return Err(too_deep(rule, "expressions", max_ast_depth));
    }
    if let Some((id, name)) = &analysis.undeclared {
        let offset = program
            .source_info()
            .offset_for(*id)
            .map_or(0, |(start, _)| start);
        let (line, column) = line_column(rule, offset as usize);
        let message =
            format!("undeclared reference to '{name}' (the only variable is 'properties')");
        return Err(compile_error(rule, line, column, message));
    }
    let max_dynamic = if analysis.cost <= max_cost {
        max_dynamic(program.expression(), max_ast_depth, max_cost)
    } else {
        0
    };
    Ok(Compiled {
        program,
        analysis,
        max_dynamic,
        max_ast_depth,
    })
}

/// The first error by position. `ParseError`'s `Display` is avoided: it can panic on a huge
/// column.
fn first_parse_error(rule: &str, errors: &cel::ParseErrors) -> ConstraintError {
    let Some(first) = errors.errors.iter().min_by_key(|e| e.pos) else {
        return compile_error(rule, 1, 1, "syntax error".to_string());
    };
    if first.msg.contains("Recursion limit") {
        return too_deep(rule, "expressions", CEL_PARSER_DEPTH);
    }
    let line = usize::try_from(first.pos.0).unwrap_or(1).max(1);
    let column = usize::try_from(first.pos.1).unwrap_or(1).max(1);
    // The parser words a bad escape with Rust's debug output of its own error type.
    let message: String = match first.msg.split_once("invalid string literal") {
        Some(_) => "invalid string literal: a bad escape sequence (\\u and \\U escapes must name a Unicode character, \\x a byte)".to_string(),
        None => first.msg.chars().take(300).collect(),
    };
    compile_error(rule, line, column, message)
}

/// 1-based line and column of the character at `offset` (in characters) of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    for c in text.chars().take(offset) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}
