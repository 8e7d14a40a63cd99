//! Catalog images as input: pulling the File-Based Catalog an operator index image serves,
//! from a registry (`docker://REF`), an OCI layout (`oci:DIR[:TAG]`) or an OCI archive
//! (`oci-archive:FILE[:TAG]`), into a directory the catalog loader reads as any other.
//!
//! - [`reference`]: references and transports, as skopeo spells them.
//! - The registry client speaks the OCI distribution protocol (indexes and manifest lists,
//!   OCI and Docker schema 2 manifests, bearer-token challenges, credentials from the
//!   files podman and docker write, TLS with extra roots); every manifest and blob is
//!   verified against its digest.
//! - Layers are applied in order with OCI whiteouts, keeping only the directory the image's
//!   configs label names; an entry that would write outside it is refused, and the
//!   uncompressed size and entry count have budgets.
//! - Pulled catalogs are kept by digest in a cache (`$XDG_CACHE_HOME/deppy`), written
//!   through a temporary directory and a rename.
//!
//! Everything but reference parsing needs the `registry` cargo feature (on by default).
//!
//! ```no_run
//! use deppy::advanced::image::{ImageRef, PullOptions, Puller};
//!
//! let mut puller = Puller::new(PullOptions::default());
//! let image = ImageRef::parse("docker://quay.io/operatorhubio/catalog:latest")?;
//! let pulled = puller.pull(&image)?;
//! println!("{} is {}; its catalog is in {}", image, pulled.digest, pulled.dir.display());
//! # Ok::<(), deppy::advanced::image::ImageError>(())
//! ```

#[cfg(feature = "registry")]
mod auth;
#[cfg(feature = "registry")]
mod cache;
mod digest;
mod error;
#[cfg(feature = "registry")]
mod layers;
#[cfg(feature = "registry")]
mod layout;
#[cfg(feature = "registry")]
mod manifest;
#[cfg(feature = "registry")]
mod pull;
pub mod reference;
#[cfg(feature = "registry")]
mod registry;
#[cfg(feature = "registry")]
mod source;

#[cfg(feature = "registry")]
pub use cache::default_dir as default_cache_dir;
pub use digest::{Algorithm, Digest};
pub use error::{ImageError, PullBudget};
#[cfg(feature = "registry")]
pub use manifest::{CONFIGS_LABEL, DATABASE_LABEL};
#[cfg(feature = "registry")]
pub use pull::{MAX_ENTRIES, PullOptions, PulledCatalog, Puller};
pub use reference::{ImageRef, RegistryRef};
#[cfg(feature = "registry")]
pub use registry::RegistryOptions;
