#!/usr/bin/env bash
# Side-by-side benchmark: deppy vs libsolv vs resolvo on identical seeded instances (issue 7).
#
#   bash bench/compare/run.sh            # all shapes at N = 100, 1,000, 10,000 packages
#   bash bench/compare/run.sh --quick    # N = 100 and 1,000, one repeat
#   bash bench/compare/run.sh --shapes n,c --sizes 1000 --repeats 9   # any `deppy-compare run` flag
#
# Installs libsolv-tools and python3-solv from Debian when they are missing (apt-get, sudo only
# when not root); without apt the libsolv rows read n/a. Builds deppy (../..) and the harness in
# release mode, then runs the harness, which prints the tables. See README.md beside this file.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

quick=0
args=()
for a in "$@"; do
    if [ "$a" = "--quick" ]; then quick=1; else args+=("$a"); fi
done

have_libsolv() {
    command -v testsolv >/dev/null 2>&1 && /usr/bin/python3 -c 'import solv' >/dev/null 2>&1
}

install_libsolv() {
    have_libsolv && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "run.sh: apt-get is not available: libsolv is skipped (its rows read n/a)" >&2
        return 1
    fi
    local sudo=""
    if [ "$(id -u)" != "0" ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo -n"
        else
            echo "run.sh: not root and no sudo: libsolv is skipped (its rows read n/a)" >&2
            return 1
        fi
    fi
    echo "run.sh: installing libsolv-tools python3-solv with apt-get" >&2
    if ! { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            libsolv-tools python3-solv; } >&2; then
        echo "run.sh: apt-get failed: libsolv is skipped (its rows read n/a)" >&2
        return 1
    fi
    have_libsolv || { echo "run.sh: libsolv still missing after install: skipped" >&2; return 1; }
}

extra=()
install_libsolv || extra+=(--no-libsolv)
if [ "$quick" = 1 ]; then
    # flags given on the command line come first, so they win over these
    extra+=(--sizes 100,1000 --repeats 1)
fi

echo "run.sh: building deppy (release) in $root" >&2
(cd "$root" && cargo build --release --bin deppy >&2)
echo "run.sh: building the harness (release) in $here" >&2
cargo build --release --manifest-path "$here/Cargo.toml" >&2

# the first occurrence of a flag wins: the caller's flags come first
exec "$here/target/release/deppy-compare" run ${args[@]+"${args[@]}"} \
    --deppy-bin "$root/target/release/deppy" ${extra[@]+"${extra[@]}"}
