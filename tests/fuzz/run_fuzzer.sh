#!/usr/bin/env bash
# One fuzz test: replay the target's named regressions (each must pass), then fuzz for SECONDS
# from the seed directories. New inputs go to WORK/corpus (the seed directories are read only),
# a finding to WORK/crash-* etc., and the test fails naming it. docs/fuzzing.md.
# Usage: run_fuzzer.sh FUZZER SECONDS WORK REGRESSIONS_DIR SEED_DIR...
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3 regressions=$4
shift 4
mkdir -p "$work/corpus"
# Leaks in third-party libraries only (tests/fuzz/lsan.supp says which and why).
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
if compgen -G "$regressions/*" > /dev/null; then
  echo "replaying $(ls "$regressions" | wc -l) regression input(s) from $regressions"
  "$fuzzer" -runs=1 "$regressions"/*
fi
seeds=()
for dir in "$@"; do
  if [ ! -d "$dir" ]; then echo "missing seed directory $dir" >&2; exit 1; fi
  seeds+=("$dir")
done
# -timeout: one input taking over 10 s is a finding (unbounded work); -rss_limit_mb bounds memory.
# -seed: the same mutations on every run (FUZZ_SEED=0 for a random one), so a CI finding repeats.
"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" "${seeds[@]}"
