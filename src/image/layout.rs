//! OCI image layouts on disk (`oci:DIR[:TAG]`): `index.json` lists the images, each blob is
//! `blobs/<algorithm>/<hex>`; a tag is an image's `org.opencontainers.image.ref.name`
//! annotation. An `oci-archive:FILE` is such a layout in a tar file, unpacked first into a
//! scratch directory (only `oci-layout`, `index.json` and `blobs/` entries; nothing else is
//! written).

use std::io::Read;
use std::path::{Path, PathBuf};

use oci_spec::image::{Descriptor, ImageIndex};

use super::cache::Scratch;
use super::digest::Digest;
use super::error::{ImageError, PullBudget};
use super::manifest::MAX_MANIFEST_BYTES;
use super::source::{Source, Top, digest_of, read_verified};

/// The annotation that tags an image in a layout.
const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// An OCI layout directory.
pub struct Layout {
    image: String,
    dir: PathBuf,
    tag: Option<String>,
    /// The unpacked archive, when the layout came in one.
    _scratch: Option<Scratch>,
}

fn io_error(image: &str, path: &Path, e: impl std::fmt::Display) -> ImageError {
    ImageError::Io {
        image: image.to_string(),
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

impl Layout {
    /// The layout in `dir`.
    pub fn open(image: &str, dir: &Path, tag: Option<&str>) -> Result<Layout, ImageError> {
        let marker = dir.join("oci-layout");
        if !marker.is_file() {
            return Err(io_error(
                image,
                &marker,
                "not found: the directory is not an OCI image layout",
            ));
        }
        Ok(Layout {
            image: image.to_string(),
            dir: dir.to_path_buf(),
            tag: tag.map(str::to_string),
            _scratch: None,
        })
    }

    /// The layout in the tar file `file`, unpacked into `scratch` within `max_bytes`.
    pub fn unpack(
        image: &str,
        file: &Path,
        tag: Option<&str>,
        scratch: Scratch,
        max_bytes: u64,
    ) -> Result<Layout, ImageError> {
        let f = std::fs::File::open(file).map_err(|e| io_error(image, file, e))?;
        let mut archive = tar::Archive::new(f.take(max_bytes.saturating_add(1)));
        let entries = archive.entries().map_err(|e| io_error(image, file, e))?;
        let mut total = 0u64;
        for entry in entries {
            let mut entry = entry.map_err(|e| io_error(image, file, e))?;
            total += entry.header().size().unwrap_or(0);
            if total > max_bytes {
                return Err(ImageError::Budget {
                    image: image.to_string(),
                    budget: PullBudget::Size,
                    message: format!("the archive holds more than {max_bytes} bytes"),
                });
            }
            if entry.header().entry_type() != tar::EntryType::Regular {
                continue;
            }
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let Some(rel) = layout_file(&raw) else {
                continue;
            };
            let dest = scratch.path().join(&rel);
            if let Some(p) = dest.parent() {
                std::fs::create_dir_all(p).map_err(|e| io_error(image, p, e))?;
            }
            let mut out = std::fs::File::create(&dest).map_err(|e| io_error(image, &dest, e))?;
            std::io::copy(&mut entry, &mut out).map_err(|e| io_error(image, file, e))?;
        }
        let mut layout = Layout::open(image, scratch.path(), tag)?;
        layout._scratch = Some(scratch);
        Ok(layout)
    }

    fn blob_path(&self, digest: &Digest) -> PathBuf {
        self.dir
            .join("blobs")
            .join(digest.algorithm().name())
            .join(digest.hex())
    }

    fn open_blob(&self, digest: &Digest) -> Result<std::fs::File, ImageError> {
        let path = self.blob_path(digest);
        std::fs::File::open(&path).map_err(|e| io_error(&self.image, &path, e))
    }

    /// The descriptor of the image the tag names (or the only image).
    fn chosen(&self, index: &ImageIndex) -> Result<Descriptor, ImageError> {
        let tag_of = |d: &Descriptor| {
            d.annotations()
                .as_ref()
                .and_then(|a| a.get(REF_NAME).cloned())
        };
        let all = index.manifests();
        let found: Vec<&Descriptor> = match &self.tag {
            Some(t) => all
                .iter()
                .filter(|d| tag_of(d).as_deref() == Some(t))
                .collect(),
            None => all.iter().collect(),
        };
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            _ => {
                let tags: Vec<String> = all.iter().filter_map(tag_of).collect();
                let message = match &self.tag {
                    Some(t) => format!(
                        "the layout has no image tagged {t:?} (its tags: {})",
                        if tags.is_empty() {
                            "none".into()
                        } else {
                            tags.join(", ")
                        }
                    ),
                    None => format!(
                        "the layout holds {} images; name one with :TAG (its tags: {})",
                        all.len(),
                        tags.join(", ")
                    ),
                };
                Err(ImageError::Manifest {
                    image: self.image.clone(),
                    message,
                })
            }
        }
    }
}

/// The path of a layout file inside an archive (`oci-layout`, `index.json`,
/// `blobs/ALGORITHM/HEX`), or None for anything else.
fn layout_file(raw: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = raw
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    match parts.as_slice() {
        [name @ ("oci-layout" | "index.json")] => Some(PathBuf::from(name)),
        ["blobs", algo, hex] => {
            let digest: Digest = format!("{algo}:{hex}").parse().ok()?;
            Some(
                Path::new("blobs")
                    .join(digest.algorithm().name())
                    .join(digest.hex()),
            )
        }
        _ => None,
    }
}

impl Source for Layout {
    fn top(&mut self) -> Result<Top, ImageError> {
        let path = self.dir.join("index.json");
        let f = std::fs::File::open(&path).map_err(|e| io_error(&self.image, &path, e))?;
        let mut bytes = Vec::new();
        f.take(MAX_MANIFEST_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error(&self.image, &path, e))?;
        let index = ImageIndex::from_reader(&bytes[..])
            .map_err(|e| io_error(&self.image, &path, format!("not an image index: {e}")))?;
        let d = self.chosen(&index)?;
        let digest = digest_of(&self.image, &d)?;
        let bytes = read_verified(
            &self.image,
            "manifest",
            self.open_blob(&digest)?,
            &digest,
            Some(d.size()),
            MAX_MANIFEST_BYTES,
        )?;
        Ok(Top {
            bytes,
            content_type: Some(d.media_type().to_string()),
            digest,
        })
    }

    fn manifest(&mut self, d: &Descriptor) -> Result<Vec<u8>, ImageError> {
        let digest = digest_of(&self.image, d)?;
        read_verified(
            &self.image,
            &format!("manifest {digest}"),
            self.open_blob(&digest)?,
            &digest,
            Some(d.size()),
            MAX_MANIFEST_BYTES,
        )
    }

    fn blob(&mut self, d: &Descriptor) -> Result<Box<dyn Read + '_>, ImageError> {
        let digest = digest_of(&self.image, d)?;
        Ok(Box::new(self.open_blob(&digest)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_layout_files_come_out_of_an_archive() {
        let hex = "ab".repeat(32);
        assert_eq!(layout_file("index.json"), Some("index.json".into()));
        assert_eq!(layout_file("./oci-layout"), Some("oci-layout".into()));
        assert_eq!(
            layout_file(&format!("blobs/sha256/{hex}")),
            Some(PathBuf::from(format!("blobs/sha256/{hex}")))
        );
        assert_eq!(layout_file("blobs/sha256/../../etc"), None);
        assert_eq!(layout_file("../index.json"), None);
        assert_eq!(layout_file("etc/passwd"), None);
    }
}
