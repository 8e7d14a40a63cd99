//! What can go wrong getting a catalog out of an image: every variant names the image, and
//! the registry, file or entry to blame.

use std::path::PathBuf;

/// Which budget a pull ran out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PullBudget {
    /// The time budget (`--timeout`).
    Time,
    /// The uncompressed bytes of the image's layers, or of the catalog kept from them
    /// (`--max-memory`).
    Size,
    /// The number of entries in the image's layers.
    Entries,
}

/// A catalog image that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// A reference that does not parse.
    #[error("image reference {reference:?}: {message}")]
    Reference {
        /// The reference as given.
        reference: String,
        /// What is wrong.
        message: String,
    },
    /// This build cannot read images, or the image is of a kind deppy does not read.
    #[error("image {image}: {message}")]
    Unsupported {
        /// The image.
        image: String,
        /// Why.
        message: String,
    },
    /// The registry has no such manifest (404).
    #[error("image {image}: not found: registry {registry} has no manifest {reference} (404)")]
    NotFound {
        /// The image.
        image: String,
        /// `HOST[:PORT]`.
        registry: String,
        /// The tag or digest asked for.
        reference: String,
    },
    /// The registry refused access (401 or 403).
    #[error("image {image}: registry {registry} refused access ({status}){}", tried_text(tried, *with_credentials))]
    Unauthorized {
        /// The image.
        image: String,
        /// `HOST[:PORT]`.
        registry: String,
        /// 401 or 403.
        status: u16,
        /// The credential files looked at, in order.
        tried: Vec<PathBuf>,
        /// True when credentials for the registry were found and sent.
        with_credentials: bool,
    },
    /// The registry did not answer (connection refused, DNS, TLS, time-out of a request).
    #[error("image {image}: registry {host} did not answer: {message}")]
    Unreachable {
        /// The image.
        image: String,
        /// The host contacted.
        host: String,
        /// What failed.
        message: String,
    },
    /// The registry answered with an error other than 401, 403 and 404.
    #[error("image {image}: registry {registry} answered {status} to {what}: {message}")]
    Registry {
        /// The image.
        image: String,
        /// `HOST[:PORT]`.
        registry: String,
        /// The HTTP status.
        status: u16,
        /// What was asked (`manifest sha256:…`, `blob sha256:…`, `a token`).
        what: String,
        /// The registry's words.
        message: String,
    },
    /// A manifest or blob whose bytes do not have the digest (or size) that named them.
    #[error("image {image}: {what} does not match its digest: expected {expected}, got {actual}")]
    Digest {
        /// The image.
        image: String,
        /// `manifest`, `blob sha256:…`.
        what: String,
        /// What the reference or descriptor named.
        expected: String,
        /// What the bytes hash (or measure) to.
        actual: String,
    },
    /// A manifest, index or configuration that cannot be used.
    #[error("image {image}: {message}")]
    Manifest {
        /// The image.
        image: String,
        /// What is wrong.
        message: String,
    },
    /// A layer entry that would write outside the catalog, or that cannot be a catalog file.
    #[error("image {image}: layer {layer}: entry {entry:?} refused: {message}")]
    Entry {
        /// The image.
        image: String,
        /// The layer's digest.
        layer: String,
        /// The entry's path as the tar names it.
        entry: String,
        /// Why it is refused.
        message: String,
    },
    /// A layer that is not a readable tar stream (bad compression, bad tar).
    #[error("image {image}: layer {layer}: {message}")]
    Layer {
        /// The image.
        image: String,
        /// The layer's digest.
        layer: String,
        /// What is wrong.
        message: String,
    },
    /// The image holds an old SQLite index, which deppy does not read.
    #[error(
        "image {image}: it holds a SQLite index (label operators.operatorframework.io.index.database.v1={path}), not a File-Based Catalog; deppy reads File-Based Catalogs only: migrate the index with `opm migrate {image_bare} DIR` (or `opm render {image_bare}`) and bind DIR with --catalog"
    )]
    Sqlite {
        /// The image.
        image: String,
        /// The reference without the transport, for the remedy.
        image_bare: String,
        /// The label's value (the database path).
        path: String,
    },
    /// A budget ran out.
    #[error("image {image}: {message}")]
    Budget {
        /// The image.
        image: String,
        /// Which budget.
        budget: PullBudget,
        /// What ran out, in words.
        message: String,
    },
    /// `--offline` and the image is not in the cache.
    #[error("image {image}: not in the cache, and --offline forbids pulling it")]
    Offline {
        /// The image.
        image: String,
    },
    /// A file of an OCI layout, an archive, or the cache that cannot be read or written.
    #[error("image {image}: {}: {message}", path.display())]
    Io {
        /// The image.
        image: String,
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

fn tried_text(tried: &[PathBuf], with_credentials: bool) -> String {
    let files: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    let files = if files.is_empty() {
        "none".to_string()
    } else {
        files.join(", ")
    };
    if with_credentials {
        format!(
            ": the credentials found for it were not accepted (credential files looked at: {files})"
        )
    } else {
        format!(
            ": no credentials for it were found (credential files looked at: {files}); log in with `podman login` or `docker login`, or set REGISTRY_AUTH_FILE"
        )
    }
}

impl ImageError {
    /// True when a budget ran out (exit code 3); every other error is bad input (2).
    pub fn is_budget(&self) -> bool {
        matches!(self, ImageError::Budget { .. })
    }
}
