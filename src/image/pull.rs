//! Pulling a catalog out of an image: the manifest the reference names (by digest, from the
//! cache without a request; by tag, one manifest request, then the cache), the platform's
//! manifest of an index, the configuration's labels, then every layer in order, each
//! verified against its digest, applied to the catalog's directory; the catalog is written
//! to the cache last.

use std::path::PathBuf;
use std::time::Instant;

use oci_spec::image::ImageManifest;

use super::cache::{Cache, EntryInfo};
use super::digest::Digest;
use super::error::{ImageError, PullBudget};
use super::layers::{LayerBudget, Tree};
use super::layout::Layout;
use super::manifest::{self, Fetched, MAX_MANIFEST_BYTES};
use super::reference::{ImageRef, RegistryRef};
use super::registry::{Registry, RegistryOptions};
use super::source::{Source, Verify, digest_of, read_verified};

/// How to pull.
#[derive(Clone, Debug)]
pub struct PullOptions {
    /// The cache directory (`DIR/images/v1`); None: a directory of this run only
    /// (`--no-cache`).
    pub cache_dir: Option<PathBuf>,
    /// Contact no registry: only cached images are used.
    pub offline: bool,
    /// How registries are contacted.
    pub registry: RegistryOptions,
    /// Uncompressed bytes of the catalog kept (`--max-memory`); the layers may uncompress
    /// to 8 times this.
    pub max_catalog_bytes: u64,
    /// Entries of all layers of an image together.
    pub max_entries: u64,
    /// When to give up (`--timeout`).
    pub deadline: Option<Instant>,
}

/// Entries of an image's layers read at most: a catalog image has some thousands.
pub const MAX_ENTRIES: u64 = 1 << 20;

impl Default for PullOptions {
    fn default() -> PullOptions {
        PullOptions {
            cache_dir: super::cache::default_dir(),
            offline: false,
            registry: RegistryOptions::default(),
            max_catalog_bytes: 1 << 30,
            max_entries: MAX_ENTRIES,
            deadline: None,
        }
    }
}

/// A catalog pulled out of an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PulledCatalog {
    /// The image as asked for.
    pub image: ImageRef,
    /// The digest its reference resolved to: the manifest (or index) pulled.
    pub digest: Digest,
    /// The catalog's directory (in the cache): File-Based Catalog files, to load as any
    /// catalog directory.
    pub dir: PathBuf,
    /// Where the catalog was in the image.
    pub configs: String,
    /// True when it came from the cache without reading a layer.
    pub cached: bool,
}

/// Pulls catalogs, keeping registry connections and tokens from one pull to the next.
pub struct Puller {
    options: PullOptions,
    cache: Cache,
    registry: Option<Registry>,
}

impl Puller {
    /// A puller with `options`.
    pub fn new(options: PullOptions) -> Puller {
        let cache = match &options.cache_dir {
            Some(d) => Cache::at(d),
            None => Cache::temporary(),
        };
        Puller {
            options,
            cache,
            registry: None,
        }
    }

    /// The hosts of the registries contacted so far, in order.
    pub fn contacted(&self) -> Vec<String> {
        self.registry
            .as_ref()
            .map(Registry::contacted)
            .unwrap_or_default()
    }

    /// The catalog of `image`: from the cache when it holds the digest the reference
    /// names, else pulled.
    pub fn pull(&mut self, image: &ImageRef) -> Result<PulledCatalog, ImageError> {
        let name = image.to_string();
        match image {
            ImageRef::Registry(r) => self.pull_registry(&name, image, r),
            ImageRef::Layout { dir, tag } => {
                let mut layout = Layout::open(&name, dir, tag.as_deref())?;
                self.pull_from(&name, image, &mut layout, None)
            }
            ImageRef::Archive { file, tag } => {
                let scratch = self.cache.scratch().map_err(|e| ImageError::Io {
                    image: name.clone(),
                    path: PathBuf::from("(cache)"),
                    message: e.to_string(),
                })?;
                let mut layout = Layout::unpack(
                    &name,
                    file,
                    tag.as_deref(),
                    scratch,
                    self.layer_budget().max_layer_bytes,
                )?;
                self.pull_from(&name, image, &mut layout, None)
            }
        }
    }

    fn pull_registry(
        &mut self,
        name: &str,
        image: &ImageRef,
        r: &RegistryRef,
    ) -> Result<PulledCatalog, ImageError> {
        let known = r
            .digest
            .clone()
            .or_else(|| self.options.offline.then(|| self.cache.tag(r)).flatten());
        if let Some(d) = &known
            && let Some(hit) = self.cached(image, d)
        {
            return Ok(hit);
        }
        if self.options.offline {
            return Err(ImageError::Offline {
                image: name.to_string(),
            });
        }
        let registry = match self.registry.take() {
            Some(reg) => reg,
            None => Registry::new(&self.options.registry).map_err(|message| {
                ImageError::Unsupported {
                    image: name.to_string(),
                    message,
                }
            })?,
        };
        let mut source = registry.source(name, r, self.options.deadline);
        let result = self.pull_from(name, image, &mut source, Some(r));
        self.registry = Some(source.into_registry());
        result
    }

