#!/usr/bin/env bash
# What `make demo` waits for, the `sparksim` target built from a clean build directory, compared
# between two commits in one interleaved run (A B A B ...), so that a busy machine slows both alike;
# also the rebuild after touching one .cpp in sim/. A benchmark: it prints, it asserts nothing.
#
#   bench/demo_build_ab.sh REV_A REV_B [ROUNDS] [OUT_DIR]   (default 2 rounds, out/demo-build-ab)
#
# Each commit is exported (git archive) into OUT_DIR/a and OUT_DIR/b; each round configures a fresh
# build directory as `make demo` does (Release, no tests), builds `sparksim` with ccache disabled
# (as on a fresh clone) on JOBS cores (default 2, the development machine), then touches
# TOUCH (default sim/engine.cpp) and times the rebuild of `sparksim`. Prints every build, the
# medians per commit and the ratio B / A of the medians. ORDER="b a" builds B first in each round
# (to put a disturbance at the start, e.g. another build finishing, on B's side).
set -euo pipefail
cd "$(dirname "$0")/.."
rev_a=${1:?usage: bench/demo_build_ab.sh REV_A REV_B [ROUNDS] [OUT_DIR]}
rev_b=${2:?usage: bench/demo_build_ab.sh REV_A REV_B [ROUNDS] [OUT_DIR]}
rounds=${3:-2}
out=${4:-out/demo-build-ab}
jobs=${JOBS:-2}
touch_file=${TOUCH:-sim/engine.cpp}
order=${ORDER:-a b}
export CCACHE_DISABLE=1
rm -rf "$out"
mkdir -p "$out/a" "$out/b"
git archive "$rev_a" | tar -x -C "$out/a"
git archive "$rev_b" | tar -x -C "$out/b"
results=$out/times.txt
: >"$results"

seconds() {  # seconds COMMAND...: runs COMMAND quietly, prints its wall and CPU (user + system) s
  # CPU seconds move less than wall seconds when other work shares the machine.
  local times wall user sys
  times=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 ) ||
    { echo "demo_build_ab: '$*' failed" >&2; exit 1; }
  read -r wall user sys <<<"$times"
  echo "$wall $(echo "$user + $sys" | bc)"
}

for round in $(seq 1 "$rounds"); do
  for side in $order; do
    src=$out/$side
    rm -rf "$src/build"
    times=$(seconds cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
            -DSPARKSIM_BUILD_TESTS=OFF)
    read -r configure _ <<<"$times"
    times=$(seconds ninja -C "$src/build" -j "$jobs" sparksim)
    read -r build build_cpu <<<"$times"
    touch "$src/$touch_file"
    times=$(seconds ninja -C "$src/build" -j "$jobs" sparksim)
    read -r rebuild _ <<<"$times"
    printf '%s round %d  configure %6.1f s  build sparksim %7.1f s (%7.1f CPU s)  rebuild after touching %s %5.1f s\n' \
      "$side" "$round" "$configure" "$build" "$build_cpu" "$touch_file" "$rebuild" |
      tee -a "$out/log.txt"
    echo "$side $build $rebuild $build_cpu" >>"$results"
  done
done

median() {  # median SIDE COLUMN: the median of one column of one commit's results
  awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$results" | sort -n |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
build_a=$(median a 2)
build_b=$(median b 2)
printf 'median build sparksim: A (%s) %.1f s, B (%s) %.1f s, B / A = %.3f\n' \
  "$rev_a" "$build_a" "$rev_b" "$build_b" "$(echo "$build_b / $build_a" | bc -l)"
cpu_a=$(median a 4)
cpu_b=$(median b 4)
printf 'median CPU: A %.1f s, B %.1f s, B / A = %.3f\n' "$cpu_a" "$cpu_b" \
  "$(echo "$cpu_b / $cpu_a" | bc -l)"
printf 'median rebuild after touching %s: A %.1f s, B %.1f s\n' "$touch_file" \
  "$(median a 3)" "$(median b 3)"
