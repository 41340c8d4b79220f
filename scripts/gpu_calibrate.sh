#!/usr/bin/env bash
# The one prepared script for a lent GPU (about 15 minutes of device time, machine start
# included; this script aims at under 8): environment probe, binaries (carried sm_90 build, else a
# kernels-only build there), kernel check, verify benchmark, then the calibration chain. Every
# stage writes under $OUT as it goes (stages.tsv: stage, exit status, seconds), so a run cut
# short keeps what it did. A failing stage is recorded and the next one runs.
#   scripts/gpu_calibrate.sh [--dry-run] [--build DIR]
# --dry-run: no GPU needed; the GPU stages are recorded "not run" and the chain runs on the CPU
# backend (scripts/calibrate_cpu.sh): what CI runs (ctest calibration/gpu_script_dry_run).
# On a GPU the chain runs on the CUDA backend (qwen3-8b, device-drawn weights, CUDA graphs per
# token bucket); a stage whose binary finds no device records "not run" (exit 77).
set -uo pipefail
DRY_RUN=0
BUILD=build-sm90
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) DRY_RUN=1; shift ;;
    --build) BUILD="$2"; shift 2 ;;
    *) echo "gpu_calibrate.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-out/gpu-calibrate}
mkdir -p "$OUT"
STAGES="$OUT/stages.tsv"
printf 'stage\tstatus\tseconds\tnote\n' > "$STAGES"
started=$SECONDS

# stage NAME TIMEOUT_S NOTE COMMAND...: runs with a time limit, logs to $OUT/NAME.log.
stage() {
  local name=$1 limit=$2 note=$3
  shift 3
  local t0=$SECONDS status
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  status=$?
  [[ $status == 77 ]] && status="not run"  # the binary found no CUDA device
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - t0))" "$note" >> "$STAGES"
  echo "[$((SECONDS - started)) s] $name: exit $status"
  return 0
}
not_run() { printf '%s\tnot run\t0\t%s\n' "$1" "$2" >> "$STAGES"; echo "$1: not run ($2)"; }

# 1. Environment probe: driver, GPU, CUDA libraries the binaries resolve, CPU and memory.
probe() {
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -a)"
  grep -m1 'model name' /proc/cpuinfo
  free -g | head -2
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  else
    echo "nvidia-smi: not found"
  fi
  for bin in "$BUILD/kernels/sparksim_kernel_check" "$BUILD/kernels/sparksim_calibrate_kernels"; do
    [[ -x "$bin" ]] && { echo "ldd $bin:"; ldd "$bin" | grep -Ei 'cuda|cublas|not found'; }
  done
  return 0
}
probe > "$OUT/env_probe.log" 2>&1
printf 'env_probe\t%s\t0\tdriver, GPU, libraries\n' "$?" >> "$STAGES"

if [[ $DRY_RUN == 1 ]]; then
  BUILD=${DRY_RUN_BUILD:-build}
  not_run build_kernels "dry run"
  not_run kernel_check "dry run (no GPU)"
  not_run kernel_check_sanitizer "dry run (no GPU)"
  not_run verify_bench "dry run (no GPU)"
  echo "markov_share: not run (dry run, no GPU)" > "$OUT/markov_share.txt"
else
  # 2. Binaries: the carried sm_90 build if its libraries resolve here, else a kernels-only build.
  check_bin="$BUILD/kernels/sparksim_kernel_check"
  if [[ ! -x "$check_bin" ]] || ldd "$check_bin" | grep -q 'not found'; then
    stage build_kernels 180 "kernels-only sm_90 build on the GPU machine" bash -c \
      "cmake -S . -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPARKSIM_KERNELS_ONLY=ON \
         -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build '$BUILD' -j 16 --target \
         sparksim_kernel_check sparksim_verify_bench sparksim_calibrate_kernels"
  else
    printf 'build_kernels\tcarried\t0\t%s\n' "$BUILD" >> "$STAGES"
  fi
  # 3. Every kernel against its CPU reference, then again under compute-sanitizer (memcheck)
  # with the debug switch that synchronises after every launch, so a fault names its launch.
  stage kernel_check 45 "GPU vs CPU reference" "$BUILD/kernels/sparksim_kernel_check"
  # (The toolkit's optional cuda-sanitizer component: absent from the development machine.)
  sanitizer=""
  for candidate in "$(command -v compute-sanitizer)" /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [[ -n "$candidate" && -x "$candidate" ]] && { sanitizer=$candidate; break; }
  done
  if [[ -n "$sanitizer" ]]; then
    stage kernel_check_sanitizer 60 "compute-sanitizer memcheck, SPARKSIM_CUDA_SYNC=1" \
      env SPARKSIM_CUDA_SYNC=1 "$sanitizer" --tool memcheck --error-exitcode 3 \
      "$BUILD/kernels/sparksim_kernel_check"
  else
    not_run kernel_check_sanitizer "compute-sanitizer not found"
  fi
  # 4. The verify forward against the bandwidth floor.
  stage verify_bench 60 "qwen3-8b, 2k context" "$BUILD/kernels/sparksim_verify_bench" \
    --target qwen3-8b --context 2048 --width 4
  # The Markov-head loop's share of a drafter round (R = 128, gamma = 7; target <= 2%).
  grep '^markov_share:' "$OUT/verify_bench.log" > "$OUT/markov_share.txt" ||
    echo "markov_share: not measured (see verify_bench.log)" > "$OUT/markov_share.txt"
fi

# 5. Sweep -> fit -> simulate -> replay -> fidelity. The sweep covers all four drafters (dspark,
# dflash, eagle3, mtp1; docs/calibration.md: the MTP-1/EAGLE-3 points fit the same 40 s cap).
# The fit and the simulation need the sparksim binary (Boost, Eigen...); where it is missing
# (kernels-only build) only the sweep runs and the fit happens back on the development machine
# from $OUT/chain/sweep.csv.
CHAIN_BACKEND=cuda
CHAIN_LIMIT_S=120
# On the CPU no device time is at stake, and CI runs the dry run under ASan too (2-3x slower):
# the limit only has to stay inside the ctest timeout (300 s).
[[ $DRY_RUN == 1 ]] && CHAIN_BACKEND=cpu && CHAIN_LIMIT_S=280
if [[ -x "$BUILD/sparksim" ]]; then
  stage chain $CHAIN_LIMIT_S "$CHAIN_BACKEND backend" env BACKEND=$CHAIN_BACKEND \
    ./scripts/calibrate_cpu.sh "$BUILD" "$OUT/chain"
else
  mkdir -p "$OUT/chain"
  target=()
  [[ $CHAIN_BACKEND == cuda ]] && target=(--target qwen3-8b --graphs 512 --max-requests 32 \
    --slot-tokens 2560)
  stage sweep 120 "$CHAIN_BACKEND backend" \
    "$BUILD/kernels/sparksim_calibrate_kernels" sweep --backend $CHAIN_BACKEND "${target[@]}" \
    --time-cap-s 100 --out "$OUT/chain/sweep.csv" --info "$OUT/chain/sweep_info.txt"
fi
echo "gpu_calibrate.sh: $((SECONDS - started)) s; stages in $STAGES"
# Exit status: the chain's (or the sweep's), so CI fails when the pipeline breaks.
awk -F'\t' '$1 == "chain" || $1 == "sweep" { exit ($2 == "0" ? 0 : 1) }' "$STAGES"
