//! One namespace as OLM v0 resolves it: the catalogs it sees, its Subscriptions as
//! requirements, its CSVs as installed bundles, and what stops OLM from resolving it at all
//! (docs/semantics.md §9).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use super::csv;
use super::error::StateError;
use super::note::{Blocked, Note};
use super::object::{Kind, KindName, Object, SubscriptionSpec, SubscriptionStatus};
use super::state::ClusterState;
use crate::request::{Request, Requirement};

/// The OperatorGroup annotation that keeps a namespace from seeing the global catalogs.
pub const EXCLUDE_GLOBAL: &str = "olm.operatorframework.io/exclude-global-namespace-resolution";

/// A catalog a namespace sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisibleCatalog {
    /// `namespace/name`.
    pub name: String,
    /// The CatalogSource's namespace.
    pub namespace: String,
    /// `spec.priority` (0 for a bound catalog with no CatalogSource object).
    pub priority: i32,
    /// Where its contents are, when bound with `--catalog`.
    pub path: Option<PathBuf>,
    /// `spec.image`, for the command that fetches an unbound catalog.
    pub image: Option<String>,
    /// `spec.address`, likewise.
    pub address: Option<String>,
}

/// A Subscription, as the answer reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionRef {
    /// `metadata.name`.
    pub name: String,
    /// `spec.name`.
    pub package: String,
    /// `spec.channel` (None: every channel).
    pub channel: Option<String>,
    /// `spec.sourceNamespace/spec.source`.
    pub catalog: String,
    /// `status.installedCSV`, when that CSV is in the namespace.
    pub installed: Option<String>,
    /// `spec.startingCSV`, when it applies (nothing installed).
    pub starting_csv: Option<String>,
}

/// One namespace, ready for the resolver.
#[derive(Clone, Debug)]
pub struct NamespacePlan {
    /// The namespace.
    pub namespace: String,
    /// The global catalog namespace.
    pub global_namespace: String,
    /// The catalogs it sees, in name order.
    pub catalogs: Vec<VisibleCatalog>,
    /// Its Subscriptions, in name order: requirement `i` is Subscription `i`.
    pub subscriptions: Vec<SubscriptionRef>,
    /// Requirements, installed CSVs, keepInstalled, local catalogs.
    pub request: Request,
    /// Why OLM would not resolve it, if it would not.
    pub blocked: Option<Blocked>,
    /// What a user of a stuck Subscription should know.
    pub notes: Vec<Note>,
}

fn subscription(o: &Object) -> Option<(&SubscriptionSpec, &SubscriptionStatus)> {
    match &o.kind {
        Kind::Subscription(s, t) => Some((s, t)),
        _ => None,
    }
}

fn required_field(o: &Object, field: &str, value: Option<&String>) -> Result<String, StateError> {
    match value.filter(|v| !v.is_empty()) {
        Some(v) => Ok(v.clone()),
        None => Err(StateError::Invalid {
            at: Box::new(o.source.clone()),
            object: super::read::describe(o.kind_name(), &o.metadata),
            field: field.to_string(),
            message: "missing".into(),
        }),
    }
}

/// The catalogs of a state by namespace, so that a namespace finds its own and the global
/// ones without a scan of all.
pub(crate) struct CatalogIndex<'c> {
    by_namespace: BTreeMap<&'c str, Vec<&'c VisibleCatalog>>,
}