    fn cached(&self, image: &ImageRef, digest: &Digest) -> Option<PulledCatalog> {
        let (dir, info) = self.cache.lookup(digest)?;
        Some(PulledCatalog {
            image: image.clone(),
            digest: digest.clone(),
            dir,
            configs: info.configs,
            cached: true,
        })
    }

    fn layer_budget(&self) -> LayerBudget {
        LayerBudget {
            max_layer_bytes: self.options.max_catalog_bytes.saturating_mul(8),
            max_catalog_bytes: self.options.max_catalog_bytes,
            max_entries: self.options.max_entries,
            deadline: self.options.deadline,
        }
    }

    fn pull_from(
        &mut self,
        name: &str,
        image: &ImageRef,
        source: &mut dyn Source,
        registry: Option<&RegistryRef>,
    ) -> Result<PulledCatalog, ImageError> {
        let top = source.top()?;
        if let Some(r) = registry.filter(|r| r.digest.is_none()) {
            self.cache.remember_tag(r, &top.digest);
        }
        if let Some(hit) = self.cached(image, &top.digest) {
            return Ok(hit);
        }
        let (manifest, manifest_digest) =
            match manifest::parse(name, &top.bytes, top.content_type.as_deref())? {
                Fetched::Image(m) => (m, top.digest.clone()),
                Fetched::Index(index) => {
                    let d = manifest::choose_platform(name, &index)?;
                    if manifest::is_index_type(d.media_type()) {
                        return Err(ImageError::Unsupported {
                            image: name.to_string(),
                            message: "an image index inside an image index".into(),
                        });
                    }
                    let bytes = source.manifest(d)?;
                    match manifest::parse(name, &bytes, Some(d.media_type().as_ref()))? {
                        Fetched::Image(m) => (m, digest_of(name, d)?),
                        Fetched::Index(_) => {
                            return Err(ImageError::Unsupported {
                                image: name.to_string(),
                                message: "an image index inside an image index".into(),
                            });
                        }
                    }
                }
            };
        let bare = match image {
            ImageRef::Registry(r) => r.to_string(),
            other => other.to_string(),
        };
        let tree = self.extract(name, &bare, &manifest, source)?;
        let info = EntryInfo {
            image: name.to_string(),
            digest: top.digest.clone(),
            manifest: manifest_digest,
            configs: tree.1,
        };
        let dir = self
            .cache
            .store(&tree.0, &info)
            .map_err(|e| ImageError::Io {
                image: name.to_string(),
                path: self.options.cache_dir.clone().unwrap_or_default(),
                message: format!("cannot write the image cache: {e}"),
            })?;
        Ok(PulledCatalog {
            image: image.clone(),
            digest: top.digest,
            dir,
            configs: info.configs,
            cached: false,
        })
    }

    /// Reads the configuration and applies every layer; returns the catalog and its path.
    fn extract(
        &self,
        name: &str,
        bare: &str,
        manifest: &ImageManifest,
        source: &mut dyn Source,
    ) -> Result<(Tree, String), ImageError> {
        let config = manifest.config();
        let config_digest = digest_of(name, config)?;
        let bytes = {
            let r = source.blob(config)?;
            read_verified(
                name,
                &format!("configuration {config_digest}"),
                r,
                &config_digest,
                Some(config.size()),
                MAX_MANIFEST_BYTES,
            )?
        };
        let configs = manifest::catalog_path(name, bare, &bytes)?;
        let mut tree = Tree::new(&configs).map_err(|message| ImageError::Manifest {
            image: name.to_string(),
            message,
        })?;
        let budget = self.layer_budget();
        for (i, layer) in manifest.layers().iter().enumerate() {
            if budget.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(ImageError::Budget {
                    image: name.to_string(),
                    budget: PullBudget::Time,
                    message: "the time budget ran out while reading its layers".into(),
                });
            }
            let digest = digest_of(name, layer)?;
            let what = format!("layer {digest}");
            let mut verify = Verify::new(source.blob(layer)?, &digest);
            if let Err(e) = tree.apply(&mut verify, i, name, &digest.to_string(), &budget) {
                // A stream that breaks is best explained by bytes that are not the blob's.
                if !e.is_budget()
                    && let Err(d @ ImageError::Digest { .. }) =
                        verify.finish(name, &what, &digest, layer.size())
                {
                    return Err(d);
                }
                return Err(e);
            }
            verify.finish(name, &what, &digest, layer.size())?;
        }
        Ok((tree, configs))
    }
}
