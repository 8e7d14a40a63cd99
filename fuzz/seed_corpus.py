#!/usr/bin/env python3
"""Writes the seed files of fuzz/corpus/<target>/ (run from the repository root).

Provenance of every seed, by file-name prefix:
  catalog-*   a file (or a value harvested from a file) of catalogs/
  scenario-*  a scenario of tests/scenarios/ (its request, catalogs, problem or values)
  hostile-*   hand-written hostile input (deep nesting, huge numbers, bombs, long chains)
  crash-*     an input that made a target fail once (a regression case; never regenerated)

Only the hand-written seeds (hostile-*, and the regression and crash inputs this script does
not write) are kept in git. The derived seeds (catalog-*, scenario-*, harvested-*) are copies
of files the repository already holds: they are written before fuzzing, by fuzz/ci.sh and by
tests/fuzz_corpus.rs, with

  python3 fuzz/seed_corpus.py --derived --out DIR     # DIR/<target>/ derived seeds only

Without --out the seeds go to fuzz/corpus/ (where .gitignore keeps the derived ones out of
git). Files this script does not write are left alone. PyYAML is only used to *read* YAML for harvesting values; seed
catalogs are copied byte for byte.
"""

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
DERIVED = ("catalog-", "scenario-", "harvested-")
# Set from the command line in main().
options = argparse.Namespace(out=CORPUS, derived=False)
SEP = "\n%%\n"  # harness::PART_SEPARATOR
MAX_FILE = 60 * 1024
MAX_HOSTILE = 256 * 1024
TYPES = [
    "olm.constraint",
    "olm.all.required",
    "olm.any.required",
    "olm.none.required",
    "olm.package.required",
    "olm.gvk.required",
    "olm.label.required",
]

written = {}