impl<'c> CatalogIndex<'c> {
    /// Indexes `catalogs` (every catalog of the state: CatalogSources and bindings).
    pub(crate) fn new(catalogs: &'c [VisibleCatalog]) -> CatalogIndex<'c> {
        let mut by_namespace: BTreeMap<&str, Vec<&VisibleCatalog>> = BTreeMap::new();
        for c in catalogs {
            by_namespace
                .entry(c.namespace.as_str())
                .or_default()
                .push(c);
        }
        CatalogIndex { by_namespace }
    }

    fn of(&self, ns: &str) -> &[&'c VisibleCatalog] {
        self.by_namespace.get(ns).map_or(&[], Vec::as_slice)
    }
}

/// Plans namespace `ns`: `catalogs` indexes every catalog of the state (CatalogSources and
/// bindings), `global` is the global catalog namespace.
pub(crate) fn plan(
    state: &ClusterState,
    ns: &str,
    catalogs: &CatalogIndex<'_>,
    global: &str,
) -> Result<NamespacePlan, StateError> {
    let subs: Vec<&Object> = state.in_namespace(KindName::Subscription, ns).collect();
    let csvs: Vec<&Object> = state
        .in_namespace(KindName::ClusterServiceVersion, ns)
        .filter(|o| !csv::is_copy(o))
        .collect();
    let groups: Vec<&Object> = state.in_namespace(KindName::OperatorGroup, ns).collect();
    let mut notes = Vec::new();
    let blocked = match groups.as_slice() {
        [] => Some(Blocked::NoOperatorGroup),
        [_] => None,
        many => Some(Blocked::OperatorGroups(
            many.iter().map(|g| g.name().to_string()).collect(),
        )),
    };
    let excluded = groups
        .first()
        .is_some_and(|g| g.annotation(EXCLUDE_GLOBAL) == Some("true"));
    let mut visible: Vec<VisibleCatalog> = catalogs.of(ns).iter().map(|c| (*c).clone()).collect();
    if ns != global && !excluded {
        visible.extend(catalogs.of(global).iter().map(|c| (*c).clone()));
    }
    visible.sort_by(|a, b| a.name.cmp(&b.name));
    let mut subscriptions = Vec::new();
    let mut request = Request {
        keep_installed: true,
        local_catalogs: visible
            .iter()
            .filter(|c| c.namespace == ns && ns != global)
            .map(|c| c.name.clone())
            .collect(),
        ..Request::default()
    };
    let csv_names: HashSet<&str> = csvs.iter().map(|o| o.name()).collect();
    // `subs` holds Subscriptions only, so the `filter_map` keeps every one of them.
    for (o, spec, status) in subs
        .iter()
        .filter_map(|o| subscription(o).map(|(spec, status)| (*o, spec, status)))
    {
        let r = subscription_ref(o, spec, status, &csv_names)?;
        request.require.push(Requirement {
            package: r.package.clone(),
            channel: r.channel.clone(),
            bundle: r.starting_csv.clone(),
            catalog: Some(r.catalog.clone()),
            name: Some(format!("subscription {}", r.name)),
            ..Requirement::default()
        });
        subscriptions.push(r);
    }
    // The packages of the Subscriptions that name each CSV as installed (OLM infers a
    // CSV's package from them when exactly one package does).
    let mut naming: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for s in &subscriptions {
        if let Some(c) = s.installed.as_deref() {
            naming.entry(c).or_default().insert(s.package.as_str());
        }
    }
    for c in &csvs {
        let packages = naming.get(c.name());
        let package = match packages.map(|p| p.iter().collect::<Vec<_>>()).as_deref() {
            Some([one]) => Some(**one),
            _ => None,
        };
        let bundle = csv::installed_bundle(c, package, packages.is_some())?;
        if bundle.package.as_deref().is_none_or(str::is_empty) {
            notes.push(Note::PackageUnknown {
                csv: c.name().to_string(),
            });
        }
        request.installed.push(bundle);
    }
    notes.extend(super::note::diagnose(
        state,
        ns,
        &subs,
        &csvs,
        groups.first().copied(),
    ));
    for c in &visible {
        if c.path.is_none() {
            notes.push(Note::UnboundCatalog {
                catalog: c.name.clone(),
                image: c.image.clone(),
                address: c.address.clone(),
            });
        }
    }
    let blocked = blocked.or_else(|| unbound_subscription(&subscriptions, &visible));
    Ok(NamespacePlan {
        namespace: ns.to_string(),
        global_namespace: global.to_string(),
        catalogs: visible,
        subscriptions,
        request,
        blocked,
        notes,
    })
}

/// A Subscription as the answer reports it (its installed CSV only when that CSV is in
/// `csvs`, the namespace's CSVs by name).
fn subscription_ref(
    o: &Object,
    spec: &SubscriptionSpec,
    status: &SubscriptionStatus,
    csvs: &HashSet<&str>,
) -> Result<SubscriptionRef, StateError> {
    let package = required_field(o, "spec.name", spec.name.as_ref())?;
    let source = required_field(o, "spec.source", spec.source.as_ref())?;
    let source_ns = required_field(o, "spec.sourceNamespace", spec.source_namespace.as_ref())?;
    let installed = status
        .installed_csv
        .clone()
        .filter(|c| csvs.contains(c.as_str()));
    let starting_csv = spec
        .starting_csv
        .clone()
        .filter(|s| !s.is_empty() && installed.is_none());
    Ok(SubscriptionRef {
        name: o.name().to_string(),
        package,
        channel: spec.channel.clone().filter(|c| !c.is_empty()),
        catalog: format!("{source_ns}/{source}"),
        installed,
        starting_csv,
    })
}

/// A Subscription whose catalog the namespace sees but nobody bound: OLM would read it; deppy
/// cannot guess what is in it.
fn unbound_subscription(subs: &[SubscriptionRef], visible: &[VisibleCatalog]) -> Option<Blocked> {
    subs.iter().find_map(|s| {
        let c = visible.iter().find(|c| c.name == s.catalog)?;
        c.path.is_none().then(|| Blocked::UnboundCatalog {
            subscription: s.name.clone(),
            catalog: c.name.clone(),
        })
    })
}

/// The global catalog namespace: `olm`, unless the state has catalogs in
/// `openshift-marketplace` and none in `olm`.
pub fn global_namespace(catalogs: &[VisibleCatalog]) -> String {
    let has = |ns: &str| catalogs.iter().any(|c| c.namespace == ns);
    if !has("olm") && has("openshift-marketplace") {
        "openshift-marketplace".to_string()
    } else {
        "olm".to_string()
    }
}
