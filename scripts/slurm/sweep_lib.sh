# shellcheck shell=bash
# Shared by the scripts in scripts/slurm/ (sourced, not run): the layout of a run directory and
# which shards of it are complete. A shard is complete when `sparksim pareto --shard` committed
# its output directory: shard.json appears only then (the output is staged and moved into place),
# so a shard that failed, was killed or never started has none, whatever Slurm remembers of it.
#
# Run directory:  run.env              what was submitted (sourced by every job and by resubmit)
#                 sweep_config.json    the sweep config, copied at submission
#                 shards/<i>/          `sparksim pareto --shard i/N` output, i = 1..N
#                 logs/shard-<i>.job-<array job id>.log, logs/merge.job-<job id>.log
#                 jobs.tsv             one line per submission: array job, merge job, shards
#                 failed_shards.txt    written by the merge job when shards are missing
#                 report/              `sparksim merge` output: what a single run writes

# The shards of the run in $1 (with $2 shards in all) that have no committed output, in order.
incomplete_shards() {
  local run=$1 count=$2 i
  for ((i = 1; i <= count; i++)); do
    [ -f "$run/shards/$i/shard.json" ] || echo "$i"
  done
}

# The log of shard $2's latest attempt in run $1 (newest job id), or nothing if it never ran.
shard_log() {
  local run=$1 shard=$2
  # Job ids are integers: the highest is the latest attempt.
  find "$run/logs" -maxdepth 1 -name "shard-$shard.job-*.log" 2>/dev/null |
    sed 's/.*\.job-\([0-9]*\)\.log$/\1 &/' | sort -n | tail -n 1 | cut -d' ' -f2-
}

# "1,3,4" from the lines "1\n3\n4": Slurm's --array list.
join_by_comma() { paste -sd, -; }

slurm_fail() {
  echo "$(basename "$0"): $*" >&2
  exit 2
}

# Submits the array of shards in $2 ("1-4" or "3,7"; empty: none) for the run in $1, then the
# merge job, which waits for every task of the array whatever its outcome (afterany) so that it
# can name the shards that failed. Needs run.env sourced. Prints what it submitted.
submit_jobs() {
  local run=$1 list=$2 array="" merge dependency=()
  if [ -n "$list" ]; then
    array=$(sbatch --parsable --array="$list" --job-name=sparksim-shard --chdir="$WORKDIR" \
      --output="$run/logs/shard-%a.job-%A.log" --export="ALL,SPARKSIM_RUN_DIR=$run" \
      "${SBATCH_OPTIONS[@]}" "$SLURM_SCRIPTS/shard_job.sh") ||
      slurm_fail "sbatch refused the shard array (see its message above); nothing was submitted"
    array=${array%%;*} # --parsable prints "id;cluster" on a multi-cluster site
    dependency=(--dependency="afterany:$array" --kill-on-invalid-dep=yes)
  fi
  if ! merge=$(sbatch --parsable "${dependency[@]}" --job-name=sparksim-merge --chdir="$WORKDIR" \
    --output="$run/logs/merge.job-%j.log" --export="ALL,SPARKSIM_RUN_DIR=$run" \
    "${SBATCH_OPTIONS[@]}" "$SLURM_SCRIPTS/merge_job.sh"); then
    [ -z "$array" ] || scancel "$array"
    slurm_fail "sbatch refused the merge job (see its message above); the shard array was cancelled"
  fi
  merge=${merge%%;*}
  printf '%s\t%s\t%s\n' "${array:--}" "$merge" "${list:--}" >>"$run/jobs.tsv"
  if [ -n "$array" ]; then
    echo "submitted shards $list of $SHARDS as array job $array; merge job $merge runs after it"
  else
    echo "every shard is complete; submitted merge job $merge"
  fi
  echo "report: $run/report/report.html once the merge job has run"
  echo "if shards fail, the merge job lists them in $run/failed_shards.txt; rerun only those with"
  echo "  $SLURM_SCRIPTS/resubmit_failed.sh $run"
}
