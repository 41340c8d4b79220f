#!/usr/bin/env bash
# Fleet speed benchmark (issue 35): is a fleet simulated as fast, per request-step, as one replica?
# Runs, per binary and round:
#   fleet-1000  the issue's command: 1,000 replicas behind least-loaded, synthetic traffic at
#               1,000 requests/s (lognormal prompts 1000 / outputs 200, chat), static:k=3, seed 1;
#   fleet-64    the same traffic scaled to 64 replicas (64 requests/s);
#   replay-1    one replica replaying the Azure conversation trace (bench/replay_speed.sh's run);
#   lone-load   one replica under fleet-1000's per-replica load: the same synthetic traffic at
#               1 request/s for 1,000 times as long (as many requests), a lone replica whose steps
#               carry as few requests as a fleet replica's do.
# Prints, per case, request-steps per wall second (the summary's request_steps over its sim_wall_s:
# the simulation's own wall time, which for a cluster includes building the replicas and for one
# replica excludes loading the trace, as in bench/replay_speed.sh), the process's wall time and
# peak RSS (GNU time), and
# each fleet's rate as a fraction of replay-1's in the same round (1.0: a fleet request-step costs
# what a lone replica's does; the issue's target is >= 1/1.5). Rounds are interleaved, and with an
# OLD binary every case runs on both binaries back to back in alternating order, so a slow spell of
# a shared machine hits both alike; the summary gives medians and the median per-round new/old
# ratio. Asserts nothing: timings are figures.
# DURATION_S sets the synthetic traffic's duration (default 600, the issue's); CASES picks cases.
# NEW_ARGS / OLD_ARGS are added to that binary's fleet runs: `--threads 1` and `--threads 2` on
# the same binary compare the one-thread loop with the windowed one (a binary from before
# `--threads` runs one thread and rejects the option; without it the CLI's default applies).
# Usage: [REPEATS=N] [DURATION_S=S] [CASES="fleet-1000 fleet-64 replay-1 lone-load"] \
#        [NEW_ARGS=...] [OLD_ARGS=...] bench/fleet_speed.sh [NEW [OLD]]
set -euo pipefail
new=${1:-build/sparksim}
old=${2:-}
duration=${DURATION_S:-600}
read -r -a cases <<<"${CASES:-fleet-1000 fleet-64 replay-1 lone-load}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
profile=profiles/analytic/h100-sxm/qwen3-8b.json

fleet_args() {  # replicas
  local rate=$1
  echo cluster --synthetic \
    "rate=$rate,prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat,duration_s=$duration" \
    --replicas "$1" --router least-loaded
}

extra_args() {  # label
  if [ "$1" = new ]; then echo "${NEW_ARGS:-}"; else echo "${OLD_ARGS:-}"; fi
}

run_case() {  # label binary case round
  local label=$1 bin=$2 case=$3 round=$4 args
  case $case in
    fleet-1000) args="$(fleet_args 1000) $(extra_args "$label")" ;;
    fleet-64) args="$(fleet_args 64) $(extra_args "$label")" ;;
    replay-1) args="run --trace traces/azure_conv_2023.csv" ;;
    lone-load)
      args="run --synthetic rate=1,prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat,duration_s=$((duration * 1000))"
      ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
  esac
  rm -rf "$out/run"
  # shellcheck disable=SC2086  # args holds whole words (the synthetic spec has no spaces)
  /usr/bin/time -v -o "$out/time.txt" "$bin" $args --profile "$profile" --drafter dspark-7 \
    --policy static:k=3 --seed 1 --out "$out/run" --quiet
  python3 - "$out/run/summary.json" "$out/time.txt" "$label" "$case" "$round" "$out/rounds" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
rss_mb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
wall = 0.0
for part in clock.split(":"):
    wall = wall * 60 + float(part)
steps = s["request_steps"]
label, case, rnd = sys.argv[3:6]
sim_wall = s["sim_wall_s"]
print(f"round {rnd} {label:<3} {case:<10} {steps:>10} request-steps in {sim_wall:7.2f} s "
      f"= {steps / sim_wall / 1e6:5.2f} M request-steps/s ({steps / s['steps']:.2f} per step, "
      f"{sim_wall / s['steps'] * 1e9:.0f} ns per step); process wall {wall:7.2f} s, "
      f"peak RSS {rss_mb:7.1f} MB", flush=True)
with open(sys.argv[6], "a") as f:
    f.write(f"{rnd} {label} {case} {steps} {sim_wall} {rss_mb} {wall}\n")
PY
}

echo "duration_s=$duration; cases: ${cases[*]}; new: $new ${NEW_ARGS:-}${old:+; old: $old ${OLD_ARGS:-}}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${REPEATS:-3}"); do
  for case in "${cases[@]}"; do
    if [ -z "$old" ]; then
      run_case new "$new" "$case" "$round"
    elif [ $((round % 2)) -eq 1 ]; then
      run_case old "$old" "$case" "$round"
      run_case new "$new" "$case" "$round"
    else
      run_case new "$new" "$case" "$round"
      run_case old "$old" "$case" "$round"
    fi
  done
done
python3 - "$out/rounds" <<'PY'
import statistics, sys
rate, rss, wall = {}, {}, {}
for line in open(sys.argv[1]):
    rnd, label, case, steps, w, r, process = line.split()
    rate.setdefault((case, label), {})[rnd] = int(steps) / float(w) / 1e6
    rss.setdefault((case, label), []).append(float(r))
    wall.setdefault((case, label), []).append(float(process))
print("medians over the rounds:")
for (case, label), by_round in sorted(rate.items()):
    line = (f"  {case:<10} {label:<3} {statistics.median(by_round.values()):6.2f} M request-steps/s "
            f"(range {min(by_round.values()):.2f}-{max(by_round.values()):.2f}), "
            f"process wall {statistics.median(wall[(case, label)]):7.2f} s, "
            f"peak RSS {max(rss[(case, label)]):7.1f} MB")
    for lone, what in (("replay-1", "one replica"), ("lone-load", "one replica at its load")):
        single = rate.get((lone, label))
        if not case.startswith("fleet") or not single:
            continue
        shared = [r for r in by_round if r in single]
        per_round = [by_round[r] / single[r] for r in shared]
        line += (f"; vs {what} (same round) {statistics.median(per_round):.3f}x "
                 f"(cost per request-step {statistics.median(1 / x for x in per_round):.2f}x)")
    print(line)
cases = sorted({case for case, _ in rate})
for case in cases:
    if (case, "old") in rate and (case, "new") in rate:
        o, n = rate[(case, "old")], rate[(case, "new")]
        ratios = [n[r] / o[r] for r in n if r in o]
        print(f"  {case:<10} new/old per round: median {statistics.median(ratios):.3f}, "
              f"range {min(ratios):.3f}-{max(ratios):.3f}")
PY
