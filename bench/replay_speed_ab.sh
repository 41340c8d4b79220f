#!/usr/bin/env bash
# Old binary against new on the replay-speed benchmark (bench/replay_speed.sh's workload: the
# Azure conversation trace, H100 / Qwen3-8B analytic profile, dspark-7, seed 1), interleaved:
# every round runs each policy on both binaries, alternating which goes first, so a slow spell
# of a shared machine hits both alike. Prints, per binary and policy, the median and the range of
# request-steps per wall second (the run's own sim_wall_s, which excludes loading the trace), and
# the median of each round's new/old ratio (the two runs of a round are back to back, so the ratio
# is the figure a slow spell of a shared machine moves least). Asserts nothing: timings are figures.
# PROFILE=FILE replaces the profile (an old binary may not read a newer profile schema).
# NEW_ARGS="..." adds options to the new binary's runs only (e.g. `--sps reference`, the SPS
# belief of binaries older than --sps, so both simulate the same schedule).
# Usage: [REPEATS=N] [PROFILE=FILE] [NEW_ARGS=...] bench/replay_speed_ab.sh OLD NEW [POLICY...]
set -euo pipefail
old=$1
new=$2
shift 2
policies=("$@")
if [ ${#policies[@]} -eq 0 ]; then policies=(greedy async-topk static:k=7); fi
read -r -a new_args <<<"${NEW_ARGS:-}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # binary label policy [extra option...]
  "$1" run --trace traces/azure_conv_2023.csv --profile "${PROFILE:-profiles/analytic/h100-sxm/qwen3-8b.json}" \
    --drafter dspark-7 --policy "$3" --seed 1 --out "$out/run" --quiet "${@:4}"
  python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print(sys.argv[4], sys.argv[2], sys.argv[3], s["request_steps"], s["sim_wall_s"])' \
    "$out/run/summary.json" "$2" "$3" "$repeat" >>"$out/rounds"
}
for repeat in $(seq "${REPEATS:-7}"); do
  for policy in "${policies[@]}"; do
    if [ $((repeat % 2)) -eq 1 ]; then
      run "$old" old "$policy"
      run "$new" new "$policy" "${new_args[@]}"
    else
      run "$new" new "$policy" "${new_args[@]}"
      run "$old" old "$policy"
    fi
  done
done
python3 - "$out/rounds" <<'PY'
import statistics, sys
runs, rounds = {}, {}
for line in open(sys.argv[1]):
    repeat, label, policy, steps, wall = line.split()
    rate = int(steps) / float(wall) / 1e6
    runs.setdefault((policy, label), []).append(rate)
    rounds.setdefault((policy, repeat), {})[label] = rate
print(f"{'policy':<12} {'binary':<4} {'median':>7} {'min':>7} {'max':>7}  M request-steps/s, "
      f"{len(next(iter(runs.values())))} runs each")
for (policy, label), rates in sorted(runs.items()):
    print(f"{policy:<12} {label:<4} {statistics.median(rates):7.2f} {min(rates):7.2f} "
          f"{max(rates):7.2f}")
ratios = {}
for (policy, _), pair in rounds.items():
    ratios.setdefault(policy, []).append(pair["new"] / pair["old"])
for policy, r in sorted(ratios.items()):
    print(f"{policy:<12} new/old per round: median {statistics.median(r):.3f}, "
          f"range {min(r):.3f}-{max(r):.3f}")
PY
