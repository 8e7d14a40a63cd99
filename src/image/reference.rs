//! Image references as skopeo spells them: `docker://REF` (a registry), `oci:DIR[:TAG]` (an
//! OCI image layout on disk) and `oci-archive:FILE[:TAG]` (that layout in a tar file); and a
//! bare `REF`, as cluster objects name images. A registry reference follows the distribution
//! grammar: `[HOST[:PORT]/]PATH[:TAG][@ALGORITHM:HEX]`, where a first component with a `.` or
//! a `:`, or `localhost`, is the host, and anything else is on Docker Hub (`docker.io`, with
//! `library/` before a one-component path).

use std::fmt;
use std::path::PathBuf;

use super::digest::Digest;
use super::error::ImageError;

/// The registry of references that name none.
pub const DEFAULT_REGISTRY: &str = "docker.io";
/// The host that serves [`DEFAULT_REGISTRY`].
const DOCKER_HUB_HOST: &str = "registry-1.docker.io";

/// Where an image is read from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ImageRef {
    /// `docker://REF`: a registry speaking the OCI distribution protocol.
    Registry(RegistryRef),
    /// `oci:DIR[:TAG]`: an OCI image layout directory.
    Layout {
        /// The layout's directory.
        dir: PathBuf,
        /// The `org.opencontainers.image.ref.name` to pick; None: the layout's only image.
        tag: Option<String>,
    },
    /// `oci-archive:FILE[:TAG]`: an OCI image layout in a tar file.
    Archive {
        /// The tar file.
        file: PathBuf,
        /// As for [`ImageRef::Layout`].
        tag: Option<String>,
    },
}

/// An image in a registry: `HOST/PATH[:TAG][@DIGEST]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegistryRef {
    /// `HOST[:PORT]` as written (`docker.io` when the reference names none).
    pub registry: String,
    /// The repository path, e.g. `redhat/community-operator-index`.
    pub repository: String,
    /// The tag (`latest` when neither a tag nor a digest is given).
    pub tag: Option<String>,
    /// The manifest digest; when given, it is what is pulled and the tag is only a name.
    pub digest: Option<Digest>,
}

/// The transports, as written before the reference.
const DOCKER: &str = "docker://";
const OCI: &str = "oci:";
const OCI_ARCHIVE: &str = "oci-archive:";

/// True when `s` starts with a transport deppy reads (`docker://`, `oci:`, `oci-archive:`).
pub fn has_transport(s: &str) -> bool {
    s.starts_with(DOCKER) || s.starts_with(OCI) || s.starts_with(OCI_ARCHIVE)
}

fn bad(reference: &str, message: impl Into<String>) -> ImageError {
    ImageError::Reference {
        reference: reference.to_string(),
        message: message.into(),
    }
}

impl ImageRef {
    /// Parses a reference with its transport (`docker://`, `oci:`, `oci-archive:`), or a bare
    /// registry reference.
    ///
    /// ```
    /// use deppy::advanced::image::ImageRef;
    ///
    /// let r = ImageRef::parse("docker://quay.io/org/index:v4.22")?;
    /// assert_eq!(r.to_string(), "docker://quay.io/org/index:v4.22");
    /// let ImageRef::Registry(r) = ImageRef::parse("busybox")? else { unreachable!() };
    /// assert_eq!(r.to_string(), "docker.io/library/busybox:latest");
    /// # Ok::<(), deppy::advanced::image::ImageError>(())
    /// ```
    pub fn parse(s: &str) -> Result<ImageRef, ImageError> {
        if let Some(rest) = s.strip_prefix(DOCKER) {
            return RegistryRef::parse(rest).map(ImageRef::Registry);
        }
        if let Some(rest) = s.strip_prefix(OCI_ARCHIVE) {
            let (file, tag) = path_and_tag(s, rest)?;
            return Ok(ImageRef::Archive { file, tag });
        }
        if let Some(rest) = s.strip_prefix(OCI) {
            let (dir, tag) = path_and_tag(s, rest)?;
            return Ok(ImageRef::Layout { dir, tag });
        }
        RegistryRef::parse(s).map(ImageRef::Registry)
    }

