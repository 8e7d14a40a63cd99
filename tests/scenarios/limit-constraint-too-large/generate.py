"""Writes catalog/a.json: a.v1.0.0 with an olm.constraint whose raw value is over 64 KiB
(a 66,000-byte failureMessage). Run from this folder: python3 generate.py"""
import json
import os

pkg = "a"
value = {"failureMessage": "x" * 66000, "gvk": {"group": "example.com", "version": "v1", "kind": "Widget"}}
docs = [
    {"schema": "olm.package", "name": pkg, "defaultChannel": "stable"},
    {"schema": "olm.channel", "package": pkg, "name": "stable", "entries": [{"name": "a.v1.0.0"}]},
    {"schema": "olm.bundle", "package": pkg, "name": "a.v1.0.0", "image": "example.com/a:v1.0.0",
     "properties": [{"type": "olm.package", "value": {"packageName": pkg, "version": "1.0.0"}},
                    {"type": "olm.constraint", "value": value}]},
]
os.makedirs("catalog", exist_ok=True)
with open("catalog/a.json", "w") as f:
    f.write("\n".join(json.dumps(d) for d in docs) + "\n")
