//! Versions as OLM reads them (blang/semver v4 `ParseTolerant`), written from that library's
//! documented behaviour: trim spaces, one leading `v`/`V`, leading zeros dropped from the three
//! numbers, a missing minor or patch filled with 0 (not when the short form carries `-` or
//! `+`); then semver 2.0.0. Precedence ignores build metadata.

use std::cmp::Ordering;

/// One pre-release identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ident {
    Num(u64),
    Text(String),
}

impl Ident {
    fn cmp(&self, other: &Ident) -> Ordering {
        match (self, other) {
            (Ident::Num(a), Ident::Num(b)) => a.cmp(b),
            (Ident::Num(_), Ident::Text(_)) => Ordering::Less,
            (Ident::Text(_), Ident::Num(_)) => Ordering::Greater,
            (Ident::Text(a), Ident::Text(b)) => a.cmp(b),
        }
    }
}

/// A parsed version (build metadata kept only as text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<Ident>,
    pub build: String,
}

fn number(part: &str) -> Option<u64> {
    if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}

fn ident_ok(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
}

impl Version {
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: Vec::new(),
            build: String::new(),
        }
    }

    /// Tolerant parse; None when the text is not a version.
    pub fn parse(text: &str) -> Option<Version> {
        let t = text.trim();
        let t = t
            .strip_prefix('v')
            .or_else(|| t.strip_prefix('V'))
            .unwrap_or(t);
        let mut parts: Vec<String> = t.splitn(3, '.').map(str::to_string).collect();
        for p in parts.iter_mut() {
            if p.len() > 1 {
                let trimmed = p.trim_start_matches('0');
                *p = if trimmed.is_empty() || !trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                    format!("0{trimmed}")
                } else {
                    trimmed.to_string()
                };
            }
        }
        if parts.len() < 3 {
            if parts.last().is_some_and(|p| p.contains(['-', '+'])) {
                return None;
            }
            while parts.len() < 3 {
                parts.push("0".into());
            }
        }
        let major = number(&parts[0])?;
        let minor = number(&parts[1])?;
        let rest = &parts[2];
        let (rest, build) = match rest.split_once('+') {
            Some((r, b)) => {
                if !b.split('.').all(ident_ok) {
                    return None;
                }
                (r, b.to_string())
            }
            None => (rest.as_str(), String::new()),
        };
        let (patch, pre) = match rest.split_once('-') {
            Some((p, pre)) => {
                let mut ids = Vec::new();
                for id in pre.split('.') {
                    if !ident_ok(id) {
                        return None;
                    }
                    if id.bytes().all(|c| c.is_ascii_digit()) {
                        if id.len() > 1 && id.starts_with('0') {
                            return None;
                        }
                        ids.push(Ident::Num(id.parse().ok()?));
                    } else {
                        ids.push(Ident::Text(id.to_string()));
                    }
                }
                (p, ids)
            }
            None => (rest, Vec::new()),
        };
        Some(Version {
            major,
            minor,
            patch: number(patch)?,
            pre,
            build,
        })
    }

    /// Semver precedence (build metadata ignored).
    pub fn precedence(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&other.pre) {
                        let o = a.cmp(b);
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    self.pre.len().cmp(&other.pre.len())
                }
            })
    }
}
