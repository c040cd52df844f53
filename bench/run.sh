#!/usr/bin/env bash
# Builds carom optimised (build/release) and runs the benchmark driver,
# carom_bench (bench/bench.c), on its default set: 3D hard spheres and 2D
# hard disks, N ~ 10^3, 10^4, 10^5, two densities each (a few minutes on
# 2 cores). Arguments pass through: `bench/run.sh --large` adds N ~ 10^6,
# `bench/run.sh --quick` is a smoke run, `bench/run.sh --help` lists the rest.
# The CSV goes to build/release/carom_bench.csv unless --csv says otherwise.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
(
  cd "$root"
  scripts/deps.sh
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/release -j"$(nproc)" --target carom_bench >/dev/null
)
exec "$root/build/release/bench/carom_bench" --csv "$root/build/release/carom_bench.csv" "$@"
