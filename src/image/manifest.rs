//! Manifests as registries and layouts serve them: an OCI image index or a Docker manifest
//! list (one manifest per platform; deppy takes linux/amd64, else the first image), an OCI or
//! Docker schema 2 image manifest (a configuration and layers), and the image
//! configuration's labels, which say where the catalog is.

use oci_spec::image::{Descriptor, ImageConfiguration, ImageIndex, ImageManifest, MediaType};

use super::error::ImageError;

/// The label naming the catalog's directory in the image.
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
/// The label of an old SQLite index image.
pub const DATABASE_LABEL: &str = "operators.operatorframework.io.index.database.v1";
/// Where the catalog is when the image does not say.
pub const DEFAULT_CONFIGS: &str = "/configs";

/// The media types deppy reads, as a manifest request's `Accept` header.
pub const ACCEPT: &str = "application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/// Largest manifest, index or configuration read, in bytes (as containerd limits them).
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;

/// A manifest as fetched: an index of per-platform manifests, or one image's.
#[derive(Debug)]
pub enum Fetched {
    /// An OCI image index or Docker manifest list.
    Index(Box<ImageIndex>),
    /// An OCI or Docker schema 2 image manifest.
    Image(Box<ImageManifest>),
}

fn manifest_error(image: &str, message: impl Into<String>) -> ImageError {
    ImageError::Manifest {
        image: image.to_string(),
        message: message.into(),
    }
}

/// What the JSON says it is: its `mediaType`, else its shape.
pub fn parse(image: &str, bytes: &[u8], content_type: Option<&str>) -> Result<Fetched, ImageError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        schema_version: Option<u32>,
        media_type: Option<String>,
        manifests: Option<serde::de::IgnoredAny>,
        layers: Option<serde::de::IgnoredAny>,
    }
    let head: Head = serde_json::from_slice(bytes)
        .map_err(|e| manifest_error(image, format!("the manifest is not JSON: {e}")))?;
    if head.schema_version == Some(1) {
        return Err(ImageError::Unsupported {
            image: image.to_string(),
            message: "a Docker schema 1 manifest, which registries no longer serve; push the image again with a current tool".into(),
        });
    }
    let kind = head
        .media_type
        .as_deref()
        .or(content_type)
        .unwrap_or_default();
    let is_index = match kind {
        "application/vnd.oci.image.index.v1+json"
        | "application/vnd.docker.distribution.manifest.list.v2+json" => true,
        "application/vnd.oci.image.manifest.v1+json"
        | "application/vnd.docker.distribution.manifest.v2+json" => false,
        _ => head.manifests.is_some() && head.layers.is_none(),
    };
    let json_error = |e: oci_spec::OciSpecError| {
        manifest_error(
            image,
            format!(
                "the manifest does not read as {}: {e}",
                if is_index {
                    "an image index"
                } else {
                    "an image manifest"
                }
            ),
        )
    };
    if is_index {
        ImageIndex::from_reader(bytes)
            .map(|i| Fetched::Index(Box::new(i)))
            .map_err(json_error)
    } else {
        ImageManifest::from_reader(bytes)
            .map(|m| Fetched::Image(Box::new(m)))
            .map_err(json_error)
    }
}

/// The manifest to use from an index: linux/amd64, else the first that is not an
/// attestation.
pub fn choose_platform<'a>(
    image: &str,
    index: &'a ImageIndex,
) -> Result<&'a Descriptor, ImageError> {
    let images: Vec<&Descriptor> = index
        .manifests()
        .iter()
        .filter(|d| {
            let attestation = d.annotations().as_ref().is_some_and(|a| {
                a.get("vnd.docker.reference.type")
                    .is_some_and(|t| t == "attestation-manifest")
            });
            !attestation
        })
        .collect();
    let amd64 = images.iter().find(|d| {
        d.platform().as_ref().is_some_and(|p| {
            p.os().to_string() == "linux" && p.architecture().to_string() == "amd64"
        })
    });
    amd64
        .or(images.first())
        .copied()
        .ok_or_else(|| manifest_error(image, "the image index lists no image manifest"))
}

