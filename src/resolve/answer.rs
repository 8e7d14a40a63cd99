//! The answer: for each package, install, upgrade (from, to, by which edge), keep, or no
//! longer needed (docs/semantics.md §7).

use crate::catalog::{BundleId, CatalogId, Deprecation, DeprecationRef, PackageId};
use crate::request::Request;
use crate::solver::Var;

use super::candidates::reported_channel;
use super::derive::{Derived, Edge};
use super::problem::{Built, Subject};
use super::universe::Universe;

/// What happens to a package.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// Not installed now; install this bundle.
    Install,
    /// Installed at another bundle; move to this one.
    Upgrade,
    /// Installed at this bundle; keep it.
    Keep,
}

/// How an upgrade reaches its target (serialized as a plain string).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Via {
    /// The target's `replaces` names the installed bundle.
    Replaces,
    /// The target's `skips` names the installed bundle.
    Skips,
    /// The target's `skipRange` contains the installed version.
    SkipRange,
    /// No edge leads there: the requirement no longer accepts the installed bundle and picks
    /// the target directly.
    Requested,
    /// No edge leads there: a dependency of another selected bundle needs the target.
    Dependency,
}

impl From<Edge> for Via {
    fn from(e: Edge) -> Via {
        match e {
            Edge::Replaces => Via::Replaces,
            Edge::Skips => Via::Skips,
            Edge::SkipRange => Via::SkipRange,
        }
    }
}

/// A bundle in the answer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Selected {
    /// Package name.
    pub package: String,
    /// Bundle name.
    pub bundle: String,
    /// Bundle version.
    pub version: String,
    /// Catalog name.
    pub catalog: String,
    /// Channel it was chosen in, when it is on one.
    pub channel: Option<String>,
    /// What happens.
    pub action: Action,
    /// The installed bundle it replaces (upgrades only).
    pub from: Option<String>,
    /// How the upgrade reaches it (upgrades only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Via>,
}

/// An installed bundle nothing needs any more.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Unneeded {
    /// Package name.
    pub package: String,
    /// Bundle name.
    pub bundle: String,
}

/// A successful resolution.
///
/// The example on [`crate::Resolver`] reads `selected`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Answer {
    /// Selected bundles, sorted by package.
    pub selected: Vec<Selected>,
    /// Installed bundles no longer needed, sorted by package.
    pub unneeded: Vec<Unneeded>,
    /// Deprecation notices for selected bundles.
    pub warnings: Vec<String>,
    /// The selected bundles' ids, in the order the solver selected them.
    #[serde(skip)]
    pub bundles: Vec<crate::catalog::BundleId>,
}

pub(super) fn answer(
    u: &Universe,
    d: &Derived,
    built: &Built,
    request: &Request,
    sel: &[Var],
) -> Answer {
    let mut selected = Vec::new();
    let mut bundles = Vec::new();
    let mut warnings = Vec::new();
    let deprecations = Deprecations::of(u);
    for v in sel {
        let Some(Subject::Bundle(b)) = built.subjects.get(v.0 as usize).copied() else {
            continue;
        };
        bundles.push(b);
        let bundle = u.bundle(b);
        let package = u.package_name(bundle.package).to_string();
        let requirement = request.require.iter().position(|q| q.package == package);
        let channel_only = requirement.and_then(|r| request.require.get(r)?.channel.as_deref());
        let installed = u
            .installed
            .iter()
            .copied()
            .find(|i| u.package_of(*i) == bundle.package);
        let (action, from, via) = match installed {
            Some(i) if i == b => (Action::Keep, None, None),
            Some(i) => {
                let edge = d
                    .edges
                    .successors
                    .iter()
                    .find(|(x, e, _)| *x == i && *e == b)
                    .map(|(_, _, k)| *k);
                let via = match (edge, requirement) {
                    (Some(k), _) => Via::from(k),
                    (None, Some(_)) => Via::Requested,
                    (None, None) => Via::Dependency,
                };
                (Action::Upgrade, Some(u.bundle(i).name.clone()), Some(via))
            }
            None => (Action::Install, None, None),
        };
        let channel = reported_channel(d, b, channel_only).map(str::to_string);
        warnings.extend(deprecations.notices(u, b, channel.as_deref()));
        selected.push(Selected {
            package,
            bundle: bundle.name.clone(),
            version: bundle.version.to_string(),
            catalog: u.catalog_name(bundle.catalog).to_string(),
            channel,
            action,
            from,
            via,
        });
    }
    selected.sort_by(|a, b| (&a.package, &a.bundle).cmp(&(&b.package, &b.bundle)));
    let mut unneeded: Vec<Unneeded> = u
        .installed
        .iter()
        .filter(|i| {
            !selected
                .iter()
                .any(|s| s.package == u.package_name(u.package_of(**i)))
        })
        .map(|i| Unneeded {
            package: u.package_name(u.package_of(*i)).to_string(),
            bundle: u.bundle(*i).name.clone(),
        })
        .collect();
    unneeded.sort_by(|a, b| a.package.cmp(&b.package));
    warnings.sort();
    warnings.dedup();
    Answer {
        selected,
        unneeded,
        warnings,
        bundles,
    }
}

/// The catalogs' `olm.deprecations` entries by package and catalog.
struct Deprecations<'u> {
    by_package: rustc_hash::FxHashMap<(PackageId, CatalogId), Vec<&'u Deprecation>>,
}

impl<'u> Deprecations<'u> {
    fn of(u: &'u Universe) -> Deprecations<'u> {
        let mut by_package: rustc_hash::FxHashMap<_, Vec<_>> = Default::default();
        for d in &u.set.deprecations {
            by_package
                .entry((d.package, d.catalog))
                .or_default()
                .push(d);
        }
        Deprecations { by_package }
    }

    /// A warning for each deprecation that applies to selected bundle `b` taken from
    /// `channel`: its package's, that channel's and its own, as OLM sets PackageDeprecated,
    /// ChannelDeprecated and BundleDeprecated.
    fn notices(&self, u: &Universe, b: BundleId, channel: Option<&str>) -> Vec<String> {
        let bundle = u.bundle(b);
        let Some(entries) = self.by_package.get(&(bundle.package, bundle.catalog)) else {
            return Vec::new();
        };
        let mut kinds: Vec<(u8, &str)> = entries
            .iter()
            .filter_map(|d| match &d.reference {
                DeprecationRef::Package => Some((0, d.message.as_str())),
                DeprecationRef::Channel(c) if Some(c.as_str()) == channel => {
                    Some((1, d.message.as_str()))
                }
                DeprecationRef::Bundle(n) if *n == bundle.name => Some((2, d.message.as_str())),
                _ => None,
            })
            .collect();
        kinds.sort_unstable();
        let catalog = u.catalog_name(bundle.catalog);
        kinds
            .into_iter()
            .map(|(_, m)| format!("{} is deprecated by catalog {catalog}: {m}", bundle.name))
            .collect()
    }
}
