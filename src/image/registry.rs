//! A blocking client of the OCI distribution protocol (v2 pulls): manifests and blobs over
//! HTTPS, trusting the system's roots (Mozilla's when the system has none) plus each
//! `--registry-ca FILE`. A registry on loopback (`localhost`, 127.0.0.0/8, `::1`) or named by
//! `--insecure-registry` is tried over HTTPS first and, when it does not speak TLS, over
//! plain HTTP, as Docker does; every other one over HTTPS only.
//!
//! A 401 is answered once: a `Bearer` challenge by fetching a token from the realm it names
//! (with the registry's credentials, when any are stored, over HTTPS or loopback only), a
//! `Basic` one with the stored credentials. Credentials and tokens are sent only to the host
//! they are for: a redirect to another host (blobs are often served from storage elsewhere)
//! is followed without them, and never from HTTPS down to plain HTTP off loopback.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use oci_spec::image::Descriptor;
use ureq::http::Response;

use super::auth::{self, Challenge, Login};
use super::digest::{Algorithm, Digest};
use super::error::{ImageError, PullBudget};
use super::manifest::{ACCEPT, MAX_MANIFEST_BYTES};
use super::reference::{RegistryRef, is_loopback_host};
use super::source::{Source, Top, digest_of, read_verified};

/// How registries are contacted.
#[derive(Clone, Debug, Default)]
pub struct RegistryOptions {
    /// `HOST[:PORT]`s that may be contacted over plain HTTP (`--insecure-registry`).
    pub insecure: Vec<String>,
    /// PEM files of certificate authorities to trust besides the system's
    /// (`--registry-ca`).
    pub ca_files: Vec<PathBuf>,
    /// Credential files; None: `$REGISTRY_AUTH_FILE`, `${XDG_RUNTIME_DIR}/containers/auth.json`
    /// and `~/.docker/config.json` (`$DOCKER_CONFIG/config.json`), in that order.
    pub auth_files: Option<Vec<PathBuf>>,
}

/// Redirects followed at most for one request.
const MAX_REDIRECTS: usize = 5;

/// The registries of a run: one HTTP agent, the scheme each host speaks, the tokens got.
pub struct Registry {
    options: RegistryOptions,
    roots: Arc<Vec<ureq::tls::Certificate<'static>>>,
    extra_roots: Vec<ureq::tls::Certificate<'static>>,
    agent: Option<ureq::Agent>,
    schemes: HashMap<String, &'static str>,
    tokens: HashMap<(String, String), String>,
    contacted: Vec<String>,
    files: Vec<PathBuf>,
}

/// The response of a request, and where it came from.
type Answer = Response<ureq::Body>;

impl Registry {
    /// A client with `options`; an unreadable `--registry-ca` file is an error.
    pub fn new(options: &RegistryOptions) -> Result<Registry, String> {
        let mut extra_roots = Vec::new();
        for f in &options.ca_files {
            let pem = std::fs::read(f)
                .map_err(|e| format!("--registry-ca {}: cannot read: {e}", f.display()))?;
            let before = extra_roots.len();
            for item in ureq::tls::parse_pem(&pem) {
                match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => extra_roots.push(c.to_owned()),
                    Ok(_) => {}
                    Err(e) => return Err(format!("--registry-ca {}: {e}", f.display())),
                }
            }
            if extra_roots.len() == before {
                return Err(format!(
                    "--registry-ca {}: no PEM certificate in the file",
                    f.display()
                ));
            }
        }
        Ok(Registry {
            options: options.clone(),
            roots: Arc::new(Vec::new()),
            extra_roots,
            agent: None,
            schemes: HashMap::new(),
            tokens: HashMap::new(),
            contacted: Vec::new(),
            files: options
                .auth_files
                .clone()
                .unwrap_or_else(auth::default_files),
        })
    }

    /// The hosts contacted so far, in order.
    pub fn contacted(&self) -> Vec<String> {
        self.contacted.clone()
    }

    /// The source of one image in this registry.
    pub fn source(self, image: &str, r: &RegistryRef, deadline: Option<Instant>) -> RegistrySource {
        RegistrySource {
            registry: self,
            image: image.to_string(),
            r: r.clone(),
            deadline,
        }
    }

    /// The agent, built on first use (the system's roots are read then).
    fn agent(&mut self) -> ureq::Agent {
        if let Some(a) = &self.agent {
            return a.clone();
        }
        let mut roots: Vec<ureq::tls::Certificate<'static>> =
            rustls_native_certs::load_native_certs()
                .certs
                .iter()
                .map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned())
                .collect();
        let system = !roots.is_empty();
        roots.extend(self.extra_roots.iter().cloned());
        let root_certs = if system || !self.extra_roots.is_empty() {
            self.roots = Arc::new(roots);
            ureq::tls::RootCerts::Specific(self.roots.clone())
        } else {
            ureq::tls::RootCerts::WebPki
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(concat!("deppy/", env!("CARGO_PKG_VERSION")))
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(root_certs)
                    .build(),
            )
            .build()
            .into();
        self.agent = Some(agent.clone());
        agent
    }

    fn may_use_http(&self, host: &str) -> bool {
        is_loopback_host(host) || self.options.insecure.iter().any(|h| h == host)
    }

    fn note_contact(&mut self, host: &str, scheme: &str, why: &str) {
        let entry = format!("{scheme}://{host}");
        if !self.contacted.contains(&entry) {
            log::info!("contacting {why} {host} over {}", scheme.to_uppercase());
            self.contacted.push(entry);
        }
    }

    /// One GET, without following anything.
    fn call(
        &mut self,
        url: &str,
        accept: Option<&str>,
        authorization: Option<&str>,
        deadline: Option<Instant>,
    ) -> Result<Answer, ureq::Error> {
        let agent = self.agent();
        let mut req = agent.get(url);
        if let Some(a) = accept {
            req = req.header("Accept", a);
        }
        if let Some(a) = authorization {
            req = req.header("Authorization", a);
        }
        let timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        req.config().timeout_global(timeout).build().call()
    }
}

