//! Every ClusterExtension of a state resolved as OLM v1 would, against the ClusterCatalogs
//! whose contents are bound with `--catalog NAME=PATH`.

use std::path::PathBuf;
use std::sync::Arc;

use super::answer::{ExtensionAction, ExtensionAnswer, ExtensionStatus, declared};
use super::catalogs::{ClusterCatalog, cluster_catalogs};
use super::choose::{Decision, Failure, decide, failed};
use super::object::{CatalogFilter, ClusterExtensionStatus};
use crate::catalog::{CatalogSet, CatalogSource, LoadOptions};
use crate::cluster::budget::{Meter, Stage};
use crate::cluster::error::StateError;
use crate::cluster::object::{Kind, KindName};
use crate::cluster::resolve::Binding;
use crate::cluster::state::ClusterState;
use crate::explain::olmv1 as words;

/// The cluster-scoped bindings (`NAME=PATH`), by catalog name.
fn bound(bindings: &[Binding]) -> Vec<(String, PathBuf)> {
    bindings
        .iter()
        .filter(|b| b.is_cluster_scoped())
        .map(|b| (b.name.clone(), b.path.clone()))
        .collect()
}

/// The bound ClusterCatalogs' contents, loaded together (None when none is bound).
/// Unavailable catalogs are not loaded: OLM v1 leaves them out of resolution.
fn load(catalogs: &[ClusterCatalog], opts: &LoadOptions) -> Result<Option<CatalogSet>, StateError> {
    let sources: Vec<CatalogSource> = catalogs
        .iter()
        .filter(|c| !c.unavailable)
        .filter_map(|c| {
            c.path.as_ref().map(|p| CatalogSource {
                name: c.name.clone(),
                path: p.clone(),
                priority: c.priority,
            })
        })
        .collect();
    if sources.is_empty() {
        return Ok(None);
    }
    CatalogSet::load(&sources, opts)
        .map(Some)
        .map_err(|e| StateError::Binding {
            binding: sources
                .iter()
                .map(|s| format!("{}={}", s.name, s.path.display()))
                .collect::<Vec<_>>()
                .join(", "),
            message: e.to_string(),
        })
}

