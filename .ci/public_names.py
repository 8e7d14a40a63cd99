#!/usr/bin/env python3
"""Counts the library's public names from the HTML that `cargo doc --no-deps` writes.

A public name is one path to an item (struct, enum, trait, function, type alias, constant,
macro) that rustdoc lists in `target/doc/deppy/all.html`: `deppy::Answer` and
`deppy::advanced::resolve::Answer` are two paths to one item. Items are told apart by where
they are defined (each page's source link), so the script also prints the names that lead to
two or more different items (one name, several meanings).

    cargo doc --no-deps && python3 .ci/public_names.py [target/doc]
"""
import collections
import html
import os
import re
import sys

doc = sys.argv[1] if len(sys.argv) > 1 else "target/doc"
base = os.path.join(doc, "deppy")
with open(os.path.join(base, "all.html"), encoding="utf-8") as f:
    page = f.read()
links = re.findall(r'<li><a href="([^"]+)">([^<]+)</a></li>', page)

def source_of(href):
    """The defining file and line of the item on page `href`."""
    with open(os.path.join(base, href), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<a class="src[^"]*" href="[./]*src/deppy/([^"]+?)\.html#(\d+)', text)
    return m.group(1) + ":" + m.group(2) if m else href

items = collections.defaultdict(set)  # leaf name -> defining locations
paths = []
for href, name in links:
    name = html.unescape(name)
    paths.append(name)
    items[name.rsplit("::", 1)[-1]].add(source_of(href))

distinct = {loc for locs in items.values() for loc in locs}
twice = {n: sorted(l) for n, l in items.items() if len(l) > 1}
modules = sorted({p.rsplit("::", 1)[0] for p in paths if "::" in p})
print(f"public paths: {len(paths)}")
print(f"distinct items: {len(distinct)}")
print(f"modules with items: {len(modules)}")
print(f"names with more than one meaning: {len(twice)}")
for n, locs in sorted(twice.items()):
    print(f"  {n}: {', '.join(locs)}")
