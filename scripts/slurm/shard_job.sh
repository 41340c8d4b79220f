#!/usr/bin/env bash
# One shard of a sweep, as a task of a Slurm array: task i runs `sparksim pareto --shard i/N` into
# <run>/shards/i. Submitted by submit_sweep.sh and resubmit_failed.sh, which pass the run directory
# in SPARKSIM_RUN_DIR (Slurm runs a copy of this file, so it cannot find its neighbours itself).
#SBATCH --ntasks=1
set -euo pipefail
run=${SPARKSIM_RUN_DIR:?submit with scripts/slurm/submit_sweep.sh}
# shellcheck source=/dev/null
source "$run/run.env"
shard=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}
echo "sparksim-slurm: shard $shard/$SHARDS, job ${SLURM_ARRAY_JOB_ID:-?}_$shard on $(hostname)"
exec "$SPARKSIM" pareto --config "$SWEEP_CONFIG" --shard "$shard/$SHARDS" \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" --out "$run/shards/$shard"
