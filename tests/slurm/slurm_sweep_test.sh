#!/usr/bin/env bash
# `make test-slurm`: scripts/slurm/ against a live Slurm. Starts a throwaway one-node cluster
# (local_slurm_cluster.sh), submits tiny_sweep.json as 4 array shards twice at once, and checks:
#   - a clean run's merged report/ is byte for byte the same sweep run on one machine;
#   - in a run whose shard 3 fails (an injected fault), the merge job fails naming shard 3 and its
#     log, `sparksim merge` refuses the incomplete set and writes nothing, resubmit_failed.sh
#     reruns shard 3 alone (and refuses while that is queued), and the report then matches too.
# The cluster is stopped on every exit path, and the test fails if any of it is left running.
#
#   tests/slurm/slurm_sweep_test.sh PATH/TO/sparksim     (from anywhere; run as root)
# SPARKSIM_SLURM_TEST_KEEP=1 keeps the scratch directory (daemon logs, runs) after a pass too.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sparksim=$(realpath "${1:?usage: $0 PATH/TO/sparksim}")
cd "$repo"
# shellcheck source=local_slurm_cluster.sh
source tests/slurm/local_slurm_cluster.sh

missing=()
for tool in mungekey munged slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  cat >&2 <<SKIP
################################################################################
## test-slurm SKIPPED: ${missing[*]} not installed, and
## 'scripts/install_deps.sh --slurm' could not install them (Debian packages
## slurmctld slurmd slurm-client munge). scripts/slurm/ was NOT tested.
################################################################################
SKIP
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "test-slurm: the daemons run as root; run as root" >&2 && exit 1; }

# An outer Slurm job's or the user's settings must not leak into this cluster's commands.
while read -r name; do unset "$name"; done < <(
  compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SALLOC|SRUN|SINFO|SCANCEL)_' || true
)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/sparksim-slurm-test.XXXXXX")
started=$(date +%s)
finish() {
  local status=$?
  [ $status -eq 0 ] || show_slurm_logs
  stop_local_slurm || status=1
  if [ $status -eq 0 ] && [ -z "${SPARKSIM_SLURM_TEST_KEEP:-}" ]; then
    rm -rf "$scratch"
    echo "test-slurm: passed in $(($(date +%s) - started)) s"
  else
    echo "test-slurm: exit $status; logs and outputs kept in $scratch" >&2
  fi
  exit $status
}
trap finish EXIT
trap 'exit 130' INT TERM

fail() {
  echo "test-slurm: FAIL: $*" >&2
  exit 1
}
ok() { echo "ok - [$(($(date +%s) - started)) s] $*"; }

# The final state of job $1 (COMPLETED, FAILED, ...) once it has one; fails after 90 s.
job_state() { scontrol show job "$1" -o | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
job_finished() {
  [[ "$(job_state "$1")" =~ ^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL|PREEMPTED)$ ]]
}
final_state() {
  wait_until 90 job_finished "$1" || fail "job $1 still $(job_state "$1") after 90 s"
  job_state "$1"
}
# Field $2 (1 array, 2 merge, 3 shards) of submission $3 (1-based) in run $1's jobs.tsv.
submission() { sed -n "${3}p" "$1/jobs.tsv" | cut -f "$2"; }

start_local_slurm "$scratch/cluster"
ok "one-node Slurm cluster up ($(sinfo -h -o '%P %D node %c CPUs %t'); $(sinfo -V))"

# An array above Slurm's MaxArraySize (1001 by default) is refused by sbatch: nothing is
# submitted and the run directory is taken back, so the same command can be rerun.
set +e
refusal=$(scripts/slurm/submit_sweep.sh --config tests/slurm/tiny_sweep.json --shards 5000 \
  --out "$scratch/too_many" --sparksim "$sparksim" 2>&1)
