#!/usr/bin/env bash
# Builds everything (optimised) and runs the default demonstration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)" >/dev/null
exec build/release/carom_demo "$@"