    /// Parses `REF[:PRIORITY]` as `--catalog` takes it: after the tag (or the digest), a
    /// second `:N` is the priority. `docker://r/x:5` is tag `5` at priority 0,
    /// `docker://r/x:5:10` tag `5` at priority 10, `docker://r/x@sha256:…:10` a digest at
    /// priority 10; an `oci:` layout without a tag takes an empty one: `oci:DIR::10`.
    pub fn parse_with_priority(s: &str) -> Result<(ImageRef, Option<i32>), ImageError> {
        if let Some((head, prio)) = s.rsplit_once(':')
            && let Ok(priority) = prio.parse::<i32>()
            && let Ok(image) = ImageRef::parse(head)
        {
            let tagged = match &image {
                ImageRef::Registry(r) => head_names_version(head, r),
                ImageRef::Layout { .. } | ImageRef::Archive { .. } => {
                    // `oci:DIR:TAG` (the tag possibly empty) before the priority.
                    let rest = head.split_once(':').map_or("", |(_, r)| r);
                    rest.contains(':')
                }
            };
            if tagged {
                return Ok((image, Some(priority)));
            }
        }
        Ok((ImageRef::parse(s)?, None))
    }

    /// The catalog name this image gives when none is given: the repository's last
    /// component, or the layout's directory or archive's file name.
    pub fn default_name(&self) -> String {
        match self {
            ImageRef::Registry(r) => r
                .repository
                .rsplit('/')
                .next()
                .unwrap_or(&r.repository)
                .to_string(),
            ImageRef::Layout { dir, .. } => file_name(dir, false),
            ImageRef::Archive { file, .. } => file_name(file, true),
        }
    }

    /// The registry reference, for an image in a registry.
    pub fn registry(&self) -> Option<&RegistryRef> {
        match self {
            ImageRef::Registry(r) => Some(r),
            _ => None,
        }
    }
}

fn file_name(path: &std::path::Path, stem: bool) -> String {
    let name = if stem {
        path.file_stem()
    } else {
        path.file_name()
    };
    name.map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// True when the text of a registry reference names its tag or digest itself (so a `:N`
/// after it is a priority, not the tag).
fn head_names_version(head: &str, r: &RegistryRef) -> bool {
    if r.digest.is_some() {
        return true;
    }
    let last = head.rsplit('/').next().unwrap_or(head);
    last.contains(':')
}

/// `PATH[:TAG]` of an `oci:` or `oci-archive:` reference (the path holds no `:`).
fn path_and_tag(whole: &str, rest: &str) -> Result<(PathBuf, Option<String>), ImageError> {
    let (path, tag) = match rest.split_once(':') {
        Some((p, t)) => (p, Some(t)),
        None => (rest, None),
    };
    if path.is_empty() {
        return Err(bad(whole, "the path is empty"));
    }
    let tag = match tag {
        None | Some("") => None,
        Some(t) if t.contains(':') => {
            return Err(bad(
                whole,
                format!("{t:?} is not a tag (a path with `:` cannot be named here)"),
            ));
        }
        Some(t) => Some(t.to_string()),
    };
    Ok((PathBuf::from(path), tag))
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageRef::Registry(r) => write!(f, "{DOCKER}{r}"),
            ImageRef::Layout { dir, tag } => {
                write!(f, "{OCI}{}", dir.display())?;
                tag.iter().try_for_each(|t| write!(f, ":{t}"))
            }
            ImageRef::Archive { file, tag } => {
                write!(f, "{OCI_ARCHIVE}{}", file.display())?;
                tag.iter().try_for_each(|t| write!(f, ":{t}"))
            }
        }
    }
}