/// An image in a registry, read through a [`Registry`].
pub struct RegistrySource {
    registry: Registry,
    image: String,
    r: RegistryRef,
    deadline: Option<Instant>,
}

/// True for a TLS failure that says the server does not speak TLS at all (rather than a
/// certificate it does not trust).
fn not_tls(e: &ureq::Error) -> bool {
    let text = e.to_string();
    let tls = match e {
        ureq::Error::Rustls(_) | ureq::Error::Tls(_) | ureq::Error::Protocol(_) => true,
        ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::InvalidData,
        _ => false,
    };
    tls && !text.contains("certificate")
}

impl RegistrySource {
    /// Gives the registry back, with what it learnt.
    pub fn into_registry(self) -> Registry {
        self.registry
    }

    fn host(&self) -> String {
        self.r.host().to_string()
    }

    fn unreachable(&self, host: &str, e: &ureq::Error) -> ImageError {
        if matches!(e, ureq::Error::Timeout(_))
            && self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return ImageError::Budget {
                image: self.image.clone(),
                budget: PullBudget::Time,
                message: format!("the time budget ran out while waiting for {host}"),
            };
        }
        let mut message = match e {
            ureq::Error::Io(io) => io.to_string(),
            ureq::Error::HostNotFound => "host not found".into(),
            other => other.to_string(),
        };
        if message.contains("certificate") {
            message.push_str(" (trust its certificate authority with --registry-ca FILE)");
        }
        ImageError::Unreachable {
            image: self.image.clone(),
            host: host.to_string(),
            message,
        }
    }

    /// GETs `path` on the registry: the scheme found on first contact, a 401 answered
    /// once, redirects followed (credentials kept for the registry's own host only).
    fn get(&mut self, path: &str, accept: Option<&str>, what: &str) -> Result<Answer, ImageError> {
        let host = self.host();
        let scheme = self.scheme(&host)?;
        let key = (host.clone(), self.r.repository.clone());
        let mut authorization = self.registry.tokens.get(&key).cloned();
        let url = format!("{scheme}://{host}{path}");
        let mut answer = self.follow(&url, accept, authorization.as_deref())?;
        if answer.status().as_u16() == 401 {
            let challenge = answer
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .and_then(auth::parse_challenge);
            let login = auth::find(&self.registry.files, &self.r.registry, &self.r.repository);
            authorization = self.authorize(challenge, login.as_ref())?;
            if let Some(a) = &authorization {
                self.registry.tokens.insert(key, a.clone());
                answer = self.follow(&url, accept, Some(a))?;
            }
            if matches!(answer.status().as_u16(), 401 | 403) {
                return Err(self.refused(answer.status().as_u16(), login.is_some()));
            }
        }
        match answer.status().as_u16() {
            200 => Ok(answer),
            403 => Err(self.refused(403, authorization.is_some())),
            404 => Err(ImageError::NotFound {
                image: self.image.clone(),
                registry: self.r.registry.clone(),
                reference: what.to_string(),
            }),
            status => Err(self.status_error(status, what, answer)),
        }
    }

    fn refused(&self, status: u16, with_credentials: bool) -> ImageError {
        ImageError::Unauthorized {
            image: self.image.clone(),
            registry: self.r.registry.clone(),
            status,
            tried: self.registry.files.clone(),
            with_credentials,
        }
    }

    fn status_error(&self, status: u16, what: &str, mut answer: Answer) -> ImageError {
        let body = answer
            .body_mut()
            .with_config()
            .limit(64 << 10)
            .read_to_vec()
            .unwrap_or_default();
        ImageError::Registry {
            image: self.image.clone(),
            registry: self.r.registry.clone(),
            status,
            what: what.to_string(),
            message: registry_message(&body),
        }
    }

    /// The scheme `host` speaks: HTTPS, or HTTP for a loopback or `--insecure-registry` host
    /// that does not speak TLS (found with a request to `/v2/`).
    fn scheme(&mut self, host: &str) -> Result<&'static str, ImageError> {
        if let Some(s) = self.registry.schemes.get(host) {
            return Ok(s);
        }
        let scheme = if self.registry.may_use_http(host) {
            match self
                .registry
                .call(&format!("https://{host}/v2/"), None, None, self.deadline)
            {
                Ok(_) => "https",
                Err(e) if not_tls(&e) => "http",
                Err(e) => return Err(self.unreachable(host, &e)),
            }
        } else {
            "https"
        };
        self.registry.schemes.insert(host.to_string(), scheme);
        Ok(scheme)
    }

    /// GETs `url`, following redirects: the authorization goes along only while the host
    /// stays the registry's.
    fn follow(
        &mut self,
        url: &str,
        accept: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<Answer, ImageError> {
        let registry_host = self.host();
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let (scheme, host) = split_url(&url);
            let same = host == registry_host;
            self.registry.note_contact(
                &host,
                &scheme,
                if same { "registry" } else { "redirect target" },
            );
            let auth = if same { authorization } else { None };
            let answer = self
                .registry
                .call(&url, accept, auth, self.deadline)
                .map_err(|e| self.unreachable(&host, &e))?;
            if !answer.status().is_redirection() {
                return Ok(answer);
            }
            let location = answer
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| self.unreachable(&host, &ureq::Error::RedirectFailed))?;
            let next = join_url(&url, location);
            let (next_scheme, next_host) = split_url(&next);
            if next_scheme != "https" && next_scheme != "http"
                || (scheme == "https"
                    && next_scheme == "http"
                    && !self.registry.may_use_http(&next_host))
            {
                return Err(ImageError::Unreachable {
                    image: self.image.clone(),
                    host,
                    message: format!("refused a redirect to {next}: not HTTPS"),
                });
            }
            url = next;
        }
        Err(ImageError::Unreachable {
            image: self.image.clone(),
            host: registry_host,
            message: format!("more than {MAX_REDIRECTS} redirects"),
        })
    }

    /// The `Authorization` to retry with after a 401 with `challenge`.
    fn authorize(
        &mut self,
        challenge: Option<Challenge>,
        login: Option<&Login>,
    ) -> Result<Option<String>, ImageError> {
        match challenge {
            Some(Challenge::Basic) => Ok(login.map(Login::basic)),
            Some(Challenge::Bearer {
                realm,
                service,
                scope,
            }) => {
                let scope =
                    scope.unwrap_or_else(|| format!("repository:{}:pull", self.r.repository));
                let mut url = realm.clone();
                url.push(if realm.contains('?') { '&' } else { '?' });
                if let Some(s) = &service {
                    url.push_str(&format!("service={}&", auth::query_escape(s)));
                }
                url.push_str(&format!("scope={}", auth::query_escape(&scope)));
                let (scheme, host) = split_url(&url);
                let plain_ok =
                    scheme == "https" || (scheme == "http" && self.registry.may_use_http(&host));
                if !plain_ok {
                    return Err(ImageError::Unreachable {
                        image: self.image.clone(),
                        host,
                        message: format!(
                            "the registry names a token realm that is not HTTPS: {realm}"
                        ),
                    });
                }
                self.registry.note_contact(&host, &scheme, "token service");
                let basic = login.map(Login::basic);
                let mut answer = self
                    .registry
                    .call(&url, None, basic.as_deref(), self.deadline)
                    .map_err(|e| self.unreachable(&host, &e))?;
                let status = answer.status().as_u16();
                if matches!(status, 401 | 403) {
                    return Err(self.refused(status, login.is_some()));
                }
                if status != 200 {
                    return Err(self.status_error(status, "a token", answer));
                }
                #[derive(serde::Deserialize)]
                struct Token {
                    token: Option<String>,
                    access_token: Option<String>,
                }
                let body = answer
                    .body_mut()
                    .with_config()
                    .limit(1 << 20)
                    .read_to_vec()
                    .map_err(|e| self.unreachable(&host, &e))?;
                let token: Token =
                    serde_json::from_slice(&body).map_err(|e| ImageError::Registry {
                        image: self.image.clone(),
                        registry: host.clone(),
                        status,
                        what: "a token".into(),
                        message: format!("not a token: {e}"),
                    })?;
                Ok(token
                    .token
                    .or(token.access_token)
                    .map(|t| format!("Bearer {t}")))
            }
            None => Ok(None),
        }
    }

    fn read_body(&self, mut answer: Answer, limit: u64) -> Result<Vec<u8>, ImageError> {
        let host = self.host();
        answer
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => ImageError::Manifest {
                    image: self.image.clone(),
                    message: format!("a manifest larger than {limit} bytes"),
                },
                e => self.unreachable(&host, &e),
            })
    }
}

