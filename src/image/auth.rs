//! Registry credentials, as podman, skopeo and docker keep them: the `auths` entries of
//! `$REGISTRY_AUTH_FILE`, `${XDG_RUNTIME_DIR}/containers/auth.json` and
//! `~/.docker/config.json` (`$DOCKER_CONFIG/config.json` when set), looked at in that order;
//! the first file with an entry for the registry (or for the repository, the most specific
//! key first) gives the credentials. An entry holds `auth` (base64 of `user:password`) or
//! `username` and `password`. Helpers (`credHelpers`, `credsStore`) are not run.
//!
//! And the challenges a registry answers 401 with: `WWW-Authenticate: Bearer realm=…,
//! service=…,scope=…` (a token is fetched from the realm) or `Basic realm=…`.

use std::path::PathBuf;

use base64::Engine as _;

/// The credential files looked at, in order.
pub fn default_files() -> Vec<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut files = Vec::new();
    files.extend(var("REGISTRY_AUTH_FILE"));
    files.extend(var("XDG_RUNTIME_DIR").map(|d| d.join("containers").join("auth.json")));
    match var("DOCKER_CONFIG") {
        Some(d) => files.push(d.join("config.json")),
        None => files.extend(var("HOME").map(|h| h.join(".docker").join("config.json"))),
    }
    files
}

/// A user name and password for a registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    /// The user.
    pub user: String,
    /// The password (or token).
    pub password: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Login({}, ***)", self.user)
    }
}

impl Login {
    /// The `Authorization` header value of HTTP Basic authentication.
    pub fn basic(&self) -> String {
        let raw = format!("{}:{}", self.user, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(raw)
        )
    }
}

/// A key of `auths`, as a registry name: the scheme and a `/v1/` or `/v2/` suffix dropped,
/// Docker Hub's names made one.
fn normalise_key(key: &str) -> String {
    let k = key
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let k = k
        .strip_suffix("/v1/")
        .or_else(|| k.strip_suffix("/v2/"))
        .unwrap_or(k)
        .trim_end_matches('/');
    let (host, path) = k.split_once('/').unwrap_or((k, ""));
    let host = match host {
        "index.docker.io" | "registry-1.docker.io" => "docker.io",
        h => h,
    };
    if path.is_empty() {
        host.to_string()
    } else {
        format!("{host}/{path}")
    }
}

#[derive(serde::Deserialize)]
struct AuthFile {
    #[serde(default)]
    auths: std::collections::BTreeMap<String, AuthEntry>,
}

#[derive(serde::Deserialize)]
struct AuthEntry {
    auth: Option<String>,
    username: Option<String>,
    password: Option<String>,
}

impl AuthEntry {
    fn login(&self) -> Option<Login> {
        if let Some(a) = self.auth.as_deref().filter(|a| !a.is_empty()) {
            let raw = base64::engine::general_purpose::STANDARD.decode(a).ok()?;
            let text = String::from_utf8(raw).ok()?;
            let (user, password) = text.split_once(':')?;
            return Some(Login {
                user: user.to_string(),
                password: password.to_string(),
            });
        }
        Some(Login {
            user: self.username.clone()?,
            password: self.password.clone()?,
        })
    }
}

/// The credentials for `registry` (`HOST[:PORT]`, `docker.io` for Docker Hub) and
/// `repository`, from the first of `files` that has them.
pub fn find(files: &[PathBuf], registry: &str, repository: &str) -> Option<Login> {
    // The most specific key first: registry/a/b/c, registry/a/b, registry/a, registry.
    let mut keys = vec![format!("{registry}/{repository}")];
    let mut path = repository;
    while let Some((head, _)) = path.rsplit_once('/') {
        keys.push(format!("{registry}/{head}"));
        path = head;
    }
    keys.push(registry.to_string());
    for file in files {
        let Ok(text) = std::fs::read(file) else {
            continue;
        };
        let parsed: AuthFile = match serde_json::from_slice(&text) {
            Ok(p) => p,
            Err(e) => {
                log::warn!("credential file {} is not read: {e}", file.display());
                continue;
            }
        };
        let entries: Vec<(String, &AuthEntry)> = parsed
            .auths
            .iter()
            .map(|(k, v)| (normalise_key(k), v))
            .collect();
        for key in &keys {
            if let Some(login) = entries
                .iter()
                .filter(|(k, _)| k == key)
                .find_map(|(_, e)| e.login())
            {
                return Some(login);
            }
        }
    }
    None
}

