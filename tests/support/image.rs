//! Building catalog images in tests: layers (tar, gzip or zstd) from the shipped catalogs or
//! from raw entries (`..`, links out, bombs), configurations with labels, manifests and
//! indexes; written as an OCI layout or pushed to a registry (`super::registry`). Shares no
//! code with deppy's reader: the tests check one against the other.

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;

use sha2::Digest as _;

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
pub const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
pub const DATABASE_LABEL: &str = "operators.operatorframework.io.index.database.v1";

pub fn sha256(bytes: &[u8]) -> String {
    let d = sha2::Sha256::digest(bytes);
    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A blob: its bytes, media type and digest.
#[derive(Clone, Debug)]
pub struct Blob {
    pub bytes: Vec<u8>,
    pub media_type: String,
    pub digest: String,
}

impl Blob {
    pub fn new(bytes: Vec<u8>, media_type: &str) -> Blob {
        Blob {
            digest: sha256(&bytes),
            bytes,
            media_type: media_type.to_string(),
        }
    }

    pub fn descriptor(&self) -> serde_json::Value {
        serde_json::json!({"mediaType": self.media_type, "digest": self.digest, "size": self.bytes.len()})
    }
}

/// A tar entry: name, kind, link target, contents.
pub enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Dir(&'a str),
    Symlink(&'a str, &'a str),
    Hardlink(&'a str, &'a str),
}

/// A tar stream of `entries`, names written byte for byte (so `..` and absolute names can be
/// tested).
pub fn tar(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for e in entries {
        let (name, kind, link, data): (&str, tar::EntryType, &str, &[u8]) = match e {
            Entry::File(n, d) => (n, tar::EntryType::Regular, "", d),
            Entry::Dir(n) => (n, tar::EntryType::Directory, "", b""),
            Entry::Symlink(n, t) => (n, tar::EntryType::Symlink, t, b""),
            Entry::Hardlink(n, t) => (n, tar::EntryType::Link, t, b""),
        };
        let mut h = tar::Header::new_ustar();
        {
            let u = h.as_ustar_mut().expect("ustar");
            u.name[..name.len()].copy_from_slice(name.as_bytes());
            u.linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        h.set_entry_type(kind);
        h.set_size(data.len() as u64);
        h.set_mode(if kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        h.set_cksum();
        b.append(&h, data).expect("tar entry");
    }
    b.into_inner().expect("tar")
}

/// A tar stream of every file under `dir`, named `prefix/<path below dir>`.
pub fn tar_dir(dir: &Path, prefix: &str) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    b.follow_symlinks(false);
    b.mode(tar::HeaderMode::Deterministic);
    b.append_dir_all(prefix, dir).expect("tar of a directory");
    b.into_inner().expect("tar")
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// A gzip layer.
pub fn gzip_layer(tar: &[u8]) -> Blob {
    Blob::new(gzip(tar), "application/vnd.oci.image.layer.v1.tar+gzip")
}

/// A zstd layer.
pub fn zstd_layer(tar: &[u8]) -> Blob {
    Blob::new(zstd(tar), "application/vnd.oci.image.layer.v1.tar+zstd")
}

/// An image: configuration and manifest, with its layers.
#[derive(Clone, Debug)]
pub struct Image {
    pub config: Blob,
    pub layers: Vec<Blob>,
    pub manifest: Blob,
}

/// An image of `layers` whose configuration carries `labels`; `docker` makes a Docker schema
/// 2 manifest, else an OCI one.
pub fn image(layers: Vec<Blob>, labels: &[(&str, &str)], docker: bool) -> Image {
    let labels: serde_json::Map<String, serde_json::Value> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
        .collect();
    let config = serde_json::json!({
        "architecture": "amd64", "os": "linux",
        "config": {"Labels": labels},
        "rootfs": {"type": "layers", "diff_ids": []},
    });
    let config_type = if docker {
        "application/vnd.docker.container.image.v1+json"
    } else {
        "application/vnd.oci.image.config.v1+json"
    };
    let config = Blob::new(serde_json::to_vec(&config).expect("json"), config_type);
    let media = if docker {
        DOCKER_MANIFEST
    } else {
        OCI_MANIFEST
    };
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": media,
        "config": config.descriptor(),
        "layers": layers.iter().map(Blob::descriptor).collect::<Vec<_>>(),
    });
    let manifest = Blob::new(serde_json::to_vec(&manifest).expect("json"), media);
    Image {
        config,
        layers,
        manifest,
    }
}

/// The catalog image of a shipped catalog directory: one gzip layer under `/configs`.
pub fn catalog_image(dir: &Path) -> Image {
    image(
        vec![gzip_layer(&tar_dir(dir, "configs"))],
        &[(CONFIGS_LABEL, "/configs")],
        false,
    )
}

/// An index of `(os, architecture, image)`; `docker` makes a Docker manifest list.
pub fn index(entries: &[(&str, &str, &Image)], docker: bool) -> Blob {
    let media = if docker { DOCKER_LIST } else { OCI_INDEX };
    let manifests: Vec<serde_json::Value> = entries
        .iter()
        .map(|(os, arch, image)| {
            let mut d = image.manifest.descriptor();
            d["platform"] = serde_json::json!({"os": os, "architecture": arch});
            d
        })
        .collect();
    let index = serde_json::json!({"schemaVersion": 2, "mediaType": media, "manifests": manifests});
    Blob::new(serde_json::to_vec(&index).expect("json"), media)
}

/// Writes an OCI layout holding `images`, each tagged.
pub fn write_layout(dir: &Path, images: &[(&str, &Image)]) {
    let blobs = dir.join("blobs/sha256");
    std::fs::create_dir_all(&blobs).expect("layout dir");
    std::fs::write(dir.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#)
        .expect("oci-layout");
    let mut manifests = Vec::new();
    for (tag, image) in images {
        for b in image.layers.iter().chain([&image.config, &image.manifest]) {
            let hex = b.digest.trim_start_matches("sha256:");
            std::fs::write(blobs.join(hex), &b.bytes).expect("blob");
        }
        let mut d = image.manifest.descriptor();
        d["annotations"] = serde_json::json!({"org.opencontainers.image.ref.name": tag});
        manifests.push(d);
    }
    let index =
        serde_json::json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": manifests});
    std::fs::write(
        dir.join("index.json"),
        serde_json::to_vec(&index).expect("json"),
    )
    .expect("index");
}

/// A tar file of the layout in `dir` (an `oci-archive:`).
pub fn write_archive(dir: &Path, file: &Path) {
    let mut b = tar::Builder::new(std::fs::File::create(file).expect("archive"));
    b.append_dir_all(".", dir).expect("archive of a layout");
    b.finish().expect("archive");
}
