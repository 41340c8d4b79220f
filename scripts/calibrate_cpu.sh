#!/usr/bin/env bash
# The whole calibration chain on the CPU backend (`make calibrate-cpu`; CI runs it inside the
# ctest `calibration/gpu_script_dry_run`, the GPU script's dry run): sweep the CPU references ->
# fit a measured profile -> simulate a synthetic workload on it, exporting every step -> replay
# those steps on the same backend -> fidelity.json (held-out step error, throughput and TPOT
# errors). Every file lands in OUT as it is produced.
# Usage: scripts/calibrate_cpu.sh [BUILD_DIR] [OUT_DIR]
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

# 1. Sweep: 8 KV slots of 512 tokens; the time cap keeps a slow machine bounded (rows so far stay).
"$KERNELS" sweep --backend cpu --max-requests 8 --slot-tokens 512 --repeats 5 --time-cap-s 40 \
  --out "$OUT/sweep.csv" --info "$OUT/sweep_info.txt" | tee "$OUT/log.txt"

# 2. Fit with the shared least-squares fitter; provenance "measured", device = this CPU.
"$SPARKSIM" calibrate-fit --sweep "$OUT/sweep.csv" --info "$OUT/sweep_info.txt" \
  --notes "CPU proof of the calibration pipeline: the project's CPU reference kernels on a tiny \
target (2 layers, hidden 192, vocab 512), timed in thread CPU time. Not a GPU measurement. \
draft.mtp1 and draft.eagle3 are NOT measured (no kernels yet) and are zero." \
  --out "$OUT/profile.json" --report "$OUT/fit_report.json" | tee -a "$OUT/log.txt"

# 3. Simulate on the measured profile, exporting the step sequence (same KV slots as the sweep).
"$SPARKSIM" run --profile "$OUT/profile.json" \
  --synthetic rate=12,cv=1.0,prompt=lognormal:48:0.4,output=lognormal:16:0.4,domain=chat,duration_s=1.5 \
  --drafter dspark-4 --policy static:k=3 --max-running 8 --max-batch-tokens 48 --seed 1 \
  --write-steps --quiet --out "$OUT/run"

# 4. Replay every simulated step on the backend (median of 5 after a warm-up).
"$KERNELS" replay --backend cpu --max-requests 8 --slot-tokens 512 --repeats 5 --time-cap-s 40 \
  --steps "$OUT/run/steps.csv" --out "$OUT/replay.csv" | tee -a "$OUT/log.txt"

# 5. Predicted against measured.
"$SPARKSIM" calibrate-fidelity --steps "$OUT/run/steps.csv" --replay "$OUT/replay.csv" \
  --fit-report "$OUT/fit_report.json" --out "$OUT/fidelity.json" \
  --max-step-mape "${MAX_STEP_MAPE:-25}" | tee -a "$OUT/log.txt"
echo "calibrate-cpu: $((SECONDS - start)) s wall; $OUT/fidelity.json" | tee -a "$OUT/log.txt"
