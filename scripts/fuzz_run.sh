#!/usr/bin/env bash
# Runs every libFuzzer harness in fuzz/ for SECONDS each (default 30), one after another, starting
# from the seed corpus fuzz/corpus/<harness>/ plus whatever earlier runs added to the working
# corpus BUILD/fuzz-corpus/<harness>/. Prints each harness's executions per second and coverage
# from libFuzzer's final stats; exits non-zero on the first crash, hang (> 10 s per input), leak or
# sanitizer report, leaving the reproducer (crash-*, timeout-*, leak-*) in BUILD/fuzz-artifacts/.
# Usage: scripts/fuzz_run.sh [BUILD_DIR] [SECONDS] [HARNESS...]
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-30}
shift 2 || true
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in fuzz/*_fuzzer.cpp; do harnesses+=("$(basename "$f" .cpp)"); done
fi
mkdir -p "$build/fuzz-artifacts"
for h in "${harnesses[@]}"; do
  work="$build/fuzz-corpus/$h"
  mkdir -p "$work"
  log="$build/fuzz-artifacts/$h.log"
  if ! "$build/fuzz/$h" "$work" "fuzz/corpus/$h" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$h-" \
      >"$log" 2>&1; then
    echo "$h: FAILED (see $log)"
    tail -n 30 "$log"
    exit 1
  fi
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+' || true)
  ft=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | grep -oE 'ft: [0-9]+' || true)
  echo "$h: ${seconds} s, ${execs} executions, ${rate} exec/s, ${cov}, ${ft}, corpus $(ls "$work" | wc -l) files, no findings"
done
