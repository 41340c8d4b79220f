#!/usr/bin/env bash
# Resubmits only the shards of a sweep run that have no committed output (failed, killed or never
# started), as a new Slurm array with the same options, plus a new merge job after it
# (README.md here). Refuses while an earlier submission of the run is still queued or running.
#
#   scripts/slurm/resubmit_failed.sh RUN_DIR [-- SBATCH_OPTION...]
#
# SBATCH_OPTIONs are added to the run's for this submission only (say --time=04:00:00 after a
# shard hit its time limit).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=sweep_lib.sh
source "$here/sweep_lib.sh"

usage="usage: $0 RUN_DIR [-- SBATCH_OPTION...] (RUN_DIR: made by submit_sweep.sh)"
if [ $# -eq 0 ] || [[ "$1" == -* ]]; then slurm_fail "$usage"; fi
given=$1
run=$(realpath -m "$given")
shift
if [ $# -gt 0 ]; then
  [ "$1" = -- ] || slurm_fail "unknown argument '$1'; $usage"
  shift
fi
extra_options=("$@")
[ -f "$run/run.env" ] ||
  slurm_fail "$given: not a sweep run directory (no run.env from submit_sweep.sh)"
command -v squeue >/dev/null ||
  slurm_fail "squeue is not on PATH: this machine is not a Slurm submit host"
# shellcheck source=/dev/null
source "$run/run.env"

# A shard still queued or running would be run twice.
active=()
while IFS=$'\t' read -r array merge _; do
  for job in $array $merge; do
    [ "$job" = - ] && continue
    if [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; then active+=("$job"); fi
  done
done <"$run/jobs.tsv"
[ ${#active[@]} -eq 0 ] ||
  slurm_fail "jobs ${active[*]} of this run are still queued or running;" \
    "wait for them (squeue) or cancel them (scancel ${active[*]})"

list=$(incomplete_shards "$run" "$SHARDS" | join_by_comma)
if [ -z "$list" ] && [ -f "$run/report/report.html" ]; then
  echo "every shard of $run is complete and merged: $run/report/report.html"
  exit 0
fi
[ -z "$list" ] || echo "resubmitting shards $list of $SHARDS (the others are complete)"
SBATCH_OPTIONS+=("${extra_options[@]}")
submit_jobs "$run" "$list"
