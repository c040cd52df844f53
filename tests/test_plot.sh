#!/usr/bin/env bash
# test_plot.sh — `carom run --series` and `carom plot`. The series is checked
# against the run's own statistics and physics (total energy constant in an
# elastic gas, the interval pressures averaging to the run's pressure, the
# collision counts ending at the run's), the plots by size and by what they
# compare: the speeds of an equilibrated gas are close to Maxwell's
# distribution (Kolmogorov-Smirnov distance small), the equal speeds of a
# starting lattice far from it; bad input is named by FILE:LINE:COL.
carom=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/testlib.sh"
cd "$work" || exit 1
cat > gas.yaml <<'YAML'
world: {dim: 2, box: [40, 40], boundary: walls}
seed: 5
bodies:
  - {count: 200, radius: 0.5, mass: 1.0, place: random, velocity: {speed: 1.0}}
run: {until: 40}
YAML
if "$carom" run gas.yaml --series s.csv --every 2 --trajectory g.xyz --stats st.json --events-log '' --quiet; then
  rows=$(($(wc -l < s.csv) - 1))
  [ "$rows" -eq 21 ] && pass "a row at t = 0, 2, ..., 40" || fail "rows" "$rows"
  pairs=$(json_event st.json pair); walls=$(json_event st.json wall); pressure=$(json_number st.json pressure)
  verdict=$(awk -F, -v pairs="$pairs" -v walls="$walls" -v p="$pressure" 'NR == 2 { e0 = $5; t0 = $1 }
    NR > 2 { d = ($5 - e0) / e0; if (d < 0) d = -d; if (d > worst) worst = d; sum += $8 * ($1 - last); }
    NR > 1 { last = $1; lp = $10; lw = $11 }
    END { rel = (sum / (last - t0) - p) / p; if (rel < 0) rel = -rel;
          printf "%s energy %.1e, pressure %.1e, pairs %d/%d, walls %d/%d",
                 (worst < 1e-12 && rel < 1e-9 && lp == pairs && lw == walls && pairs > 100) ? "ok" : "bad",
                 worst, rel, lp, pairs, lw, walls }' s.csv)
  [[ $verdict == ok* ]] && pass "series against the run ($verdict)" || fail "series against the run" "$verdict"
else
  fail "a run with a series" "carom run failed"
fi

for what in energy temperature pressure rate; do
  "$carom" plot s.csv --what $what -o "$what.png" && [ "$(python3 "$here/png_probe.py" size "$what.png")" = "800 600" ] &&
    pass "plot $what" || fail "plot $what" "no 800x600 picture"
done
"$carom" plot s.csv -o e.svg && python3 -c "import sys, xml.etree.ElementTree as E; E.parse('e.svg')" &&
  pass "SVG plot parses" || fail "SVG plot" "see above"

ks() { "$carom" plot "$@" --verbose | sed -n 's/.*distance to Maxwell \([0-9.]*\).*/\1/p'; }
late=$(ks g.xyz -o late.png); first=$(ks g.xyz --frame 0 -o first.png)
awk -v a="$late" -v b="$first" 'BEGIN { exit !(a != "" && a < 0.08 && b > 0.5) }' &&
  pass "2D speeds: Maxwell at t = 40 (KS $late), not at the equal-speed start (KS $first)" ||
  fail "2D speeds against Maxwell" "late $late, first $first"
cat > spheres.yaml <<'YAML'
world: {dim: 3, box: [12, 12, 12], boundary: periodic}
seed: 7
bodies:
  - {count: 500, radius: 0.5, mass: 1.0, place: random, velocity: {speed: 1.0}}
run: {until: 10}
output: {trajectory: spheres.xyz, every: 10}
YAML
"$carom" run spheres.yaml --quiet --stats '' --events-log '' && late=$(ks spheres.xyz -o s3.png) &&
  first=$(ks spheres.xyz --frame 0 -o s30.png)
awk -v a="$late" -v b="$first" 'BEGIN { exit !(a != "" && a < 0.07 && b > 0.5) }' &&
  pass "3D speeds: Maxwell at t = 10 (KS $late), not at the start (KS $first)" ||
  fail "3D speeds against Maxwell" "late $late, first $first"

refused() { # NAME STATUS EXPECTED ARGS...
  local name=$1 want=$2 expected=$3 out st; shift 3
  rm -f bad.*
  out=$("$carom" plot "$@" 2>&1); st=$?
  if [ $st -eq "$want" ] && [[ $out == *"$expected"* ]] && ! compgen -G "bad.*" >/dev/null; then pass "refused: $name"
  else fail "refused: $name" "status $st: $out"; fi
}
sed '5s/^\([^,]*\),[^,]*,/\1,oops,/' s.csv > broken.csv
head -3 s.csv > short.csv; sed -i '3s/$/,7/' short.csv
refused "a bad number" 1 "broken.csv:5:" broken.csv -o bad.png
refused "an extra column" 1 "short.csv:3:" short.csv -o bad.png
refused "not a series" 1 "gas.yaml:1:1: not a series" gas.yaml -o bad.png --what energy
refused "speeds of a series" 2 "--what speeds needs a trajectory" s.csv --what speeds -o bad.png
refused "unknown --what" 2 "--what: 'colour'" s.csv --what colour -o bad.png
refused "not png or svg" 1 "must end in .png or .svg" s.csv -o bad.jpg
refused "missing file" 1 "none.csv:1:1: cannot open" none.csv -o bad.png
# an events log: the collisions it lists, counted in bins, against the run's
# own counters; the mean pair rate against the run's collision rate
if "$carom" run gas.yaml --until 20 --events-log ev.csv --stats ev.json --trajectory '' --quiet; then
  out=$("$carom" plot ev.csv -o rate.png --verbose 2>&1)
  pairs=$(json_event ev.json pair); walls=$(json_event ev.json wall); rate=$(json_number ev.json collision_rate)
  verdict=$(echo "$out" | awk -v pairs="$pairs" -v walls="$walls" -v rate="$rate" '
    { for (k = 1; k <= NF; k++) { if ($(k+1) == "pair" && $(k+2) == "and") p = $k; if ($(k+1) == "wall") w = $k;
                                   if ($(k+1) == "pair" && $(k+2) == "collisions" && $(k+3) == "per") m = $k } }
    END { expected = rate * 200 / 2; rel = (m - expected) / expected; if (rel < 0) rel = -rel;
          printf "%s %d/%d pair, %d/%d wall, mean rate %.6g against %.6g", (p == pairs && w == walls && p > 100 && rel < 0.01) ? "ok" : "bad", p, pairs, w, walls, m, expected }')
  [[ $verdict == ok* ]] && [ "$(python3 "$here/png_probe.py" size rate.png)" = "800 600" ] &&
    pass "events log: pair and wall collisions as the run counted them, the mean rate as its collision rate ($verdict)" ||
    fail "events log plot" "$verdict: $out"
  sed '4s/,pair,/,bump,/' ev.csv > badkind.csv
  awk -F, 'NR == 6 { $1 = 0 } 1' OFS=, ev.csv > backwards.csv
  refused "an unknown event kind" 1 "badkind.csv:4:" badkind.csv -o bad.png
  refused "events out of time order" 1 "backwards.csv:6:1: time 0 is before" backwards.csv -o bad.png
  refused "energy of an events log" 2 "an events log gives the rate" ev.csv --what energy -o bad.png
else
  fail "an events log" "carom run failed"
fi
out=$(PATH=/nonexistent "$carom" plot s.csv -o bad.png 2>&1); st=$?
[ $st -eq 1 ] && [[ $out == *"cannot start gnuplot"* ]] && ! compgen -G "bad.*" >/dev/null &&
  pass "gnuplot missing: a clear error, nothing written" || fail "gnuplot missing" "status $st: $out"
cd /
finish
