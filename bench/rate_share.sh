#!/usr/bin/env bash
# Issue 16's point 3: the share of its N ≈ 10^4 collision rate that carom
# keeps at N ≈ 10^6 (3D hard spheres, fcc start, periodic, seed 42), at
# each packing fraction asked for. Every run is alone on one pinned core,
# in-process (carom_bench --no-fork), from the optimised build; a round runs
# N = 10,976 (5 + 100 pair collisions a body) and then N = 1,000,188 (5 + 20
# by default: the same warm-up as the small world's), for each density in
# turn. Prints each round's two rates (M pair collisions per CPU second) and
# their ratio, then the median ratio of the rounds for each density.
# Nothing here is compared with a figure taken elsewhere: both rates of a
# ratio come from this machine, minutes apart.
#
#   bench/rate_share.sh [ROUNDS]      # default 3; about 70 s a round here
#   DENSITIES="0.45" CORE=2 LARGE_WARMUP=1 LARGE_COLLISIONS=4 bench/rate_share.sh 5
#   CAROM_BENCH=path/to/carom_bench bench/rate_share.sh   # another build, not rebuilt
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-3}"
densities="${DENSITIES:-0.30 0.45}"
core="${CORE:-0}"
large_warmup="${LARGE_WARMUP:-5}"
large_collisions="${LARGE_COLLISIONS:-20}"
bench="${CAROM_BENCH:-$root/build/release/bench/carom_bench}"

fail() { echo "rate_share.sh: $*" >&2; exit 2; }
whole() { [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] || fail "$1 must be a whole number >= $3, got '$2'"; }
whole ROUNDS "$rounds" 1
whole CORE "$core" 0
whole LARGE_WARMUP "$large_warmup" 0
whole LARGE_COLLISIONS "$large_collisions" 1
for d in $densities; do
  [[ "$d" =~ ^0\.[0-9]+$ ]] || fail "each of DENSITIES must be a packing fraction like 0.30, got '$d'"
done
command -v taskset >/dev/null || fail "taskset (util-linux) is needed to pin the runs to one core"
if [ -z "${CAROM_BENCH:-}" ]; then # built as bench/run.sh builds it
  (cd "$root" && scripts/deps.sh)
  cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build/release" -j"$(nproc)" --target carom_bench >/dev/null
fi
[ -x "$bench" ] || fail "no benchmark program at $bench"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The collision rate of one run, read by its column's name.
rate() {
  local n=$1 density=$2 warmup=$3 collisions=$4 csv="$work/run.csv"
  rm -f "$csv"
  taskset -c "$core" "$bench" --no-fork --only 3d --n "$n" --density "$density" --warmup "$warmup" \
    --collisions "$collisions" --seed 42 --csv "$csv" >"$work/log" 2>&1 ||
    { cat "$work/log" >&2; fail "the run at N = $n, packing $density failed"; }
  [ -s "$csv" ] || fail "the run at N = $n, packing $density wrote no table"
  awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "collisions_per_cpu_second") c = i}
           NR == 2 && c {printf "%.6f\n", $c / 1e6; found = 1}
           END {if (!found) exit 1}' "$csv" || fail "no collision rate in the table of N = $n"
}

echo "carom's rate at N = 1,000,188 over its rate at N = 10,976 (3D, alone on core $core;"
echo "5 + 100 collisions a body at 10^4, $large_warmup + $large_collisions at 10^6; M pair collisions per CPU second)"
for d in $densities; do : >"$work/shares.$d"; done
for r in $(seq 1 "$rounds"); do
  for d in $densities; do
    small=$(rate 10976 "$d" 5 100)
    large=$(rate 1000000 "$d" "$large_warmup" "$large_collisions")
    share=$(awk -v s="$small" -v l="$large" 'BEGIN {printf "%.1f", 100 * l / s}')
    echo "$share" >>"$work/shares.$d"
    printf "round %d  packing %s  10^4 %.3f  10^6 %.3f  share %s%%\n" "$r" "$d" "$small" "$large" "$share"
  done
done
for d in $densities; do
  sort -n "$work/shares.$d" | awk -v d="$d" '{v[NR] = $1}
    END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
         printf "packing %s: median %.1f%% of %d round%s (%.1f%% to %.1f%%)\n", d, m, NR, NR == 1 ? "" : "s", v[1], v[NR]}'
done
