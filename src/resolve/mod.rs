//! OLM resolution: request + catalogs → facts → Datalog (`rules/*.dl`) → ordered candidates →
//! solver → an answer with actions, or a failure with its derivation tree.

mod answer;
mod candidates;
mod check;
mod derive;
mod problem;
pub mod reason;
mod universe;

use crate::catalog::{CatalogId, CatalogSet, ChannelError};
use crate::request::Request;
use crate::solver::{self, DerivationTree, SolveError, SolveOptions};

pub use answer::{Action, Answer, Selected, Unneeded, Via};
pub use check::{Violation, check};
pub use derive::{Edge, Exclusion, Mismatch};
pub use problem::Subject;
pub use universe::{INSTALLED_CATALOG, Universe};

use derive::{ChannelOrders, RequirementFacts};

/// A request could not be resolved for a reason other than unsatisfiability.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The request is inconsistent (names the field).
    #[error("request: {0}")]
    Request(String),
    /// A channel the request needs cannot be ordered.
    #[error("package {package:?} channel {channel:?} in catalog {catalog:?} is malformed: {error}")]
    BrokenChannel {
        /// Package.
        package: String,
        /// Channel.
        channel: String,
        /// Catalog.
        catalog: String,
        /// What is wrong.
        error: Box<ChannelError>,
    },
    /// The solver's conflict budget ran out.
    #[error("gave up after {conflicts} conflicts")]
    GaveUp {
        /// Conflicts seen.
        conflicts: u64,
    },
}

/// Why no answer exists: the proof, and what its variables stand for.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The derivation tree; terms name variables, see `subjects`.
    pub tree: DerivationTree<reason::Reason>,
    /// What each solver variable stands for.
    pub subjects: Vec<Subject>,
}

/// The outcome of a resolution.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A selection satisfies everything.
    Resolved(Answer),
    /// None does; the failure proves it.
    Unsatisfiable(Failure),
}

/// A catalog set prepared for many resolutions (channel orders computed once).
pub struct Resolver<'a> {
    set: &'a CatalogSet,
    orders: ChannelOrders,
    options: SolveOptions,
}

impl<'a> Resolver<'a> {
    /// Prepares `set`.
    pub fn new(set: &'a CatalogSet) -> Resolver<'a> {
        Resolver {
            set,
            orders: ChannelOrders::compute(set),
            options: SolveOptions::default(),
        }
    }

    /// Limits the solver (e.g. a conflict budget).
    pub fn with_options(mut self, options: SolveOptions) -> Self {
        self.options = options;
        self
    }

    /// The catalog set.
    pub fn catalogs(&self) -> &'a CatalogSet {
        self.set
    }

    /// Resolves one request. The returned universe words the outcome (see
    /// [`crate::explain`]).
    pub fn resolve<'r>(
        &'r self,
        request: &'r Request,
    ) -> Result<(Universe<'a>, Outcome), ResolveError> {
        let u = Universe::new(self.set, request)?;
        self.check_channels(request)?;
        let facts: Vec<RequirementFacts<'_>> = request
            .require
            .iter()
            .map(|q| RequirementFacts {
                package: self.set.package_id(&q.package),
                channel: q.channel.as_deref(),
                range: q.version_range.as_ref(),
                pin: q.bundle.as_deref(),
                catalog: q
                    .catalog
                    .as_deref()
                    .map(|c| self.set.catalog_id(c).unwrap_or(CatalogId(u32::MAX))),
            })
            .collect();
        let outcome = {
            let d = derive::run(&u, &self.orders, &facts);
            let built = problem::build(&u, &d, request);
            match solver::solve(&built.problem, &self.options) {
                Ok(sel) => {
                    let a = answer::answer(&u, &d, &built, request, &sel);
                    debug_assert_eq!(
                        check(&u, request, &a.bundles),
                        Ok(()),
                        "answer fails the checker"
                    );
                    Outcome::Resolved(a)
                }
                Err(SolveError::Unsatisfiable(tree)) => Outcome::Unsatisfiable(Failure {
                    tree,
                    subjects: built.subjects,
                }),
                Err(SolveError::GaveUp { conflicts }) => {
                    return Err(ResolveError::GaveUp { conflicts });
                }
            }
        };
        Ok((u, outcome))
    }

    /// A malformed channel is an error only when a requirement needs it: it names the
    /// channel, or names none and the channel is the package's default.
    fn check_channels(&self, request: &Request) -> Result<(), ResolveError> {
        for q in &request.require {
            let Some(p) = self.set.package_id(&q.package) else {
                continue;
            };
            for broken in self.orders.broken.iter().filter(|b| b.package == p) {
                let default = self
                    .set
                    .package_in(p, broken.catalog)
                    .and_then(|e| e.default_channel.as_deref());
                let needed = match q.channel.as_deref() {
                    Some(ch) => ch == broken.channel,
                    None => default == Some(broken.channel.as_str()),
                };
                let catalog_ok = q.catalog.as_deref().is_none_or(|c| {
                    self.set
                        .catalog(broken.catalog)
                        .is_some_and(|i| i.name == c)
                });
                if needed && catalog_ok {
                    return Err(ResolveError::BrokenChannel {
                        package: q.package.clone(),
                        channel: broken.channel.clone(),
                        catalog: self
                            .set
                            .catalog(broken.catalog)
                            .map_or_else(String::new, |c| c.name.clone()),
                        error: Box::new(broken.error.clone()),
                    });
                }
            }
        }
        Ok(())
    }

    /// Warnings for malformed channels no requirement needs.
    pub fn channel_warnings(&self) -> Vec<String> {
        self.orders
            .broken
            .iter()
            .map(|b| {
                format!(
                    "package {} channel {} in catalog {} is malformed ({}); its bundles are not candidates",
                    self.set.package_name(b.package),
                    b.channel,
                    self.set.catalog(b.catalog).map_or("?", |c| c.name.as_str()),
                    b.error
                )
            })
            .collect()
    }
}