/// True for the media types of a nested index.
pub fn is_index_type(t: &MediaType) -> bool {
    matches!(t, MediaType::ImageIndex)
        || t.to_string() == "application/vnd.docker.distribution.manifest.list.v2+json"
}

/// Where the catalog is in the image: its configuration's configs label (`/configs` when it
/// has none). An image with only the SQLite label holds no File-Based Catalog.
pub fn catalog_path(image: &str, image_bare: &str, config: &[u8]) -> Result<String, ImageError> {
    let config = ImageConfiguration::from_reader(config).map_err(|e| {
        manifest_error(image, format!("the image configuration does not read: {e}"))
    })?;
    let labels = config.labels_of_config();
    let label = |k: &str| labels.and_then(|l| l.get(k)).cloned();
    match (label(CONFIGS_LABEL), label(DATABASE_LABEL)) {
        (Some(path), _) => Ok(path),
        (None, Some(db)) => Err(ImageError::Sqlite {
            image: image.to_string(),
            image_bare: image_bare.to_string(),
            path: db,
        }),
        (None, None) => Ok(DEFAULT_CONFIGS.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn index(entries: &[(&str, &str)]) -> Vec<u8> {
        let m: Vec<String> = entries
            .iter()
            .map(|(os, arch)| format!(r#"{{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"{D}","size":1,"platform":{{"os":"{os}","architecture":"{arch}"}}}}"#))
            .collect();
        format!(r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{}]}}"#, m.join(",")).into_bytes()
    }

    #[test]
    fn an_index_gives_linux_amd64_else_the_first() {
        let Fetched::Index(i) = parse(
            "img",
            &index(&[("linux", "arm64"), ("linux", "amd64")]),
            None,
        )
        .unwrap() else {
            panic!()
        };
        let d = choose_platform("img", &i).unwrap();
        assert_eq!(
            d.platform().as_ref().unwrap().architecture().to_string(),
            "amd64"
        );
        let Fetched::Index(i) = parse(
            "img",
            &index(&[("linux", "s390x"), ("linux", "arm64")]),
            None,
        )
        .unwrap() else {
            panic!()
        };
        let d = choose_platform("img", &i).unwrap();
        assert_eq!(
            d.platform().as_ref().unwrap().architecture().to_string(),
            "s390x"
        );
        let Fetched::Index(i) = parse("img", &index(&[]), None).unwrap() else {
            panic!()
        };
        assert!(choose_platform("img", &i).is_err());
    }

    #[test]
    fn labels_say_where_the_catalog_is() {
        let config = |labels: &str| {
            format!(
                r#"{{"architecture":"amd64","os":"linux","config":{{"Labels":{{{labels}}}}},"rootfs":{{"type":"layers","diff_ids":[]}}}}"#
            )
        };
        let c = config(&format!(r#""{CONFIGS_LABEL}":"/srv/fbc""#));
        assert_eq!(
            catalog_path("img", "img", c.as_bytes()).unwrap(),
            "/srv/fbc"
        );
        assert_eq!(
            catalog_path("img", "img", config("").as_bytes()).unwrap(),
            "/configs"
        );
        let c = config(&format!(r#""{DATABASE_LABEL}":"/database/index.db""#));
        let e = catalog_path("docker://r/x:1", "r/x:1", c.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("SQLite") && e.contains("opm migrate r/x:1"),
            "{e}"
        );
    }

    #[test]
    fn schema_1_and_garbage_are_errors() {
        let e = parse("img", br#"{"schemaVersion":1,"fsLayers":[]}"#, None).unwrap_err();
        assert!(e.to_string().contains("schema 1"), "{e}");
        assert!(parse("img", b"<html>", None).is_err());
    }
}
