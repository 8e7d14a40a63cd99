#!/usr/bin/env python3
"""Regenerates deppy's shipped catalogs from the real catalogs they were copied from.

    python3 catalogs/strip.py ../shared/catalogs

For each folder below, copies the listed packages' catalog files (all of them for "*"), dropping the heavy parts
deppy never reads: bundle properties of type `olm.csv.metadata` and `olm.bundle.object`, and
the `icon` of `olm.package` documents. Files with nothing to drop are copied byte for byte;
stripped YAML files are re-written with sorted keys (as opm writes them). `odf-dev` is copied
whole, and `heavy/` gets a few small files unstripped to exercise the heavy-property path.
Needs PyYAML (`pip install pyyaml`).
"""

import json
import os
import shutil
import sys

import yaml

STRIPPED = {
    # "*": every package of the folder.
    "community-v4.22": "*",
    "certified-v4.22": "*",
    "community-converted-v4.22": [
        "dbaas-operator",
        "ack-rds-controller",
        "service-binding-operator",
        "mercury-operator",
        "camel-k",
        "strimzi-kafka-operator",
        "cert-manager",
        "prometheus",
        "pelorus-operator",
        "grafana-operator",
        "eclipse-amlen-operator",
        "node-healthcheck-operator",
        "self-node-remediation",
        "kuadrant-operator",
        "authorino-operator",
        "cluster-aas-operator",
        "argocd-operator",
        "l5-operator",
        "keycloak-operator",
    ],
    "certified-converted-v4.22": [
        "cilium",
        "cilium-enterprise",
        "lightbits-operator",
        "tvo-operator",
        "infoscale-sds-operator",
        "infoscale-licensing-operator",
        "tenant-operator",
        "hibernation-operator",
        "mto-dependencies-operator",
        "ibm-data-reporter-operator",
        "ibm-metrics-operator",
        "instana-agent-operator",
    ],
}

# (source folder, package, file name in heavy/, format): copied unstripped.
HEAVY = [
    ("community-v4.22", "nfs-provisioner-operator", "nfs-provisioner-operator.yaml", "yaml"),
    ("certified-v4.22", "minio-minkms-operator", "minio-minkms-operator.json", "json"),
]

HEAVY_TYPES = {"olm.csv.metadata", "olm.bundle.object"}


def read_docs(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        dec, i, docs = json.JSONDecoder(), 0, []
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                return docs
            doc, i = dec.raw_decode(text, i)
            docs.append(doc)
    return [d for d in yaml.load_all(text, Loader=yaml.SafeLoader) if d is not None]


def strip(doc):
    """Returns True when something was dropped."""
    changed = False
    if doc.get("schema") == "olm.package" and "icon" in doc:
        del doc["icon"]
        changed = True
    if doc.get("schema") == "olm.bundle":
        props = doc.get("properties") or []
        kept = [p for p in props if p.get("type") not in HEAVY_TYPES]
        if len(kept) != len(props):
            doc["properties"] = kept
            changed = True
    return changed


def write_docs(docs, path, fmt):
    with open(path, "w", encoding="utf-8") as f:
        if fmt == "json":
            for d in docs:
                f.write(json.dumps(d, indent=2, ensure_ascii=False, default=str))
                f.write("\n")
        else:
            for d in docs:
                f.write("---\n")
                f.write(yaml.safe_dump(d, sort_keys=True, allow_unicode=True, width=1 << 16))


def copy_package(src_root, folder, pkg, dest_root):
    src_dir = os.path.join(src_root, folder, pkg)
    dest_dir = os.path.join(dest_root, folder, pkg)
    os.makedirs(dest_dir, exist_ok=True)
    for name in sorted(os.listdir(src_dir)):
        src = os.path.join(src_dir, name)
        dest = os.path.join(dest_dir, name)
        docs = read_docs(src)
        changed = [strip(d) for d in docs]
        if any(changed):
            write_docs(docs, dest, "json" if name.endswith(".json") else "yaml")
        else:
            shutil.copyfile(src, dest)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src_root = sys.argv[1]
    dest_root = os.path.dirname(os.path.abspath(__file__))
    for folder, pkgs in STRIPPED.items():
        shutil.rmtree(os.path.join(dest_root, folder), ignore_errors=True)
        if pkgs == "*":
            pkgs = sorted(os.listdir(os.path.join(src_root, folder)))
        for pkg in pkgs:
            copy_package(src_root, folder, pkg, dest_root)
    shutil.rmtree(os.path.join(dest_root, "odf-dev"), ignore_errors=True)
    shutil.copytree(os.path.join(src_root, "odf-dev"), os.path.join(dest_root, "odf-dev"))
    heavy = os.path.join(dest_root, "heavy")
    shutil.rmtree(heavy, ignore_errors=True)
    os.makedirs(heavy)
    for folder, pkg, name, fmt in HEAVY:
        src_dir = os.path.join(src_root, folder, pkg)
        src = os.path.join(src_dir, sorted(os.listdir(src_dir))[0])
        if src.endswith("." + fmt):
            shutil.copyfile(src, os.path.join(heavy, name))
        else:
            write_docs(read_docs(src), os.path.join(heavy, name), fmt)
    for root, dirs, files in os.walk(dest_root):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)


if __name__ == "__main__":
    main()
