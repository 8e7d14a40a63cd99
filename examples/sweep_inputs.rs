//! Writes the inputs of the hostile-input sweep into a directory, so each row of
//! docs/reliability.md ("Resource bounds") can be measured again with the command it names:
//!
//! ```sh
//! cargo run --example sweep_inputs -- /tmp/sweep
//! cargo build --release
//! cd /tmp/sweep && /usr/bin/time -f '%e s %M KB' $REPO/target/release/deppy resolve \
//!   --catalog pigeons-14x13.json $(for i in $(seq 0 13); do echo --require p$i; done)
//! ```
//!
//! The inputs are made by the same functions the tests use (`tests/support/inputs.rs`).

#[path = "../tests/support/cluster_inputs.rs"]
mod cluster_inputs;
#[path = "../tests/support/inputs.rs"]
mod inputs;

use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    std::fs::write(dir.join(name), text)
}

/// `catalogs/bundle-dirs/my-bundle` copied to `to`, with an alias bomb ahead of its CSV.
fn csv_bomb(to: &Path) -> std::io::Result<()> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/bundle-dirs/my-bundle");
    for sub in ["manifests", "metadata"] {
        std::fs::create_dir_all(to.join(sub))?;
        for e in std::fs::read_dir(src.join(sub))? {
            let e = e?;
            let mut text = std::fs::read_to_string(e.path())?;
            if e.file_name()
                .to_string_lossy()
                .contains("clusterserviceversion")
            {
                text = format!("{}{text}", inputs::alias_bomb_yaml());
            }
            std::fs::write(to.join(sub).join(e.file_name()), text)?;
        }
    }
    Ok(())
}

/// A cluster dump directory `to/state` holding a state file, and what a walk must not read:
/// a FIFO, a dangling link and a link to `..` (whose `other.yaml` would be read twice over).
fn cluster_state(to: &Path) -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("tests/cluster/new-subscription/state/state.yaml"))?;
    let state = to.join("state");
    std::fs::create_dir_all(&state)?;
    std::fs::write(state.join("state.yaml"), &text)?;
    std::fs::write(
        to.join("other.yaml"),
        text.replace("channel: \"alpha\"", "channel: \"beta\""),
    )?;
    #[cfg(unix)]
    {
        for (target, link) in [("..", "up"), ("missing.yaml", "dangling.yaml")] {
            if std::fs::symlink_metadata(state.join(link)).is_err() {
                std::os::unix::fs::symlink(target, state.join(link))?;
            }
        }
        if !state.join("pipe.yaml").exists() {
            std::process::Command::new("mkfifo")
                .arg(state.join("pipe.yaml"))
                .status()?;
        }
    }
    let bomb = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\n{}",
        inputs::alias_bomb_yaml()
    );
    std::fs::write(to.join("bomb.yaml"), bomb)
}