/// `scheme` and `host[:port]` of an absolute URL.
fn split_url(url: &str) -> (String, String) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    (scheme.to_ascii_lowercase(), host.to_string())
}

/// A `Location` resolved against the URL that sent it.
fn join_url(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let (scheme, host) = split_url(base);
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}://{rest}");
    }
    if location.starts_with('/') {
        return format!("{scheme}://{host}{location}");
    }
    let path = base
        .split_once("://")
        .map_or(base, |(_, r)| r)
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    let dir = path.rsplit_once('/').map_or(path, |(d, _)| d);
    format!("{scheme}://{dir}/{location}")
}

/// The `errors[].message` of a distribution error body, else the body's first line.
fn registry_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Errors {
        errors: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        code: Option<String>,
        message: Option<String>,
    }
    if let Ok(e) = serde_json::from_slice::<Errors>(body) {
        let words: Vec<String> = e
            .errors
            .iter()
            .map(|x| match (&x.code, &x.message) {
                (Some(c), Some(m)) => format!("{c}: {m}"),
                (c, m) => c.clone().or(m.clone()).unwrap_or_default(),
            })
            .collect();
        return words.join("; ");
    }
    let text = String::from_utf8_lossy(body);
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(200)
        .collect()
}

impl Source for RegistrySource {
    fn top(&mut self) -> Result<Top, ImageError> {
        let reference = self.r.manifest_ref();
        let path = format!("/v2/{}/manifests/{reference}", self.r.repository);
        let what = format!("{}:{reference}", self.r.repository).replace(":sha", "@sha");
        let answer = self.get(&path, Some(ACCEPT), &what)?;
        let content_type = answer
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or(v).trim().to_string());
        let bytes = self.read_body(answer, MAX_MANIFEST_BYTES)?;
        let digest = match &self.r.digest {
            Some(d) => {
                read_verified(
                    &self.image,
                    "manifest",
                    &bytes[..],
                    d,
                    None,
                    MAX_MANIFEST_BYTES,
                )?;
                d.clone()
            }
            None => Digest::of(Algorithm::Sha256, &bytes),
        };
        Ok(Top {
            bytes,
            content_type,
            digest,
        })
    }

    fn manifest(&mut self, d: &Descriptor) -> Result<Vec<u8>, ImageError> {
        let digest = digest_of(&self.image, d)?;
        let path = format!("/v2/{}/manifests/{digest}", self.r.repository);
        let answer = self.get(
            &path,
            Some(ACCEPT),
            &format!("{}@{digest}", self.r.repository),
        )?;
        let bytes = self.read_body(answer, MAX_MANIFEST_BYTES)?;
        read_verified(
            &self.image,
            &format!("manifest {digest}"),
            &bytes[..],
            &digest,
            Some(d.size()),
            MAX_MANIFEST_BYTES,
        )
    }

    fn blob(&mut self, d: &Descriptor) -> Result<Box<dyn Read + '_>, ImageError> {
        let digest = digest_of(&self.image, d)?;
        let path = format!("/v2/{}/blobs/{digest}", self.r.repository);
        let answer = self.get(&path, None, &format!("blob {digest}"))?;
        let reader = answer
            .into_body()
            .into_with_config()
            .limit(d.size())
            .reader();
        Ok(Box::new(reader))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_join_and_split() {
        assert_eq!(
            split_url("https://r.io:5000/v2/x?y"),
            ("https".into(), "r.io:5000".into())
        );
        assert_eq!(
            join_url("https://r.io/v2/x/blobs/d", "https://s3.aws/b"),
            "https://s3.aws/b"
        );
        assert_eq!(
            join_url("https://r.io/v2/x/blobs/d", "/other"),
            "https://r.io/other"
        );
        assert_eq!(
            join_url("http://r.io/v2/x/blobs/d", "//cdn.io/b"),
            "http://cdn.io/b"
        );
        assert_eq!(
            join_url("https://r.io/v2/x/blobs/d?q", "e"),
            "https://r.io/v2/x/blobs/e"
        );
    }

    /// A server on loopback that answers each connection with the next canned answer (a
    /// connection that does not speak HTTP gets a 400, as a plain HTTP server answers TLS),
    /// and returns the requests' heads.
    fn serve(answers: Vec<String>) -> (u16, std::thread::JoinHandle<Vec<String>>) {
        use std::io::{Read as _, Write as _};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let mut heads = Vec::new();
            for answer in answers {
                let (mut conn, _) = listener.accept().unwrap();
                conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                    .unwrap();
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                    if head.len() == 4 && !head.starts_with(b"GET ") {
                        break;
                    }
                }
                if !head.starts_with(b"GET ") {
                    let _ =
                        conn.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
                    let (mut conn, _) = listener.accept().unwrap();
                    head.clear();
                    while !head.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap_or(0) == 1 {
                        head.push(byte[0]);
                    }
                    conn.write_all(answer.as_bytes()).unwrap();
                    heads.push(String::from_utf8_lossy(&head).to_lowercase());
                    continue;
                }
                conn.write_all(answer.as_bytes()).unwrap();
                heads.push(String::from_utf8_lossy(&head).to_lowercase());
            }
            heads
        });
        (port, handle)
    }

    #[test]
    fn credentials_do_not_follow_a_redirect_to_another_host() {
        let (storage, stored) = serve(vec![
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".into(),
        ]);
        let (port, asked) = serve(vec![
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"t\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
            format!("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{storage}/storage/blob\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        ]);
        let dir = tempfile::tempdir().unwrap();
        let auth = dir.path().join("auth.json");
        std::fs::write(
            &auth,
            format!(r#"{{"auths":{{"127.0.0.1:{port}":{{"username":"u","password":"p"}}}}}}"#),
        )
        .unwrap();
        let options = RegistryOptions {
            auth_files: Some(vec![auth]),
            ..RegistryOptions::default()
        };
        let r = RegistryRef::parse(&format!("127.0.0.1:{port}/x:1")).unwrap();
        let mut source = Registry::new(&options).unwrap().source("img", &r, None);
        let digest = Digest::of(Algorithm::Sha256, b"hello");
        let d = Descriptor::new(
            oci_spec::image::MediaType::ImageLayerGzip,
            5,
            digest
                .to_string()
                .parse::<oci_spec::image::Digest>()
                .unwrap(),
        );
        let mut body = String::new();
        source.blob(&d).unwrap().read_to_string(&mut body).unwrap();
        assert_eq!(body, "hello");
        let asked = asked.join().unwrap();
        let stored = stored.join().unwrap();
        assert!(!asked[0].contains("authorization"), "{asked:?}");
        assert!(asked[1].contains("authorization: basic dtpw"), "{asked:?}");
        assert!(stored[0].starts_with("get /storage/blob"), "{stored:?}");
        assert!(!stored[0].contains("authorization"), "{stored:?}");
        let contacted = source.into_registry().contacted();
        assert_eq!(
            contacted,
            [
                format!("http://127.0.0.1:{port}"),
                format!("http://127.0.0.1:{storage}")
            ]
        );
    }

    #[test]
    fn registry_errors_are_worded() {
        let body =
            br#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{}}]}"#;
        assert_eq!(registry_message(body), "MANIFEST_UNKNOWN: manifest unknown");
        assert_eq!(registry_message(b"<html>oops\nmore"), "<html>oops");
    }
}
