#!/usr/bin/env bash
# Installs sparksim's build and test dependencies from Debian's packages, only if missing.
# Run as root (or with sudo available). Idempotent: a machine that has everything does nothing.
set -euo pipefail

packages=(cmake ninja-build pkg-config g++ make clang-format
  libsimgrid-dev libcli11-dev catch2 libeigen3-dev libboost-dev
  nlohmann-json3-dev libfmt-dev libtbb-dev gnuplot-nox
  chromium)  # chromium: the report test renders report.html headless
# --fuzz: also what `make fuzz` needs (clang with its libFuzzer and sanitizer runtimes).
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-14-dev)
fi

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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
