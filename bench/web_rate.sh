#!/usr/bin/env bash
# The page's engine against the native one on the same work: seed 002's
# exact view as the page runs it (bench/web_rate.c natively, bench/web_rate.mjs
# in the wasm build under node), pinned to one core, alternating which runs
# first, REPEATS pairs; prints each pair and the median ratio wasm / native.
# Usage: bench/web_rate.sh [BUILD_DIR] [N] [SIMULATED_SECONDS] [REPEATS] [CORE]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release} n=${2:-10000} seconds=${3:-3} repeats=${4:-5} core=${5:-1}
scripts/web.sh --out "$build/web" >/dev/null 2>&1 || { echo "scripts/web.sh failed" >&2; exit 1; }
native=(taskset -c "$core" "$build/bench/carom_web_rate" "$n" "$seconds")
wasm=(taskset -c "$core" node bench/web_rate.mjs "$build/web/carom.wasm" "$n" "$seconds")
ratios=()
for k in $(seq "$repeats"); do
  if [ $((k % 2)) -eq 1 ]; then a=$("${native[@]}"); b=$("${wasm[@]}"); else b=$("${wasm[@]}"); a=$("${native[@]}"); fi
  echo "$a"; echo "$b"
  ratios+=("$(awk -v x="$(echo "$b" | cut -d' ' -f5)" -v y="$(echo "$a" | cut -d' ' -f5)" 'BEGIN { printf "%.3f", x / y }')")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { printf "wasm / native, median of %d pairs: %s (range %s to %s)\n", NR, r[int((NR + 1) / 2)], r[1], r[NR] }'