impl RegistryRef {
    /// Parses a bare registry reference (`HOST/PATH[:TAG][@DIGEST]`).
    pub fn parse(s: &str) -> Result<RegistryRef, ImageError> {
        if s.is_empty() {
            return Err(bad(s, "the reference is empty"));
        }
        if s.len() > 1024 {
            return Err(bad(s, "the reference is longer than 1,024 characters"));
        }
        let (name_tag, digest) = match s.split_once('@') {
            Some((n, d)) => {
                let digest = d
                    .parse::<Digest>()
                    .map_err(|e| bad(s, format!("digest: {e}")))?;
                (n, Some(digest))
            }
            None => (s, None),
        };
        // A `:` after the last `/` starts the tag (one before it is the host's port).
        let (name, tag) = match name_tag.rsplit_once(':') {
            Some((n, t)) if !t.contains('/') => (n, Some(t)),
            _ => (name_tag, None),
        };
        if let Some(t) = tag {
            check_tag(t).map_err(|m| bad(s, m))?;
            if name
                .rsplit('/')
                .next()
                .is_some_and(|last| last.contains(':'))
            {
                return Err(bad(s, "a second `:` after the tag's"));
            }
        }
        let (registry, repository) = split_registry(name).map_err(|m| bad(s, m))?;
        for component in repository.split('/') {
            check_component(component).map_err(|m| bad(s, m))?;
        }
        if repository.len() > 255 {
            return Err(bad(s, "the repository name is longer than 255 characters"));
        }
        let tag = match (tag, &digest) {
            (Some(t), _) => Some(t.to_string()),
            (None, None) => Some("latest".to_string()),
            (None, Some(_)) => None,
        };
        Ok(RegistryRef {
            registry,
            repository,
            tag,
            digest,
        })
    }

    /// The host (with its port) that serves this registry.
    pub fn host(&self) -> &str {
        if self.registry == DEFAULT_REGISTRY {
            DOCKER_HUB_HOST
        } else {
            &self.registry
        }
    }

    /// What a manifest request names: the digest when given, else the tag.
    pub fn manifest_ref(&self) -> String {
        match (&self.digest, &self.tag) {
            (Some(d), _) => d.to_string(),
            (None, Some(t)) => t.clone(),
            (None, None) => "latest".to_string(),
        }
    }

    /// The same repository at `digest`.
    pub fn at_digest(&self, digest: &Digest) -> RegistryRef {
        RegistryRef {
            digest: Some(digest.clone()),
            ..self.clone()
        }
    }

    /// `HOST/PATH`, without tag or digest.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// True when the registry is on this machine: `localhost`, 127.0.0.0/8 or `::1` (with
    /// any port), where plain HTTP is allowed as Docker allows it.
    pub fn is_loopback(&self) -> bool {
        is_loopback_host(&self.registry)
    }
}

/// True for `localhost`, 127.0.0.0/8 and `::1`, with or without a port.
pub fn is_loopback_host(host_port: &str) -> bool {
    let host = if let Some(rest) = host_port.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(h, _)| h)
    } else {
        host_port.split_once(':').map_or(host_port, |(h, _)| h)
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

impl fmt::Display for RegistryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(t) = &self.tag {
            write!(f, ":{t}")?;
        }
        if let Some(d) = &self.digest {
            write!(f, "@{d}")?;
        }
        Ok(())
    }
}

/// Splits `[HOST/]PATH`, with Docker Hub's defaults.
fn split_registry(name: &str) -> Result<(String, String), String> {
    let (first, rest) = match name.split_once('/') {
        Some((f, r)) => (f, Some(r)),
        None => (name, None),
    };
    let is_host = |c: &str| {
        c.contains(['.', ':']) || c == "localhost" || c.chars().any(|ch| ch.is_ascii_uppercase())
    };
    match rest {
        Some(rest) if is_host(first) => {
            check_host(first)?;
            let registry = match first {
                "index.docker.io" | "registry-1.docker.io" => DEFAULT_REGISTRY,
                other => other,
            };
            let repository = if registry == DEFAULT_REGISTRY && !rest.contains('/') {
                format!("library/{rest}")
            } else {
                rest.to_string()
            };
            Ok((registry.to_string(), repository))
        }
        Some(_) => Ok((DEFAULT_REGISTRY.to_string(), name.to_string())),
        None => Ok((DEFAULT_REGISTRY.to_string(), format!("library/{name}"))),
    }
}

