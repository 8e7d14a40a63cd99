//! A cluster answer as the JSON (and YAML) document of `deppy cluster resolve -o json`: the
//! answer's data with its reasons, warnings and explanations in words. The keys and strings
//! are a contract (docs/cli.md).

use serde::Serialize;

use crate::cluster::v1::{Advice, AdviceStatus, ExtensionAction, ExtensionAnswer, ExtensionStatus};
use crate::cluster::{
    CatalogAnswer, ClusterAnswer, ClusterWarning, CrdCheck, NamespaceAnswer, SelectedAnswer,
    Status, SubscriptionAction, SubscriptionAnswer,
};
use crate::explain::{Detail, olmv1};
use crate::resolve::Via;

/// The document of a [`ClusterAnswer`]: serialize it (JSON or YAML).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterReport<'a> {
    status: Status,
    namespaces: Vec<NamespaceReport<'a>>,
    skipped: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cluster_warnings: Vec<&'a ClusterWarning>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    extensions: Vec<ExtensionReport<'a>>,
    catalogs: &'a [CatalogAnswer],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NamespaceReport<'a> {
    namespace: &'a str,
    status: Status,
    global_namespace: &'a str,
    subscriptions: Vec<SubscriptionReport<'a>>,
    selected: &'a [SelectedAnswer],
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    crd_checks: Vec<&'a CrdCheck>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    crd_unchecked: Vec<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionReport<'a> {
    name: &'a str,
    package: &'a str,
    channel: Option<&'a str>,
    catalog: &'a str,
    installed: Option<&'a str>,
    bundle: Option<&'a str>,
    action: &'a SubscriptionAction,
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<Via>,
    #[serde(skip_serializing_if = "Option::is_none")]
    install_would_fail: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ExtensionReport<'a> {
    name: &'a str,
    package: &'a str,
    status: ExtensionStatus,
    bundle: Option<&'a str>,
    version: Option<&'a str>,
    catalog: Option<&'a str>,
    action: Option<ExtensionAction>,
    installed: Option<&'a str>,
    dependencies: Vec<DependencyReport>,
    olm_v1: Option<String>,
    explanation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    advice: Option<AdviceReport<'a>>,
    warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct DependencyReport {
    property: &'static str,
    requirement: String,
}

#[derive(Debug, Serialize)]
struct AdviceReport<'a> {
    status: AdviceStatus,
    add: Vec<AddReport<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AddReport<'a> {
    name: &'a str,
    package: &'a str,
    bundle: &'a str,
    version: &'a str,
    catalog: &'a str,
    olm_v1_refuses: bool,
    yaml: String,
}

/// The document of `answer`; `detail` says how much of each proof to word.
pub fn report(answer: &ClusterAnswer, detail: Detail) -> ClusterReport<'_> {
    ClusterReport {
        status: answer.status,
        namespaces: answer
            .namespaces
            .iter()
            .map(|ns| namespace(ns, detail))
            .collect(),
        skipped: answer.skipped,
        cluster_warnings: answer.cluster_warnings.iter().collect(),
        extensions: answer.extensions.iter().map(extension).collect(),
        catalogs: &answer.catalogs,
    }
}

fn namespace(ns: &NamespaceAnswer, detail: Detail) -> NamespaceReport<'_> {
    NamespaceReport {
        namespace: &ns.namespace,
        status: ns.status,
        global_namespace: &ns.global_namespace,
        subscriptions: ns.subscriptions.iter().map(subscription).collect(),
        selected: &ns.selected,
        warnings: super::warnings(ns),
        explanation: super::explanation(ns, detail),
        reason: super::reason(ns),
        crd_checks: ns.crd_checks.iter().collect(),
        crd_unchecked: ns.crd_unchecked.iter().map(String::as_str).collect(),
    }
}

fn subscription(s: &SubscriptionAnswer) -> SubscriptionReport<'_> {
    SubscriptionReport {
        name: &s.name,
        package: &s.package,
        channel: s.channel.as_deref(),
        catalog: &s.catalog,
        installed: s.installed.as_deref(),
        bundle: s.bundle.as_deref(),
        action: &s.action,
        via: s.action.via(),
        install_would_fail: s
            .install_would_fail
            .as_ref()
            .map(crate::explain::crd::install_would_fail),
    }
}

fn extension(e: &ExtensionAnswer) -> ExtensionReport<'_> {
    ExtensionReport {
        name: &e.name,
        package: &e.package,
        status: e.status,
        bundle: e.bundle.as_deref(),
        version: e.version.as_deref(),
        catalog: e.catalog.as_deref(),
        action: e.action,
        installed: e.installed.as_deref(),
        dependencies: e
            .dependencies
            .iter()
            .map(|d| DependencyReport {
                property: d.property(),
                requirement: olmv1::requirement(d),
            })
            .collect(),
        olm_v1: olmv1::olm_v1(e),
        explanation: olmv1::explanation(&e.name, &e.decision),
        advice: e.advice.as_ref().map(advice),
        warnings: olmv1::warnings(&e.warnings),
    }
}

fn advice(a: &Advice) -> AdviceReport<'_> {
    let add = match a {
        Advice::Add(add) => add
            .iter()
            .map(|x| AddReport {
                name: &x.name,
                package: &x.package,
                bundle: &x.bundle,
                version: &x.version,
                catalog: &x.catalog,
                olm_v1_refuses: x.olm_v1_refuses,
                yaml: olmv1::add_yaml(x),
            })
            .collect(),
        _ => Vec::new(),
    };
    AdviceReport {
        status: a.status(),
        add,
        explanation: olmv1::advice_explanation(a),
    }
}
