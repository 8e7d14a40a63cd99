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

use crate::version::Version;

use parse::Parser;

mod parse;
#[cfg(test)]
mod tests;

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

/// Text formats (JSON, YAML) carry a range as its text. A binary format (the catalog
/// cache's postcard) carries the text and the parsed comparators, `(raw, [[(op, version)]])`,
/// so a warm load does not parse the text again.
impl serde::Serialize for VersionRange {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return serializer.serialize_str(&self.raw);
        }
        let sets: Vec<Vec<(u8, &Version)>> = self
            .sets
            .iter()
            .map(|set| set.iter().map(|c| (c.op.code(), &c.version)).collect())
            .collect();
        serde::Serialize::serialize(&(&self.raw, sets), serializer)
    }
}

impl Op {
    /// The operator's number in the binary form.
    fn code(self) -> u8 {
        match self {
            Op::Eq => 0,
            Op::Ne => 1,
            Op::Gt => 2,
            Op::Ge => 3,
            Op::Lt => 4,
            Op::Le => 5,
        }
    }

    /// The operator of a number of the binary form.
    fn of_code(code: u8) -> Option<Op> {
        [Op::Eq, Op::Ne, Op::Gt, Op::Ge, Op::Lt, Op::Le]
            .get(usize::from(code))
            .copied()
    }
}

impl VersionRange {
    /// The range of its binary form (see the `Serialize` impl).
    fn from_parts(raw: String, sets: Vec<Vec<(u8, Version)>>) -> Result<VersionRange, String> {
        if sets.is_empty() {
            return Err(format!("range {raw:?} has no comparator sets"));
        }
        let sets = sets
            .into_iter()
            .map(|set| {
                set.into_iter()
                    .map(|(code, version)| match Op::of_code(code) {
                        Some(op) => Ok(Comparator { op, version }),
                        None => Err(format!("range {raw:?}: operator code {code}")),
                    })
                    .collect()
            })
            .collect::<Result<_, String>>()?;
        Ok(VersionRange { raw, sets })
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
        if deserializer.is_human_readable() {
            return deserializer.deserialize_str(Visitor);
        }
        let (raw, sets) =
            <(String, Vec<Vec<(u8, Version)>>) as serde::Deserialize>::deserialize(deserializer)?;
        VersionRange::from_parts(raw, sets).map_err(serde::de::Error::custom)
    }
}
