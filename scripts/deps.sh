#!/usr/bin/env bash
# Installs the Debian packages carom needs that are missing (run as root on
# Debian 12; a new machine has gcc, make and cmake). The core library needs
# nothing beyond a C11 compiler and libm; clang and its runtime libraries
# (libFuzzer, the sanitizers) are for the fuzz targets (scripts/fuzz.sh).
set -euo pipefail
needed=(gcc make cmake libyaml-dev clang libclang-rt-14-dev)
missing=()
for pkg in "${needed[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "carom: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
