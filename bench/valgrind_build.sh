#!/usr/bin/env bash
# For the valgrind measurements (bench/callgrind.sh, bench/misses.sh): the
# Debian packages carom needs and valgrind, then carom_bench in the optimised
# build (build/release), from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh valgrind
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)" --target carom_bench >/dev/null
