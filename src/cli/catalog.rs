//! `deppy catalog inspect|validate PATH[:PRIORITY]... [-o text|json|yaml]`,
//! `deppy catalog render DIR... [-o json|yaml]` and `deppy catalog diff OLD NEW` (`super::diff`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use super::{EXIT_FAILED, EXIT_OK, Format, output, report};
use deppy::advanced::catalog::{
    CatalogSet, CatalogSource, find_bundle_dirs, inspect, render_bundle_dirs,
};
use deppy::advanced::image::ImageRef;
use deppy::advanced::image::has_transport;

/// Catalog subcommands.
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Show packages, channels (head and order), bundle counts and GVK providers.
    Inspect(CatalogArgs),
    /// Check every channel graph and every reference; exit 1 when any error is found.
    Validate(CatalogArgs),
    /// Installability of every channel head (or every bundle with --all); exit 1 when one is
    /// not installable.
    Check(super::check::CheckArgs),
    /// What NEW strands or breaks for the users of OLD: bundles with no upgrade path to the
    /// new head (with a verified rescue each), removed channels and packages, moved default
    /// channels, heads that no longer install; exit 1 when anything is.
    Diff(super::diff::DiffArgs),
    /// Render bundle directories (manifests/ and metadata/), or directories of them
    /// (<pkg>/<version>/), to File-Based Catalog documents, as opm render does; channels
    /// are built in replaces mode.
    Render(RenderArgs),
    /// Pull an index image's File-Based Catalog and write it into DIR as files (what
    /// `opm render IMAGE` prints, without opm).
    Pull(PullArgs),
}

/// Arguments of `deppy catalog pull`.
#[derive(Debug, Args)]
pub struct PullArgs {
    /// The image: docker://REF (or REF alone), oci:DIR[:TAG] or oci-archive:FILE[:TAG].
    #[arg(value_name = "IMAGE")]
    image: String,
    /// Where to write the catalog: a directory that does not exist yet, or is empty.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    #[command(flatten)]
    budget: super::budget::Budget,
}

/// Runs `deppy catalog pull`.
fn pull(args: &PullArgs) -> anyhow::Result<u8> {
    super::images::set_budget(super::images::PullBudget::of(&args.budget));
    let image = ImageRef::parse(&args.image)?;
    let dir = &args.dir;
    if dir.exists() && std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_some()) {
        bail!("{}: exists and is not an empty directory", dir.display());
    }
    let pulled = super::images::pull(&image)?;
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = parent.join(format!(".deppy-pull-{}", std::process::id()));
    let written = copy_tree(&pulled.dir, &tmp).and_then(|n| {
        if dir.exists() {
            std::fs::remove_dir(dir)?;
        }
        std::fs::rename(&tmp, dir)?;
        Ok(n)
    });
    let files = match written {
        Ok(n) => n,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(output::OutputError::Write {
                path: dir.clone(),
                error: e,
            }
            .into());
        }
    };
    output::print(
        &format!(
            "{image}: digest {}: {files} catalog files written to {}\n",
            pulled.digest,
            dir.display()
        ),
        output::Content::Text,
    )?;
    Ok(EXIT_OK)
}

/// Copies a directory tree (links copied as links); returns how many files it holds.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(to)?;
    let mut files = 0;
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e.file_type()?;
        if kind.is_dir() {
            files += copy_tree(&src, &dst)?;
        } else if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
            files += 1;
        } else {
            std::fs::copy(&src, &dst)?;
            files += 1;
        }
    }
    Ok(files)
}

/// Output format of `deppy catalog render`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// Indented JSON documents, one after the other.
    #[default]
    Json,
    /// YAML documents separated by `---`.
    Yaml,
}

/// Arguments of `deppy catalog render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A bundle directory, or a directory whose children or grandchildren are bundle
    /// directories.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = RenderFormat::Json)]
    output: RenderFormat,
    #[command(flatten)]
    out_file: super::output::OutputFile,
}

/// Renders the bundle directories `args` names and prints the FBC.
fn render_dirs(args: &RenderArgs) -> anyhow::Result<String> {
    let mut dirs = Vec::new();
    for dir in &args.dirs {
        if !dir.exists() {
            bail!("{}: no such directory", dir.display());
        }
        match find_bundle_dirs(dir)? {
            Some(found) => dirs.extend(found),
            None => bail!(
                "{}: not a bundle directory (manifests/ and metadata/) nor a directory of them",
                dir.display()
            ),
        }
    }
    let rendered = render_bundle_dirs(&dirs)?;
    report::warnings(&rendered.warnings);
    Ok(match args.output {
        RenderFormat::Json => rendered.to_json_pretty(),
        RenderFormat::Yaml => rendered.to_yaml()?,
    })
}

/// Arguments shared by the catalog subcommands.
#[derive(Debug, Args)]
pub struct CatalogArgs {
    /// Catalog file or directory (`-`: one file from standard input), with an optional name
    /// and priority (higher is preferred, default 0). Without a name the catalog is named
    /// after the last path component, without extension.
    #[arg(required = true, value_name = "[NAME=]PATH[:PRIORITY]")]
    paths: Vec<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    output: Format,
}

/// The last component of a path, without a `.json` / `.yaml` / `.yml` extension (a
/// directory such as `community-v4.22` keeps its dots).
fn catalog_name(path: &Path) -> Option<&str> {
    let known = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("json" | "yaml" | "yml")
    );
    let name = if known {
        path.file_stem()
    } else {
        path.file_name()
    };
    name.and_then(|s| s.to_str())
}