status=$?
set -e
[ $status -eq 2 ] || fail "--shards 5000 exited $status, not 2: $refusal"
[ ! -e "$scratch/too_many" ] || fail "a refused submission left $scratch/too_many"
[ -z "$(squeue -h -o %A)" ] || fail "a refused submission left jobs: $(squeue)"
ok "--shards 5000 refused, nothing submitted or left: $(tr '\n' ' ' <<<"$refusal")"

# A bad config is stopped before anything is queued, with its path and line: line 5 of
# tiny_sweep.json names the profile.
sed 's|profiles/analytic/h100-sxm/qwen3-8b.json|profiles/no-such-profile.json|' tests/slurm/tiny_sweep.json \
  >"$scratch/bad_sweep.json"
set +e
refusal=$(scripts/slurm/submit_sweep.sh --config "$scratch/bad_sweep.json" --shards 4 \
  --out "$scratch/bad" --sparksim "$sparksim" 2>&1)
status=$?
set -e
[ $status -eq 2 ] || fail "a bad config exited $status, not 2: $refusal"
grep -qF "$scratch/bad_sweep.json:5: profile: profiles/no-such-profile.json" <<<"$refusal" ||
  fail "a bad config's refusal does not name its line 5: $refusal"
[ ! -e "$scratch/bad" ] || fail "a refused submission left $scratch/bad"
[ -z "$(squeue -h -o %A)" ] || fail "a refused submission left jobs: $(squeue)"
ok "a bad config is refused before submission: $(head -n 1 <<<"$refusal")"

# The reference: the same sweep on this machine, no Slurm.
"$sparksim" pareto --config tests/slurm/tiny_sweep.json --jobs 2 --quiet --out "$scratch/single"

# A sparksim whose shard 3/4 fails while a marker file exists: a node fault, injected.
cat >"$scratch/flaky_sparksim" <<FLAKY
#!/bin/sh
if [ -e "$scratch/break-shard-3" ]; then
  case " \$* " in
    *" --shard 3/4 "*) echo "flaky_sparksim: injected failure of shard 3/4" >&2 && exit 3 ;;
  esac
fi
exec "$sparksim" "\$@"
FLAKY
chmod +x "$scratch/flaky_sparksim"
touch "$scratch/break-shard-3"

clean=$scratch/clean flaky=$scratch/flaky
scripts/slurm/submit_sweep.sh --config tests/slurm/tiny_sweep.json --shards 4 --out "$clean" \
  --sparksim "$sparksim"
scripts/slurm/submit_sweep.sh --config tests/slurm/tiny_sweep.json --shards 4 --out "$flaky" \
  --sparksim "$scratch/flaky_sparksim"

# The clean run: every shard, then the merge, complete; the report is the single run's.
state=$(final_state "$(submission "$clean" 2 1)")
[ "$state" = COMPLETED ] || fail "clean run: merge job ended $state; see $clean/logs"
[ "$(submission "$clean" 3 1)" = 1-4 ] ||
  fail "clean run: submitted shards '$(submission "$clean" 3 1)', not 1-4"
for shard in 1 2 3 4; do
  [ "$(grep -o '"shard": [0-9]*' "$clean/shards/$shard/shard.json")" = "\"shard\": $shard" ] ||
    fail "clean run: $clean/shards/$shard/shard.json is not shard $shard"
done
diff -r "$scratch/single" "$clean/report" || fail "clean run: report/ differs from the single run"
[ ! -e "$clean/failed_shards.txt" ] || fail "clean run: failed_shards.txt written"
ok "4 shards on Slurm merged byte for byte into the single run's $(find "$clean/report" -type f | wc -l) files"

# The run with a failing shard: the merge job fails and names shard 3 and its log.
array=$(submission "$flaky" 1 1)
state=$(final_state "$(submission "$flaky" 2 1)")
[ "$state" = FAILED ] || fail "flaky run: merge job ended $state, not FAILED"
[ "$(job_state "${array}_3")" = FAILED ] ||
  fail "flaky run: task ${array}_3 is $(job_state "${array}_3")"