def put(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > (MAX_HOSTILE if name.startswith("hostile-") else MAX_FILE):
        return
    if options.derived and not name.startswith(DERIVED):
        return
    digest = hashlib.sha1(data).hexdigest()
    key = (target, digest)
    if key in written:
        return
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
    path = Path(options.out) / target / f"{safe}-{digest[:8]}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    written[key] = path


def catalog_files(path):
    """Files of a catalog, as deppy walks them: sorted, hidden skipped."""
    if path.is_file():
        return [path]
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if not f.startswith(".") and f.endswith((".json", ".yaml", ".yml")):
                out.append(Path(dirpath) / f)
    return sorted(out)


def json_docs(text):
    dec = json.JSONDecoder()
    i, docs = 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def docs_of(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        if path.suffix == ".json":
            return json_docs(text)
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except Exception:
        return []


def one_catalog_text(files):
    """One file's worth of FBC from several: YAML documents joined by ---, JSON objects
    one per line (mixed sets become YAML, each JSON object one flow document)."""
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    if all(f.suffix == ".json" for f in files):
        return "\n".join(t.strip() for t in texts) + "\n"
    parts = []
    for f, t in zip(files, texts):
        if f.suffix == ".json":
            parts.extend(json.dumps(d) for d in json_docs(t))
        else:
            parts.append(t.strip().removeprefix("---").strip())
    return "---\n" + "\n---\n".join(parts) + "\n"


harvest = {"range": set(), "constraint": set(), "cel": set(), "version": set()}


def harvest_value(kind, value):
    if not isinstance(value, dict):
        return
    if kind in TYPES:
        idx = TYPES.index(kind)
        raw = json.dumps(value, separators=(",", ":"))
        harvest["constraint"].add(raw if idx == 0 else chr(idx) + raw)
    if kind in ("olm.package.required",) and isinstance(value.get("versionRange"), str):
        harvest["range"].add(value["versionRange"])
    if kind == "olm.package" and isinstance(value.get("version"), str):
        harvest["version"].add(value["version"])
    walk_constraint(value)


def walk_constraint(v):
    if isinstance(v, dict):
        cel = v.get("cel")
        if isinstance(cel, dict) and isinstance(cel.get("rule"), str):
            harvest["cel"].add(cel["rule"])
        if isinstance(v.get("source"), str):
            harvest["cel"].add(v["source"])
        pkg = v.get("package")
        if isinstance(pkg, dict) and isinstance(pkg.get("versionRange"), str):
            harvest["range"].add(pkg["versionRange"])
        for x in v.values():
            walk_constraint(x)
    elif isinstance(v, list):
        for x in v:
            walk_constraint(x)


def harvest_docs(docs):
    for d in docs:
        if not isinstance(d, dict):
            continue
        for p in d.get("properties") or []:
            if isinstance(p, dict):
                harvest_value(p.get("type"), p.get("value"))
        for e in d.get("entries") or []:
            if isinstance(e, dict) and isinstance(e.get("skipRange"), str):
                harvest["range"].add(e["skipRange"])


# ---- catalogs/ ---------------------------------------------------------------------------

def seed_catalogs():
    small_yaml = 0
    for f in sorted((ROOT / "catalogs").rglob("*")):
        if not f.is_file() or "bundle-dirs" in f.parts:
            continue
        rel = f.relative_to(ROOT / "catalogs")
        name = "catalog-" + "-".join(rel.parts)
        if f.suffix == ".json":
            harvest_docs(docs_of(f))
            if f.stat().st_size <= 40 * 1024:
                put("fbc_json", name, f.read_bytes())
                put("resolve", name, f.read_bytes())
        elif f.suffix in (".yaml", ".yml"):
            harvest_docs(docs_of(f))
            big = rel.parts[0] in ("certified-v4.22", "community-v4.22")
            if f.stat().st_size <= 30 * 1024 and (not big or small_yaml < 25):
                small_yaml += big
                put("fbc_yaml", name, f.read_bytes())
    odf = catalog_files(ROOT / "catalogs" / "odf-dev")
    text = one_catalog_text(odf)
    put("fbc_yaml", "catalog-odf-dev-all", text)
    for req in ["odf-dependencies", "ocs-client-operator", "cephcsi-operator"]:
        put("resolve", f"catalog-odf-dev-{req}", text + SEP + f"require: [{{package: {req}}}]\n")
    req = ROOT / "catalogs" / "bundle-dirs" / "upgrade-request.yaml"
    if req.is_file():
        put("request", "catalog-bundle-dirs-upgrade-request", req.read_bytes())


# ---- tests/scenarios/ --------------------------------------------------------------------

def seed_scenarios():
    base = ROOT / "tests" / "scenarios"
    for d in sorted(base.iterdir()):
        if not d.is_dir() or d.name.startswith("_"):
            continue
        name = "scenario-" + d.name
        problem = d / "problem.yaml"
        if problem.is_file():
            put("generic", name, problem.read_bytes())
        req = d / "request.yaml"
        if not req.is_file():
            continue
        rtext = req.read_text()
        put("request", name, rtext)
        try:
            r = yaml.safe_load(rtext) or {}
        except Exception:
            r = {}
        for c in r.get("constraints") or []:
            harvest["constraint"].add(json.dumps(c, separators=(",", ":")))
            walk_constraint(c)
        if r.get("cluster") is not None:
            harvest["constraint"].add(json.dumps(r["cluster"], separators=(",", ":")))
            walk_constraint(r["cluster"])
            props = (r["cluster"] or {}).get("properties") if isinstance(r["cluster"], dict) else None
            if isinstance(props, list):
                for rule in [
                    'properties.exists(p, p.type == "olm.kubeversion" && semver_compare(p.value.version, "1.25.0") >= 0)'
                ]:
                    put("cel", name + "-cluster", rule + "\0" + json.dumps(props))
        for q in r.get("require") or []:
            if isinstance(q, dict) and isinstance(q.get("versionRange"), str):
                harvest["range"].add(q["versionRange"])
        parts = []
        for c in r.get("catalogs") or []:
            files = catalog_files((d / c["path"]).resolve())
            for f in files:
                harvest_docs(docs_of(f))
                if f.suffix == ".json":
                    put("fbc_json", name + "-" + f.stem, f.read_bytes())
                else:
                    put("fbc_yaml", name + "-" + f.stem, f.read_bytes())
            if files:
                parts.append(one_catalog_text(files))
        if parts:
            put("resolve", name, SEP.join(parts) + SEP + rtext)


# ---- hostile input -------------------------------------------------------------------------

def bundle(pkg, ver, extra=""):
    return (
        f'{{"schema":"olm.bundle","name":"{pkg}.v{ver}","package":"{pkg}","image":"x",'
        f'"properties":[{{"type":"olm.package","value":{{"packageName":"{pkg}","version":"{ver}"}}}}{extra}]}}'
    )


def seed_hostile():
    deep = 100_000
    # FBC JSON
    j = {
        "empty": "",
        "bom": "\ufeff" + bundle("a", "1.0.0"),
        "deep-array": '{"schema":"olm.bundle","properties":' + "[" * deep + "]" * deep + "}",
        "deep-object": '{"schema":"olm.package","name":"a","x":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}",
        "no-schema": '{"name":"a"}',
        "wrong-types": '{"schema":"olm.channel","package":1,"name":[],"entries":{}}',
        "huge-version": bundle("a", "99999999999999999999999.0.0"),
        "bad-version": bundle("a", "not-a-version"),
        "dup-keys": '{"schema":"olm.package","name":"a","name":"b","defaultChannel":"x"}',
        "array-top": '[{"schema":"olm.package","name":"a"}]',
        "truncated": '{"schema":"olm.bundle","name":"a.v1","package":"a","properties":[{"type":"olm.package","value":{',
        "nul": '{"schema":"olm.package","name":"a\u0000b","defaultChannel":"s"}',
        "cycle": "\n".join([
            '{"schema":"olm.package","name":"a","defaultChannel":"s"}',
            '{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1.0.0","replaces":"a.v2.0.0"},{"name":"a.v2.0.0","replaces":"a.v1.0.0"}]}',
            bundle("a", "1.0.0"),
            bundle("a", "2.0.0"),
        ]),
        "self-skip": "\n".join([
            '{"schema":"olm.package","name":"a","defaultChannel":"s"}',
            '{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1.0.0","skips":["a.v1.0.0"],"skipRange":"<=1.0.0","replaces":"a.v1.0.0"}]}',
            bundle("a", "1.0.0"),
        ]),
        "heavy-props": bundle("a", "1.0.0", ',{"type":"olm.csv.metadata","value":{"x":' + "[" * 200 + "]" * 200 + '}},{"type":"olm.bundle.object","value":{"data":"AAAA"}}'),
        "null-values": bundle("a", "1.0.0", ',{"type":"olm.gvk","value":null},{"type":"olm.package.required"},{"type":null,"value":1}'),
        "constraint-deep": bundle("a", "1.0.0", ',{"type":"olm.constraint","value":' + '{"not":{"constraints":[' * 40 + '{"package":{"packageName":"b","versionRange":">=1"}}' + "]}}" * 40 + "}"),
        "float-version": '{"schema":"olm.bundle","name":"a","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":1.5e308}}]}',
        "deep-prop-126": bundle("a", "1.0.0", ',{"type":"x","value":' + "[" * 124 + "]" * 124 + "}"),
        "deep-unknown-127": '{"schema":"olm.bundle","x":' + "[" * 126 + "]" * 126 + "}",
        "deprecations": '{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1.0.0"},"message":"m"},{"reference":{"schema":"olm.channel","name":"s"}},{"reference":{"schema":"olm.package"}},{"reference":{}}]}\n' + bundle("a", "1.0.0"),
    }
    for k, v in j.items():
        put("fbc_json", "hostile-" + k, v)
        if len(v) < 20000:
            put("resolve", "hostile-" + k, v + SEP + "require: [{package: a}]\n")
    # FBC YAML
    y = {
        "empty": "",
        "only-separators": "---\n---\n---\n",
        "billion-laughs": "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nschema: olm.package\nname: a\n",
        "alias-schema": "schema: &s olm.package\nname: *s\ndefaultChannel: *s\n",
        "deep-flow": "schema: olm.bundle\nproperties: " + "[" * 20000 + "]" * 20000 + "\n",
        "deep-block": "schema: olm.bundle\nx:\n" + "".join(" " * i + "- \n" for i in range(1, 300)),
        "tabs": "schema:\tolm.package\nname:\ta\n",
        "tags": "schema: !!binary b2xtLnBhY2thZ2U=\nname: !custom a\n",
        "merge-keys": "base: &b {schema: olm.package, name: a}\n<<: *b\ndefaultChannel: s\n",
        "heavy-block": "schema: olm.bundle\nname: a.v1.0.0\npackage: a\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n    description: |\n      text\n      - type: olm.gvk\n    displayName: x\n- type: olm.gvk\n  value: {group: g, kind: K, version: v1}\n",
        "heavy-tricky": "schema: olm.bundle\nname: a.v1.0.0\npackage: a\nproperties:\n- type: olm.csv.metadata\n  value: &m\n    a: 1\n- type: olm.package\n  value: {packageName: a, version: 1.0.0}\n- type: olm.bundle.object\n  value: *m\n",
        "numbers-as-names": "schema: olm.package\nname: 1.10\ndefaultChannel: 010\n---\nschema: olm.channel\npackage: 1.10\nname: 0x10\nentries: [{name: 1e3}]\n",
        "unicode": "schema: olm.package\nname: \"\\u0000\\uFFFF\U0001F600\"\ndefaultChannel: \"\u200b\"\n",
        "doc-end": "schema: olm.package\nname: a\n...\n---\nschema: olm.package\nname: b\n...\n",
        "directives": "%YAML 1.2\n%TAG ! tag:x,2000:\n---\nschema: olm.package\nname: a\n",
        "null-doc": "~\n---\nnull\n---\n[]\n---\n1\n",
        # Just under and over the nesting budget, in an unknown field, a property value and a
        # flow collection (each overflowed a 2 MiB stack in unoptimized builds at depth 128).
        "deep-block-63": "schema: olm.bundle\nx:\n" + "".join(" " * i + "- \n" for i in range(1, 63)),
        "deep-block-65": "schema: olm.bundle\nx:\n" + "".join(" " * i + "- \n" for i in range(1, 66)),
        "deep-prop-63": "schema: olm.bundle\nname: a.v1.0.0\npackage: a\nproperties:\n- type: olm.package\n  value: {packageName: a, version: 1.0.0}\n- type: x\n  value:\n" + "".join(" " * (i + 3) + "- \n" for i in range(1, 61)),
        "deep-prop-130": "schema: olm.bundle\nname: a.v1.0.0\npackage: a\nproperties:\n- type: x\n  value:\n" + "".join(" " * (i + 3) + "- \n" for i in range(1, 130)),
        "deep-flow-63": "schema: olm.bundle\nx: " + "[" * 62 + "]" * 62 + "\n",
        "deep-flow-127": "schema: olm.bundle\nx: " + "[" * 127 + "]" * 127 + "\n",
    }
    for k, v in y.items():
        put("fbc_yaml", "hostile-" + k, v)
        put("resolve", "hostile-yaml-" + k, v + SEP + "require: [{package: a}]\n")
    # request
    r = {
        "empty": "",
        "json": '{"require":[{"package":"a","versionRange":">=1.0.0","channel":"s","bundle":"a.v1","catalog":"c"}],"installed":[{"bundle":"a.v0","package":"a","version":"0.1"}],"keepInstalled":true}',
        "unknown-field": "require: [{package: a, bogus: 1}]\n",
        "bad-range": "require: [{package: a, versionRange: '>>1'}]\n",
        "bad-version": "installed: [{bundle: a, package: a, version: x.y.z}]\n",
        "huge-lists": "require:\n" + "".join(f"- {{package: p{i}}}\n" for i in range(2000)),
        "deep-constraints": "constraints:\n- " + "{not: {constraints: [" * 60 + "{package: {packageName: a, versionRange: '*'}}" + "]}}" * 60 + "\n",
        "deep-cluster": "cluster: " + "[" * 5000 + "]" * 5000 + "\n",
        "cluster-configmap": 'cluster: {kind: ConfigMap, data: {properties: "[{\\"type\\":\\"olm.constraint\\",\\"value\\":{\\"evaluator\\":{\\"id\\":\\"cel\\"},\\"source\\":\\"true\\",\\"action\\":{\\"id\\":\\"require\\"}}}]"}}\n',
        "cluster-bad-json": "cluster: {kind: ConfigMap, data: {properties: '[{'}}\n",
        "spec-lines": "a/b@>=1.0.0\n/x@\n@@@\npkg/chan/extra@<2\n",
        "null-everything": "apiVersion: null\nkind: null\ncatalogs: null\nrequire: null\ninstalled: null\nkeepInstalled: null\nconstraints: null\ncluster: null\n",
        "installed-props": "installed: [{bundle: a, package: a, version: 1.0.0, properties: [{type: olm.gvk, value: {group: g}}, 1, null, {type: olm.gvk}]}]\n",
        "numbers": "require: [{package: 1, versionRange: 1.5}]\ninstalled: [{bundle: 1, package: 2, version: 1.0}]\n",
        "alias-bomb": "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nconstraints: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",
        "cel-costly": "constraints: [{action: require, cel: {rule: 'properties.exists(a, properties.exists(b, properties.exists(c, true)))'}}]\n",
    }
    for k, v in r.items():
        put("request", "hostile-" + k, v)
    # ranges
    ranges = [
        "", " ", "*", "x", "X", ">=1.0.0 <2.0.0 || >=3.0.0", "||", ">=1.0.0 ||", "|| <1.0.0",
        "1.0.0||2.0.0", ">= 1.18.0 < 1.28.0", "!= 1.2.1", "! 1.2.3", "!1.2.3", "1.2.3 - 2.0.0",
        "1.x.x", "1.2.x", ">1.x", "<=1.x", "!=1.x", "=1.x", "==1.2.3", "v1.2.3", ">=v1.2",
        "'>=1.0.0'", "\u201c>=1.0.0\u201d", "\u2018<2\u2019", ">=1.2", ">=01.02.03",
        ">=1.0.0-alpha.1+build.5 <1.0.0-beta", "99999999999999999999.0.0", ">=18446744073709551615.18446744073709551615.18446744073709551615",
        ">=1.0.0\t<2.0.0", ">=1.0.0\u00a0<2.0.0", ">=1.0.0\n<2.0.0", "<" * 1000 + "1.0.0",
        " ".join([">=1.0.0"] * 500), " || ".join(["1.0.0"] * 500), "1.0.0-" + "a." * 300 + "a",
        "1.0.0-01", "1.0.0-", "1.0.0+", "1..0", ".1.0", "1.0.0.0", "-1.0.0", "+1.0.0", ">=1.0.0 <", "<>1.0.0",
        "=>1.0.0", "=<1.0.0", "~1.0.0", "^1.0.0", "1.0.0 x", "x.x.x", "*.*", ">=*", "!*", "\u0000",
    ]
    ranges += sorted(harvest["range"])
    versions = sorted(harvest["version"])[:40]
    for i, rg in enumerate(ranges):
        extra = "\n".join(versions[i % max(1, len(versions)) :][:4])
        put("range", f"{'hostile' if i < 60 else 'catalog'}-range-{i}", rg + "\n" + extra + "\n1.0.0\nv1.2\n1.2.3-rc.1+b\n")
    # constraints
    c = {
        "deep-json": "[" * deep + "]" * deep,
        "deep-not": '{"not":{"constraints":[' * 40 + '{"gvk":{"group":"g","version":"v1","kind":"K"}}' + "]}}" * 40,
        "deep-all-31": '{"all":{"constraints":[' * 31 + '{"package":{"packageName":"etcd","versionRange":"*"}}' + "]}}" * 31,
        "empty-all": '{"all":{"constraints":[]}}',
        "two-predicates": '{"gvk":{"group":"g","version":"v","kind":"k"},"package":{"packageName":"a","versionRange":"*"}}',
        "unknown": '{"bogus":1}',
        "null": "null",
        "huge-message": '{"failureMessage":"' + "x" * 70000 + '","package":{"packageName":"a","versionRange":"*"}}',
        "cel-any": '{"any":{"constraints":[{"cel":{"rule":"properties.exists(p, p.type == \\"certified\\")"}},{"package":{"packageName":"etcd","versionRange":">=0.9.0"}}]}}',
        "none-legacy": '{"none":{"constraints":[{"package":{"packageName":"etcd","versionRange":"0.9.4"}}]}}',
        "admin-prohibit": '{"prohibit":{"channel":{"package":"etcd","name":"alpha"}},"failureMessage":"x"}',
        "admin-action-obj": '{"action":{"id":"conflict"},"package":{"packageName":"etcd","versionRange":"<1"}}',
        "cluster": '{"properties":[{"type":"olm.gvk","value":{"group":"etcd.database.coreos.com","version":"v1beta2","kind":"EtcdCluster"}},{"type":"olm.kubeversion","value":{"version":"1.28.3"}}],"constraints":[{"action":"require","cel":{"rule":"true"}}]}',
        "alias-any": "\x02" + '{"description":"d","constraints":[{"type":"olm.package.required","value":{"packageName":"etcd","versionRange":">=0.9.0"}},{"type":"olm.gvk.required","value":{"group":"g","version":"v","kind":"K"}}]}',
        "alias-deep": "\x01" + '{"constraints":[{"type":"olm.all.required","value":' * 40 + '{"constraints":[]}' + "}]}" * 40,
        "label": "\x06" + '{"label":"tier"}',
        "numbers": '{"package":{"packageName":1e400,"versionRange":-0}}',
    }
    for k, v in c.items():
        put("constraint", "hostile-" + k, v)
    for i, v in enumerate(sorted(harvest["constraint"])):
        put("constraint", f"harvested-{i}", v)
    # CEL
    props = json.dumps([
        {"type": "olm.package", "value": {"packageName": "etcd", "version": "0.9.4"}},
        {"type": "certified", "value": {}},
        {"type": "olm.maxOpenShiftVersion", "value": 4.22},
        {"type": "n", "value": [1, -1, 9223372036854775807, 18446744073709551615, 1.5, "s", None, True]},
    ])
    rules = {
        "true": "true",
        "exists": 'properties.exists(p, p.type == "certified")',
        "semver": 'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "0.9.2") >= 0)',
        "semver-bad": 'semver_compare("x", 1) == 0',
        "semver-arity": "semver_compare() == 0",
        "three-exists": "properties.exists(a, properties.exists(b, properties.exists(c, true)))",
        "two-exists": "properties.exists(a, properties.exists(b, a == b))",
        "chain": "1" + " + 1" * 3000 + " == 0",
        "chain-short": "1" + " + 1" * 1400 + " > 0",
        "parens": "(" * 40 + "true" + ")" * 40,
        "parens-31": "(" * 31 + "true" + ")" * 31,
        "unary": "!" * 5000 + "true",
        "neg": "-" * 3000 + "1 == 1",
        "overflow": "9223372036854775807 + 1 > 0",
        "div-zero": "1 / 0 == 0",
        "mod-zero": "1 % 0 == 0",
        "min-div": "-9223372036854775808 / -1 == 0",
        "index": "properties[100].type == 'x'",
        "neg-index": "properties[-1].type == 'x'",
        "key": "properties[0].value.nope == 1",
        "string-mul": '"a" * 3 == "aaa"',
        "size": "size(properties) > 0 && size('héllo') == 5",
        "regex": 'properties.exists(p, p.type.matches("^(a+)+$"))',
        "bad-regex": 'properties.exists(p, p.type.matches("("))',
        "map": "properties.map(p, p.type).filter(t, t != '').size() >= 0",
        "exists-one": "properties.exists_one(p, p.type == 'certified')",
        "all": "properties.all(p, has(p.value))",
        "has": "has(properties.x)",
        "ternary": "size(properties) > 2 ? true : false",
        "in": "'certified' in properties.map(p, p.type)",
        "list-literal": "[" + ",".join(["1"] * 2000) + "].size() > 0",
        "map-literal": "{" + ",".join(f"{i}: {i}" for i in range(500)) + "}.size() > 0",
        "unknown-ident": "foo == 1",
        "unknown-func": "nope(properties)",
        "non-bool": "1 + 1",
        "string": "'abc'",
        "bytes": "b'\\xff' == b'\\xff'",
        "uint": "18446744073709551615u + 1u > 0u",
        "double": "1.0 / 0.0 > 0.0",
        "timestamp": "timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00Z')",
        "duration": "duration('1h') > duration('1m')",
        "casts": "int('12') == 12 && string(1) == '1' && double('x') == 1.0",
        "unterminated": "'abc",
        "empty": "",
        "unicode": "'\u202e\U0001F600' != ''",
        "comment": "true // comment",
        "dyn": "dyn(properties)[0] == 1",
        "type": "type(properties) == list",
        "deep-member": "properties" + ".a" * 500 + " == 1",
        "deep-index": "properties" + "[0]" * 200 + " == 1",
    }
    for k, rule in rules.items():
        put("cel", "hostile-" + k, rule)
        put("cel", "hostile-" + k + "-props", rule + "\0" + props)
    for i, rule in enumerate(sorted(harvest["cel"])):
        put("cel", f"harvested-{i}", rule)
        put("cel", f"harvested-{i}-props", rule + "\0" + props)
    # generic
    chain = "variables:\n- {id: v0, constraints: [{mandatory: {}}, {dependency: [v1]}]}\n" + "".join(
        f"- {{id: v{i}, constraints: [{{dependency: [v{i + 1}]}}]}}\n" for i in range(1, 1500)
    ) + "- {id: v1500, constraints: [{prohibited: {}}]}\n"
    pigeon = "variables:\n" + "".join(
        f"- {{id: p{i}, constraints: [{{mandatory: {{}}}}, {{dependency: [h0, h1, h2, h3, h4, h5]}}]}}\n" for i in range(7)
    ) + "".join(f"- {{id: h{j}, constraints: [{{atMost: {{n: 1, ids: [h{j}]}}}}]}}\n" for j in range(6)) + "- {id: z, constraints: [{atMost: {n: 6, ids: [h0, h1, h2, h3, h4, h5]}}]}\n"
    g = {
        "readme": "variables:\n  - id: a\n    constraints: [{mandatory: {}}, {dependency: [x, y]}, {atMost: {n: 1, ids: [x, y]}}]\n  - {id: b, constraints: [{mandatory: {}}, {dependency: [y]}]}\n  - {id: x, constraints: [{conflict: b}]}\n  - {id: y}\n",
        "chain": chain,
        "pigeon": pigeon,
        "dup": "variables: [{id: a}, {id: a}]\n",
        "unknown": "variables: [{id: a, constraints: [{conflict: b}]}]\n",
        "empty-dep": "variables: [{id: a, constraints: [{mandatory: {}}, {dependency: []}]}]\n",
        "self": "variables: [{id: a, constraints: [{mandatory: {}}, {dependency: [a]}, {conflict: a}]}]\n",
        "at-most-zero": "variables: [{id: a, constraints: [{mandatory: {}}, {atMost: {n: 0, ids: [a, a]}}]}]\n",
        "at-most-huge": "variables: [{id: a, constraints: [{atMost: {n: 18446744073709551615, ids: [a]}}]}]\n",
        "json": '{"variables":[{"id":"a","constraints":[{"mandatory":{}},{"dependency":["b"]}]},{"id":"b"}]}',
        "empty": "",
        "no-vars": "variables: []\n",
    }
    for k, v in g.items():
        put("generic", "hostile-" + k, v)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CORPUS, help="corpus root (default fuzz/corpus)")
    parser.add_argument("--derived", action="store_true", help="only the seeds derived from repository files")
    global options
    options = parser.parse_args()
    options.out = options.out.resolve()
    os.chdir(ROOT)
    seed_catalogs()
    seed_scenarios()
    seed_hostile()
    total = 0
    for target in sorted({t for t, _ in written}):
        files = [p for (t, _), p in written.items() if t == target]
        size = sum(p.stat().st_size for p in files)
        total += size
        print(f"{target:12} {len(files):5} seeds {size / 1024:8.1f} KiB")
    print(f"{'total':12} {len(written):5} seeds {total / 1024:8.1f} KiB")


if __name__ == "__main__":
    sys.exit(main())
