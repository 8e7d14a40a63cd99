//! A real registry for tests: Debian's `docker-registry` (the CNCF distribution registry)
//! started on 127.0.0.1 on a free port, with a temporary storage directory, optionally
//! behind TLS (a CA and a server certificate made with `openssl`) and htpasswd
//! authentication (bcrypt); stopped when dropped. Images are pushed through the registry's
//! HTTP API (monolithic blob uploads, manifest PUTs).
//!
//! On a machine without the registry, [`Registry::start`] returns None after writing, past
//! the test harness's capture, which test is skipped and the `apt-get install` line that runs
//! it.

#![allow(dead_code)]

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::image::{Blob, Image};

/// The packages the registry tests need.
pub const INSTALL: &str = "sudo apt-get install -y docker-registry openssl";

/// Where Debian puts the registry.
const BINARY: &str = "docker-registry";

/// TLS and login for a registry.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// Serve HTTPS with a certificate from a CA the test makes.
    pub tls: bool,
    /// Require this user and password (htpasswd, bcrypt).
    pub login: Option<(String, String)>,
    /// Require bearer tokens from a token service the test runs on loopback, which hands
    /// anyone a token for pulling and pushing these repositories.
    pub token_repos: Vec<String>,
}

/// A token service on loopback: answers every request with one signed token, and keeps the
/// request lines it was sent.
pub struct TokenService {
    /// The token it hands out.
    pub token: String,
    /// The request lines received (`GET /token?service=…&scope=… HTTP/1.1`).
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    port: u16,
}

/// A running registry.
pub struct Registry {
    child: Option<Child>,
    pub dir: tempfile::TempDir,
    pub port: u16,
    /// The CA's certificate (PEM), with TLS.
    pub ca: Option<PathBuf>,
    pub setup: Setup,
    config: PathBuf,
    /// The token service, with `Setup::token_repos`.
    pub tokens: Option<TokenService>,
}