/// Every ClusterExtension's answer, by name.
pub(crate) fn resolve_extensions(
    state: &ClusterState,
    bindings: &[Binding],
    opts: &LoadOptions,
    meter: &Meter,
) -> Result<Vec<ExtensionAnswer>, StateError> {
    let mut extensions = state.of_kind(KindName::ClusterExtension).peekable();
    if extensions.peek().is_none() {
        // A ClusterCatalog binding with no ClusterExtension to use it is most likely a
        // CatalogSource binding without its namespace.
        if let Some(b) = bindings.iter().find(|b| b.is_cluster_scoped()) {
            return Err(StateError::Binding {
                binding: format!("{}={}", b.name, b.path.display()),
                message: "NAME=PATH binds an OLM v1 ClusterCatalog, but the state has no ClusterExtension; a CatalogSource is bound with NAMESPACE/NAME=PATH".into(),
            });
        }
        return Ok(Vec::new());
    }
    let catalogs = cluster_catalogs(state, &bound(bindings));
    let set = load(&catalogs, opts)?.map(Arc::new);
    let mut out = Vec::new();
    for o in extensions {
        meter.check_time(Stage::Extensions)?;
        let Kind::ClusterExtension(spec, status) = &o.kind else {
            continue;
        };
        let filter = spec.filter();
        let d = match installed_of(status, &filter, set.as_deref()) {
            Ok(installed) => {
                let installed = installed.as_ref().map(|(n, v)| (n.as_str(), v.as_str()));
                decide(&filter, installed, &catalogs, set.as_deref())
            }
            Err(image) => failed(&filter, None, Failure::InstalledImageNotFound(image)),
        };
        out.push(answer(o.name(), &d, set.as_deref()));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(set) = &set {
        super::advice::advise(&mut out, set);
    }
    Ok(out)
}

/// The installed bundle (name, version): `status.install.bundle`, or the older
/// `status.installedBundle`; or, for operator-controller v0.9.x, the bundle of the package
/// whose image `status.installedBundleResource` names (the highest version with it, as OLM
/// v1 took it), `Err` with the image when no bundle in the catalogs has it.
fn installed_of(
    status: &ClusterExtensionStatus,
    filter: &CatalogFilter,
    set: Option<&CatalogSet>,
) -> Result<Option<(String, String)>, String> {
    if let Some(b) = status.installed() {
        return Ok(Some((b.name.clone(), b.version.clone())));
    }
    let Some(image) = status
        .installed_bundle_resource
        .as_deref()
        .filter(|i| !i.is_empty())
    else {
        return Ok(None);
    };
    let package = filter.package_name.as_deref().unwrap_or_default();
    let found = set.and_then(|set| {
        let p = set.package_id(package)?;
        set.bundles_of(p)
            .iter()
            .filter_map(|b| set.bundle(*b))
            .filter(|b| b.image.as_deref() == Some(image))
            .max_by(|a, b| a.version.cmp_precedence(&b.version))
    });
    match found {
        Some(b) => Ok(Some((b.name.clone(), b.version.to_string()))),
        None => Err(image.to_string()),
    }
}

/// The answer for an extension named `name` from its decision.
pub fn answer(name: &str, d: &Decision, set: Option<&CatalogSet>) -> ExtensionAnswer {
    let installed = d.installed.as_ref().map(|(n, _)| n.clone());
    let mut a = ExtensionAnswer {
        name: name.to_string(),
        package: d.package.clone(),
        status: ExtensionStatus::Unsatisfiable,
        bundle: None,
        version: None,
        catalog: None,
        action: None,
        installed,
        dependencies: Vec::new(),
        olm_v1: None,
        explanation: words::explanation(name, d),
        advice: None,
        warnings: words::warnings(d),
    };
    let Ok(chosen) = &d.result else {
        return a;
    };
    a.status = ExtensionStatus::Resolved;
    a.bundle = Some(chosen.candidate.bundle.clone());
    a.version = Some(chosen.candidate.version.to_string());
    a.catalog = Some(chosen.catalog.clone());
    a.action = Some(action(d));
    if let Some(b) = set.and_then(|s| s.bundle(chosen.id).map(|b| (s, b))) {
        a.dependencies = declared(b.0, b.1);
    }
    if !a.dependencies.is_empty() {
        a.olm_v1 = Some(words::refused(&chosen.candidate.bundle, &a.dependencies));
    }
    a
}

fn action(d: &Decision) -> ExtensionAction {
    let (Ok(chosen), Some((name, version))) = (&d.result, &d.installed) else {
        return ExtensionAction::Install;
    };
    if &chosen.candidate.bundle == name {
        return ExtensionAction::Keep;
    }
    let Ok(v) = crate::version::Version::parse(version) else {
        return ExtensionAction::Upgrade;
    };
    let (new, old) = (chosen.candidate.version.semver(), v.semver());
    match new.cmp(old) {
        std::cmp::Ordering::Greater => ExtensionAction::Upgrade,
        std::cmp::Ordering::Less => ExtensionAction::Downgrade,
        std::cmp::Ordering::Equal => ExtensionAction::Keep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::read::read_text;

    #[test]
    fn bindings_with_and_without_a_namespace() {
        let b = Binding::parse("operatorhubio=cat/").unwrap();
        assert!(b.is_cluster_scoped() && b.name == "operatorhubio");
        let b = Binding::parse("olm/ops=cat/").unwrap();
        assert!(!b.is_cluster_scoped() && b.namespace == "olm");
        for bad in ["/x=p", "a/b/c=p", "=p", "x=", "x"] {
            assert!(Binding::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn v1_objects_are_read_with_their_fields() {
        let text = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: a}\nspec:\n  source:\n    catalog: {packageName: p, version: '~1.2', channels: [s], upgradeConstraintPolicy: SelfCertified, selector: {matchLabels: {k: v}}}\nstatus: {install: {bundle: {name: p.v1, version: 1.0.0}}}\n---\nstatus: {installedBundle: {name: q.v1, version: 1.0.0}}\nspec: {packageName: q, channel: c}\nkind: ClusterExtension\napiVersion: olm.operatorframework.io/v1alpha1\nmetadata: {name: b}\n---\napiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata: {name: c}\nspec: {priority: -5, availabilityMode: Unavailable, source: {type: Image, image: {ref: r}}}\n";
        let state = ClusterState::from_dump(read_text("s.yaml", text).unwrap()).unwrap();
        let exts: Vec<_> = state.of_kind(KindName::ClusterExtension).collect();
        let Kind::ClusterExtension(spec, status) = &exts[0].kind else {
            panic!()
        };
        let f = spec.filter();
        assert_eq!(f.package_name.as_deref(), Some("p"));
        assert_eq!(f.channels, ["s"]);
        assert_eq!(
            f.upgrade_constraint_policy.as_deref(),
            Some("SelfCertified")
        );
        assert_eq!(status.installed().unwrap().name, "p.v1");
        // v1alpha1, written with status and spec before kind (read after the document).
        let Kind::ClusterExtension(spec, status) = &exts[1].kind else {
            panic!()
        };
        assert_eq!(spec.filter().channels, ["c"]);
        assert_eq!(status.installed().unwrap().name, "q.v1");
        let catalogs = cluster_catalogs(&state, &[]);
        assert_eq!(catalogs[0].priority, -5);
        assert!(catalogs[0].unavailable);
        assert_eq!(catalogs[0].image.as_deref(), Some("r"));
        assert_eq!(catalogs[0].labels[super::super::CATALOG_NAME_LABEL], "c");
    }

    #[test]
    fn a_malformed_extension_names_its_field() {
        let text = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: a}\nspec: {source: {catalog: {channels: stable}}}\n";
        let e = read_text("s.yaml", text).unwrap_err().to_string();
        assert!(
            e.contains("ClusterExtension a") && e.contains("spec.source.catalog.channels"),
            "{e}"
        );
    }
}
