#!/usr/bin/env bash
# Runs a command and then prints how long it took: `scripts/timed.sh LABEL COMMAND...`. The
# Makefile's demo and test steps go through it, so a contributor sees where the minutes went.
set -uo pipefail
label=$1
shift
start=$(date +%s%N)
"$@"
status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
printf '[time] %-22s %5d.%01d s\n' "$label" $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100)) >&2
exit $status
