#!/usr/bin/env bash
# Cluster scale benchmark (issue 8): 64 replicas serving the Azure conversation trace at 64 times
# its rate (19,366 requests in about 56 simulated seconds), pinned to one core, for each router,
# then the same fleet disaggregated (16 prefill + 48 decode replicas, KV over the built-in
# topology's links). Prints the process's wall time and the summary's figures; asserts nothing
# (the issue's bar is under 60 s of wall time on one core). Usage: bench/cluster_scale.sh BINARY
set -euo pipefail
bin=${1:-build/sparksim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
common=(--trace traces/azure_conv_2023.csv --rate-scale 64 --replicas 64
        --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --policy static:k=3
        --seed 1 --quiet)
run() {
  local label=$1; shift
  local start end
  start=$(date +%s.%N)
  "${pin[@]}" "$bin" cluster "${common[@]}" "$@" --out "$out/run"
  end=$(date +%s.%N)
  python3 - "$out/run/summary.json" "$label" "$start" "$end" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
c = s["cluster"]
print(f"{sys.argv[2]:<34} process {wall:6.2f} s wall (simulation {s['sim_wall_s']:6.2f} s): "
      f"{s['requests_completed']} requests, {s['request_steps']} request-steps in "
      f"{s['sim_duration_s']:.1f} simulated s, {s['throughput_tok_s']:.0f} tok/s, "
      f"TTFT p50 {s['ttft_ms']['p50']:.1f} ms, {c['kv_transfers']} KV transfers")
PY
}
for router in round-robin least-loaded kv-aware; do
  run "64 colocated, $router" --router "$router"
done
run "16 prefill + 48 decode, least-loaded" --router least-loaded --prefill-replicas 16
