#!/usr/bin/env bash
# Replay-speed benchmark (issue: core engine): one thread, Release build, the Azure conversation
# trace on the H100 / Qwen3-8B profile with the dspark-7 drafter. Prints request-steps per wall
# second and the speed-up over simulated time for a few policies; asserts nothing (timings on a
# shared 2-core machine are figures, not pass/fail criteria). Usage: bench/replay_speed.sh BINARY
set -euo pipefail
bin=${1:-build/sparksim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for policy in static:k=1 static:k=3 static:k=7; do
  for repeat in 1 2 3; do
    "$bin" run --trace traces/azure_conv_2023.csv --profile profiles/analytic/h100/qwen3-8b.json \
      --drafter dspark-7 --policy "$policy" --seed 1 --out "$out/run" --quiet
    python3 - "$out/run/summary.json" "$policy" "$repeat" <<'PY' 2>/dev/null || \
      grep -E '"(request_steps|sim_wall_s|request_steps_per_wall_s|speedup_vs_simulated_time)"' "$out/run/summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]:<12} run {sys.argv[3]}: {s['request_steps']:>9} request-steps in "
      f"{s['sim_wall_s']:.3f} s wall = {s['request_steps_per_wall_s']/1e6:6.2f} M request-steps/s, "
      f"{s['speedup_vs_simulated_time']:,.0f}x simulated time ({s['sim_duration_s']:.0f} s)")
PY
  done
done
