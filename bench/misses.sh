#!/usr/bin/env bash
# Counts the cache lines a pair collision brings from memory, with valgrind's
# cachegrind: 3D hard spheres, N = 97,556 (fcc 29^3), packing fraction 0.45
# (DENSITY=0.30 bench/misses.sh for another), seed 42, in-process
# (carom_bench --no-fork) from the optimised build.
# The last-level cache is simulated at 2 MiB, so that this world (about 20 MB)
# is ten times the cache, as a world of 10^6 bodies (200 MB) is six times a
# 32 MiB L3: nearly every record an event reads that no recent event touched
# is a miss, and the count is what a large world's collision must fetch.
# Two runs (2 + 2 and 2 + 4 collisions a body) are subtracted, so setup and
# warm-up cancel. Prefetch instructions are not simulated: the count is of
# the lines the engine reads, whoever asked for them first.
# Multiplied by the time a line of bench/memory_probe.c (carom_memory_probe,
# with its reads in flight used up), it is the least time a collision can
# spend on memory (bench/README.md, "The plateau at 10^6").
# About a minute here. Prints misses a collision, in all and by function.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
density="${DENSITY:-0.45}"
case "$density" in
  0.[0-9]*) ;;
  *) echo "misses.sh: DENSITY must be a packing fraction like 0.45, got '$density'" >&2; exit 2 ;;
esac
cd "$root"
bench/valgrind_build.sh

work=build/release/misses-$density
mkdir -p "$work"
for measured in 2 4; do
  valgrind --tool=cachegrind --cache-sim=yes --LL=2097152,16,64 --D1=32768,8,64 --I1=32768,8,64 \
    --cachegrind-out-file="$work/cachegrind.$measured" \
    build/release/bench/carom_bench --no-fork --only 3d --n 100000 --density "$density" \
    --warmup 2 --collisions "$measured" --seed 42 --csv "$work/bench.$measured.csv" \
    >"$work/log.$measured" 2>&1 || {
    echo "misses.sh: the run under cachegrind failed (its log: $work/log.$measured)" >&2
    exit 1
  }
done

# Per function: last-level read and write misses (DLmr, DLmw), from the
# columns the events line names; the difference of the two runs.
by_function() {
  awk '/^events:/ {for (i = 2; i <= NF; i++) {if ($i == "DLmr") r = i - 1; if ($i == "DLmw") w = i - 1}}
    /^fn=/ {fn = substr($0, 4)}
    /^[0-9]/ && r {reads[fn] += $(r + 1); writes[fn] += $(w + 1)}
    END {for (f in reads) print f "\t" reads[f] "\t" writes[f]}' "$1" | sort
}
pairs2=$(awk -F, 'NR == 2 {print $5 + $6}' "$work/bench.2.csv")
pairs4=$(awk -F, 'NR == 2 {print $5 + $6}' "$work/bench.4.csv")
if [ -z "$pairs2" ] || [ -z "$pairs4" ] || [ "$pairs4" -le "$pairs2" ]; then
  echo "misses.sh: could not read the collision counts from $work/bench.*.csv" >&2
  exit 1
fi
join -t "$(printf '\t')" <(by_function "$work/cachegrind.2") <(by_function "$work/cachegrind.4") |
  awk -F'\t' -v n=$((pairs4 - pairs2)) '
    {r = ($4 - $2) / n; w = ($5 - $3) / n; tr += r; tw += w; if (r + w >= 0.1) printf "%7.2f %6.2f  %s\n", r, w, $1}
    END {printf "%7.2f %6.2f  all (%d pair collisions between the runs)\n", tr, tw, n}' |
  sort -rn |
  { echo "cachegrind, 3D N=97556 packing fraction $density, last level 2 MiB: misses a pair collision"
    echo "  reads writes  function"; cat; }
