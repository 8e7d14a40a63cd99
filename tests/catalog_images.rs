//! Catalog images end to end: images built here from the shipped catalogs, read from an OCI
//! layout and archive, and pushed to a real registry (Debian's `docker-registry`, started on
//! 127.0.0.1 by `support::registry`); deppy pulls them where a catalog is bound and answers as
//! from the catalog's directory. A machine without the registry skips the registry tests,
//! saying which and how to install it.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/image.rs"]
mod image;
#[path = "support/registry.rs"]
mod registry;

use std::path::Path;

use cli::{Ran, deppy};
use image::{CONFIGS_LABEL, DATABASE_LABEL, Entry};
use registry::{Registry, Setup};

const ODF: &str = "catalogs/odf-dev";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `deppy resolve --catalog CATALOG --require odf-dependencies` with its own image cache.
fn resolve_odf(catalog: &str, cache: &Path, extra: &[&str]) -> Ran {
    let mut args = vec![
        "resolve",
        "--catalog",
        catalog,
        "--require",
        "odf-dependencies",
    ];
    args.extend(extra);
    deppy(&args)
        .env("XDG_CACHE_HOME", &cache.display().to_string())
        .run()
}

/// The answer from the shipped directory, named `odf-dev`.
fn expected_odf() -> String {
    let ran = deppy(&["resolve", "--catalog", ODF, "--require", "odf-dependencies"]).run();
    ran.expect(0);
    ran.stdout
}

#[test]
fn an_oci_layout_and_archive_answer_as_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let layout = tmp.path().join("layout");
    let img = image::catalog_image(&root().join(ODF));
    image::write_layout(&layout, &[("v1", &img)]);
    let want = expected_odf();
    let cache = tmp.path().join("cache");
    let spec = format!("odf-dev=oci:{}:v1", layout.display());
    let ran = resolve_odf(&spec, &cache, &[]);
    assert_eq!(ran.expect(0).stdout, want);
    let archive = tmp.path().join("odf.tar");
    image::write_archive(&layout, &archive);
    let ran = resolve_odf(
        &format!("odf-dev=oci-archive:{}:v1:0", archive.display()),
        &cache,
        &[],
    );
    assert_eq!(ran.expect(0).stdout, want);
    // A tag the layout does not have.
    let ran = resolve_odf(&format!("oci:{}:v2", layout.display()), &cache, &[]);
    ran.expect(2);
    assert!(
        ran.stderr.contains("no image tagged \"v2\"") && ran.stderr.contains("v1"),
        "{}",
        ran.stderr
    );
    // `deppy catalog pull` writes the catalog's files.
    let out = tmp.path().join("pulled");
    let ran = deppy(&[
        "catalog",
        "pull",
        &format!("oci:{}:v1", layout.display()),
        &out.display().to_string(),
    ])
    .env("XDG_CACHE_HOME", &cache.display().to_string())
    .run();
    ran.expect(0);
    for f in std::fs::read_dir(root().join(ODF)).unwrap() {
        let f = f.unwrap();
        assert_eq!(
            std::fs::read(out.join(f.file_name())).unwrap(),
            std::fs::read(f.path()).unwrap(),
            "{:?}",
            f.file_name()
        );
    }
    let ran = resolve_odf(&format!("odf-dev={}", out.display()), &cache, &[]);
    assert_eq!(ran.expect(0).stdout, want);
    // A blob whose bytes are not what its digest says is refused, and nothing is cached.
    let bad = tmp.path().join("bad-layout");
    image::write_layout(&bad, &[("v1", &img)]);
    let layer = &img.layers[0];
    let file = bad
        .join("blobs/sha256")
        .join(layer.digest.trim_start_matches("sha256:"));
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let ran = resolve_odf(
        &format!("oci:{}:v1", bad.display()),
        &tmp.path().join("cache2"),
        &[],
    );
    ran.expect(2);
    assert!(
        ran.stderr
            .contains(&format!("layer {} does not match its digest", layer.digest)),
        "{}",
        ran.stderr
    );
    // A directory that is not empty is not written into.
    let ran = deppy(&[
        "catalog",
        "pull",
        &format!("oci:{}:v1", layout.display()),
        &out.display().to_string(),
    ])
    .run();
    ran.expect(2);
    assert!(
        ran.stderr.contains("not an empty directory"),
        "{}",
        ran.stderr
    );
}

