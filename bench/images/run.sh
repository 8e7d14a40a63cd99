#!/usr/bin/env bash
# Catalog images: cold and warm `deppy resolve --catalog docker://…` against skopeo copy +
# extraction + `deppy resolve DIR` (bench.py beside this file says what is timed).
#
#   bash bench/images/run.sh [--repeats N] [--catalog DIR] [--require PKG]
#
# Installs docker-registry and skopeo from Debian when they are missing (apt-get, sudo only
# when not root), builds deppy in release mode, then runs bench.py.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if ! command -v docker-registry >/dev/null 2>&1 || ! command -v skopeo >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo -n"; fi
    echo "run.sh: installing docker-registry skopeo with apt-get" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        docker-registry skopeo >&2
fi

echo "run.sh: building deppy (release) in $root" >&2
(cd "$root" && cargo build --release --bin deppy >&2)
exec python3 "$here/bench.py" --deppy "$root/target/release/deppy" "$@"
