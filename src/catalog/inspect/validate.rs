//! `validate`: every channel's graph and every dangling reference.

use std::fmt::Write as _;

use super::{Finding, FindingKind, Severity, ValidationReport};
use crate::catalog::channel::ChannelGraph;
use crate::catalog::model::{DeprecationRef, Origin, Package};
use crate::catalog::set::CatalogSet;

/// Collects findings for one package entry.
struct Checker<'a> {
    set: &'a CatalogSet,
    catalog: String,
    package: String,
    findings: &'a mut Vec<Finding>,
}

impl Checker<'_> {
    fn push(
        &mut self,
        kind: FindingKind,
        channel: Option<&str>,
        message: String,
        origin: Option<&Origin>,
    ) {
        let severity = match kind {
            FindingKind::ChannelGraph | FindingKind::MissingDefaultChannel => Severity::Error,
            _ => Severity::Warning,
        };
        self.findings.push(Finding {
            severity,
            kind,
            catalog: self.catalog.clone(),
            package: self.package.clone(),
            channel: channel.map(str::to_string),
            message,
            origin: origin.cloned(),
        });
    }

    /// True when the catalog has a bundle of this package with this name.
    fn has_bundle(&self, p: &Package, name: &str) -> bool {
        self.set
            .find_bundle(p.catalog, name)
            .and_then(|id| self.set.bundle(id))
            .is_some_and(|b| b.package == p.id)
    }

    fn package(&mut self, p: &Package) {
        if let Some(d) = &p.default_channel
            && !p.channels.iter().any(|c| &c.name == d)
        {
            let msg = format!("defaultChannel {d:?} names no channel of the package");
            self.push(
                FindingKind::MissingDefaultChannel,
                None,
                msg,
                p.origin.as_ref(),
            );
        }
        for ch in &p.channels {
            if let Err(e) = ChannelGraph::build(ch) {
                self.push(
                    FindingKind::ChannelGraph,
                    Some(&ch.name),
                    e.to_string(),
                    Some(&ch.origin),
                );
            }
            for e in &ch.entries {
                if let Some(r) = &e.replaces
                    && !self.has_bundle(p, r)
                {
                    let msg = format!(
                        "entry {:?} replaces {r:?}, which is not in the catalog",
                        e.name
                    );
                    self.push(
                        FindingKind::DanglingReplaces,
                        Some(&ch.name),
                        msg,
                        Some(&ch.origin),
                    );
                }
                for s in &e.skips {
                    if self.has_bundle(p, s) {
                        continue;
                    }
                    let msg = format!(
                        "entry {:?} skips {s:?}, which is not in the catalog",
                        e.name
                    );
                    self.push(
                        FindingKind::DanglingSkips,
                        Some(&ch.name),
                        msg,
                        Some(&ch.origin),
                    );
                }
            }
        }
    }
}

fn check_deprecations(set: &CatalogSet, findings: &mut Vec<Finding>) {
    for d in &set.deprecations {
        let entry = set.package_in(d.package, d.catalog);
        let (found, what) = match &d.reference {
            DeprecationRef::Package => (entry.is_some(), "the package".to_string()),
            DeprecationRef::Channel(n) => (
                entry.is_some_and(|p| p.channels.iter().any(|c| &c.name == n)),
                format!("channel {n:?}"),
            ),
            DeprecationRef::Bundle(n) => (
                set.find_bundle(d.catalog, n)
                    .and_then(|id| set.bundle(id))
                    .is_some_and(|b| b.package == d.package),
                format!("bundle {n:?}"),
            ),
        };
        if found {
            continue;
        }
        let mut c = Checker {
            set,
            catalog: set
                .catalog(d.catalog)
                .map(|c| c.name.clone())
                .unwrap_or_default(),
            package: set.package_name(d.package).to_string(),
            findings,
        };
        let msg = format!("olm.deprecations entry names {what}, which is not in the catalog");
        c.push(FindingKind::DanglingDeprecation, None, msg, None);
    }
}

/// Validates every channel graph and every reference of every catalog.
pub fn validate(set: &CatalogSet) -> ValidationReport {
    let mut findings = Vec::new();
    for p in &set.packages {
        let mut c = Checker {
            set,
            catalog: set
                .catalog(p.catalog)
                .map(|c| c.name.clone())
                .unwrap_or_default(),
            package: set.package_name(p.id).to_string(),
            findings: &mut findings,
        };
        c.package(p);
    }
    check_deprecations(set, &mut findings);
    findings.sort_by(|a, b| {
        (
            &a.catalog, &a.package, &a.channel, a.severity, a.kind, &a.message,
        )
            .cmp(&(
                &b.catalog, &b.package, &b.channel, b.severity, b.kind, &b.message,
            ))
    });
    ValidationReport {
        errors: findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count(),
        findings,
        load_warnings: set.warnings.clone(),
    }
}

impl ValidationReport {
    /// True when any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// Plain text, deterministic and sorted.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in &self.findings {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let _ = write!(out, "{level}: {}/{}", f.catalog, f.package);
            if let Some(ch) = &f.channel {
                let _ = write!(out, "/{ch}");
            }
            let _ = write!(out, ": {}", f.message);
            if let Some(o) = &f.origin {
                let _ = write!(out, " (at {o})");
            }
            out.push('\n');
        }
        for w in &self.load_warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        let warnings = self.findings.len() - self.errors + self.load_warnings.len();
        let _ = writeln!(
            out,
            "{} error(s), {} warning(s) ({} from loading)",
            self.errors,
            warnings,
            self.load_warnings.len()
        );
        out
    }
}
