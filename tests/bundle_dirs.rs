//! Bundle directories as a catalog source, over real bundles copied from
//! `../shared/catalogs/bundle-dirs` into `tests/bundle-dirs/` (see its README): rendering
//! gives the dependencies the CSVs and metadata declare, the same bundles as the converted
//! community catalog, `deppy catalog render` output (snapshot), render-then-resolve equal to
//! resolving the directories, and an unpublished bundle resolved against published catalogs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use deppy::advanced::catalog::{Bundle, CatalogSet, CatalogSource, LoadOptions};
use serde_json::Value;

const DIRS: &str = "tests/bundle-dirs";
const COMMUNITY: &str = "catalogs/community-converted-v4.22";

fn deppy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_deppy"))
        .args(args)
        .output()
        .expect("run deppy")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn load(name: &str, path: impl Into<PathBuf>) -> CatalogSet {
    let source = CatalogSource {
        name: name.into(),
        path: path.into(),
        priority: 0,
    };
    CatalogSet::load(&[source], &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn bundle<'a>(set: &'a CatalogSet, name: &str) -> &'a Bundle {
    set.bundles
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no bundle {name}"))
}

fn gvks(set: &CatalogSet, ids: &[deppy::advanced::catalog::GvkId]) -> Vec<String> {
    let mut v: Vec<String> = ids
        .iter()
        .filter_map(|g| set.gvk(*g))
        .map(|g| format!("{}/{}/{}", g.group, g.version, g.kind))
        .collect();
    v.sort();
    v
}

fn packages(b: &Bundle) -> Vec<String> {
    let mut v: Vec<String> = b
        .requires_packages
        .iter()
        .map(|r| format!("{} {}", r.package, r.range))
        .collect();
    v.sort();
    v
}

/// The first YAML document of a file, parsed independently of deppy's renderer.
fn first_doc(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("read");
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("yaml");
    docs.into_iter().find(|d| !d.is_null()).expect("a document")
}

