#!/usr/bin/env bash
# Instructions per request-step of the replay benchmark's workload (bench/replay_speed.sh's: the
# Azure conversation trace, dspark-7, seed 1), counted by valgrind's callgrind: a figure that a
# busy shared machine does not move, where wall-clock medians wander. Prints, per policy, the
# instructions inside run_simulation (the replay itself: no trace loading, profile parsing or
# process start) and the whole process's, each per request-step. Asserts nothing. About a minute
# per policy. Needs valgrind (callgrind_annotate) and a binary with symbols (any build here).
# PROFILE=FILE replaces the profile; ARGS="..." adds run options (e.g. `--sps reference`, the SPS
# belief of binaries older than --sps, to count the same schedule on an old and a new binary).
# Usage: [PROFILE=FILE] [ARGS=...] bench/replay_instructions.sh BINARY [POLICY...]
set -euo pipefail
binary=$1
shift
policies=("$@")
if [ ${#policies[@]} -eq 0 ]; then policies=(greedy async-topk static:k=7); fi
read -r -a args <<<"${ARGS:-}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-12s %14s %10s %12s %12s\n' policy request_steps run_Ir/step total_Ir/step run_Ir
for policy in "${policies[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$binary" run \
    --trace traces/azure_conv_2023.csv --profile "${PROFILE:-profiles/analytic/h100-sxm/qwen3-8b.json}" \
    --drafter dspark-7 --policy "$policy" --seed 1 --out "$out/run" --quiet "${args[@]}" \
    2>"$out/valgrind.log"
  steps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["request_steps"])' \
    "$out/run/summary.json")
  total=$(grep -E '^(summary|totals):' "$out/cg" | head -1 | awk '{print $2}')
  callgrind_annotate --inclusive=yes "$out/cg" >"$out/annotated"
  inside=$(awk '/sparksim::run_simulation\(/ {gsub(",", "", $1); print $1; exit}' "$out/annotated")
  python3 -c 'import sys; p, s, i, t = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"{p:<12} {s:>14} {i / s:>12.1f} {t / s:>12.1f} {i:>12}")' "$policy" "$steps" "$inside" "$total"
  rm -rf "$out/run" "$out/cg" "$out/annotated"
done
