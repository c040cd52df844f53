#!/usr/bin/env bash
# Counts instructions per pair collision with valgrind's callgrind on one
# fixed small case: 3D hard spheres, N = 10976 (fcc 14^3), packing fraction
# 0.45, seed 42, warm-up 2 + measured 5 pair collisions per body, run
# in-process (carom_bench --no-fork) from the optimised build (build/release).
# Instruction counts are deterministic, unlike CPU seconds, so this figure is
# the one to compare before and after a change to the engine.
# callgrind counts the whole process, warm-up included, so Ir per collision is
# divided by all pair collisions (warm-up + measured); the share spent inside
# carom_world_run (leaving out setup and reading statistics) is shown too.
# Branches are simulated too (--branch-sim=yes): a mispredicted conditional
# branch costs 15 to 20 cycles, and a scan of neighbours written with
# branches on coin flips spends more there than on its instructions, so the
# mispredictions per collision are the second figure to compare (issue 16
# traded 2.7% more instructions for 42% fewer mispredictions).
# The profile stays in build/release/callgrind.out.carom_bench for
# callgrind_annotate.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bench/valgrind_build.sh

out=build/release/callgrind.out.carom_bench
csv=build/release/callgrind.carom_bench.csv
echo "(the times in this table are under valgrind, tens of times slower: only Ir counts)"
valgrind --tool=callgrind --branch-sim=yes --callgrind-out-file="$out" \
  build/release/bench/carom_bench --no-fork --only 3d --n 10976 --density 0.45 \
  --warmup 2 --collisions 5 --seed 42 --csv "$csv" 2>"$out.log"

total_ir=$(awk '/^totals:/ {print $2}' "$out")
[ -n "$total_ir" ] || total_ir=$(awk '/^summary:/ {print $2}' "$out")
run_ir=$(callgrind_annotate --inclusive=yes --threshold=100 "$out" |
  awk '/:carom_world_run / && !found {gsub(",", "", $1); print $1; found = 1}')
pairs=$(awk -F, 'NR == 2 {print $5 + $6}' "$csv")
# the totals line lists the events in the order the events line names them
mispredicted=$(awk '/^events:/ {for (i = 2; i <= NF; i++) if ($i == "Bcm") k = i}
  /^(totals|summary):/ && k {print $k; exit}' "$out")
if [ -z "$total_ir" ] || [ -z "$run_ir" ] || [ -z "$pairs" ] || [ "$pairs" -eq 0 ]; then
  echo "callgrind.sh: could not read the totals from $out or $csv (valgrind's log: $out.log)" >&2
  exit 1
fi
awk -v total="$total_ir" -v run="$run_ir" -v pairs="$pairs" -v bcm="${mispredicted:-0}" 'BEGIN {
  printf "callgrind, 3D N=10976 packing fraction 0.45, seed 42, warm-up 2 + measured 5 pair collisions per body\n"
  printf "  pair collisions (warm-up + measured)    %d\n", pairs
  printf "  Ir, whole process                       %d\n", total
  printf "  Ir per pair collision, whole process    %.0f   (setup and warm-up included)\n", total / pairs
  printf "  Ir inside carom_world_run               %d (%.1f%%)\n", run, 100 * run / total
  printf "  Ir per pair collision, carom_world_run  %.0f   (warm-up included, setup left out)\n", run / pairs
  printf "  mispredicted branches per pair collision %.1f  (whole process, simulated)\n", bcm / pairs
}'
echo "  profile: $out (callgrind_annotate --inclusive=yes $out)"
