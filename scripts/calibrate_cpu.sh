#!/usr/bin/env bash
# The whole calibration chain on the CPU backend (`make calibrate-cpu`; CI runs it inside the
# ctest `calibration/gpu_script_dry_run`, the GPU script's dry run): sweep the CPU references ->
# fit a measured profile -> simulate a synthetic workload on it, exporting every step -> replay
# those steps on the same backend -> fidelity.json (held-out step error, throughput and TPOT
# errors). Every file lands in OUT as it is produced.
# Usage: [BACKEND=cpu|cuda] scripts/calibrate_cpu.sh [BUILD_DIR] [OUT_DIR]
# BACKEND=cuda (scripts/gpu_calibrate.sh on a GPU): the same chain on the CUDA backend with
# qwen3-8b (device-drawn weights), serving-sized slots and workload, graphs up to 512 tokens.
set -euo pipefail
# MAX_STEP_MAPE (default 25): a sanity gate that fails the chain on a broken pipeline (a unit or
# feature error gives errors of 100% and more); the 3% target is reported, not gated, because
# CPU timing noise on a shared machine is of that order (fidelity.json reports it).
BUILD=${1:-build}
OUT=${2:-out/calibrate-cpu}
KERNELS="$BUILD/kernels/sparksim_calibrate_kernels"
SPARKSIM="$BUILD/sparksim"
for bin in "$KERNELS" "$SPARKSIM"; do
  [[ -x "$bin" ]] || { echo "calibrate_cpu.sh: $bin not built" >&2; exit 2; }
done
rm -rf "$OUT"
mkdir -p "$OUT"
start=$SECONDS

BACKEND=${BACKEND:-cpu}
case "$BACKEND" in
  cpu)
    # 8 KV slots of 512 tokens; the time caps keep a slow machine bounded (rows so far stay).
    MEASURE=(--backend cpu --max-requests 8 --slot-tokens 512 --repeats 5
      --interleave "${INTERLEAVE:-16}" --estimator "${ESTIMATOR:-median}")
    SWEEP_CAP=40 REPLAY_CAP=40
    NOTES="CPU proof of the calibration pipeline: the project's CPU reference kernels on a tiny \
target (2 layers, hidden 192, vocab 512), timed in thread CPU time. Not a GPU measurement."
    WORKLOAD=(--synthetic rate=12,cv=1.0,prompt=lognormal:48:0.4,output=lognormal:16:0.4,domain=chat,duration_s=1.5
      --max-running 8 --max-batch-tokens 48)
    ;;
  cuda)
    # qwen3-8b: 32 slots of 2560 tokens (12 GB of bf16 K/V beside 16 GB of weights).
    MEASURE=(--backend cuda --target qwen3-8b --graphs 512 --max-requests 32 --slot-tokens 2560
      --repeats 5)
    SWEEP_CAP=40 REPLAY_CAP=25  # two replays: the chain stage has 120 s in all
    NOTES="The project's CUDA kernels (bf16 weights drawn on the device, cuBLAS GEMMs, CUDA \
graphs per token bucket up to 512), timed with CUDA events."
    # Narrow lengths: a request must fit its 2560-token slot (prompt + output < 2300 even at z = 5).
    WORKLOAD=(--synthetic rate=20,cv=1.0,prompt=lognormal:400:0.3,output=lognormal:100:0.3,domain=chat,duration_s=4
      --max-running 32 --max-batch-tokens 512)
    ;;
  *) echo "calibrate_cpu.sh: BACKEND must be cpu or cuda" >&2; exit 2 ;;
esac

# 1. Sweep.
"$KERNELS" sweep "${MEASURE[@]}" --time-cap-s "$SWEEP_CAP" \
  --out "$OUT/sweep.csv" --info "$OUT/sweep_info.txt" | tee "$OUT/log.txt"

# 2. Fit with the shared least-squares fitter; provenance "measured", device = the backend's.
"$SPARKSIM" calibrate kernels-fit --sweep "$OUT/sweep.csv" --info "$OUT/sweep_info.txt" \
  --notes "$NOTES" \
  --out "$OUT/profile.json" --report "$OUT/fit_report.json" | tee -a "$OUT/log.txt"

# 3. Simulate on the measured profile, exporting the step sequence (same KV slots as the sweep).
"$SPARKSIM" run --profile "$OUT/profile.json" "${WORKLOAD[@]}" \
  --drafter dspark-4 --policy static:k=3 --seed 1 --write-steps --quiet --out "$OUT/run"

# 4. Replay every simulated step on the backend (median of the repeats after a warm-up).
"$KERNELS" replay "${MEASURE[@]}" --time-cap-s "$REPLAY_CAP" \
  --steps "$OUT/run/steps.csv" --out "$OUT/replay.csv" | tee -a "$OUT/log.txt"

# 5. Predicted against measured.
"$SPARKSIM" calibrate kernels-fidelity --steps "$OUT/run/steps.csv" --replay "$OUT/replay.csv" \
  --fit-report "$OUT/fit_report.json" --out "$OUT/fidelity.json" \
  --max-step-mape "${MAX_STEP_MAPE:-25}" | tee -a "$OUT/log.txt"
# 6. The noise floor: the same steps replayed a second time; the mean |difference| between the
# two replays (in % of their mean) is the step error that timing noise alone gives, the floor
# under step_mape (fidelity.json compares the simulator against one replay).
"$KERNELS" replay "${MEASURE[@]}" --time-cap-s "$REPLAY_CAP" \
  --steps "$OUT/run/steps.csv" --out "$OUT/replay_again.csv" > /dev/null
awk -F, 'FNR == 1 { next } NR == FNR { a[$1] = $7; next }
  ($1 in a) { n++; d = a[$1] - $7; if (d < 0) d = -d; s += 200 * d / (a[$1] + $7) }
  END { printf "replay_to_replay_step_mape_pct=%.2f steps=%d\n", n ? s / n : 0, n }' \
  "$OUT/replay.csv" "$OUT/replay_again.csv" | tee "$OUT/noise_floor.txt" | tee -a "$OUT/log.txt"
# 7. The autoregressive drafters end to end (CPU backend only: on a GPU the chain stage's 120 s
# hold the sweep and the dspark replays; there mtp1 and eagle3 are swept and fitted only): a
# short run with each drafter on the measured profile, replayed, compared
# (fidelity_mtp1.json, fidelity_eagle3.json; the same sanity gate).
if [[ $BACKEND == cpu ]]; then
  for drafter in mtp1:static:k=1 eagle3-3:static:k=3; do
    name=${drafter%%:*} policy=${drafter#*:}
    family=${name%%-*}
    "$SPARKSIM" run --profile "$OUT/profile.json" "${WORKLOAD[@]/duration_s=1.5/duration_s=0.75}" \
      --drafter "$name" --policy "$policy" --seed 1 --write-steps --quiet --out "$OUT/run_$family"
    "$KERNELS" replay "${MEASURE[@]}" --time-cap-s 15 --steps "$OUT/run_$family/steps.csv" \
      --out "$OUT/replay_$family.csv" > /dev/null
    "$SPARKSIM" calibrate kernels-fidelity --steps "$OUT/run_$family/steps.csv" \
      --replay "$OUT/replay_$family.csv" --fit-report "$OUT/fit_report.json" \
      --out "$OUT/fidelity_$family.json" --max-step-mape "${MAX_STEP_MAPE:-25}" |
      sed "s/^/$name: /" | tee -a "$OUT/log.txt"
  done
fi
echo "calibrate-cpu: $((SECONDS - start)) s wall; $OUT/fidelity.json" | tee -a "$OUT/log.txt"