fn found(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Says, past the test harness's capture, that `test` is skipped and why.
pub fn skip(test: &str, why: &str) {
    let line = format!("SKIPPED {test}: {why}; install with `{INSTALL}` to run it\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("run a setup command");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA and a server certificate for 127.0.0.1 signed by it: (ca.crt, server.crt, server.key).
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let p = |n: &str| dir.join(n);
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    run(Command::new("openssl")
        .args(["req", "-x509"])
        .args(ec)
        .args(["-days", "2", "-subj", "/CN=deppy test CA"])
        .args(["-addext", "basicConstraints=critical,CA:TRUE"])
        .args(["-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        .arg("-keyout")
        .arg(p("ca.key"))
        .arg("-out")
        .arg(p("ca.crt")));
    run(Command::new("openssl")
        .arg("req")
        .args(ec)
        .args(["-subj", "/CN=127.0.0.1"])
        .arg("-keyout")
        .arg(p("server.key"))
        .arg("-out")
        .arg(p("server.csr")));
    std::fs::write(
        p("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .expect("ext");
    run(Command::new("openssl")
        .args(["x509", "-req", "-days", "2", "-CAcreateserial"])
        .arg("-in")
        .arg(p("server.csr"))
        .arg("-CA")
        .arg(p("ca.crt"))
        .arg("-CAkey")
        .arg(p("ca.key"))
        .arg("-extfile")
        .arg(p("ext.cnf"))
        .arg("-out")
        .arg(p("server.crt")));
    (p("ca.crt"), p("server.crt"), p("server.key"))
}

impl Registry {
    /// Starts a registry, or says the test `test` is skipped and returns None when the
    /// machine has none (or no openssl, for TLS).
    pub fn start(test: &str, setup: Setup) -> Option<Registry> {
        if !found(BINARY) {
            skip(test, "the registry (`docker-registry`) is not installed");
            return None;
        }
        if setup.tls && !found("openssl") {
            skip(
                test,
                "`openssl` is not installed (it makes the test's certificates)",
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let mut config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
            dir.path().join("storage").display()
        );
        let mut ca = None;
        if setup.tls {
            let (c, crt, key) = certificates(dir.path());
            config.push_str(&format!(
                "  tls:\n    certificate: {}\n    key: {}\n",
                crt.display(),
                key.display()
            ));
            ca = Some(c);
        }
        if let Some((user, password)) = &setup.login {
            let hash = bcrypt::hash(password, 4).expect("bcrypt");
            let file = dir.path().join("htpasswd");
            std::fs::write(&file, format!("{user}:{hash}\n")).expect("htpasswd");
            config.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: deppy-test\n    path: {}\n",
                file.display()
            ));
        }
        let mut tokens = None;
        if !setup.token_repos.is_empty() {
            if !found("openssl") {
                skip(
                    test,
                    "`openssl` is not installed (it signs the test's tokens)",
                );
                return None;
            }
            let service = token_service(dir.path(), &setup.token_repos);
            config.push_str(&format!(
                "auth:\n  token:\n    realm: http://127.0.0.1:{}/token\n    service: deppy-test-registry\n    issuer: deppy-test-issuer\n    rootcertbundle: {}\n",
                service.port,
                dir.path().join("token.crt").display()
            ));
            tokens = Some(service);
        }
        let config_file = dir.path().join("config.yml");
        std::fs::write(&config_file, config).expect("config");
        let mut registry = Registry {
            child: None,
            dir,
            port,
            ca,
            setup,
            config: config_file,
            tokens,
        };
        registry.spawn();
        Some(registry)
    }

    fn spawn(&mut self) {
        let child = Command::new(BINARY)
            .arg("serve")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start docker-registry");
        self.child = Some(child);
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the registry did not listen on 127.0.0.1:{} within 20 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the registry (its storage stays).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn base(&self) -> String {
        let scheme = if self.setup.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.host())
    }

    fn agent(&self) -> ureq::Agent {
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0);
        if let Some(ca) = &self.ca {
            let pem = std::fs::read(ca).expect("ca");
            let certs: Vec<ureq::tls::Certificate<'static>> = ureq::tls::parse_pem(&pem)
                .filter_map(|i| match i {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
                    _ => None,
                })
                .collect();
            config = config.tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::Specific(std::sync::Arc::new(certs)))
                    .build(),
            );
        }
        config.build().into()
    }

    fn authorization(&self) -> Option<String> {
        use base64::Engine as _;
        if let Some(t) = &self.tokens {
            return Some(format!("Bearer {}", t.token));
        }
        self.setup.login.as_ref().map(|(u, p)| {
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))
            )
        })
    }

    /// Uploads a blob to `repo` (monolithic: POST, then PUT with the digest).
    pub fn push_blob(&self, repo: &str, blob: &Blob) {
        let agent = self.agent();
        let auth = self.authorization();
        let mut post = agent.post(format!("{}/v2/{repo}/blobs/uploads/", self.base()));
        if let Some(a) = &auth {
            post = post.header("Authorization", a);
        }
        let answer = post.send_empty().expect("start an upload");
        assert_eq!(answer.status().as_u16(), 202, "upload of {}", blob.digest);
        let location = answer
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .expect("upload location")
            .to_string();
        let location = if location.starts_with("http") {
            location
        } else {
            format!("{}{location}", self.base())
        };
        let sep = if location.contains('?') { '&' } else { '?' };
        let mut put = agent
            .put(format!("{location}{sep}digest={}", blob.digest))
            .header("Content-Type", "application/octet-stream");
        if let Some(a) = &auth {
            put = put.header("Authorization", a);
        }
        let answer = put.send(&blob.bytes[..]).expect("upload");
        assert_eq!(answer.status().as_u16(), 201, "upload of {}", blob.digest);
    }

    /// Uploads a manifest (or index) under `reference` (a tag or its digest).
    pub fn push_manifest(&self, repo: &str, reference: &str, manifest: &Blob) {
        let mut put = self
            .agent()
            .put(format!("{}/v2/{repo}/manifests/{reference}", self.base()))
            .header("Content-Type", &manifest.media_type);
        if let Some(a) = &self.authorization() {
            put = put.header("Authorization", a);
        }
        let answer = put.send(&manifest.bytes[..]).expect("manifest");
        assert_eq!(
            answer.status().as_u16(),
            201,
            "manifest {reference} of {repo}"
        );
    }

    /// Pushes an image's blobs and manifest, tagged `tag`; returns the manifest's digest.
    pub fn push(&self, repo: &str, tag: &str, image: &Image) -> String {
        for b in image.layers.iter().chain([&image.config]) {
            self.push_blob(repo, b);
        }
        self.push_manifest(repo, tag, &image.manifest);
        image.manifest.digest.clone()
    }

    /// `docker://127.0.0.1:PORT/REPO:TAG`.
    pub fn reference(&self, repo: &str, tag: &str) -> String {
        format!("docker://{}/{repo}:{tag}", self.host())
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

fn base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A token (a JWT signed RS256 with a key made by `openssl`, its certificate in `x5c` and in
/// `dir/token.crt`, which the registry trusts) for `repos`, and a service handing it out.
fn token_service(dir: &Path, repos: &[String]) -> TokenService {
    use base64::Engine as _;
    let p = |n: &str| dir.join(n);
    run(Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=deppy test token issuer"])
        .arg("-keyout")
        .arg(p("token.key"))
        .arg("-out")
        .arg(p("token.crt")));
    run(Command::new("openssl")
        .args(["x509", "-outform", "DER"])
        .arg("-in")
        .arg(p("token.crt"))
        .arg("-out")
        .arg(p("token.der")));
    let der = std::fs::read(p("token.der")).expect("token.der");
    let header = serde_json::json!({
        "typ": "JWT",
        "alg": "RS256",
        "x5c": [base64::engine::general_purpose::STANDARD.encode(der)],
    });
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let access: Vec<serde_json::Value> = repos
        .iter()
        .map(|r| serde_json::json!({"type": "repository", "name": r, "actions": ["pull", "push"]}))
        .collect();
    let claims = serde_json::json!({
        "iss": "deppy-test-issuer",
        "sub": "",
        "aud": "deppy-test-registry",
        "exp": now + 3600,
        "nbf": now - 60,
        "iat": now - 60,
        "jti": "deppy-test",
        "access": access,
    });
    let input = format!(
        "{}.{}",
        base64url(header.to_string().as_bytes()),
        base64url(claims.to_string().as_bytes())
    );
    std::fs::write(p("token.input"), &input).expect("token input");
    run(Command::new("openssl")
        .args(["dgst", "-sha256", "-sign"])
        .arg(p("token.key"))
        .arg("-out")
        .arg(p("token.sig"))
        .arg(p("token.input")));
    let sig = std::fs::read(p("token.sig")).expect("token.sig");
    let token = format!("{input}.{}", base64url(&sig));
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("address").port();
    let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (seen, answer) = (requests.clone(), token.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = std::io::BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            let mut first = None;
            loop {
                line.clear();
                match std::io::BufRead::read_line(&mut reader, &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if line == "\r\n" => break,
                    Ok(_) => {
                        first.get_or_insert_with(|| line.trim_end().to_string());
                    }
                }
            }
            seen.lock().expect("requests").extend(first);
            let body = serde_json::json!({"token": answer, "expires_in": 3600}).to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    TokenService {
        token,
        requests,
        port,
    }
}