/// `HOST[:PORT]`: DNS labels or an IPv4 address, or `[IPv6]`, and a numeric port.
fn check_host(host: &str) -> Result<(), String> {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let (ip, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("host {host:?}: `[` without `]`"))?;
        ip.parse::<std::net::Ipv6Addr>()
            .map_err(|_| format!("host {host:?}: {ip:?} is not an IPv6 address"))?;
        (None, after.strip_prefix(':'))
    } else {
        match host.split_once(':') {
            Some((n, p)) => (Some(n), Some(p)),
            None => (Some(host), None),
        }
    };
    if let Some(p) = port
        && p.parse::<u16>().is_err()
    {
        return Err(format!("host {host:?}: port {p:?} is not a number"));
    }
    if let Some(n) = name {
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        if n.is_empty() || !n.split('.').all(label_ok) {
            return Err(format!("{n:?} is not a host name"));
        }
    }
    Ok(())
}

/// A path component: lower-case letters and digits, separated by `.`, `_`, `__` or dashes.
fn check_component(c: &str) -> Result<(), String> {
    let err = || {
        format!(
            "repository component {c:?}: lower-case letters and digits, separated by `.`, `_`, `__` or `-`"
        )
    };
    if c.is_empty() {
        return Err("the repository has an empty component".into());
    }
    let bytes = c.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return Err(err());
    };
    if !alnum(first) || !alnum(last) {
        return Err(err());
    }
    let mut run = String::new();
    for &b in bytes {
        if alnum(b) {
            if !(run.is_empty()
                || run == "."
                || run == "_"
                || run == "__"
                || run.bytes().all(|x| x == b'-'))
            {
                return Err(err());
            }
            run.clear();
        } else if matches!(b, b'.' | b'_' | b'-') {
            run.push(b as char);
        } else {
            return Err(err());
        }
    }
    Ok(())
}

