#!/usr/bin/env bash
# Replay-speed benchmark (issue: core engine; policies issue): one thread, Release build, the Azure
# conversation trace on the H100 / Qwen3-8B profile with the dspark-7 drafter. Prints request-steps
# per wall second and the speed-up over simulated time for the static baselines and the two
# schedulers the speed target names (greedy, async-topk); asserts nothing (timings on a shared
# 2-core machine are figures, not pass/fail criteria). `cpu` is the process's user+sys time, which
# also covers loading the trace and writing outputs: on a busy machine it is the steadier figure.
# Usage: [REPEATS=N] bench/replay_speed.sh [BINARY] [POLICY...]   (default policies below; 3 rounds
# unless REPEATS says otherwise: on a shared machine the fastest run is the least disturbed)
set -euo pipefail
bin=${1:-build/sparksim}
shift || true
policies=("$@")
if [ ${#policies[@]} -eq 0 ]; then
  policies=(static:k=1 static:k=3 static:k=7 greedy async-topk)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
timer=()  # GNU time, when installed, records the process's CPU time
if [ -x /usr/bin/time ]; then timer=(/usr/bin/time -f "%U %S" -o "$out/cpu"); fi
# Interleaved (every policy once per round), so a slow spell of a shared machine hits all of them
# alike and their ratios stay comparable; a summary per policy follows the rounds.
for repeat in $(seq "${REPEATS:-3}"); do
  for policy in "${policies[@]}"; do
    rm -f "$out/cpu"
    "${timer[@]}" "$bin" run --trace traces/azure_conv_2023.csv \
      --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --policy "$policy" \
      --seed 1 --out "$out/run" --quiet
    python3 - "$out/run/summary.json" "$policy" "$repeat" "$out/cpu" "$out/rounds" <<'PY' 2>/dev/null || \
      grep -E '"(request_steps|sim_wall_s|request_steps_per_wall_s|speedup_vs_simulated_time)"' "$out/run/summary.json"
import json, os, sys
s = json.load(open(sys.argv[1]))
cpu = ""
if os.path.exists(sys.argv[4]):
    user, system = map(float, open(sys.argv[4]).read().split()[-2:])
    cpu = f", cpu {user + system:.2f} s"
print(f"{sys.argv[2]:<12} run {sys.argv[3]}: {s['request_steps']:>9} request-steps in "
      f"{s['sim_wall_s']:.3f} s wall = {s['request_steps_per_wall_s']/1e6:6.2f} M request-steps/s, "
      f"{s['speedup_vs_simulated_time']:,.0f}x simulated time ({s['sim_duration_s']:.0f} s), "
      f"tau {s['tau_mean']:.3f}{cpu}")
with open(sys.argv[5], "a") as f:
    f.write(f"{sys.argv[2]} {s['sim_wall_s']} {s['request_steps']} {s['sim_duration_s']}\n")
PY
  done
done
python3 - "$out/rounds" <<'PY' 2>/dev/null || true
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    policy, wall, steps, duration = line.split()
    runs.setdefault(policy, []).append((float(wall), int(steps), float(duration)))
print("per policy over the rounds (fastest | median):")
for policy, rs in runs.items():
    walls = [w for w, _, _ in rs]
    steps, duration = rs[0][1], rs[0][2]
    for label, w in (("fastest", min(walls)), ("median", statistics.median(walls))):
        print(f"  {policy:<12} {label:<7} {w:.3f} s = {steps / w / 1e6:5.2f} M request-steps/s, "
              f"{duration / w:,.0f}x simulated time")
PY