/// The hostile cluster states of docs/reliability.md, in `to` (`cluster-*`).
fn hostile_cluster(to: &Path) -> std::io::Result<()> {
    use cluster_inputs as c;
    std::fs::create_dir_all(to)?;
    write(to, "list-2m.json", &c::empty_items_list(2_000_000))?;
    write(to, "docs-1500k.yaml", &c::empty_documents(1_500_000))?;
    write(to, "docs-900k.yaml", &c::empty_documents(900_000))?;
    write(to, "crs-400k.json", &c::databases(400_000, "apps", "n"))?;
    write(to, "big-cr.json", &c::big_database(12_000_000))?;
    write(to, "namespaces-100k.yaml", &c::many_namespaces(100_000))?;
    let crd = c::db_crd(1, "", true);
    write(to, "db-catalog.json", &c::db_catalog(&crd, &crd))?;
    // A CRD of 1,500 served versions, 1,500 objects of it, and a bundle shipping it again.
    let wide = c::db_crd(1_500, "^[a-z]+$", true);
    let mut state = format!("{}\n{}", c::DB_CATALOG_SOURCE, c::db_namespace("apps"));
    state.push_str(&format!("---\n{wide}\n"));
    write(to, "crd-wide-state.yaml", &state)?;
    write(to, "crd-wide-crs.json", &c::databases(1_500, "apps", "n0"))?;
    write(
        to,
        "crd-wide-catalog.json",
        &c::db_catalog(&wide, &c::db_crd(1_500, "^[a-z]+$", false)),
    )?;
    // A pattern with lookahead (JavaScript's syntax, not Go's) over 1,000 objects.
    let slow = c::db_crd(1, "^(?=(a+)+b)", true);
    let mut state = format!("{}\n{}", c::DB_CATALOG_SOURCE, c::db_namespace("apps"));
    state.push_str(&format!("---\n{slow}\n"));
    write(to, "crd-lookahead-state.yaml", &state)?;
    write(
        to,
        "crd-lookahead-crs.json",
        &c::databases(1_000, "apps", &"a".repeat(40)),
    )?;
    write(
        to,
        "crd-lookahead-catalog.json",
        &c::db_catalog(&slow, &c::db_crd(1, "^(?=(a+)+b)", false)),
    )?;
    write(to, "argo-100k.json", &c::long_channel_catalog(100_000))?;
    let ext = c::cluster_extension("argo", "packageName: argo, channels: [stable]")
        + "status: {install: {bundle: {name: argo.v0.0.5, version: 0.0.5}}}\n";
    write(to, "argo-extension.yaml", &ext)?;
    write(to, "csv-200k-apis.yaml", &c::csv_with_many_apis(200_000))?;
    let mut catalogs = c::cluster_catalogs(10_000);
    for i in 0..100 {
        catalogs.push_str(&c::cluster_extension(&format!("e{i}"), "packageName: argo"));
    }
    write(to, "catalogs-10k.yaml", &catalogs)
}

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: sweep_inputs DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir)?;
    write(
        &dir,
        "pigeons-14x13.json",
        &inputs::pigeonhole_catalog(14, 13),
    )?;
    write(
        &dir,
        "pigeons-15x14.json",
        &inputs::pigeonhole_catalog(15, 14),
    )?;
    write(&dir, "chain-2000.json", &inputs::chain_catalog(2_000))?;
    let l = inputs::literal(3_900);
    let rule = format!("{l}.exists(a, {l}.exists(b, a == 2 && b == 2))");
    write(&dir, "cel-literal.json", &inputs::cel_catalog(&rule, 3, 0))?;
    let rule =
        "properties.exists(p, properties.exists(q, p.type == 'x.tag' && q.type == 'x.none'))";
    write(
        &dir,
        "cel-properties.json",
        &inputs::cel_catalog(rule, 3, 10_000),
    )?;
    let l = inputs::literal(270);
    let rule = format!("{l}.exists(a, {l}.exists(b, a == 2 && b == 2))");
    write(&dir, "cel-slow.json", &inputs::cel_catalog(&rule, 2_000, 0))?;
    write(
        &dir,
        "model-chain-1000000.yaml",
        &inputs::model_chain_yaml(1_000_000),
    )?;
    write(
        &dir,
        "model-pigeons-12x11.yaml",
        &inputs::model_pigeonhole_yaml(12, 11),
    )?;
    // A byte that is not UTF-8 in a string deppy ignores.
    std::fs::write(
        dir.join("not-utf8.json"),
        b"{\"schema\":\"olm.package\",\"name\":\"x\",\"defaultChannel\":\"stable\",\"description\":\"caf\xe9\"}\n",
    )?;
    csv_bomb(&dir.join("csv-bomb"))?;
    cluster_state(&dir.join("cluster"))?;
    hostile_cluster(&dir.join("cluster-hostile"))?;
    println!("wrote the sweep's inputs to {}", dir.display());
    Ok(())
}
