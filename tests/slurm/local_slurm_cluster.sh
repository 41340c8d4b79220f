# shellcheck shell=bash
# A throwaway one-node Slurm cluster for tests (sourced): MUNGE, slurmctld and slurmd, all running
# as the current user (root) from one scratch directory with its own key, config, state, spool,
# logs and free ports, so nothing of the machine's own Slurm or MUNGE setup is used or touched.
#
#   start_local_slurm DIR   starts the daemons, exports SLURM_CONF, waits for the node to be idle
#   stop_local_slurm        cancels every job, stops the daemons and kills whatever still runs
#                           from DIR (job steps); fails if anything is left
#
# Debian 12's Slurm 22.05 also ships auth/none, but that lets anyone who reaches slurmd's port
# run commands as any user, root included; MUNGE with a key made here for the test costs one
# more daemon and authenticates every message.

SLURM_TEST_DIR=""
SLURM_TEST_PIDS=()

# The local TCP ports in use (any state), one per line, from /proc/net/tcp and tcp6.
ports_in_use() {
  local _ local_address
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | while read -r _ local_address _; do
    if [[ "$local_address" == *:* ]]; then printf '%d\n' "0x${local_address##*:}" 2>/dev/null; fi
  done
}

# A port p such that p and p+1 are both free.
free_port_pair() {
  local used port tries
  used=$(ports_in_use | sort -u)
  for ((tries = 0; tries < 200; tries++)); do
    port=$((20000 + RANDOM % 40000))
    if ! grep -qx -e "$port" -e "$((port + 1))" <<<"$used"; then
      echo "$port"
      return 0
    fi
  done
  echo "local_slurm_cluster: no free pair of TCP ports found" >&2
  return 1
}

# Waits up to $1 seconds for the command in "${@:2}" to succeed.
wait_until() {
  local seconds=$1 i
  shift
  for ((i = 0; i < seconds * 5; i++)); do
    if "$@" 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  return 1
}

queue_is_empty() { [ -z "$(squeue -h -o %A)" ]; }
node_is_idle() { [ "$(sinfo -h -n "$SLURM_TEST_NODE" -o %t)" = idle ]; }

# The last lines of every daemon log, for a failure report.
show_slurm_logs() {
  local f
  for f in "$SLURM_TEST_DIR"/*.log "$SLURM_TEST_DIR"/*.out; do
    [ -f "$f" ] || continue
    echo "---- $f (last 15 lines)" >&2
    tail -n 15 "$f" >&2
  done
}

start_local_slurm() {
  SLURM_TEST_DIR=$1
  local dir=$1 port host
  mkdir -p "$dir/munge-key" "$dir/munge-run" "$dir/state" "$dir/spool"
  chmod 700 "$dir/munge-key"
  chmod 755 "$dir/munge-run"
  mungekey --create --keyfile="$dir/munge-key/munge.key"
  # --force: munged refuses to run as root otherwise; -F keeps it in the foreground so that its
  # pid is $! and it is reaped by this shell.
  munged -F --force --key-file="$dir/munge-key/munge.key" --socket="$dir/munge-run/munge.socket" \
    --pid-file="$dir/munge-run/munged.pid" --seed-file="$dir/munge-run/munged.seed" \
    --log-file="$dir/munged.log" >"$dir/munged.out" 2>&1 &
  SLURM_TEST_PIDS+=($!)
  if ! wait_until 10 test -S "$dir/munge-run/munge.socket"; then
    echo "local_slurm_cluster: munged did not start" >&2
    show_slurm_logs
    return 1
  fi

  port=$(free_port_pair)
  host=$(hostname -s)
  SLURM_TEST_NODE=$host
  cat >"$dir/slurm.conf" <<CONF
# A one-node test cluster made by tests/slurm/local_slurm_cluster.sh (thrown away afterwards).
ClusterName=sparksimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge-run/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
# Start a batch job as soon as it can run (by default up to 3 s later, to batch submissions).
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
# 8 CPUs whatever the machine has (config_overrides: slurmd reports these), so that the
# test's 8 one-thread shard tasks start at once: they wait on process start-up, not on CPUs.
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=sweeps Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  # -D: in the foreground, for the same reason as munged's -F.
  slurmctld -D -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
  SLURM_TEST_PIDS+=($!)
  slurmd -D -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
  SLURM_TEST_PIDS+=($!)
  if ! wait_until 30 node_is_idle; then
    echo "local_slurm_cluster: node $host did not become idle within 30 s" >&2
    sinfo >&2 || true
    show_slurm_logs
    return 1
  fi
}

# Processes (other than this shell) whose working directory or an open file lies in $1.
processes_using() {
  find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1 -lname "$1*" 2>/dev/null |
    cut -d/ -f3 | sort -u | grep -vx "$$" || true
}

# Running, that is: existing and not a zombie (state Z in /proc/PID/stat, after the command name,
# which may hold spaces and parentheses). /proc rather than ps: procps is not in every Debian.
process_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

stop_local_slurm() {
  [ -n "$SLURM_TEST_DIR" ] || return 0
  local pid left=() jobs
  # Jobs first, while the controller is up, so that no job step outlives slurmd.
  if [ ${#SLURM_TEST_PIDS[@]} -ge 2 ] && process_alive "${SLURM_TEST_PIDS[1]}"; then
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
    if [ -n "${jobs// /}" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      wait_until 10 queue_is_empty || true
    fi
  fi
  # slurmd, slurmctld, munged: the reverse of their start.
  for ((i = ${#SLURM_TEST_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${SLURM_TEST_PIDS[i]}
    kill -TERM "$pid" 2>/dev/null || true
    wait_until 10 eval "! process_alive $pid" || kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  # Job steps and jobs of this cluster still holding a file in its directory.
  for pid in $(processes_using "$SLURM_TEST_DIR"); do kill -KILL "$pid" 2>/dev/null || true; done
  sleep 0.2
  for pid in "${SLURM_TEST_PIDS[@]}" $(processes_using "$SLURM_TEST_DIR"); do
    if process_alive "$pid"; then left+=("$pid"); fi
  done
  SLURM_TEST_PIDS=()
  if [ ${#left[@]} -gt 0 ]; then
    echo "local_slurm_cluster: processes still running after the stop:" >&2
    for pid in "${left[@]}"; do
      echo "  $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
    done
    return 1
  fi
  echo "local_slurm_cluster: stopped slurmd, slurmctld and munged; nothing of this cluster runs"
}