/// Every bundle directory under tests/bundle-dirs.
fn bundle_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for pkg in std::fs::read_dir(DIRS).expect("dir").flatten() {
        for v in std::fs::read_dir(pkg.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if v.path().join("manifests").is_dir() {
                out.push(v.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn rendering_gives_the_dependencies_the_bundles_declare() {
    let set = load("bundle-dirs", DIRS);
    let mut checked = 0;
    for dir in bundle_dirs() {
        let csv_file = std::fs::read_dir(dir.join("manifests"))
            .expect("manifests")
            .flatten()
            .map(|e| e.path())
            .find(|p| first_doc(p)["kind"] == "ClusterServiceVersion")
            .expect("a CSV");
        let csv = first_doc(&csv_file);
        let b = bundle(&set, csv["metadata"]["name"].as_str().expect("name"));
        let required = gvks(&set, &b.requires_gvks);
        let reqs = packages(b);
        for crd in csv["spec"]["customresourcedefinitions"]["required"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let (_, group) = crd["name"]
                .as_str()
                .and_then(|n| n.split_once('.'))
                .expect("plural.group");
            let gvk = format!(
                "{group}/{}/{}",
                crd["version"].as_str().unwrap_or(""),
                crd["kind"].as_str().unwrap_or("")
            );
            assert!(
                required.contains(&gvk),
                "{}: {gvk} not in {required:?}",
                b.name
            );
        }
        for file in std::fs::read_dir(dir.join("metadata"))
            .expect("metadata")
            .flatten()
        {
            for dep in first_doc(&file.path())["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let v = &dep["value"];
                let text = |k: &str| v[k].as_str().unwrap_or("").trim().to_string();
                match dep["type"].as_str() {
                    Some("olm.package") => {
                        let want = format!("{} {}", text("packageName"), text("version"));
                        assert!(reqs.contains(&want), "{}: {want} not in {reqs:?}", b.name);
                    }
                    Some("olm.gvk") => {
                        let want =
                            format!("{}/{}/{}", text("group"), text("version"), text("kind"));
                        assert!(
                            required.contains(&want),
                            "{}: {want} not in {required:?}",
                            b.name
                        );
                    }
                    other => panic!("{}: unexpected dependency type {other:?}", b.name),
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 13, "dependencies checked");
}

#[test]
fn each_metadata_quirk_is_rendered() {
    let set = load("bundle-dirs", DIRS);
    // pelorus-operator keeps its `dependencies:` in metadata/properties.yaml.
    let pelorus = bundle(&set, "pelorus-operator.v0.0.9");
    assert_eq!(
        packages(pelorus),
        ["grafana-operator 4.8.0", "prometheus 0.47.0"]
    );
    // ndmspc-operator names its file metadata/dependency.yaml, with keys opm drops.
    let ndmspc = bundle(&set, "ndmspc-operator.v0.20250209.0");
    assert_eq!(
        packages(ndmspc),
        ["knative-operator >=1.17.0", "sailoperator >=0.2.0"]
    );
    // ndmspc-operator/0.7.2/ holds version 0.7.1: the CSV counts, not the directory.
    assert_eq!(
        bundle(&set, "ndmspc-operator.v0.7.1").version.to_string(),
        "0.7.1"
    );
    // l5-operator's dependencies.yaml starts with an empty document (`---`).
    let l5 = bundle(&set, "l5-operator.v0.0.2");
    assert_eq!(packages(l5), ["crunchy-postgres-operator 5.1.0"]);
    assert_eq!(
        gvks(&set, &l5.requires_gvks),
        ["postgres-operator.crunchydata.com/v1beta1/PostgresCluster"]
    );
}

#[test]
fn csv_properties_crd_versions_and_channel_entries_are_rendered() {
    let set = load("bundle-dirs", DIRS);
    // dbaas-operator: a range, and an olm.constraint passed through from properties.yaml.
    let dbaas = bundle(&set, "dbaas-operator.v0.5.0");
    assert_eq!(packages(dbaas), ["ack-rds-controller >=0.0.27 <=0.1.3"]);
    assert_eq!(dbaas.constraints.len(), 1);
    assert!(
        dbaas.constraints[0]
            .get()
            .contains("rh-service-binding-operator")
    );
    assert_eq!(
        gvks(&set, &dbaas.provides).len(),
        12,
        "6 CRDs with 2 versions each"
    );
    // awss3 1.0.0: the CSV annotation olm.properties; v1beta1 CRDs (spec.version).
    let awss3 = bundle(&set, "awss3operator.1.0.0");
    let props: Vec<(&str, &str)> = awss3
        .properties
        .iter()
        .map(|p| (p.kind.as_str(), p.value.get()))
        .collect();
    assert_eq!(props, [("olm.maxOpenShiftVersion", "\"4.8\"")]);
    assert_eq!(
        gvks(&set, &awss3.provides),
        [
            "objectbucket.io/v1alpha1/ObjectBucket",
            "objectbucket.io/v1alpha1/ObjectBucketClaim"
        ]
    );
    // node-healthcheck-operator: an olm.gvk dependency, a skipRange on the channel entry.
    let nhc = bundle(&set, "node-healthcheck-operator.v0.8.0");
    assert_eq!(
        gvks(&set, &nhc.requires_gvks),
        ["self-node-remediation.medik8s.io/v1alpha1/SelfNodeRemediation"]
    );
    let pkg = set.package_id("node-healthcheck-operator").expect("pkg");
    let stable = set
        .package_entries(pkg)
        .flat_map(|p| &p.channels)
        .find(|c| c.name == "stable")
        .expect("stable");
    let names: Vec<&str> = stable.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "node-healthcheck-operator.v0.7.0",
            "node-healthcheck-operator.v0.8.0"
        ]
    );
    assert_eq!(
        stable.entries[1]
            .skip_range
            .as_ref()
            .map(|r| r.to_string())
            .as_deref(),
        Some(">=0.6.0 <0.8.1")
    );
}

#[test]
fn the_package_name_comes_from_the_annotation_and_only_the_first_document_counts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // A real bundle under a directory named otherwise, with a CRD appended to its CSV file
    // as a second document.
    let dir = tmp.path().join("operators/pelorus/next");
    copy_dir(Path::new("tests/bundle-dirs/pelorus-operator/0.0.9"), &dir);
    let csv = dir.join("manifests/pelorus-operator.clusterserviceversion.yaml");
    let mut text = std::fs::read_to_string(&csv).expect("csv");
    text.push_str("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: extra.io\n  names: {kind: Extra, plural: extras}\n  versions: [{name: v1}]\n");
    std::fs::write(&csv, text).expect("write");
    let set = load("operators", tmp.path().join("operators"));
    let b = bundle(&set, "pelorus-operator.v0.0.9");
    assert_eq!(set.package_name(b.package), "pelorus-operator");
    assert_eq!(
        gvks(&set, &b.provides),
        ["charts.pelorus.dora-metrics.io/v1alpha1/Pelorus"],
        "the CRD in the CSV file's second document is not read"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read").flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).expect("copy");
        }
    }
}

/// Everything typed about a bundle, as text.
fn fingerprint(set: &CatalogSet, b: &Bundle) -> String {
    let json = |raw: &str| serde_json::from_str::<Value>(raw).expect("json");
    let props: Vec<(&str, Value)> = b
        .properties
        .iter()
        .map(|p| (p.kind.as_str(), json(p.value.get())))
        .collect();
    let constraints: Vec<Value> = b.constraints.iter().map(|c| json(c.get())).collect();
    format!(
        "{} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        set.package_name(b.package),
        b.version,
        gvks(set, &b.provides),
        gvks(set, &b.requires_gvks),
        packages(b),
        b.labels,
        b.requires_labels,
        constraints,
        props
    )
}

#[test]
fn same_bundles_as_the_converted_community_catalog() {
    // catalogs/community-converted-v4.22 was converted from the same bundle directories by
    // an opm-like converter; the bundles it has must load identically.
    let rendered = load("bundle-dirs", DIRS);
    let converted = load("community", COMMUNITY);
    let mut compared = 0;
    for b in &rendered.bundles {
        let Some(c) = converted.bundles.iter().find(|c| c.name == b.name) else {
            continue;
        };
        assert_eq!(
            fingerprint(&rendered, b),
            fingerprint(&converted, c),
            "{}",
            b.name
        );
        compared += 1;
    }
    assert!(compared >= 7, "{compared} bundles compared");
}

#[test]
fn catalog_render_output() {
    let json = deppy(&["catalog", "render", DIRS]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(true);
    settings.bind(|| insta::assert_snapshot!("render_tests_bundle_dirs_json", stdout(&json)));
    let warnings = stderr(&json);
    assert!(
        warnings.contains(
            "dependency.yaml:1 (document 1), field `dependencies[1].value`: channel ignored"
        ),
        "{warnings}"
    );
    // Byte-identical on every run; YAML and JSON load to the same catalog.
    assert_eq!(stdout(&deppy(&["catalog", "render", DIRS])), stdout(&json));
    let yaml = deppy(&["catalog", "render", DIRS, "-o", "yaml"]);
    assert_eq!(yaml.status.code(), Some(0));
    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, out) in [("a.json", &json), ("a.yaml", &yaml)] {
        std::fs::write(tmp.path().join(name), &out.stdout).expect("write");
    }
    let inspect = |p: &Path| {
        stdout(&deppy(&[
            "catalog",
            "inspect",
            &p.to_string_lossy(),
            "-o",
            "json",
        ]))
    };
    assert_eq!(
        inspect(&tmp.path().join("a.json")),
        inspect(&tmp.path().join("a.yaml"))
    );
    // Several directories at once; the same directory twice counts once.
    let two = deppy(&[
        "catalog",
        "render",
        "tests/bundle-dirs/l5-operator/0.0.2",
        "tests/bundle-dirs/l5-operator",
        "tests/bundle-dirs/mercury-operator/1.0.2",
    ]);
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
    assert_eq!(
        stdout(&two).matches("\"schema\": \"olm.bundle\"").count(),
        2
    );
    let bad = deppy(&["catalog", "render", "catalogs/odf-dev"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("not a bundle directory"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn render_then_resolve_equals_resolving_the_directories() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Named like the directory, so that both catalogs are called `bundle-dirs`.
    let rendered = tmp.path().join("bundle-dirs.json");
    let out = deppy(&["catalog", "render", DIRS]);
    std::fs::write(&rendered, &out.stdout).expect("write");
    let rendered_arg = format!("{}:100", rendered.display());
    let requests: &[&[&str]] = &[
        &["pelorus-operator"],
        &[
            "dbaas-operator",
            "node-healthcheck-operator",
            "mercury-operator",
        ],
        &["l5-operator"],
        &["awss3-operator-registry", "ndmspc-operator"],
    ];
    for require in requests {
        let run = |catalog: &str, output: &str| {
            let mut args = vec![
                "resolve",
                "--catalog",
                COMMUNITY,
                "--catalog",
                catalog,
                "-o",
                output,
            ];
            for r in *require {
                args.extend(["--require", r]);
            }
            if output == "text" {
                args.extend(["--explain", "full"]);
            }
            deppy(&args)
        };
        for output in ["json", "text"] {
            let direct = run("tests/bundle-dirs:100", output);
            let via_file = run(&rendered_arg, output);
            assert_eq!(direct.status.code(), via_file.status.code(), "{require:?}");
            assert!(
                matches!(direct.status.code(), Some(0 | 1)),
                "{require:?}: {}",
                stderr(&direct)
            );
            // Warnings name the file they come from: the rendered path or the JSON file.
            let answer = |o: &Output| match output {
                "json" => {
                    let mut v: Value = serde_json::from_slice(&o.stdout).expect("json");
                    v["warnings"] = Value::Null;
                    v.to_string()
                }
                _ => stdout(o),
            };
            assert_eq!(answer(&direct), answer(&via_file), "{require:?} {output}");
        }
    }
}

#[test]
fn an_unpublished_bundle_against_published_catalogs() {
    // The command: a bundle directory next to an FBC catalog.
    let o = deppy(&[
        "resolve",
        "--catalog",
        "catalogs/certified-v4.22",
        "--catalog",
        "tests/bundle-dirs/l5-operator/0.0.2:100",
        "--require",
        "l5-operator",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    let picked: Vec<String> = v["selected"]
        .as_array()
        .expect("selected")
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["bundle"].as_str().unwrap_or(""),
                s["catalog"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        picked,
        [
            "postgresoperator.v5.1.0 certified-v4.22",
            "l5-operator.v0.0.2 0.0.2"
        ]
    );
    // Without the catalog that has its dependency: explanations as usual.
    let o = deppy(&[
        "resolve",
        "--catalog",
        "catalogs/community-v4.22",
        "--catalog",
        "tests/bundle-dirs/l5-operator:100",
        "--require",
        "l5-operator",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("l5-operator.v0.0.2 requires package crunchy-postgres-operator at versions 5.1.0, and no bundle in the catalogs provides it"), "{}", stdout(&o));
}

#[test]
fn the_readme_loop_upgrades_a_published_bundle_to_an_unpublished_one() {
    let o = deppy(&[
        "resolve",
        "--catalog",
        COMMUNITY,
        "--catalog",
        "catalogs/bundle-dirs/my-bundle:100",
        "--require",
        "pelorus-operator",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    let row = |s: &Value| {
        format!(
            "{} {} {}",
            s["bundle"].as_str().unwrap_or(""),
            s["catalog"].as_str().unwrap_or(""),
            s["action"].as_str().unwrap_or("")
        )
    };
    let rows: Vec<String> = v["selected"]
        .as_array()
        .expect("selected")
        .iter()
        .map(row)
        .collect();
    assert_eq!(
        rows,
        [
            "grafana-operator.v4.10.1 community-converted-v4.22 install",
            "pelorus-operator.v0.0.10 my-bundle install",
            "prometheusoperator.0.47.0 community-converted-v4.22 install",
        ]
    );
    let o = deppy(&[
        "resolve",
        "catalogs/bundle-dirs/upgrade-request.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    let pelorus = &v["selected"][1];
    assert_eq!(
        (
            pelorus["bundle"].as_str(),
            pelorus["action"].as_str(),
            pelorus["from"].as_str(),
            pelorus["via"].as_str()
        ),
        (
            Some("pelorus-operator.v0.0.10"),
            Some("upgrade"),
            Some("pelorus-operator.v0.0.9"),
            Some("replaces")
        )
    );
}

#[test]
fn a_trace_replays_without_the_bundle_directories() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("my-bundle");
    copy_dir(Path::new("catalogs/bundle-dirs/my-bundle"), &dir);
    let trace = tmp.path().join("trace.jsonl");
    let catalog = format!("{}:100", dir.display());
    let args = [
        "resolve",
        "--catalog",
        COMMUNITY,
        "--catalog",
        &catalog,
        "--require",
        "pelorus-operator",
        "-o",
        "json",
    ];
    let first = deppy(&[&args[..], &["--trace", &trace.to_string_lossy()]].concat());
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    std::fs::remove_dir_all(&dir).expect("rm");
    let replay = deppy(&["replay", &trace.to_string_lossy(), "-o", "json"]);
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    assert_eq!(stdout(&replay), stdout(&first));
}
