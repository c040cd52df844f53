#!/usr/bin/env bash
# Builds everything (optimised: the library, the command, the page) and runs
# the default demonstration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)" >/dev/null
scripts/web.sh # the page, into build/web: scripts/web.sh --serve serves it
exec build/release/carom_demo "$@"