/// Splits `[NAME=]PATH[:PRIORITY]`. A string naming an existing path is always a path; a
/// catalog without a name is named after the path's last component (`stdin` for `-`). An
/// image (`docker://REF[:PRIORITY]`, `oci:DIR[:TAG[:PRIORITY]]`,
/// `oci-archive:FILE[:TAG[:PRIORITY]]`) is pulled, and named after its repository.
pub(super) fn parse_source(arg: &str) -> anyhow::Result<CatalogSource> {
    let exists = |p: &str| p == "-" || Path::new(p).exists();
    let (named, rest) = match arg.split_once('=') {
        Some((n, r)) if !exists(arg) && !n.is_empty() && !n.contains(['/', ':']) => (Some(n), r),
        _ => (None, arg),
    };
    if has_transport(rest) && !exists(rest) {
        let (image, priority) = ImageRef::parse_with_priority(rest)?;
        let name = named.map_or_else(|| image.default_name(), str::to_string);
        return super::images::image_source(name, &image, priority.unwrap_or(0));
    }
    let (path, priority) = match rest.rsplit_once(':') {
        Some((p, prio)) if !p.is_empty() && !exists(rest) => {
            let priority = prio
                .parse::<i32>()
                .with_context(|| format!("{arg:?}: priority {prio:?} is not an integer"))?;
            (PathBuf::from(p), priority)
        }
        _ => (PathBuf::from(rest), 0),
    };
    let name = match named {
        Some(n) => n.to_string(),
        None if deppy::advanced::input::is_stdin(&path) => "stdin".to_string(),
        None => catalog_name(&path)
            .filter(|s| !s.is_empty() && *s != "." && *s != "..")
            .map(str::to_string)
            .or_else(|| {
                let canonical = std::fs::canonicalize(&path).ok()?;
                catalog_name(&canonical).map(str::to_string)
            })
            .with_context(|| {
                format!("{arg:?}: cannot name a catalog after this path; name it: NAME={arg}")
            })?,
    };
    Ok(CatalogSource {
        name,
        path,
        priority,
    })
}

fn load(paths: &[String]) -> anyhow::Result<CatalogSet> {
    let mut sources: Vec<CatalogSource> = Vec::new();
    for arg in paths {
        let source = parse_source(arg)?;
        if let Some(other) = sources.iter().find(|s| s.name == source.name) {
            bail!(
                "two catalogs would be named {:?} ({} and {}); name them: --catalog NAME=PATH",
                source.name,
                other.path.display(),
                source.path.display()
            );
        }
        sources.push(source);
    }
    load_sources(&sources)
}

/// Loads catalogs, with a progress bar on a terminal when it takes a while.
pub(super) fn load_sources(sources: &[CatalogSource]) -> anyhow::Result<CatalogSet> {
    let bar = super::progress::Bar::new("loading catalogs");
    Ok(CatalogSet::load_with_progress(
        sources,
        &super::load_options(),
        &bar,
    )?)
}

pub(super) fn render<T: Serialize>(
    report: &T,
    format: Format,
    text: impl FnOnce() -> String,
) -> anyhow::Result<String> {
    Ok(match format {
        Format::Text => text(),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report)?;
            s.push('\n');
            s
        }
        Format::Yaml => serde_saphyr::to_string(report)?,
    })
}

/// Runs a catalog subcommand and returns its exit code.
pub fn run(cmd: CatalogCommand) -> anyhow::Result<u8> {
    match cmd {
        CatalogCommand::Inspect(args) => {
            let set = load(&args.paths)?;
            report::warnings(&set.warnings);
            let report = inspect::inspect(&set);
            output::print(
                &render(&report, args.output, || report.to_text())?,
                args.output.content(),
            )?;
            Ok(EXIT_OK)
        }
        CatalogCommand::Check(args) => super::check::run(args),
        CatalogCommand::Diff(args) => super::diff::run(args),
        CatalogCommand::Validate(args) => {
            let set = load(&args.paths)?;
            let report = inspect::validate(&set);
            output::print(
                &render(&report, args.output, || report.to_text())?,
                args.output.content(),
            )?;
            Ok(if report.has_errors() {
                EXIT_FAILED
            } else {
                EXIT_OK
            })
        }
        CatalogCommand::Pull(args) => pull(&args),
        CatalogCommand::Render(args) => {
            args.out_file
                .emit(&render_dirs(&args)?, output::Content::Data)?;
            Ok(EXIT_OK)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_with_and_without_priority() {
        let s = parse_source("some/dir/community-v4.22:5").unwrap();
        assert_eq!(s.name, "community-v4.22");
        assert_eq!(s.path, PathBuf::from("some/dir/community-v4.22"));
        assert_eq!(s.priority, 5);
        let s = parse_source("x/odf-dev:-3").unwrap();
        assert_eq!((s.name.as_str(), s.priority), ("odf-dev", -3));
        let s = parse_source("x/catalog.yaml").unwrap();
        assert_eq!((s.name.as_str(), s.priority), ("catalog", 0));
        assert!(parse_source("x/odf-dev:high").is_err());
        let s = parse_source("mine=some/dir/catalog:7").unwrap();
        assert_eq!((s.name.as_str(), s.priority), ("mine", 7));
        assert_eq!(s.path, PathBuf::from("some/dir/catalog"));
        let s = parse_source("-").unwrap();
        assert_eq!(
            (s.name.as_str(), s.path.as_os_str()),
            ("stdin", "-".as_ref())
        );
        let s = parse_source("a/b=c").unwrap();
        assert_eq!(s.path, PathBuf::from("a/b=c"), "a name has no slash");
    }
}
