#!/usr/bin/env bash
# Submits one `sparksim pareto` sweep to Slurm, after checking its config: an array of N shards
# plus a merge job that writes the report once every shard has run (README.md here). Run it from
# the directory the config's relative paths (profile, trace) are relative to, usually the
# repository root.
#
#   scripts/slurm/submit_sweep.sh --config FILE --shards N --out RUN_DIR
#       [--sparksim PATH] [--no-plots] [-- SBATCH_OPTION...]
#
# SBATCH_OPTIONs (--partition, --time, --account, --cpus-per-task, ...) go to every job of the
# run, resubmissions included; a shard uses --cpus-per-task worker threads (default 1).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=sweep_lib.sh
source "$here/sweep_lib.sh"

usage="usage: $0 --config FILE --shards N --out RUN_DIR [--sparksim PATH] [--no-plots]"
usage+=" [-- SBATCH_OPTION...]"
config="" shards="" run="" sparksim="" plots=1
# Option $1 must have a value after it.
need_value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then slurm_fail "$1 needs a value; $usage"; fi
}
while [ $# -gt 0 ]; do
  case "$1" in
    --config) need_value "$@" && config=$2 && shift 2 ;;
    --shards) need_value "$@" && shards=$2 && shift 2 ;;
    --out) need_value "$@" && run=$2 && shift 2 ;;
    --sparksim) need_value "$@" && sparksim=$2 && shift 2 ;;
    --no-plots) plots=0 && shift ;;
    --) shift && break ;;
    -h | --help) echo "$usage" && exit 0 ;;
    *) slurm_fail "unknown argument '$1'; $usage" ;;
  esac
done
sbatch_options=("$@")

# Every problem before anything is submitted or written.
problems=()
[ -n "$config" ] || problems+=("--config FILE is required")
[ -z "$config" ] || [ -f "$config" ] || problems+=("--config: $config: no such file")
[[ "$shards" =~ ^[1-9][0-9]*$ ]] ||
  problems+=("--shards must be a whole number >= 1, not '$shards'")
[ -n "$run" ] || problems+=("--out RUN_DIR is required")
if [ -n "$run" ] && [ -e "$run/run.env" ]; then
  problems+=("--out: $run already holds a submitted run; rerun its failed shards with"
    "$here/resubmit_failed.sh $run, or choose another directory")
elif [ -n "$run" ] && [ -e "$run" ] && [ -n "$(ls -A "$run" 2>/dev/null)" ]; then
  problems+=("--out: $run exists and is not empty; a run needs a directory of its own")
fi
if [ -z "$sparksim" ]; then
  repo_build=$(cd "$here/../.." && pwd)/build/sparksim
  sparksim=$repo_build
  [ -x "$sparksim" ] || sparksim=$(command -v sparksim || true)
fi
if [ -z "$sparksim" ]; then
  problems+=("no sparksim binary (build it with 'make build' or give --sparksim PATH)")
elif [ ! -x "$sparksim" ]; then
  problems+=("--sparksim: $sparksim is not an executable file")
fi
command -v sbatch >/dev/null ||
  problems+=("sbatch is not on PATH: this machine is not a Slurm submit host")
if [ ${#problems[@]} -gt 0 ]; then
  for p in "${problems[@]}"; do echo "$(basename "$0"): $p" >&2; done
  exit 2
fi
# The config, as a shard would read it (from here, as the jobs run from here): every problem
# now, rather than in the log of every task once they run.
if ! "$sparksim" pareto --check --quiet --config "$config" --shard "1/$shards" \
  --out "$run/shards/1"; then
  echo "$(basename "$0"): $config: not submitted (sparksim pareto --check, above)" >&2
  exit 2
fi

run=$(realpath -m "$run")
mkdir -p "$run/shards" "$run/logs"
cp "$config" "$run/sweep_config.json"
{
  printf '# sparksim sweep submitted to Slurm by scripts/slurm/submit_sweep.sh on %s\n' \
    "$(date -u +%FT%TZ)"
  printf 'SPARKSIM=%q\n' "$(realpath "$sparksim")"
  printf 'SWEEP_CONFIG=%q\n' "$run/sweep_config.json"
  printf 'SHARDS=%q\n' "$shards"
  printf 'PLOTS=%q\n' "$plots"
  printf 'WORKDIR=%q\n' "$PWD"
  printf 'SLURM_SCRIPTS=%q\n' "$here"
  printf 'SBATCH_OPTIONS=('
  [ ${#sbatch_options[@]} -eq 0 ] || printf ' %q' "${sbatch_options[@]}"
  printf ' )\n'
} >"$run/run.env.partial"
mv "$run/run.env.partial" "$run/run.env"
# shellcheck source=/dev/null
source "$run/run.env"
# If sbatch refuses the array, take back what was written, so that the same command can be rerun.
undo_run_dir() {
  rm -f "$run/run.env" "$run/sweep_config.json"
  rmdir "$run/shards" "$run/logs" "$run" 2>/dev/null || true
}
trap 'undo_run_dir' EXIT
submit_jobs "$run" "1-$shards"
trap - EXIT
