#!/usr/bin/env bash
# Soak: long runs of three worlds (3D fluid, 2D disks between walls, a
# granular gas settling under gravity), each checked by brute force at
# intervals for overlaps, NaN and energy (bench/soak.c). Builds the optimised
# tree if needed. Prints each world's checks, its CPU time and a verdict;
# exits non-zero if any world failed.
#
# usage: scripts/soak.sh [COLLISIONS per world, default 1e9] [CHECKS, default 100]
set -uo pipefail
cd "$(dirname "$0")/.."
collisions=${1:-1000000000}
checks=${2:-100}
scripts/deps.sh || exit 1
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build/release -j"$(nproc)" --target carom_soak >/dev/null || exit 1
status=0
for world in fluid walls granular; do
  start=$(date +%s)
  build/release/bench/carom_soak "$world" "$collisions" "$checks" || status=1
  echo "soak $world: $(( $(date +%s) - start )) s wall clock"
done
exit $status
