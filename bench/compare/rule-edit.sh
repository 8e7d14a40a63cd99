#!/usr/bin/env bash
# One rule line, no Rust edit: shows that `rules/exclusions.dl` is the source of the answer on
# the path a large request takes (the evaluator build.rs generates from the rules).
#
#   bash bench/compare/rule-edit.sh             # shape n, --n 1000: 10,000 bundles
#   bash bench/compare/rule-edit.sh --n 100     # 1,000 bundles (quicker)
#
# Generates a synthetic catalog with the harness (`deppy-compare gen --shape n`), builds
# `deppy` (debug profile; `--release` for release), resolves the request, and picks the
# first bundle the answer selects. Then it appends one line to `rules/exclusions.dl` that
# excludes that bundle by name, rebuilds, resolves again, and checks that the answer no
# longer selects it. The rule file is
# restored on exit, whatever happens; the next build recompiles the shipped rules.
# Exits 0 when the answer changed as the line says, 1 when it did not.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

n=1000
profile=()
bin=debug
while [ $# -gt 0 ]; do
    case "$1" in
    --n) n="$2"; shift 2 ;;
    --release) profile=(--release); bin=release; shift ;;
    *) echo "usage: rule-edit.sh [--n N] [--release]" >&2; exit 2 ;;
    esac
done

work="$(mktemp -d)"
rules="$root/rules/exclusions.dl"
cp "$rules" "$work/exclusions.dl"
restore() {
    cp "$work/exclusions.dl" "$rules"
    rm -rf "$work"
}
trap restore EXIT

# The generator does not read the rules: a harness built before is used as it is (building it
# again after this script restores the rule file would recompile deppy for nothing).
harness="$here/target/release/deppy-compare"
if [ ! -x "$harness" ]; then
    echo "rule-edit.sh: building the harness (release) in $here" >&2
    cargo build --quiet --release --manifest-path "$here/Cargo.toml"
fi
"$harness" gen --shape n --n "$n" --seed 1 --out "$work/instance" >/dev/null
bundles=$(grep -c '"schema": *"olm.bundle"' "$work/instance/catalog/catalog.json" || true)
echo "rule-edit.sh: catalog of $bundles bundles in $work/instance" >&2

resolve() {
    (cd "$root" && cargo build --quiet ${profile[@]+"${profile[@]}"} --bin deppy)
    "$root/target/$bin/deppy" resolve "$work/instance/request.yaml" -o json >"$1" || true
}

resolve "$work/before.json"
# sed reads its whole input (no early exit, so no broken pipe under pipefail)
name=$(grep -o '"bundle": *"[^"]*"' "$work/before.json" | sed -n '1s/.*: *"\(.*\)"/\1/p')
if [ -z "$name" ]; then
    echo "rule-edit.sh: the first answer selects no bundle" >&2
    exit 1
fi
line="Excluded(b, Exclusion::Deprecated) <- BundleName(b, name), (name == \"$name\");"
echo "rule-edit.sh: appending to rules/exclusions.dl: $line" >&2
printf '\n// Excluded by name (rule-edit.sh).\n%s\n' "$line" >>"$rules"
resolve "$work/after.json"

package="${name%%.*}"
selected() { grep -o "\"bundle\": *\"$package\.[^\"]*\"" "$1" | sed 's/.*: *"\(.*\)"/\1/' | tr '\n' ' '; }
status() { grep -o '"status": *"[^"]*"' "$1" | sed -n '1s/.*: *"\(.*\)"/\1/p'; }
echo "before: $(status "$work/before.json"); $package -> $(selected "$work/before.json")"
echo "after:  $(status "$work/after.json"); $package -> $(selected "$work/after.json")"
if grep -q "\"bundle\": *\"$name\"" "$work/after.json"; then
    echo "rule-edit.sh: FAILED: the answer still selects $name" >&2
    exit 1
fi
if cmp -s "$work/before.json" "$work/after.json"; then
    echo "rule-edit.sh: FAILED: the answer did not change" >&2
    exit 1
fi
echo "rule-edit.sh: ok: one rule line changed the answer; $name is no longer selected" >&2
