#!/usr/bin/env python3
"""Whole-process wall times of `deppy resolve` with a warm --cache-dir, with the datalog node's
onDemandFrom at 1e9 (the whole program, as before it derived on demand) and at its default,
against `deppy-compare resolvo-file` on the same catalog file: one untimed run of each first
(fills the cache, checks that both deppy reports are byte-identical), then N rounds, the three
commands alternated in each; medians.

    DEPPY=target/release/deppy HARNESS=path/to/deppy-compare WHOLE=whole.yaml \
        python3 bench/compare/process_times.py N DIR...

DIR: an instance written by `deppy-compare gen ... --out DIR`. WHOLE: `deppy pipeline show`
with `onDemandFrom: 1000000000` added to the `derive` (datalog) node. OTHER (optional): another
`deppy` binary (say, a build of an earlier commit), timed in the same rounds with the default
pipeline as a fourth command; its report must be byte-identical too."""
import os, subprocess, sys, time, statistics, json

n = int(sys.argv[1]); dirs = sys.argv[2:]
deppy, harness, whole = os.environ["DEPPY"], os.environ["HARNESS"], os.environ["WHOLE"]
other = os.environ.get("OTHER")

def cmds(d):
    req = os.path.join(d, "request.yaml")
    cache = os.path.join(d, "deppy-cache")
    return {
        "before (onDemandFrom 1e9)": [deppy, "resolve", req, "-o", "json", "--cache-dir", cache, "--pipeline", whole],
        "after (default, 500)": [deppy, "resolve", req, "-o", "json", "--cache-dir", cache],
        "resolvo lazy process": [harness, "resolvo-file", "--catalog", os.path.join(d, "catalog/catalog.json"), "--roots", os.path.join(d, "libsolv/roots.txt")],
    } | ({"OTHER (default)": [other, "resolve", req, "-o", "json", "--cache-dir", cache]} if other else {})

def run(c):
    t = time.perf_counter()
    p = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return (time.perf_counter() - t) * 1000, p

for d in dirs:
    cs = cmds(d)
    outs = {}
    for k, c in cs.items():  # untimed warm-up: fills the cache
        _, p = run(c); outs[k] = p.stdout
    same = outs["before (onDemandFrom 1e9)"] == outs["after (default, 500)"]
    if other:
        same = same and outs["OTHER (default)"] == outs["after (default, 500)"]
    status = json.loads(outs["after (default, 500)"]).get("status")
    sel = len(json.loads(outs["after (default, 500)"]).get("selected", []))
    times = {k: [] for k in cs}
    for _ in range(n):
        for k, c in cs.items():
            ms, p = run(c); times[k].append(ms)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{d}: status {status}, {sel} selected, reports identical: {same}")
    for k, v in times.items():
        print(f"  {k:28s} median {med[k]:8.1f} ms  min {min(v):8.1f}  max {max(v):8.1f}")
    r = med["resolvo lazy process"]
    print(f"  after/before {med['after (default, 500)']/med['before (onDemandFrom 1e9)']:.2f}  before/resolvo {med['before (onDemandFrom 1e9)']/r:.2f}  after/resolvo {med['after (default, 500)']/r:.2f}")
    if other:
        o = med["OTHER (default)"]
        print(f"  after/OTHER {med['after (default, 500)']/o:.2f}  OTHER/resolvo {o/r:.2f}")
    sys.stdout.flush()
