#!/usr/bin/env python3
"""Catalog images: `deppy resolve --catalog docker://…` against the two-step alternative.

The community-v4.22 catalog (../shared/catalogs when present, else the stripped copy in
catalogs/) is built into an OCI image (one gzip layer under /configs, the configs label set)
and pushed with skopeo to Debian's docker-registry, started on 127.0.0.1 on a free port.

- cold: `deppy resolve --catalog community=docker://HOST/community:v4.22` with an empty cache,
  against `skopeo copy` of the image to an OCI layout, extraction of its layers with `tar`, and
  `deppy resolve --catalog community=DIR` (an empty catalog cache too). Target: <= 1.2x.
- warm: the image by digest, already in the image cache (and its files in the catalog cache),
  against `deppy resolve --catalog community=DIR` with a warm catalog cache. Target: <= 1.1x.

Both sides use --cache-dir (the image cache and the catalog cache), a fresh one per cold run.
Runs alternate between the two sides; medians are printed with their ratio.

    python3 bench/images/bench.py --deppy target/release/deppy [--repeats 11] [--catalog DIR]
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"


def blob(layout, data):
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(layout, "blobs", "sha256", digest), "wb") as f:
        f.write(data)
    return {"digest": "sha256:" + digest, "size": len(data)}


def build_layout(catalog, layout, tag):
    """An OCI layout holding the catalog as an image tagged `tag`."""
    os.makedirs(os.path.join(layout, "blobs", "sha256"))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        t.add(catalog, arcname="configs", recursive=True)
    layer = blob(layout, gzip.compress(buf.getvalue(), compresslevel=6, mtime=0))
    layer["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
    config = {"architecture": "amd64", "os": "linux",
              "config": {"Labels": {CONFIGS_LABEL: "/configs"}},
              "rootfs": {"type": "layers", "diff_ids": []}}
    cfg = blob(layout, json.dumps(config).encode())
    cfg["mediaType"] = "application/vnd.oci.image.config.v1+json"
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": cfg, "layers": [layer]}
    m = blob(layout, json.dumps(manifest).encode())
    m["mediaType"] = manifest["mediaType"]
    m["annotations"] = {"org.opencontainers.image.ref.name": tag}
    with open(os.path.join(layout, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion":"1.0.0"}')
    with open(os.path.join(layout, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [m]}, f)
    return m["digest"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_registry(tmp):
    port = free_port()
    config = os.path.join(tmp, "registry.yml")
    with open(config, "w") as f:
        f.write(f"version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\n"
                f"storage:\n  filesystem:\n    rootdirectory: {tmp}/storage\n"
                f"http:\n  addr: 127.0.0.1:{port}\n")
    proc = subprocess.Popen(["docker-registry", "serve", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return proc, f"127.0.0.1:{port}"
        except OSError:
            time.sleep(0.02)
    proc.kill()
    sys.exit("the registry did not start")


def timed(cmd, **kw):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


def extract(layout, tag, out):
    """What a user does after `skopeo copy`: read the manifest, untar the layers' configs."""
    with open(os.path.join(layout, "index.json")) as f:
        index = json.load(f)
    entry = next(m for m in index["manifests"]
                 if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag)
    with open(os.path.join(layout, "blobs", "sha256", entry["digest"][7:])) as f:
        manifest = json.load(f)
    os.makedirs(out)
    for layer in manifest["layers"]:
        path = os.path.join(layout, "blobs", "sha256", layer["digest"][7:])
        subprocess.run(["tar", "-xzf", path, "-C", out, "configs"], check=True)
    return os.path.join(out, "configs")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    shared = os.path.join(os.path.dirname(root), "shared", "catalogs", "community-v4.22")
    ap = argparse.ArgumentParser()
    ap.add_argument("--deppy", default=os.path.join(root, "target", "release", "deppy"))
    ap.add_argument("--catalog", default=shared if os.path.isdir(shared)
                    else os.path.join(root, "catalogs", "community-v4.22"))
    ap.add_argument("--require", default="infinispan")
    ap.add_argument("--repeats", type=int, default=11)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="deppy-image-bench-")
    proc = None
    try:
        layout = os.path.join(tmp, "layout")
        digest = build_layout(args.catalog, layout, "v4.22")
        proc, host = start_registry(tmp)
        ref = f"docker://{host}/community:v4.22"
        subprocess.run(["skopeo", "copy", "--insecure-policy", "--dest-tls-verify=false",
                        f"oci:{layout}:v4.22", ref], check=True, stdout=subprocess.DEVNULL)
        resolve = [args.deppy, "resolve", "--require", args.require]
        print(f"catalog {args.catalog}; image {ref} ({digest}); deppy {args.deppy}")
        cold_image, cold_steps, warm_image, warm_dir = [], [], [], []
        warm_cache = os.path.join(tmp, "warm")
        warm_dir_cache = os.path.join(tmp, "warm-dir")
        unpacked = None
        for i in range(args.repeats):
            c = os.path.join(tmp, f"cold-{i}")
            cold_image.append(timed(resolve + ["--catalog", f"community={ref}", "--cache-dir", c]))
            # skopeo copy + extraction + deppy resolve DIR
            start = time.perf_counter()
            dest = os.path.join(tmp, f"copy-{i}")
            subprocess.run(["skopeo", "copy", "--insecure-policy", "--src-tls-verify=false",
                            ref, f"oci:{dest}:v4.22"], check=True, stdout=subprocess.DEVNULL)
            unpacked = extract(dest, "v4.22", os.path.join(tmp, f"out-{i}"))
            subprocess.run(resolve + ["--catalog", f"community={unpacked}", "--cache-dir",
                                      os.path.join(tmp, f"cold-dir-{i}")],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            cold_steps.append(time.perf_counter() - start)
        by_digest = f"docker://{host}/community@{digest}"
        # The catalog cache hashes again a file changed within two seconds of its recording
        # ("racily clean"): the directory is left to settle, as one rendered earlier has.
        time.sleep(2.5)
        for cache, cmd in [(warm_cache, f"community={by_digest}"),
                           (warm_dir_cache, f"community={unpacked}")]:
            for _ in range(2):
                timed(resolve + ["--catalog", cmd, "--cache-dir", cache])
        for _ in range(args.repeats * 2 + 1):
            warm_image.append(timed(resolve + ["--catalog", f"community={by_digest}",
                                               "--cache-dir", warm_cache]))
            warm_dir.append(timed(resolve + ["--catalog", f"community={unpacked}",
                                             "--cache-dir", warm_dir_cache]))
        med = lambda xs: statistics.median(xs) * 1000
        print(f"cold: deppy resolve --catalog docker://…     median {med(cold_image):8.1f} ms")
        print(f"cold: skopeo copy + tar + deppy resolve DIR  median {med(cold_steps):8.1f} ms")
        print(f"cold ratio {med(cold_image) / med(cold_steps):.2f}x (target <= 1.2x)")
        print(f"warm: deppy resolve --catalog docker://…@digest median {med(warm_image):8.1f} ms")
        print(f"warm: deppy resolve DIR (warm catalog cache)   median {med(warm_dir):8.1f} ms")
        print(f"warm ratio {med(warm_image) / med(warm_dir):.2f}x (target <= 1.1x)")
    finally:
        if proc:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
