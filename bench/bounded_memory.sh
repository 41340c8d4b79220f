#!/usr/bin/env bash
# Bounded-memory benchmark (hardening issue): replays 10 million synthetic requests (100 per second
# for 100,000 s, a load one H100 sustains on the analytic Qwen3-8B profile) and prints the peak
# resident set size from GNU time. Per-request rows stream to requests.csv; per-request percentiles
# switch to a 0.39%-error histogram past 2^20 requests. Prints figures; asserts nothing.
# Usage: bench/bounded_memory.sh [BINARY] [REQUESTS_PER_S] [DURATION_S]
set -euo pipefail
bin=${1:-build/sparksim}
rate=${2:-100}
duration=${3:-100000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/time -v "$bin" run \
  --synthetic "rate=$rate,prompt=lognormal:100:0.5,output=lognormal:10:0.5,domain=math/code/chat,duration_s=$duration" \
  --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --policy async-topk \
  --seed 1 --out "$out/run" --quiet 2> "$out/time.txt"
python3 - "$out/run/summary.json" "$out/time.txt" "$out/run/requests.csv" <<'PY'
import json, os, re, sys
s = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
print(f"requests {s['requests_total']:,} (completed {s['requests_completed']:,}), "
      f"simulated {s['sim_duration_s']:,.0f} s, wall {wall}, "
      f"peak RSS {rss_kb / 1024:,.1f} MiB, requests.csv {os.path.getsize(sys.argv[3]) / 2**20:,.0f} MiB, "
      f"TTFT p50 {s['ttft_ms']['p50']:.2f} ms, percentile relative error "
      f"{s['request_percentile_relative_error']}")
PY
