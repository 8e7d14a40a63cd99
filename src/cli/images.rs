//! Catalog images on the command line: the options every command takes (`--offline`,
//! `--no-cache`, `--registry-ca`, `--insecure-registry`; the cache is `--cache-dir`, else
//! `$XDG_CACHE_HOME/deppy`), and the one puller of a run, which keeps registry connections
//! and tokens from one pull to the next and, with `--no-cache`, the pulled catalogs until the
//! command ends.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use clap::Args;

use deppy::advanced::catalog::CatalogSource;
use deppy::advanced::image::{ImageRef, PullOptions, PulledCatalog, Puller, RegistryOptions};

use super::report;

/// The image options of every command.
#[derive(Clone, Debug, Default, Args)]
pub struct ImageFlags {
    /// Contact no registry: catalog images are taken from the image cache only, and in
    /// `cluster resolve` the catalogs whose images are not cached stay unbound.
    #[arg(long, global = true)]
    pub offline: bool,
    /// Keep no pulled catalog after the command (the image cache is not read or written).
    #[arg(long = "no-cache", global = true)]
    pub no_cache: bool,
    /// Trust the certificate authority in this PEM file when contacting registries, besides
    /// the system's (repeatable).
    #[arg(long = "registry-ca", global = true, value_name = "FILE")]
    pub registry_ca: Vec<PathBuf>,
    /// A registry that may be contacted over plain HTTP (loopback registries always may;
    /// repeatable).
    #[arg(long = "insecure-registry", global = true, value_name = "HOST[:PORT]")]
    pub insecure: Vec<String>,
}

/// The catalogs this run pulled, by directory: each one's manifest digest, the key of its
/// contents in the catalog cache (`LoadOptions::content_keys`).
static CONTENT_KEYS: Mutex<BTreeMap<PathBuf, String>> = Mutex::new(BTreeMap::new());

/// The content keys of the catalogs pulled so far (see [`CONTENT_KEYS`]).
pub fn content_keys() -> BTreeMap<PathBuf, String> {
    CONTENT_KEYS.lock().map(|k| k.clone()).unwrap_or_default()
}

static FLAGS: OnceLock<(ImageFlags, Option<PathBuf>)> = OnceLock::new();
static PULLER: Mutex<Option<Puller>> = Mutex::new(None);

/// Sets this run's image options and cache directory (`--cache-dir`), once.
pub fn init(flags: ImageFlags, cache_dir: Option<PathBuf>) {
    let _ = FLAGS.set((flags, cache_dir));
}

/// Ends the run's pulls: a `--no-cache` run's catalogs are removed.
pub fn finish() {
    if let Ok(mut p) = PULLER.lock() {
        p.take();
    }
}

/// The budgets a pull honours: the command's deadline and `--max-memory` (bytes).
#[derive(Clone, Copy, Debug)]
pub struct PullBudget {
    /// When to give up.
    pub deadline: Option<std::time::Instant>,
    /// The catalog kept in memory, in bytes.
    pub max_bytes: u64,
}

impl PullBudget {
    /// The budget of a command's budget options.
    pub fn of(b: &super::budget::Budget) -> PullBudget {
        let o = b.options();
        PullBudget {
            deadline: o.deadline,
            max_bytes: o.max_memory.unwrap_or(1 << 30),
        }
    }

    /// The default budgets (60 s from the start, 1 GiB), for commands without budget
    /// options.
    pub fn default_budget() -> PullBudget {
        PullBudget {
            deadline: super::budget::default_deadline(),
            max_bytes: 1 << 30,
        }
    }
}

fn options(budget: PullBudget) -> PullOptions {
    let (flags, cache_dir) = FLAGS.get().cloned().unwrap_or_default();
    let cache_dir = if flags.no_cache {
        None
    } else {
        cache_dir.or_else(deppy::advanced::image::default_cache_dir)
    };
    PullOptions {
        cache_dir,
        offline: flags.offline,
        registry: RegistryOptions {
            insecure: flags.insecure,
            ca_files: flags.registry_ca,
            auth_files: None,
        },
        max_catalog_bytes: budget.max_bytes,
        deadline: budget.deadline,
        ..PullOptions::default()
    }
}

static BUDGET: Mutex<Option<PullBudget>> = Mutex::new(None);

/// Sets the budgets of this command's pulls (its `--timeout` and `--max-memory`); a command
/// without budget options pulls within the defaults.
pub fn set_budget(budget: PullBudget) {
    if let Ok(mut b) = BUDGET.lock() {
        *b = Some(budget);
    }
}

/// Runs `f` with the run's puller (made on first use, with the command's budgets).
pub fn with_puller<T>(f: impl FnOnce(&mut Puller) -> T) -> T {
    let budget = BUDGET
        .lock()
        .ok()
        .and_then(|b| *b)
        .unwrap_or_else(PullBudget::default_budget);
    let mut guard = PULLER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let puller = guard.get_or_insert_with(|| Puller::new(options(budget)));
    f(puller)
}

/// Pulls one image's catalog, saying on `-v` what was pulled.
pub fn pull(image: &ImageRef) -> anyhow::Result<PulledCatalog> {
    let pulled = with_puller(|p| p.pull(image))?;
    report::note(format!(
        "image {image}: digest {}{}; its catalog ({}) is in {}",
        pulled.digest,
        if pulled.cached {
            ", from the image cache"
        } else {
            ""
        },
        pulled.configs,
        pulled.dir.display()
    ));
    if let Ok(mut keys) = CONTENT_KEYS.lock() {
        keys.insert(pulled.dir.clone(), pulled.digest.to_string());
    }
    Ok(pulled)
}

/// A catalog source for an image: pulled, named `name`, at `priority`.
pub fn image_source(
    name: String,
    image: &ImageRef,
    priority: i32,
) -> anyhow::Result<CatalogSource> {
    let pulled = pull(image)?;
    Ok(CatalogSource {
        name,
        path: pulled.dir,
        priority,
    })
}