#[test]
fn tag_and_digest_the_cache_offline_and_a_stopped_registry() {
    let Some(mut reg) = Registry::start(
        "tag_and_digest_the_cache_offline_and_a_stopped_registry",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let digest = reg.push(
        "ops/odf-dev",
        "v1",
        &image::catalog_image(&root().join(ODF)),
    );
    let want = expected_odf();
    let by_tag = reg.reference("ops/odf-dev", "v1");
    let ran = resolve_odf(&by_tag, &cache, &["-v"]);
    assert_eq!(
        ran.expect(0).stdout,
        want,
        "named odf-dev after the repository"
    );
    assert!(
        ran.stderr
            .contains(&format!("contacting registry {}", reg.host())),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(&digest),
        "-v names the digest: {}",
        ran.stderr
    );
    let by_digest = format!("docker://{}/ops/odf-dev@{digest}", reg.host());
    let ran = resolve_odf(&format!("{by_digest}:0"), &cache, &["-v"]);
    assert_eq!(ran.expect(0).stdout, want);
    // A 404 names the reference.
    let ran = resolve_odf(&reg.reference("ops/odf-dev", "nope"), &cache, &[]);
    ran.expect(2);
    assert!(
        ran.stderr.contains("not found") && ran.stderr.contains("ops/odf-dev:nope"),
        "{}",
        ran.stderr
    );

    reg.stop();
    // By digest, the cache answers without the registry; by tag, the registry must answer.
    let ran = resolve_odf(&by_digest, &cache, &["-v"]);
    assert_eq!(ran.expect(0).stdout, want);
    assert!(!ran.stderr.contains("contacting"), "{}", ran.stderr);
    let ran = resolve_odf(&by_tag, &cache, &[]);
    ran.expect(2);
    assert!(
        ran.stderr
            .contains(&format!("registry {} did not answer", reg.host())),
        "{}",
        ran.stderr
    );
    // Offline, the tag's last digest is used; an image never pulled is an error.
    let ran = resolve_odf(&by_tag, &cache, &["--offline", "-v"]);
    assert_eq!(ran.expect(0).stdout, want);
    assert!(!ran.stderr.contains("contacting"), "{}", ran.stderr);
    let ran = resolve_odf(&reg.reference("ops/other", "v1"), &cache, &["--offline"]);
    ran.expect(2);
    assert!(ran.stderr.contains("--offline"), "{}", ran.stderr);
    let ran = resolve_odf(&by_digest, &tmp.path().join("empty-cache"), &["--offline"]);
    ran.expect(2);
}

#[test]
fn an_index_of_two_platforms_and_zstd_and_docker_layers() {
    let Some(reg) = Registry::start(
        "an_index_of_two_platforms_and_zstd_and_docker_layers",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let odf = image::tar_dir(&root().join(ODF), "configs");
    let other = image::tar_dir(&root().join("catalogs/heavy"), "configs");
    let amd64 = image::image(
        vec![image::zstd_layer(&odf)],
        &[(CONFIGS_LABEL, "/configs")],
        false,
    );
    let arm64 = image::image(
        vec![image::gzip_layer(&other)],
        &[(CONFIGS_LABEL, "/configs")],
        false,
    );
    for (repo, docker) in [("multi/oci", false), ("multi/docker", true)] {
        let (amd64, arm64) = if docker {
            let d = |i: &image::Image| {
                image::image(i.layers.clone(), &[(CONFIGS_LABEL, "/configs")], true)
            };
            (d(&amd64), d(&arm64))
        } else {
            (amd64.clone(), arm64.clone())
        };
        for img in [&amd64, &arm64] {
            for b in img.layers.iter().chain([&img.config]) {
                reg.push_blob(repo, b);
            }
            reg.push_manifest(repo, &img.manifest.digest, &img.manifest);
        }
        let index = image::index(
            &[("linux", "arm64", &arm64), ("linux", "amd64", &amd64)],
            docker,
        );
        reg.push_manifest(repo, "v1", &index);
        let ran = resolve_odf(
            &format!("odf-dev={}", reg.reference(repo, "v1")),
            &cache,
            &[],
        );
        assert_eq!(
            ran.expect(0).stdout,
            expected_odf(),
            "{repo}: linux/amd64 is picked"
        );
    }
}

#[test]
fn a_whiteout_deletes_a_package_and_another_configs_label_is_read() {
    let Some(reg) = Registry::start(
        "a_whiteout_deletes_a_package_and_another_configs_label_is_read",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let base = image::tar_dir(&root().join(ODF), "srv/catalog");
    let top = image::tar(&[Entry::File("srv/catalog/.wh.recipe.yaml", b"")]);
    let img = image::image(
        vec![image::gzip_layer(&base), image::zstd_layer(&top)],
        &[(CONFIGS_LABEL, "/srv/catalog")],
        false,
    );
    reg.push("odf/whiteout", "v1", &img);
    let out = tmp.path().join("pulled");
    deppy(&[
        "catalog",
        "pull",
        &reg.reference("odf/whiteout", "v1"),
        &out.display().to_string(),
    ])
    .env("XDG_CACHE_HOME", &cache.display().to_string())
    .run()
    .expect(0);
    assert!(out.join("odf-dependencies.yaml").is_file());
    assert!(!out.join("recipe.yaml").exists(), "the whiteout deleted it");
    let ran = resolve_odf(
        &format!("odf-dev={}", reg.reference("odf/whiteout", "v1")),
        &cache,
        &[],
    );
    ran.expect(1);
    assert!(ran.stdout.contains("recipe"), "{}", ran.stdout);
    // The other catalog commands take images too.
    let ran = deppy(&["catalog", "inspect", &reg.reference("odf/whiteout", "v1")])
        .env("XDG_CACHE_HOME", &cache.display().to_string())
        .run();
    ran.expect(0);
    assert!(
        ran.stdout.contains("16 packages, 16 channels, 14 bundles")
            && !ran
                .stdout
                .contains("Recipe (ramendr.openshift.io/v1alpha1)"),
        "the recipe bundle is gone: {}",
        ran.stdout
    );
}

#[test]
fn htpasswd_behind_tls_with_a_ca_the_test_makes() {
    let setup = Setup {
        tls: true,
        login: Some(("deppy".into(), "s3cret".into())),
        ..Setup::default()
    };
    let Some(reg) = Registry::start("htpasswd_behind_tls_with_a_ca_the_test_makes", setup) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache").display().to_string();
    reg.push(
        "private/odf",
        "v1",
        &image::catalog_image(&root().join(ODF)),
    );
    let image = format!("odf-dev={}", reg.reference("private/odf", "v1"));
    let ca = reg.ca.clone().unwrap().display().to_string();
    let auth = tmp.path().join("auth.json");
    let args = [
        "resolve",
        "--catalog",
        &image,
        "--require",
        "odf-dependencies",
        "--registry-ca",
        &ca,
    ];
    // Without credentials: 401, naming the registry and the files looked at.
    let ran = deppy(&args)
        .env("XDG_CACHE_HOME", &cache)
        .env("REGISTRY_AUTH_FILE", &auth.display().to_string())
        .run();
    ran.expect(2);
    assert!(
        ran.stderr
            .contains(&format!("registry {} refused access (401)", reg.host()))
            && ran.stderr.contains(&auth.display().to_string()),
        "{}",
        ran.stderr
    );
    // With them (as podman login writes them).
    use base64::Engine as _;
    let token = base64::engine::general_purpose::STANDARD.encode("deppy:s3cret");
    std::fs::write(
        &auth,
        format!(r#"{{"auths":{{"{}":{{"auth":"{token}"}}}}}}"#, reg.host()),
    )
    .unwrap();
    let ran = deppy(&args)
        .env("XDG_CACHE_HOME", &cache)
        .env("REGISTRY_AUTH_FILE", &auth.display().to_string())
        .run();
    assert_eq!(ran.expect(0).stdout, expected_odf());
    // A wrong password is refused, saying credentials were sent.
    let token = base64::engine::general_purpose::STANDARD.encode("deppy:wrong");
    std::fs::write(
        &auth,
        format!(r#"{{"auths":{{"{}":{{"auth":"{token}"}}}}}}"#, reg.host()),
    )
    .unwrap();
    let other = format!("odf-dev={}", reg.reference("private/odf", "v2"));
    let ran = deppy(&[
        "resolve",
        "--catalog",
        &other,
        "--require",
        "x",
        "--registry-ca",
        &ca,
    ])
    .env("XDG_CACHE_HOME", &cache)
    .env("REGISTRY_AUTH_FILE", &auth.display().to_string())
    .run();
    ran.expect(2);
    assert!(ran.stderr.contains("were not accepted"), "{}", ran.stderr);
    // Without the CA, the certificate is not trusted, and the error says how to trust it.
    let ran = deppy(&[
        "resolve",
        "--catalog",
        &image,
        "--require",
        "odf-dependencies",
    ])
    .env(
        "XDG_CACHE_HOME",
        &tmp.path().join("other-cache").display().to_string(),
    )
    .env("REGISTRY_AUTH_FILE", &auth.display().to_string())
    .run();
    ran.expect(2);
    assert!(ran.stderr.contains("--registry-ca"), "{}", ran.stderr);
}

#[test]
fn entries_that_would_leave_the_catalog_and_a_bomb_are_refused() {
    let Some(reg) = Registry::start(
        "entries_that_would_leave_the_catalog_and_a_bomb_are_refused",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let label = [(CONFIGS_LABEL, "/configs")];
    let cases: [(&str, Vec<Entry<'_>>, &str); 2] = [
        (
            "dotdot",
            vec![Entry::File("configs/../../etc/x.json", b"{}")],
            "configs/../../etc/x.json",
        ),
        (
            "link",
            vec![Entry::Symlink("configs/a.json", "/etc/passwd")],
            "configs/a.json",
        ),
    ];
    for (repo, entries, entry) in cases {
        let img = image::image(
            vec![image::gzip_layer(&image::tar(&entries))],
            &label,
            false,
        );
        reg.push(&format!("bad/{repo}"), "v1", &img);
        let ran = resolve_odf(&reg.reference(&format!("bad/{repo}"), "v1"), &cache, &[]);
        ran.expect(2);
        assert!(
            ran.stderr.contains(&format!("entry {entry:?} refused"))
                && ran.stderr.contains(&format!("bad/{repo}:v1")),
            "{}",
            ran.stderr
        );
    }
    // 64 MiB of zeros in the catalog, 64 KiB compressed, against --max-memory 16.
    let zeros = vec![0u8; 64 << 20];
    let bomb = image::gzip_layer(&image::tar(&[Entry::File("configs/big.json", &zeros)]));
    assert!(bomb.bytes.len() < 1 << 20);
    reg.push("bad/bomb", "v1", &image::image(vec![bomb], &label, false));
    let ran = resolve_odf(
        &reg.reference("bad/bomb", "v1"),
        &cache,
        &["--max-memory", "16"],
    );
    ran.expect(3);
    assert!(
        ran.stderr.contains("larger than 16777216 bytes"),
        "{}",
        ran.stderr
    );
    // An old SQLite index.
    let db = image::image(
        vec![image::gzip_layer(&image::tar(&[Entry::File(
            "database/index.db",
            b"SQLite format 3",
        )]))],
        &[(DATABASE_LABEL, "/database/index.db")],
        true,
    );
    reg.push("old/index", "v4.8", &db);
    let ran = resolve_odf(&reg.reference("old/index", "v4.8"), &cache, &[]);
    ran.expect(2);
    assert!(
        ran.stderr.contains("SQLite") && ran.stderr.contains("opm migrate"),
        "{}",
        ran.stderr
    );
    assert!(
        !cache.join("deppy/images/v1/sha256").exists()
            || std::fs::read_dir(cache.join("deppy/images/v1/sha256"))
                .unwrap()
                .next()
                .is_none(),
        "nothing refused is cached"
    );
}

/// The example cluster's state with its CatalogSource's image in the test registry, and,
/// with `pod`, its registry pod having run `pinned`.
fn cluster_state(dir: &Path, reg: &Registry, pinned: Option<&str>, extra: &str) {
    let text =
        std::fs::read_to_string(root().join("catalogs/cluster-example/cluster.yaml")).unwrap();
    let image = format!("{}/redhat/community-operator-index", reg.host());
    let text = text.replace("registry.redhat.io/redhat/community-operator-index", &image);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("cluster.yaml"), text).unwrap();
    let mut more = extra.to_string();
    if let Some(digest) = pinned {
        more.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: community-operators-x7k2q\n  namespace: openshift-marketplace\n  labels: {{olm.catalogSource: community-operators}}\nspec:\n  containers: [{{name: registry-server, image: '{image}:v4.22'}}]\nstatus:\n  phase: Running\n  containerStatuses:\n  - name: registry-server\n    image: '{image}:v4.22'\n    imageID: '{image}@{digest}'\n"
        ));
    }
    std::fs::write(dir.join("more.yaml"), more).unwrap();
}

#[test]
fn the_cluster_example_pulls_the_digest_its_catalog_pod_ran() {
    let Some(reg) = Registry::start(
        "the_cluster_example_pulls_the_digest_its_catalog_pod_ran",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache").display().to_string();
    let repo = "redhat/community-operator-index";
    let ran_then = reg.push(
        repo,
        "v4.22",
        &image::catalog_image(&root().join("catalogs/community-v4.22")),
    );
    // The tag has moved on since the pod started.
    let now = reg.push(repo, "v4.22", &image::catalog_image(&root().join(ODF)));
    assert_ne!(ran_then, now);
    let bound = deppy(&[
        "cluster",
        "resolve",
        "catalogs/cluster-example/cluster.yaml",
        "--catalog",
        "openshift-marketplace/community-operators=catalogs/community-v4.22",
    ])
    .run();
    bound.expect(1);

    let state = tmp.path().join("state");
    cluster_state(&state, &reg, Some(&ran_then), "");
    let st = state.display().to_string();
    let ran = deppy(&["cluster", "resolve", &st])
        .env("XDG_CACHE_HOME", &cache)
        .run();
    ran.expect(1);
    let first = format!(
        "catalog openshift-marketplace/community-operators: image {}/{repo}@{ran_then}, the digest its registry pod community-operators-x7k2q ran\n",
        reg.host()
    );
    assert_eq!(
        ran.stdout,
        format!("{first}{}", bound.stdout),
        "one command, no --catalog"
    );
    let json = deppy(&["cluster", "resolve", &st, "-o", "json"])
        .env("XDG_CACHE_HOME", &cache)
        .run();
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        v["catalogs"],
        serde_json::json!([{"namespace": "openshift-marketplace", "name": "community-operators", "source": "image",
            "image": format!("{}/{repo}@{ran_then}", reg.host()), "digest": ran_then, "pinnedBy": "community-operators-x7k2q"}])
    );
    let path_json = deppy(&[
        "cluster",
        "resolve",
        "catalogs/cluster-example/cluster.yaml",
        "-o",
        "json",
        "--catalog",
        "openshift-marketplace/community-operators=catalogs/community-v4.22",
    ])
    .run();
    let p: serde_json::Value = serde_json::from_str(&path_json.stdout).unwrap();
    assert_eq!(p["catalogs"][0]["source"], "path");
    assert_eq!(p["namespaces"], v["namespaces"]);

    // Without the pod, the tag is pulled: what it names now is another catalog.
    let tagged = tmp.path().join("tagged");
    cluster_state(&tagged, &reg, None, "");
    let ran = deppy(&["cluster", "resolve", &tagged.display().to_string()])
        .env("XDG_CACHE_HOME", &cache)
        .run();
    assert!(
        ran.stdout.starts_with(&format!(
            "catalog openshift-marketplace/community-operators: image {}/{repo}:v4.22 ({now})\n",
            reg.host()
        )),
        "{}",
        ran.stdout
    );
    assert_ne!(ran.stdout.split_once('\n').unwrap().1, bound.stdout);

    // Offline with the image cached: the same answer, and no registry contacted.
    let ran = deppy(&["cluster", "resolve", &st, "--offline", "-v"])
        .env("XDG_CACHE_HOME", &cache)
        .run();
    assert_eq!(ran.expect(1).stdout, format!("{first}{}", bound.stdout));
    assert!(!ran.stderr.contains("contacting"), "{}", ran.stderr);

    // Offline with an empty cache: the catalog stays unbound, with a warning saying why.
    let ran = deppy(&["cluster", "resolve", &st, "--offline"])
        .env(
            "XDG_CACHE_HOME",
            &tmp.path().join("empty").display().to_string(),
        )
        .run();
    ran.expect(1);
    assert!(
        ran.stderr.contains("--offline forbids pulling it"),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.contains("is taken as empty"), "{}", ran.stdout);

    // A CatalogSource with only an address is not pulled; a failed pull is an error, not an
    // empty catalog.
    let address = "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: served, namespace: openshift-marketplace}\nspec: {sourceType: grpc, address: 'served.example:50051'}\n";
    let with_address = tmp.path().join("address");
    cluster_state(&with_address, &reg, Some(&ran_then), address);
    let ran = deppy(&["cluster", "resolve", &with_address.display().to_string()])
        .env("XDG_CACHE_HOME", &cache)
        .run();
    ran.expect(1);
    assert!(
        ran.stdout
            .contains("catalog openshift-marketplace/served is taken as empty"),
        "{}",
        ran.stdout
    );
    let mut stopped = reg;
    stopped.stop();
    let ran = deppy(&["cluster", "resolve", &tagged.display().to_string()])
        .env(
            "XDG_CACHE_HOME",
            &tmp.path().join("empty2").display().to_string(),
        )
        .run();
    ran.expect(2);
    assert!(
        ran.stderr
            .contains("catalog openshift-marketplace/community-operators: image docker://")
            && ran.stderr.contains("did not answer"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_cluster_catalog_is_pulled_at_the_digest_catalogd_served() {
    let Some(reg) = Registry::start(
        "a_cluster_catalog_is_pulled_at_the_digest_catalogd_served",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache").display().to_string();
    let served = reg.push(
        "operatorhubio/catalog",
        "latest",
        &image::catalog_image(&root().join("tests/cluster/_catalogs/v1-main")),
    );
    reg.push(
        "operatorhubio/catalog",
        "latest",
        &image::catalog_image(&root().join(ODF)),
    );
    let text =
        std::fs::read_to_string(root().join("tests/cluster/v1-apply-what-if/state/state.yaml"))
            .unwrap();
    let image = format!("{}/operatorhubio/catalog", reg.host());
    let text = text.replace("quay.io/operatorhubio/catalog", &image).replacen(
        "---\n",
        &format!("status:\n  resolvedSource:\n    type: Image\n    image:\n      ref: '{image}@{served}'\n---\n"),
        1,
    );
    let state = tmp.path().join("state.yaml");
    std::fs::write(&state, text).unwrap();
    let bound = deppy(&[
        "cluster",
        "resolve",
        "tests/cluster/v1-apply-what-if/state",
        "--catalog",
        "operatorhubio=tests/cluster/_catalogs/v1-main",
    ])
    .run();
    bound.expect(0);
    let ran = deppy(&["cluster", "resolve", &state.display().to_string()])
        .env("XDG_CACHE_HOME", &cache)
        .run();
    ran.expect(0);
    assert_eq!(
        ran.stdout,
        format!(
            "catalog operatorhubio: image {image}@{served}\n{}",
            bound.stdout
        )
    );
}

/// Removes a blob from the registry's storage, so a request for it fails.
fn remove_blob(reg: &Registry, digest: &str) {
    let hex = digest.trim_start_matches("sha256:");
    let dir = reg
        .dir
        .path()
        .join("storage/docker/registry/v2/blobs/sha256")
        .join(&hex[..2])
        .join(hex);
    std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
}

#[test]
fn request_files_cluster_bindings_and_the_cache_options() {
    let Some(reg) = Registry::start(
        "request_files_cluster_bindings_and_the_cache_options",
        Setup::default(),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let img = image::catalog_image(&root().join(ODF));
    let digest = reg.push("ops/odf-dev", "v1", &img);
    let want = expected_odf();

    // A request file names the image; DEPPY_CACHE_DIR holds the image cache and the catalog
    // cache, where the pulled catalog is keyed by its digest and read back the second time.
    let request = tmp.path().join("request.yaml");
    std::fs::write(
        &request,
        format!(
            "catalogs:\n  - {{name: odf-dev, image: '{}', priority: 0}}\nrequire:\n  - {{package: odf-dependencies}}\n",
            reg.reference("ops/odf-dev", "v1")
        ),
    )
    .unwrap();
    let cache = tmp.path().join("deppy-cache");
    let env_cache = cache.display().to_string();
    let unused = tmp.path().join("xdg");
    let run = |extra: &[&str]| {
        let mut args = vec!["resolve", request.to_str().unwrap(), "-v"];
        args.extend(extra);
        deppy(&args)
            .env("DEPPY_CACHE_DIR", &env_cache)
            .env("XDG_CACHE_HOME", &unused.display().to_string())
            .run()
    };
    let first = run(&[]);
    assert_eq!(first.expect(0).stdout, want);
    assert!(
        first.stderr.contains("contacting registry"),
        "{}",
        first.stderr
    );
    assert!(
        cache.join("images").is_dir() && !unused.exists(),
        "DEPPY_CACHE_DIR moves the image cache: {}",
        first.stderr
    );
    // By tag, a second run asks for the manifest only: the layer and the configuration are
    // gone from the registry, and the run still answers, from the catalog cache.
    remove_blob(&reg, &img.layers[0].digest);
    remove_blob(&reg, &img.config.digest);
    let second = run(&[]);
    assert_eq!(second.expect(0).stdout, want);
    assert!(
        second.stderr.contains("from the image cache")
            && second.stderr.contains("read back from the catalog cache"),
        "{}",
        second.stderr
    );
    // Without the cache (--no-cache), the blobs are needed, and nothing is kept.
    let fresh = tmp.path().join("fresh");
    let ran = deppy(&["resolve", request.to_str().unwrap(), "--no-cache"])
        .env("XDG_CACHE_HOME", &fresh.display().to_string())
        .run();
    ran.expect(2);
    assert!(
        ran.stderr.contains(&img.layers[0].digest) || ran.stderr.contains(&img.config.digest),
        "{}",
        ran.stderr
    );

    // `cluster resolve --catalog NAMESPACE/NAME=docker://REF` binds a CatalogSource to an
    // image; with --no-cache it is pulled, used and not kept.
    let community = reg.push(
        "redhat/community-operator-index",
        "v4.22",
        &image::catalog_image(&root().join("catalogs/community-v4.22")),
    );
    let state = "catalogs/cluster-example/cluster.yaml";
    let bound = deppy(&[
        "cluster",
        "resolve",
        state,
        "--catalog",
        "openshift-marketplace/community-operators=catalogs/community-v4.22",
    ])
    .run();
    bound.expect(1);
    let binding = format!(
        "openshift-marketplace/community-operators={}",
        reg.reference("redhat/community-operator-index", "v4.22")
    );
    let nocache = tmp.path().join("nocache");
    let ran = deppy(&[
        "cluster",
        "resolve",
        state,
        "--catalog",
        &binding,
        "--no-cache",
    ])
    .env("XDG_CACHE_HOME", &nocache.display().to_string())
    .run();
    ran.expect(1);
    let (first_line, rest) = ran.stdout.split_once('\n').unwrap();
    assert!(
        first_line.starts_with("catalog openshift-marketplace/community-operators: image ")
            && first_line.contains(&community),
        "{first_line}"
    );
    assert_eq!(rest, bound.stdout);
    let kept = nocache.join("deppy/images");
    assert!(
        !kept.exists() || walk_files(&kept) == 0,
        "--no-cache keeps nothing in {}",
        kept.display()
    );
    assert_ne!(digest, community);
}

/// How many files are under `dir`.
fn walk_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                walk_files(&e.path())
            } else {
                1
            }
        })
        .sum()
}

#[test]
fn an_anonymous_bearer_token_from_the_realm_the_registry_names() {
    let setup = Setup {
        token_repos: vec!["ops/odf-dev".into()],
        ..Setup::default()
    };
    let Some(reg) = Registry::start(
        "an_anonymous_bearer_token_from_the_realm_the_registry_names",
        setup,
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    reg.push(
        "ops/odf-dev",
        "v1",
        &image::catalog_image(&root().join(ODF)),
    );
    let tokens = reg.tokens.as_ref().unwrap();
    let before = tokens.requests.lock().unwrap().len();
    let ran = resolve_odf(&reg.reference("ops/odf-dev", "v1"), &cache, &["-v"]);
    assert_eq!(ran.expect(0).stdout, expected_odf());
    assert!(
        ran.stderr.contains("contacting token service 127.0.0.1:"),
        "{}",
        ran.stderr
    );
    let requests = tokens.requests.lock().unwrap().clone();
    let asked = &requests[before..];
    assert!(!asked.is_empty(), "no token was asked for");
    assert!(
        asked.iter().all(|r| r.starts_with("GET /token?")
            && r.contains("service=deppy-test-registry")
            && r.contains("odf-dev")
            && r.contains("pull")),
        "{asked:?}"
    );
    // A repository the token does not grant: refused after the token, naming the registry.
    let ran = resolve_odf(&reg.reference("ops/other", "v1"), &cache, &[]);
    ran.expect(2);
    assert!(
        ran.stderr
            .contains(&format!("registry {} refused access (401)", reg.host())),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_registry_that_never_answers_ends_with_the_time_budget() {
    // A server on loopback that accepts connections and says nothing.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            held.push(conn);
        }
    });
    let tmp = tempfile::tempdir().unwrap();
    let ran = resolve_odf(
        &format!("docker://127.0.0.1:{port}/ops/odf-dev:v1"),
        tmp.path(),
        &["--timeout", "1"],
    );
    ran.expect(3);
    assert!(
        ran.stderr.contains(&format!(
            "the time budget ran out while waiting for 127.0.0.1:{port}"
        )),
        "{}",
        ran.stderr
    );
}

#[test]
fn catalog_diff_reads_an_image_as_new() {
    let tmp = tempfile::tempdir().unwrap();
    let layout = tmp.path().join("layout");
    let heads = "catalogs/community-v4.22-heads";
    let img = image::catalog_image(&root().join(heads));
    image::write_layout(&layout, &[("v1", &img)]);
    let old = "catalogs/community-v4.22";
    let args = |new: &str| -> Vec<String> {
        ["catalog", "diff", old, new, "--channel", "kepler-operator"]
            .map(String::from)
            .to_vec()
    };
    let from_dir = deppy(&args(heads).iter().map(String::as_str).collect::<Vec<_>>()).run();
    from_dir.expect(1);
    let spec = format!("oci:{}:v1", layout.display());
    let from_image = deppy(&args(&spec).iter().map(String::as_str).collect::<Vec<_>>())
        .env(
            "XDG_CACHE_HOME",
            &tmp.path().join("cache").display().to_string(),
        )
        .run();
    assert_eq!(from_image.expect(1).stdout, from_dir.stdout);
    assert!(from_dir.stdout.contains("stranded"), "{}", from_dir.stdout);
}