log3=$flaky/logs/shard-3.job-$array.log
grep -q "injected failure of shard 3/4" "$log3" || fail "flaky run: $log3 lacks the shard's error"
merge_log=$flaky/logs/merge.job-$(submission "$flaky" 2 1).log
grep -qF "shard 3/4 failed (no $flaky/shards/3/shard.json); log: $log3" "$merge_log" ||
  fail "flaky run: $merge_log does not name shard 3 and $log3: $(cat "$merge_log")"
[ "$(cat "$flaky/failed_shards.txt")" = "$(printf '3\t%s' "$log3")" ] ||
  fail "flaky run: failed_shards.txt is '$(cat "$flaky/failed_shards.txt")'"
[ ! -e "$flaky/report" ] || fail "flaky run: a report was written from 3 of 4 shards"
ok "failed shard reported with its id and log: $(grep -m1 'shard 3/4 failed' "$merge_log")"

# sparksim merge itself refuses the incomplete set and writes nothing.
set +e
refusal=$("$sparksim" merge "$flaky/shards/1" "$flaky/shards/2" "$flaky/shards/4" \
  --out "$scratch/partial" 2>&1)
status=$?
set -e
[ $status -eq 2 ] || fail "merge of 3 of 4 shards exited $status, not 2: $refusal"
grep -qF "shards 3 of 4 are missing" <<<"$refusal" ||
  fail "merge refusal does not name shard 3: $refusal"
[ ! -e "$scratch/partial" ] || fail "merge of an incomplete set wrote $scratch/partial"
ok "sparksim merge refuses shards 1, 2, 4 of 4 (exit 2: $refusal)"

# Resubmission reruns shard 3 only. Its extra sbatch option holds the jobs in the queue, so that a
# second resubmission finds them queued.
rm "$scratch/break-shard-3"
scripts/slurm/resubmit_failed.sh "$flaky" -- --hold
array2=$(submission "$flaky" 1 2) merge2=$(submission "$flaky" 2 2)
[ "$(submission "$flaky" 3 2)" = 3 ] ||
  fail "resubmitted shards '$(submission "$flaky" 3 2)', not 3"
set +e
again=$(scripts/slurm/resubmit_failed.sh "$flaky" 2>&1)
status=$?
set -e
if [ $status -ne 2 ] || ! grep -q "still queued or running" <<<"$again"; then
  fail "a resubmission while the last is queued was not refused (exit $status): $again"
fi
[ "$(wc -l <"$flaky/jobs.tsv")" -eq 2 ] || fail "the refused resubmission submitted jobs"
scontrol release "$array2" "$merge2"
state=$(final_state "$merge2")
[ "$state" = COMPLETED ] || fail "resubmission: merge job ended $state; see $flaky/logs"
tasks=$(scontrol show job "$array2" -o | grep -o 'ArrayTaskId=[0-9]*' | sort -u | tr '\n' ' ')
[ "$tasks" = "ArrayTaskId=3 " ] || fail "the resubmitted array ran tasks '$tasks', not 3 alone"
for shard in 1 2 4; do
  n=$(find "$flaky/logs" -name "shard-$shard.job-*.log" | wc -l)
  [ "$n" -eq 1 ] || fail "shard $shard ran $n times; only shard 3 should have been rerun"
done
[ "$(find "$flaky/logs" -name 'shard-3.job-*.log' | wc -l)" -eq 2 ] ||
  fail "shard 3 did not run twice"
diff -r "$scratch/single" "$flaky/report" ||
  fail "after resubmission: report/ differs from the single run"
[ ! -e "$flaky/failed_shards.txt" ] || fail "failed_shards.txt left after a complete merge"
ok "resubmission reran shard 3 alone (array $array2) and the merged report matches the single run"

done_msg=$(scripts/slurm/resubmit_failed.sh "$flaky")
if ! grep -q "complete and merged" <<<"$done_msg" || [ "$(wc -l <"$flaky/jobs.tsv")" -ne 2 ]; then
  fail "resubmitting a complete run did something: $done_msg"
fi
ok "resubmitting a complete, merged run submits nothing"