/// A tag: a word character, then up to 127 word characters, `.` or `-`.
fn check_tag(t: &str) -> Result<(), String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut chars = t.chars();
    let ok = chars.next().is_some_and(word)
        && chars.all(|c| word(c) || c == '.' || c == '-')
        && t.len() <= 128;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "tag {t:?}: up to 128 letters, digits, `_`, `.` and `-`, not starting with `.` or `-`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn reg(s: &str) -> RegistryRef {
        RegistryRef::parse(s).unwrap()
    }

    #[test]
    fn registry_references_are_normalised_as_docker_does() {
        let r = reg("busybox");
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str()),
            ("docker.io", "library/busybox")
        );
        assert_eq!(r.tag.as_deref(), Some("latest"));
        assert_eq!(r.host(), "registry-1.docker.io");
        let r = reg("org/app:1.0");
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str()),
            ("docker.io", "org/app")
        );
        let r = reg("registry.redhat.io/redhat/community-operator-index:v4.22");
        assert_eq!(r.registry, "registry.redhat.io");
        assert_eq!(r.repository, "redhat/community-operator-index");
        assert_eq!(r.tag.as_deref(), Some("v4.22"));
        let r = reg("localhost:5000/x");
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str()),
            ("localhost:5000", "x")
        );
        assert!(r.is_loopback());
        let r = reg(&format!("127.0.0.1:41000/cat/idx:v1@sha256:{HEX}"));
        assert_eq!(r.tag.as_deref(), Some("v1"));
        assert_eq!(r.manifest_ref(), format!("sha256:{HEX}"));
        assert!(r.is_loopback());
        let r = reg(&format!("quay.io/a/b@sha256:{HEX}"));
        assert_eq!(r.tag, None);
        assert_eq!(r.to_string(), format!("quay.io/a/b@sha256:{HEX}"));
        assert!(!r.is_loopback());
        let r = reg("[::1]:5000/x:y");
        assert_eq!(r.registry, "[::1]:5000");
        assert!(r.is_loopback());
        assert_eq!(reg("index.docker.io/busybox").registry, "docker.io");
    }

    #[test]
    fn bad_references_say_what_is_wrong() {
        for (s, want) in [
            ("", "empty"),
            ("Quay.io", "component"),
            ("quay.io/Org/x", "component"),
            ("quay.io/a//b", "empty component"),
            ("quay.io/a:b:c", "second `:`"),
            ("quay.io/a:-x", "tag"),
            ("quay.io:port/a", "port"),
            ("quay.io/a@sha256:abc", "digest"),
            ("quay.io/a@md5:abc", "digest"),
            ("quay.io/a-", "component"),
            ("bad_host.io/a", "host"),
        ] {
            let e = RegistryRef::parse(s).unwrap_err().to_string();
            assert!(e.contains(want), "{s:?}: {e}");
        }
    }

    #[test]
    fn transports_as_skopeo_spells_them() {
        assert_eq!(
            ImageRef::parse("oci:some/dir:v1").unwrap(),
            ImageRef::Layout {
                dir: "some/dir".into(),
                tag: Some("v1".into())
            }
        );
        assert_eq!(
            ImageRef::parse("oci:some/dir").unwrap(),
            ImageRef::Layout {
                dir: "some/dir".into(),
                tag: None
            }
        );
        assert_eq!(
            ImageRef::parse("oci-archive:x.tar").unwrap(),
            ImageRef::Archive {
                file: "x.tar".into(),
                tag: None
            }
        );
        assert!(ImageRef::parse("oci:").is_err());
        assert!(ImageRef::parse("oci:a:b:c").is_err());
        assert_eq!(ImageRef::parse("oci:a/d").unwrap().default_name(), "d");
        assert_eq!(
            ImageRef::parse("oci-archive:a/idx.tar")
                .unwrap()
                .default_name(),
            "idx"
        );
        assert_eq!(
            ImageRef::parse("docker://q.io/a/idx:1")
                .unwrap()
                .default_name(),
            "idx"
        );
        assert!(has_transport("docker://x") && has_transport("oci:x") && !has_transport("x/y"));
    }

    #[test]
    fn a_priority_follows_the_tag() {
        let p = |s: &str| {
            let (r, prio) = ImageRef::parse_with_priority(s).unwrap();
            (r.to_string(), prio)
        };
        assert_eq!(p("docker://r.io/x:5"), ("docker://r.io/x:5".into(), None));
        assert_eq!(
            p("docker://r.io/x:5:10"),
            ("docker://r.io/x:5".into(), Some(10))
        );
        assert_eq!(
            p("docker://r.io/x:latest:-3"),
            ("docker://r.io/x:latest".into(), Some(-3))
        );
        assert_eq!(
            p("docker://localhost:5000/x"),
            ("docker://localhost:5000/x:latest".into(), None)
        );
        assert_eq!(
            p(&format!("docker://r.io/x@sha256:{HEX}:7")),
            (format!("docker://r.io/x@sha256:{HEX}"), Some(7))
        );
        assert_eq!(p("oci:dir:v1:4"), ("oci:dir:v1".into(), Some(4)));
        assert_eq!(p("oci:dir::4"), ("oci:dir".into(), Some(4)));
        assert_eq!(p("oci:dir:4"), ("oci:dir:4".into(), None));
        assert!(ImageRef::parse_with_priority("docker://r.io/x:1:2:3").is_err());
    }
}
