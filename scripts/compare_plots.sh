#!/usr/bin/env bash
# compare_plots.sh — the comparison's figures, in one command: builds carom
# (optimised), installs gnuplot (Debian's gnuplot-nox) if it is missing,
# runs `carom compare` on examples/compare_dilute.yaml over a range of dt
# and `carom compare --scaling`, and draws
#   docs/compare_error_dt.png   RMS position error against dt (log-log)
#   docs/compare_cost_n.png     cost against N at fixed density (log-log), fitted slopes
# The data (CSV and JSON) are kept in docs/compare/. About 30 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if ! command -v gnuplot >/dev/null; then
  echo "compare_plots: installing gnuplot-nox" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq gnuplot-nox
fi
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j2 --target carom >/dev/null
carom=build/release/carom
data=docs/compare
mkdir -p "$data"

"$carom" compare examples/compare_dilute.yaml --dt 0.03,0.01,0.003,0.001,0.0003 --quiet \
  --csv "$data/dilute.csv" --json "$data/dilute.json" | tee "$data/dilute.txt"
"$carom" compare --scaling --csv "$data/scaling.csv" --json "$data/scaling.json" | tee "$data/scaling.txt"

# One file per method for gnuplot: dt and the errors; N and seconds per unit time.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in frame bisection; do
  awk -F, -v m=$m 'NR > 1 && $1 == m { print $2, $13, $16 }' "$data/dilute.csv" >"$tmp/error_$m.dat"
done
for m in exact frame bisection frame-all-pairs bisection-all-pairs; do
  awk -F, -v m=$m 'NR > 1 && $1 == "n" && $2 == m { print $3, $7, $8 }' "$data/scaling.csv" >"$tmp/cost_$m.dat"
done

gnuplot <<GNUPLOT
set terminal pngcairo size 800,560 font "sans,11"
set logscale xy
set grid
set key top left
set format y "10^{%L}"
set format x "10^{%L}"

set output "docs/compare_error_dt.png"
set title "carom compare: examples/compare_dilute.yaml (200 disks, t = 10)" noenhanced
set key bottom right
set xlabel "frame length dt"
set ylabel "RMS position error against the exact run"
plot "$tmp/error_frame.dat" using 1:2 with linespoints lw 2 pt 7 title "frame, at t = 2.5", \
     "$tmp/error_frame.dat" using 1:3 with linespoints lw 2 pt 5 dt 2 title "frame, at t = 10", \
     "$tmp/error_bisection.dat" using 1:2 with linespoints lw 2 pt 7 title "bisection (eps = dt/2^{20}), at t = 2.5", \
     "$tmp/error_bisection.dat" using 1:3 with linespoints lw 2 pt 5 dt 2 title "bisection, at t = 10", \
     x * 2 with lines lc rgb "gray" lw 2 dt 3 title "slope 1"

set output "docs/compare_cost_n.png"
set title "cost against N at packing fraction 0.2 (2D, dt = 0.01)"
set xlabel "number of bodies N"
set ylabel "wall seconds per unit of simulated time"
set key top left
set fit quiet
f(x) = a + k * x
array names[5] = ["exact", "frame", "bisection", "frame-all-pairs", "bisection-all-pairs"]
array slopes[5]
do for [i = 1:5] {
  a = -5.0; k = 1.0
  fit f(x) "$tmp/cost_".names[i].".dat" using (log(\$1)):(log(\$2)) via a, k
  slopes[i] = k
}
plot for [i = 1:5] "$tmp/cost_".names[i].".dat" using 1:2 with linespoints lw 2 pt 7 \
     title sprintf("%s: N^{%.2f}", names[i], slopes[i])
GNUPLOT
rm -f fit.log
echo "compare_plots: wrote docs/compare_error_dt.png and docs/compare_cost_n.png (data in $data/)"
