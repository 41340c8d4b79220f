#!/usr/bin/env bash
# Cache lines a fleet step misses, counted by callgrind's cache simulator: a figure a busy shared
# machine does not move, for changes whose wall-clock gain is within the load's noise. Runs issue
# 35's fleet (least-loaded, synthetic chat traffic at one request per second per replica,
# static:k=3, seed 1; default 1,000 replicas and 8 s of traffic) under valgrind with a 32 KiB
# first level and a 1 MiB last level (about one core's L2 on the dev VM), and prints, per
# simulated step (summary.json's `steps`), the whole process's instructions, first-level misses
# and last-level misses. Prefetch instructions are not simulated (valgrind ignores them), so the
# last figure counts every line a step touches that is not in cache, hinted or not: what the
# cache hints must cover. Asserts nothing. About a minute per binary.
# Usage: [REPLICAS=N] [DURATION_S=S] bench/fleet_cache_misses.sh BINARY...
set -euo pipefail
replicas=${REPLICAS:-1000}
duration=${DURATION_S:-8}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for bin in "$@"; do
  rm -rf "$out/run"
  valgrind --tool=callgrind --cache-sim=yes --D1=32768,8,64 --LL=1048576,16,64 \
    --callgrind-out-file="$out/callgrind.out" "$bin" cluster --synthetic \
    "rate=$replicas,prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat,duration_s=$duration" \
    --replicas "$replicas" --router least-loaded --profile profiles/analytic/h100-sxm/qwen3-8b.json \
    --drafter dspark-7 --policy static:k=3 --seed 1 --out "$out/run" --quiet 2>/dev/null
  python3 - "$out/callgrind.out" "$out/run/summary.json" "$bin" <<'PY'
import json, sys
steps = json.load(open(sys.argv[2]))["steps"]
for line in open(sys.argv[1]):
    if line.startswith("events:"):
        events = line.split()[1:]
    if line.startswith("summary:") or line.startswith("totals:"):
        totals = dict(zip(events, map(int, line.split()[1:])))
first = totals["D1mr"] + totals["D1mw"]
last = totals["DLmr"] + totals["DLmw"]
print(f"{sys.argv[3]}: {steps} steps; per step: {totals['Ir'] / steps:.0f} instructions, "
      f"{first / steps:.1f} first-level misses, {last / steps:.2f} last-level misses")
PY
done
