#!/usr/bin/env bash
# Digests of the outputs of tests/cluster/fleet_identity_test.cpp's scenarios, made with BINARY (run
# it with the binary from BEFORE a change: the test's oracle is the pre-change code). Prints
# "scenario file sha256" per line; the scenarios here and in the test must stay the same.
# Usage: tests/cluster/fleet_identity_digests.sh BINARY   (from the repository root)
set -euo pipefail
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
shape="prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat/code/math"
while IFS='|' read -r name rate duration args; do
  d=$out/$name
  # shellcheck disable=SC2086
  $bin cluster --synthetic "rate=$rate,$shape,duration_s=$duration" --replicas 64 --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --seed 7 --out "$d" --quiet $args
  for f in summary.json requests.csv timeseries.csv placement.csv transfers.csv config.json; do
    h=$(grep -Ev '^\s*"(sim_wall_s|request_steps_per_wall_s|speedup_vs_simulated_time|sparksim_git_sha)":' "$d/$f" | sha256sum | cut -c1-64)
    echo "$name $f $h"
  done
done <<'LIST'
least-loaded-static3|64|20|--router least-loaded --policy static:k=3
kv-aware-async-topk|64|20|--router kv-aware --policy async-topk
round-robin-greedy|64|20|--router round-robin --policy greedy
least-loaded-heavy-static7|2500|4|--router least-loaded --policy static:k=7
kv-aware-heavy-greedy|2500|4|--router kv-aware --policy greedy
disaggregated-least-loaded|64|20|--router least-loaded --policy async-topk --prefill-replicas 16
LIST
