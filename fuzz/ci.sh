#!/usr/bin/env bash
# Fuzzes every target of fuzz/ for a bounded time on a copy of the committed corpus.
#
#   bash fuzz/ci.sh                  # each target FUZZ_SECONDS (default 20) seconds
#   FUZZ_SECONDS=60 bash fuzz/ci.sh  # longer
#   FUZZ_TARGETS="cel range" ...     # some targets only
#   FUZZ_NIGHTLY=0 ...               # stable + RUSTC_BOOTSTRAP=1 even when nightly exists
#
# Uses `cargo +nightly` when there is a nightly toolchain, else the stable one with
# RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Z flags). Installs cargo-fuzz when it is missing.
# Prints the executions of each target (libFuzzer's final stats). Exits 1 on a crash, a
# timeout or an out-of-memory, printing the input that caused it (saved under
# fuzz/artifacts/<target>/); add that file to fuzz/corpus/<target>/ as a regression case once
# it is fixed. When fuzzing is impossible here (no cargo, cargo-fuzz cannot be installed, the
# targets do not build), it says why and exits 1.
set -uo pipefail
cd "$(dirname "$0")"

seconds="${FUZZ_SECONDS:-20}"
targets="${FUZZ_TARGETS:-fbc_json fbc_yaml request range constraint cel resolve generic}"
# Safe Rust: no sanitizer (ASan would halve the executions and find nothing new); debug
# assertions on, so the resolver's built-in checker runs on every answer.
flags=(--sanitizer none --debug-assertions)

# Fuzzing that cannot run is a failure, never a silent pass: CI must be able to build the
# targets (it installs cargo-fuzz itself; the toolchain needs nightly or RUSTC_BOOTSTRAP=1).
fail() {
  echo "fuzz: FAILED: $*"
  exit 1
}

command -v cargo >/dev/null 2>&1 || fail "cargo is not installed"

toolchain=()
if [ "${FUZZ_NIGHTLY:-1}" != 0 ] && cargo +nightly --version >/dev/null 2>&1; then
  toolchain=(+nightly)
  echo "fuzz: toolchain $(cargo +nightly --version)"
else
  export RUSTC_BOOTSTRAP=1
  echo "fuzz: no nightly toolchain; $(cargo --version) with RUSTC_BOOTSTRAP=1"
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  if ! cargo install cargo-fuzz --locked >/tmp/deppy-cargo-fuzz-install.log 2>&1; then
    tail -20 /tmp/deppy-cargo-fuzz-install.log
    fail "cargo install cargo-fuzz failed (log above)"
  fi
fi

build_log="$(mktemp)"
start=$(date +%s)
if ! cargo "${toolchain[@]}" fuzz build "${flags[@]}" >"$build_log" 2>&1; then
  tail -30 "$build_log"
  if grep -E '^ *--> ' "$build_log" | grep -vqE '\.cargo/registry|/rustlib/'; then
    fail "the fuzz targets do not compile"
  fi
  fail "the toolchain cannot build the fuzz targets (log above)"
fi
echo "fuzz: built in $(($(date +%s) - start)) s"
triple="$(rustc "${toolchain[@]}" -vV | sed -n 's/^host: //p')"
bin_dir="target/$triple/release"

work="$(mktemp -d)"
trap 'rm -rf "$work" "$build_log"' EXIT
# The seeds derived from catalogs/ and tests/scenarios/ are not committed: write them first.
python3 seed_corpus.py --derived --out "$work" >/dev/null || fail "python3 fuzz/seed_corpus.py --derived failed (it needs PyYAML)"
failed=0
total=0
printf 'fuzz: %-12s %12s %8s %8s  %s\n' target executions exec/s seconds result
for t in $targets; do
  corpus="$work/$t"
  mkdir -p "$corpus" artifacts/"$t"
  cp corpus/"$t"/* "$corpus"/  # beside the derived seeds written above
  log="$work/$t.log"
  # The binaries cargo-fuzz built (running them directly does not rebuild mid-run).
  "$bin_dir/$t" "$corpus" -max_total_time="$seconds" -print_final_stats=1 -timeout=20 \
    -rss_limit_mb=4096 -max_len=65536 -artifact_prefix="artifacts/$t/" >"$log" 2>&1
  code=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  total=$((total + ${execs:-0}))
  result=ok
  if [ "$code" -ne 0 ]; then
    failed=1
    result="FAILED (exit $code)"
  fi
  printf 'fuzz: %-12s %12s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$seconds" "$result"
  if [ "$code" -ne 0 ]; then
    grep -E 'panicked at|ERROR: libFuzzer|SUMMARY|Test unit written to|ALARM|out-of-memory' "$log" | head -10
    grep -oE 'Test unit written to .*' "$log" | sed 's/^Test unit written to /fuzz: crashing input: fuzz\//'
    grep -q 'Test unit written to' "$log" || tail -20 "$log"
  fi
done
echo "fuzz: $total executions in all"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED: see the crashing inputs above"
  exit 1
fi