/// A `WWW-Authenticate` challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Challenge {
    /// Fetch a token from `realm`.
    Bearer {
        /// The token endpoint.
        realm: String,
        /// The `service` parameter.
        service: Option<String>,
        /// The `scope` parameter, when the registry names one.
        scope: Option<String>,
    },
    /// Send a user name and password.
    Basic,
}

/// Parses a `WWW-Authenticate` header value.
pub fn parse_challenge(header: &str) -> Option<Challenge> {
    let (scheme, rest) = header.trim().split_once(' ').unwrap_or((header.trim(), ""));
    let params = parse_params(rest);
    let get = |k: &str| {
        params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
    };
    if scheme.eq_ignore_ascii_case("bearer") {
        Some(Challenge::Bearer {
            realm: get("realm")?,
            service: get("service"),
            scope: get("scope"),
        })
    } else if scheme.eq_ignore_ascii_case("basic") {
        Some(Challenge::Basic)
    } else {
        None
    }
}

/// `key="value", key=token, …`, with `\"` escapes in quoted values.
fn parse_params(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            return out;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.peek().copied().filter(|c| *c != ',') {
                value.push(c);
                chars.next();
            }
        }
        out.push((key.trim().to_string(), value.trim().to_string()));
    }
}

/// Percent-encodes a query parameter value.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_parse() {
        let c = parse_challenge(
            r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull""#,
        );
        assert_eq!(
            c,
            Some(Challenge::Bearer {
                realm: "https://auth.docker.io/token".into(),
                service: Some("registry.docker.io".into()),
                scope: Some("repository:library/busybox:pull".into()),
            })
        );
        assert_eq!(
            parse_challenge(r#"Basic realm="Registry Realm""#),
            Some(Challenge::Basic)
        );
        assert_eq!(
            parse_challenge(r#"Bearer realm=http://127.0.0.1:9/t, service="a\"b""#),
            Some(Challenge::Bearer {
                realm: "http://127.0.0.1:9/t".into(),
                service: Some("a\"b".into()),
                scope: None,
            })
        );
        assert_eq!(parse_challenge("Negotiate"), None);
        assert_eq!(
            query_escape("repository:a/b:pull"),
            "repository%3Aa%2Fb%3Apull"
        );
    }

    #[test]
    fn credentials_come_from_the_first_file_that_has_them() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        let enc = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        std::fs::write(
            &a,
            format!(
                r#"{{"auths":{{"quay.io/org":{{"auth":"{}"}}}}}}"#,
                enc("org:1")
            ),
        )
        .unwrap();
        std::fs::write(
            &b,
            format!(
                r#"{{"auths":{{"https://index.docker.io/v1/":{{"auth":"{}"}},"quay.io":{{"username":"u","password":"p"}},"127.0.0.1:5000":{{"auth":"{}"}}}}}}"#,
                enc("hub:2"),
                enc("local:3")
            ),
        )
        .unwrap();
        let files = [dir.path().join("missing.json"), a, b];
        let user = |reg: &str, repo: &str| find(&files, reg, repo).map(|l| l.user);
        assert_eq!(user("quay.io", "org/index").as_deref(), Some("org"));
        assert_eq!(user("quay.io", "other/index").as_deref(), Some("u"));
        assert_eq!(user("docker.io", "library/x").as_deref(), Some("hub"));
        assert_eq!(user("127.0.0.1:5000", "x").as_deref(), Some("local"));
        assert_eq!(user("127.0.0.1:5001", "x"), None);
        let login = find(&files, "127.0.0.1:5000", "x").unwrap();
        assert_eq!(login.password, "3");
        assert_eq!(format!("{login:?}"), "Login(local, ***)");
    }
}
