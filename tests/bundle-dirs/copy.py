#!/usr/bin/env python3
"""Copies the bundle directories the tests use from ../shared/catalogs/bundle-dirs, stripped.

    python3 tests/bundle-dirs/copy.py ../shared/catalogs/bundle-dirs

Everything under metadata/ is copied byte for byte (its quirks are what the tests are about).
CustomResourceDefinition manifests keep only what rendering reads (apiVersion, kind,
metadata.name, spec.group, spec.names, spec.scope, spec.version, spec.versions[].name /
served / storage); ClusterServiceVersion manifests are copied as text with the base64 icon
data emptied. Other manifests are copied as they are; tests/ and bundle.Dockerfile are left out.
"""
import os
import re
import shutil
import sys

import yaml

BUNDLES = [
    "awss3-operator-registry/1.0.0",
    "awss3-operator-registry/1.0.1",
    "dbaas-operator/0.5.0",
    "l5-operator/0.0.2",
    "mercury-operator/1.0.2",
    "ndmspc-operator/0.7.2",
    "ndmspc-operator/0.20250209.0",
    "node-healthcheck-operator/0.7.0",
    "node-healthcheck-operator/0.8.0",
    "pelorus-operator/0.0.8",
    "pelorus-operator/0.0.9",
]
EXTRA = ["node-healthcheck-operator/ci.yaml", "pelorus-operator/ci.yaml"]


def strip_crd(doc):
    spec = doc.get("spec", {})
    out_spec = {k: spec[k] for k in ("group", "names", "scope", "version") if k in spec}
    if "versions" in spec:
        out_spec["versions"] = [
            {k: v[k] for k in ("name", "served", "storage") if k in v} for v in spec["versions"]
        ]
    return {
        "apiVersion": doc.get("apiVersion"),
        "kind": doc["kind"],
        "metadata": {"name": doc.get("metadata", {}).get("name")},
        "spec": out_spec,
    }


def copy_manifest(src, dst):
    with open(src, encoding="utf-8") as f:
        text = f.read()
    first = next((d for d in yaml.safe_load_all(text) if d is not None), None)
    kind = first.get("kind") if isinstance(first, dict) else None
    if kind == "CustomResourceDefinition":
        with open(dst, "w", encoding="utf-8") as f:
            yaml.safe_dump(strip_crd(first), f, sort_keys=False)
    elif kind == "ClusterServiceVersion":
        text = re.sub(r"(base64data: *)\S{200,}", r"\1''", text)
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        shutil.copyfile(src, dst)


def main(src_root):
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in BUNDLES:
        src, dst = os.path.join(src_root, rel), os.path.join(here, rel)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(os.path.join(src, "metadata"), os.path.join(dst, "metadata"))
        os.makedirs(os.path.join(dst, "manifests"))
        for name in sorted(os.listdir(os.path.join(src, "manifests"))):
            copy_manifest(os.path.join(src, "manifests", name), os.path.join(dst, "manifests", name))
    for rel in EXTRA:
        shutil.copyfile(os.path.join(src_root, rel), os.path.join(here, rel))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/catalogs/bundle-dirs")
