#!/usr/bin/env bash
# The job that runs after every task of a sweep's Slurm array: if each shard committed its output
# it runs `sparksim merge` into <run>/report (the files one `sparksim pareto` run writes);
# otherwise it names each missing shard with the log of its latest attempt, lists them in
# <run>/failed_shards.txt (shard, log) and fails, so that resubmit_failed.sh reruns only those.
#SBATCH --ntasks=1
set -euo pipefail
run=${SPARKSIM_RUN_DIR:?submit with scripts/slurm/submit_sweep.sh}
# shellcheck source=/dev/null
source "$run/run.env"
# shellcheck source=sweep_lib.sh
source "$SLURM_SCRIPTS/sweep_lib.sh"

mapfile -t missing < <(incomplete_shards "$run" "$SHARDS")
if [ ${#missing[@]} -gt 0 ]; then
  : >"$run/failed_shards.txt.partial"
  for shard in "${missing[@]}"; do
    log=$(shard_log "$run" "$shard")
    echo "sparksim-slurm: shard $shard/$SHARDS failed (no $run/shards/$shard/shard.json);" \
      "log: ${log:-none, the task never started}" >&2
    printf '%s\t%s\n' "$shard" "${log:--}" >>"$run/failed_shards.txt.partial"
  done
  mv "$run/failed_shards.txt.partial" "$run/failed_shards.txt"
  echo "sparksim-slurm: ${#missing[@]} of $SHARDS shards failed; not merging." \
    "Rerun only those: $SLURM_SCRIPTS/resubmit_failed.sh $run" >&2
  exit 1
fi
rm -f "$run/failed_shards.txt"
shard_dirs=()
for ((shard = 1; shard <= SHARDS; shard++)); do shard_dirs+=("$run/shards/$shard"); done
plots=()
[ "${PLOTS:?}" = 1 ] || plots=(--no-plots)
exec "$SPARKSIM" merge "${shard_dirs[@]}" "${plots[@]}" --out "$run/report"
