#!/usr/bin/env bash
# How long `make test` takes, phase by phase, from clean build directories (issue 33's measuring
# stick; CONTRIBUTING.md keeps its output from before and after each build change).
#
#   bench/build_time.sh [OUT_DIR]      (default out/build-time; needs the packages installed)
#
# Times configure, each build phase of the Release build (CUDA kernels, libraries, CLI, the rest:
# tests, benchmarks, fuzz replays), the sanitizer build's configure and build, and each test phase
# (Release ctest, ASan + UBSan ctest, the Slurm sweep), then prints the ten slowest translation
# units of each build from Ninja's log (.ninja_log: start and end of every edge, in ms). It
# compiles with ccache disabled, as CI does. A benchmark: it prints, it asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/build-time}
jobs=${JOBS:-$(nproc)}
release=$out/build
sanitize=$out/build-sanitize
export CCACHE_DISABLE=1
rm -rf "$release" "$sanitize"
mkdir -p "$out"
report=$out/build_time.txt
: >"$report"

phase() {  # phase NAME COMMAND...: runs COMMAND, appends "NAME wall cpu" to the report
  # Wall time is what a contributor waits; CPU time (user + system, children included) is what
  # survives a busy machine, so before/after comparisons on a shared machine read the second.
  local name=$1 log="$out/${1// /_}.log" times
  shift
  times=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$log" 2>&1; } 2>&1 ) ||
    { echo "build_time: '$name' failed, see $log" >&2; exit 1; }
  read -r wall user sys <<<"$times"
  printf '%-24s wall %8.1f s   cpu %8.1f s\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" |
    tee -a "$report"
}

slowest_units() {  # slowest_units BUILD_DIR: the ten slowest edges that compile one source
  awk -F'\t' '!/^#/ && $4 ~ /\.(o|obj)$/ { printf "%8.1f s  %s\n", ($2 - $1) / 1000, $4 }' \
    "$1/.ninja_log" | sort -rn | head -10
}

wall_start=$(date +%s.%N)
phase "release configure" cmake -S . -B "$release" -G Ninja -DCMAKE_BUILD_TYPE=Release
if grep -q '^CMAKE_CUDA_COMPILER:[A-Z]*=/' "$release/CMakeCache.txt"; then
  phase "release CUDA kernels" cmake --build "$release" -j "$jobs" --target sparksim_kernels_gpu
fi
phase "release libraries" cmake --build "$release" -j "$jobs" --target sparksim_experiments
phase "release CLI" cmake --build "$release" -j "$jobs" --target sparksim
phase "release tests and rest" cmake --build "$release" -j "$jobs"
phase "release ctest" ctest --test-dir "$release" -j "$jobs"
# SANITIZE_CMAKE_ARGS: extra configure arguments, e.g. the build type an older Makefile passed.
# shellcheck disable=SC2086
phase "sanitize configure" cmake -S . -B "$sanitize" -G Ninja -DSPARKSIM_SANITIZE=ON \
  -DCMAKE_CUDA_COMPILER=OFF ${SANITIZE_CMAKE_ARGS:-}
phase "sanitize build" cmake --build "$sanitize" -j "$jobs"
phase "sanitize ctest" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir "$sanitize" -j "$jobs"
if [ "$(id -u)" -eq 0 ] && [ "${SKIP_SLURM:-0}" != 1 ]; then
  phase "slurm sweep" ./tests/slurm/slurm_sweep_test.sh "$release/sparksim"
fi
wall_end=$(date +%s.%N)
printf '%-24s wall %8.1f s\n' "total" "$(echo "$wall_end - $wall_start" | bc)" | tee -a "$report"
for build in "$release" "$sanitize"; do
  echo "ten slowest translation units, $(basename "$build"):" | tee -a "$report"
  slowest_units "$build" | sed "s|$build/||" | tee -a "$report"
done
echo "tests: release $(ctest --test-dir "$release" -N | awk '/Total Tests/ {print $3}')," \
  "sanitize $(ctest --test-dir "$sanitize" -N | awk '/Total Tests/ {print $3}')" | tee -a "$report"
echo "wrote $report"
