#!/usr/bin/env bash
# Installs sparksim's build and test dependencies from Debian's packages, only if missing.
# Run as root (or with sudo available). Idempotent: a machine that has everything does nothing.
set -euo pipefail

# What `make demo` needs: the compiler, the build tools and the libraries the `sparksim` executable
# is built from, and gnuplot for the report's charts.
packages=(cmake ninja-build pkg-config g++ make
  libsimgrid-dev libcli11-dev libeigen3-dev libboost-dev nlohmann-json3-dev gnuplot-nox)
# --test: also what `make test` needs (Catch2, clang-format for the formatting check, and Debian's
# chromium: the report test renders report.html headless).
# --fuzz: also what `make fuzz` needs (clang with its libFuzzer and sanitizer runtimes).
# --slurm: also what `make test-slurm` needs (Slurm's controller, node daemon and client commands,
# and MUNGE, which Debian 12's Slurm 22.05 requires for authentication; see scripts/slurm/).
case "${1:-}" in
  --test) packages+=(catch2 clang-format chromium) ;;
  --fuzz) packages+=(clang libclang-rt-14-dev) ;;
  --slurm) packages+=(slurmctld slurmd slurm-client munge) ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Installing slurmctld, slurmd or munge would otherwise start the system-wide daemons on a machine
# with an init system; sparksim's tests start their own and nothing else should run. Debian's
# policy-rc.d convention forbids service starts during the install (an existing one is kept).
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
  $sudo chmod 755 /usr/sbin/policy-rc.d
  trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
