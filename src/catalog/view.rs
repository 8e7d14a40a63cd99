//! A catalog bundle as the constraint language sees it: the subject a constraint is tested
//! against ([`CandidateView::of_bundle`]) and the properties CEL rules read
//! ([`bundle_properties`]).

use serde_json::{Value, json};

use super::model::Bundle;
use super::set::CatalogSet;
use crate::constraint::CandidateView;
use crate::gvk::Gvk;

impl<'a> CandidateView<'a> {
    /// The view of a catalog bundle; `properties` is usually
    /// [`bundle_properties`]`(bundle, set)`.
    pub(crate) fn of_bundle(
        bundle: &'a Bundle,
        set: &'a CatalogSet,
        properties: &'a [(String, Value)],
    ) -> CandidateView<'a> {
        CandidateView {
            package: set.package_name(bundle.package),
            version: &bundle.version,
            provides: bundle
                .provides
                .iter()
                .filter_map(|id| set.gvk(*id))
                .collect(),
            properties,
        }
    }
}

/// Every property of `bundle` as (type, decoded value), as CEL rules see them. The typed
/// properties the catalog model keeps apart are re-added first (`olm.package` {packageName,
/// version}, `olm.gvk` {group, version, kind}, `olm.label` {label}, the `*.required` ones,
/// `olm.constraint`, `olm.deprecated` {}), then the opaque ones in catalog order. OLM passes
/// them in document order, which the model does not keep.
pub fn bundle_properties(bundle: &Bundle, set: &CatalogSet) -> Vec<(String, Value)> {
    let mut out = Vec::with_capacity(bundle.properties.len() + 4);
    let gvk_value = |g: &Gvk| json!({"group": g.group, "version": g.version, "kind": g.kind});
    out.push((
        "olm.package".to_string(),
        json!({"packageName": set.package_name(bundle.package), "version": bundle.version.to_string()}),
    ));
    for gvk in bundle.provides.iter().filter_map(|id| set.gvk(*id)) {
        out.push(("olm.gvk".to_string(), gvk_value(gvk)));
    }
    for label in &bundle.labels {
        out.push(("olm.label".to_string(), json!({"label": label})));
    }
    for req in &bundle.requires_packages {
        let value = json!({"packageName": req.package, "versionRange": req.range.raw()});
        out.push(("olm.package.required".to_string(), value));
    }
    for gvk in bundle.requires_gvks.iter().filter_map(|id| set.gvk(*id)) {
        out.push(("olm.gvk.required".to_string(), gvk_value(gvk)));
    }
    for label in &bundle.requires_labels {
        out.push(("olm.label.required".to_string(), json!({"label": label})));
    }
    for raw in &bundle.constraints {
        out.push(("olm.constraint".to_string(), decode(raw.get())));
    }
    if bundle.deprecated {
        out.push(("olm.deprecated".to_string(), json!({})));
    }
    for p in &bundle.properties {
        out.push((p.kind.clone(), decode(p.value.get())));
    }
    out
}

/// Raw JSON from the catalog was valid when loaded; should decoding fail anyway (nesting
/// beyond serde_json's limit), the value is `null`.
fn decode(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or(Value::Null)
}
