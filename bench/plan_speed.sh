#!/usr/bin/env bash
# Plan speed benchmark (issue 35): how long `sparksim plan` takes at the 1,000-replica scale.
# Runs, per binary and seed, one plan: synthetic chat traffic at 10,000 requests/s for 60 s
# (lognormal prompts 1000 / outputs 200; at 1,000 requests/s the answer is only about 93
# replicas), least-loaded, two policies (mtp1+static:k=1 and dspark-7+static:k=3), SLO
# ttft_p99_ms<=2000 and tok_s_per_user_p50>=80, up to 2048 replicas, --jobs 2. Each search
# doubles from 1 and then bisects to about 920-940 replicas: some 20 counts per policy.
# Prints each plan's wall time and peak RSS (GNU time) and its answers, then per binary the total
# over the seeds. With an OLD binary the seeds alternate between the two binaries (new first on
# odd seeds), so a slow spell of a shared machine hits both alike, and the two binaries' plan.csv
# are compared (the answers must not change). NEW_ARGS / OLD_ARGS are added to that binary's
# plans: `OLD_ARGS=--finish-misses` on the same binary measures what stopping certain misses
# saves. Asserts nothing: timings are figures.
# Usage: [SEEDS="1 2 3"] [DURATION_S=60] [NEW_ARGS=...] [OLD_ARGS=...] bench/plan_speed.sh [NEW [OLD]]
set -euo pipefail
new=${1:-build/sparksim}
old=${2:-}
read -r -a seeds <<<"${SEEDS:-1 2 3}"
duration=${DURATION_S:-60}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

plan() {  # label binary seed extra-args
  local label=$1 bin=$2 seed=$3 extra=$4 dir="$out/$1-$3"
  # shellcheck disable=SC2086  # extra args are words
  /usr/bin/time -f "%e %M" -o "$dir.time" "$bin" plan --synthetic \
    "rate=10000,prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat,duration_s=$duration" \
    --router least-loaded --max-replicas 2048 --profile profiles/analytic/h100-sxm/qwen3-8b.json \
    --policies mtp1+static:k=1 dspark-7+static:k=3 \
    --slo 'ttft_p99_ms<=2000,tok_s_per_user_p50>=80' --seed "$seed" --jobs 2 --quiet \
    --out "$dir" $extra
  read -r wall rss <"$dir.time"
  local answers
  answers=$(awk -F, 'NR > 1 { printf "%s%s+%s=%s", (NR > 2 ? " " : ""), $1, $2, $8 }' "$dir/plan.csv")
  printf '%-4s seed %-3s %8.1f s  %6.0f MiB  %s\n' "$label" "$seed" "$wall" "$((rss / 1024))" "$answers"
  echo "$wall" >>"$out/$label.walls"
}

for seed in "${seeds[@]}"; do
  if [ -z "$old" ]; then
    plan new "$new" "$seed" "${NEW_ARGS:-}"
  elif [ $((seed % 2)) -eq 1 ]; then
    plan new "$new" "$seed" "${NEW_ARGS:-}"
    plan old "$old" "$seed" "${OLD_ARGS:-}"
  else
    plan old "$old" "$seed" "${OLD_ARGS:-}"
    plan new "$new" "$seed" "${NEW_ARGS:-}"
  fi
  if [ -n "$old" ] && ! cmp -s "$out/new-$seed/plan.csv" "$out/old-$seed/plan.csv"; then
    echo "seed $seed: the two binaries' plan.csv differ"
  fi
done
for label in new old; do
  [ -f "$out/$label.walls" ] || continue
  awk -v label="$label" '{ total += $1 } END { printf "%s: %.1f s over %d plans\n", label, total, NR }' \
    "$out/$label.walls"
done
