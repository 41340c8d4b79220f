#!/usr/bin/env bash
# Error rates of the losslessness validator (issue 4), measured, not assumed: runs `sparksim
# lossless` at its default size for every policy in the registry over seeds 1..SEEDS and prints,
# per policy, how often the verdict was `distorted` (the false-alarm rate for rows claiming to be
# lossless, the detection rate for unsafe ones) and the wall time per run. Asserts nothing: the
# figures go into the report. Extra arguments after JOBS are passed to every run (e.g.
# `--drafter parallel`). BINARY defaults to $BUILD_DIR/sparksim (BUILD_DIR defaults to build).
# Usage: [BUILD_DIR=DIR] bench/lossless_error_rates.sh [BINARY] [SEEDS] [JOBS] [ARGS...]
set -euo pipefail
bin=${1:-${BUILD_DIR:-build}/sparksim}
seeds=${2:-100}
jobs=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
extra=("$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Registry rows: "name  [lossless]" or "name  [UNSAFE]" (sparksim policies).
mapfile -t rows < <("$bin" policies | grep -E '^[^ ].*\[(lossless|UNSAFE)\]')
for row in "${rows[@]}"; do
  name=${row%% *}
  claim=$([[ $row == *"[lossless]"* ]] && echo lossless || echo unsafe)
  echo "$name $claim" >> "$out/policies"
  for seed in $(seq 1 "$seeds"); do echo "$name $seed"; done
done | xargs -P "$jobs" -L 1 bash -c '
  name=$0; seed=$1; dir='"$out"'/runs/$name-$seed
  start=$(date +%s.%N)
  set +e; "'"$bin"'" lossless --policy "$name" --seed "$seed" --out "$dir" '"${extra[*]:-}"' \
    > /dev/null 2>&1; code=$?; set -e
  end=$(date +%s.%N)
  echo "$name $seed $code $(awk -v a="$start" -v b="$end" "BEGIN{print b - a}")" >> '"$out"'/results'

python3 - "$out/policies" "$out/results" "$seeds" "${extra[*]:-}" <<'PY'
import math, sys
claims = dict(line.split() for line in open(sys.argv[1]))
runs = {}
for line in open(sys.argv[2]):
    name, seed, code, wall = line.split()
    runs.setdefault(name, []).append((int(code), float(wall)))

def wilson_upper(k, n, z=1.959963984540054):
    p = k / n
    return (p + z * z / (2 * n) + z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)

print(f"losslessness validator, default size, seeds 1..{sys.argv[3]}, alpha 0.01 {sys.argv[4]}")
print(f"{'policy':<16}{'claim':<10}{'runs':>5}{'distorted':>10}{'rate':>8}{'95% upper':>10}"
      f"{'wall mean s':>12}{'wall max s':>11}{'errors':>7}")
pooled = [0, 0]
for name, claim in claims.items():
    r = runs.get(name, [])
    distorted = sum(1 for c, _ in r if c == 3)
    errors = sum(1 for c, _ in r if c not in (0, 3))
    n = len(r) - errors
    walls = [w for _, w in r]
    if claim == "lossless":
        pooled[0] += distorted
        pooled[1] += n
    rate = distorted / n if n else float("nan")
    upper = wilson_upper(distorted, n) if n else float("nan")
    print(f"{name:<16}{claim:<10}{n:>5}{distorted:>10}{rate:>8.3f}{upper:>10.3f}"
          f"{sum(walls) / max(len(walls), 1):>12.2f}{max(walls, default=0):>11.2f}{errors:>7}")
if pooled[1]:
    print(f"false alarms over all lossless rows: {pooled[0]}/{pooled[1]} = "
          f"{pooled[0] / pooled[1]:.4f} (95% upper {wilson_upper(*pooled):.4f})")
PY
