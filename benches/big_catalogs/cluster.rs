//! The `deppy cluster resolve` rows of the big-catalogs bench: a state with four
//! CatalogSources bound to the four parts of x80 and a Subscription in each of four
//! namespaces, without CRDs and with one (whose check reads the bundles' `olm.bundle.object`
//! values: kept in memory without a cache, read back from it with one).

use std::path::{Path, PathBuf};

use super::{PARTS, PER_PART, REPLICA, REQUIRE, Rename, fmt_peak, line, three_ways};

/// A CRD the state holds, so that the check runs (the bundles' own group is not renamed).
const CRD: &str = "- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata: {name: exchanges.rabbitmq.com}\n  spec: {group: rabbitmq.com, scope: Namespaced, names: {kind: Exchange, plural: exchanges}, versions: [{name: v1beta1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}\n  status: {storedVersions: [v1beta1]}\n";

fn state(dir: &Path, crds: bool) -> PathBuf {
    let mut items = Vec::new();
    for part in 0..PARTS {
        items.push(format!(
            "- apiVersion: operators.coreos.com/v1alpha1\n  kind: CatalogSource\n  metadata: {{name: big-{part}, namespace: openshift-marketplace}}\n  spec: {{sourceType: grpc, image: example.com/big:{part}}}\n"
        ));
    }
    for part in 0..PARTS {
        let pkg = Rename(part * PER_PART + REPLICA).package(REQUIRE);
        items.push(format!(
            "- apiVersion: operators.coreos.com/v1\n  kind: OperatorGroup\n  metadata: {{name: og, namespace: ns{part}}}\n  spec: {{}}\n- apiVersion: operators.coreos.com/v1alpha1\n  kind: Subscription\n  metadata: {{name: s{part}, namespace: ns{part}}}\n  spec: {{channel: stable, name: {pkg}, source: big-{part}, sourceNamespace: openshift-marketplace}}\n"
        ));
    }
    if crds {
        items.push(CRD.to_string());
    }
    let name = if crds {
        "cluster-crds.yaml"
    } else {
        "cluster.yaml"
    };
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: List\nmetadata: {{resourceVersion: \"\"}}\nitems:\n{}",
            items.concat()
        ),
    )
    .expect("state");
    path
}

/// Times the three ways and prints them next to their targets; `floor` is x80's
/// `serde_json::Value` floor on two threads with its bytes.
pub(super) fn rows(out: &Path, cache_root: &Path, runs: usize, floor: (f64, u64), crds: bool) {
    let x80 = out.join("x80");
    let state = state(out, crds);
    let mut cargs = vec![
        "cluster".to_string(),
        "resolve".into(),
        state.display().to_string(),
    ];
    for part in 0..PARTS {
        cargs.push("--catalog".into());
        cargs.push(format!(
            "openshift-marketplace/big-{part}={}",
            x80.join(format!("part{part}")).display()
        ));
    }
    cargs.extend(["--global-namespace".into(), "openshift-marketplace".into()]);
    cargs.extend(["-o".into(), "json".into()]);
    let (tag, with) = match crds {
        true => ("cluster, CRDs", ", a CRD to check"),
        false => ("cluster", ""),
    };
    println!(
        "\ndeppy cluster resolve, four namespaces, four bound catalogs (x80 as four parts){with}"
    );
    let dir = cache_root.join(if crds { "cluster-crds" } else { "cluster" });
    let [cold, fill, warm] = three_ways(&cargs, &dir, runs.min(5));
    let (floor_ms, bytes) = floor;
    line(
        &format!("{tag}: cold"),
        format!("{:.0} ms {} MB", cold.0, fmt_peak(cold.1)),
        format!(
            "<= 1.2x floor: {:.2}x; peak <= 0.6x catalogs: {}",
            cold.0 / floor_ms,
            cold.1.map_or("n/a".into(), |p| format!(
                "{:.2}x",
                p / (bytes as f64 / 1e6)
            ))
        ),
    );
    line(
        &format!("{tag}: cold, filling the cache"),
        format!("{:.0} ms {} MB", fill.0, fmt_peak(fill.1)),
        "(no target)".into(),
    );
    line(
        &format!("{tag}: warm"),
        format!("{:.1} ms {} MB", warm.0, fmt_peak(warm.1)),
        format!(
            "<= {:.0} ms and <= {:.0} MB (1.2x the x20 warm target)",
            1.2 * 100.0,
            1.2 * 60.0
        ),
    );
}
