//! A CatalogSource's registry pod: the pod OLM runs to serve the catalog, labelled
//! `olm.catalogSource=NAME` in the CatalogSource's namespace. Its containers'
//! `status.containerStatuses[].imageID` is the digest the cluster actually pulled, which a
//! tag in `spec.image` may no longer name. Pods are otherwise skipped (and still counted in
//! `skipped`); only these few fields of a registry pod are kept.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;

use crate::image::RegistryRef;

/// The label OLM puts on a CatalogSource's registry pod.
pub const CATALOG_SOURCE_LABEL: &str = "olm.catalogSource";

/// A registry pod, as far as binding its catalog needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogPod {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// The CatalogSource it serves (its `olm.catalogSource` label).
    pub catalog_source: String,
    /// `status.phase == Running`.
    pub running: bool,
    /// Each container's `imageID` that names a digest, parsed, by container order.
    pub image_ids: Vec<RegistryRef>,
    /// Where it was found (file, document and item, in words).
    pub source: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PodStatus {
    phase: Option<String>,
    #[serde(default)]
    container_statuses: Vec<ContainerStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContainerStatus {
    #[serde(rename = "imageID")]
    image_id: Option<String>,
}

/// True for the `apiVersion` and `kind` of a Pod.
pub fn is_pod(api_version: &str, kind: &str) -> bool {
    api_version == "v1" && kind == "Pod"
}

/// The registry pod a Pod object is, when it is labelled as one. An `imageID` that is not a
/// digest reference (`docker-pullable://` and `docker://` prefixes dropped) is left out.
pub fn catalog_pod(
    metadata: &ObjectMeta,
    status: Option<serde_json::Value>,
    source: String,
) -> Option<CatalogPod> {
    let catalog_source = metadata.labels.as_ref()?.get(CATALOG_SOURCE_LABEL)?.clone();
    let status: PodStatus = status
        .and_then(|s| serde_json::from_value(s).ok())
        .unwrap_or_default();
    let image_ids = status
        .container_statuses
        .iter()
        .filter_map(|c| {
            let id = c.image_id.as_deref()?;
            let id = id
                .strip_prefix("docker-pullable://")
                .or_else(|| id.strip_prefix("docker://"))
                .unwrap_or(id);
            RegistryRef::parse(id).ok().filter(|r| r.digest.is_some())
        })
        .collect();
    Some(CatalogPod {
        namespace: metadata.namespace.clone().unwrap_or_default(),
        name: metadata.name.clone().unwrap_or_default(),
        catalog_source,
        running: status.phase.as_deref() == Some("Running"),
        image_ids,
        source,
    })
}

/// The digest reference the registry pods of one CatalogSource ran, and the pod it came
/// from: a running pod's first, else any pod's, by pod name.
#[cfg(feature = "registry")]
pub fn pinned<'a>(
    pods: impl Iterator<Item = &'a CatalogPod>,
) -> Option<(&'a RegistryRef, &'a str)> {
    let mut pods: Vec<&CatalogPod> = pods.filter(|p| !p.image_ids.is_empty()).collect();
    pods.sort_by(|a, b| b.running.cmp(&a.running).then(a.name.cmp(&b.name)));
    let pod = pods.first()?;
    Some((pod.image_ids.first()?, pod.name.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn pod(name: &str, labels: bool, phase: &str, id: &str) -> Option<CatalogPod> {
        let mut meta = ObjectMeta {
            name: Some(name.into()),
            namespace: Some("olm".into()),
            ..ObjectMeta::default()
        };
        if labels {
            meta.labels = Some([(CATALOG_SOURCE_LABEL.to_string(), "ops".to_string())].into());
        }
        let status = serde_json::json!({"phase": phase, "containerStatuses": [{"name": "registry-server", "imageID": id}]});
        catalog_pod(&meta, Some(status), "s.yaml (document 1)".into())
    }

    #[test]
    fn a_registry_pod_pins_its_digest() {
        assert!(pod("p", false, "Running", "x").is_none());
        let a = pod("a", true, "Pending", &format!("quay.io/o/idx@sha256:{HEX}")).unwrap();
        let b = pod(
            "b",
            true,
            "Running",
            &format!("docker-pullable://quay.io/o/idx@sha256:{HEX}"),
        )
        .unwrap();
        assert_eq!(b.image_ids.len(), 1);
        let c = pod("c", true, "Running", "sha256:abc").unwrap();
        assert!(
            c.image_ids.is_empty(),
            "an image ID without a repository pins nothing"
        );
        let (r, by) = pinned([&a, &b, &c].into_iter()).unwrap();
        assert_eq!(by, "b");
        assert_eq!(r.to_string(), format!("quay.io/o/idx@sha256:{HEX}"));
        assert!(pinned([&c].into_iter()).is_none());
    }
}
