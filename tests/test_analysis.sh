#!/usr/bin/env bash
# test_analysis.sh — a scenario's `analysis:` (issue 17) through `carom run`,
# checked against theory by analysis/check.py (Debian's python3 and numpy):
# a dense 3D fluid (g(sigma+) from g(r) against the collision virial and
# Carnahan-Starling, S(k -> 0) against its compressibility, mean free time
# and path), the same in 2D (Henderson), a dilute gas (the free-time
# distribution against Boltzmann's mixture of exponentials, D from the MSD
# against Enskog and against Green-Kubo from the VACF), and a binary mixture
# (collision rates per species pair against Enskog with the measured contact
# values). Then bad settings: each refused with FILE:LINE:COL and nothing written.
# With CAROM_TEST_QUICK=1 (the sanitizer pass) each case runs 2 time units
# past its start and only the files' shape is checked (check.py --smoke).
#
# usage: test_analysis.sh CAROM SOURCE_DIR
carom=$1
checker=$2/tests/analysis/check.py
source "$(dirname "$0")/testlib.sh"

quick=()
[ "${CAROM_TEST_QUICK:-0}" = 1 ] && quick=(--smoke)

run_case() { # name scenario-text
  local name=$1 until=()
  printf '%s\n' "$2" >"$work/$name.yaml"
  [ ${#quick[@]} -gt 0 ] && until=(--until "$(sed -n 's/.*equilibrate: \([0-9.]*\)}.*/\1/p' "$work/$name.yaml" | awk '{print $1 + 2}')")
  if ! out=$(cd "$work" && "$carom" run "$name.yaml" --stats "$name.stats.json" --quiet "${until[@]}" 2>&1); then
    fail "$name runs" "$out"
    return
  fi
  while IFS= read -r line; do
    case $line in
      pass*) pass "$name: ${line#pass  }" ;;
      FAIL*) fail "$name" "${line#FAIL  }" ;;
      *) fail "$name" "$line" ;;
    esac
  done < <(/usr/bin/python3 "$checker" "$name" "$work/$name" "$work/$name.stats.json" "${quick[@]}" 2>&1)
}

run_case dense3d "world: {dim: 3, boundary: periodic}
seed: 11
bodies: [{count: 4000, radius: 0.5, place: lattice, packing_fraction: 0.30}]
run: {until: 45, equilibrate: 5}
analysis:
  output: dense3d
  every: 0.2
  rdf: {max: 4, bins: 200}
  structure_factor: {max: 1.2}
  flights: {bins: 60}"

run_case dense2d "world: {dim: 2, boundary: periodic}
seed: 12
bodies: [{count: 4000, radius: 0.5, place: lattice, packing_fraction: 0.30}]
run: {until: 40, equilibrate: 5}
analysis:
  output: dense2d
  every: 0.5
  rdf: {max: 4, bins: 200}
  flights: {bins: 60}"

run_case dilute3d "world: {dim: 3, boundary: periodic}
seed: 13
bodies: [{count: 2000, radius: 0.5, place: random, packing_fraction: 0.02}]
run: {until: 420, equilibrate: 20}
analysis:
  output: dilute3d
  every: 1.0
  msd: {lags: 60}
  flights: {bins: 60}"

run_case mixture3d "world: {dim: 3, boundary: periodic}
seed: 14
bodies:
  - {count: 400, radius: 1.0, mass: 8.0, place: random, name: L, packing_fraction: 0.25}
  - {count: 3200, radius: 0.5, mass: 1.0, place: random, name: S}
run: {until: 50, equilibrate: 10}
analysis:
  output: mixture3d
  every: 0.25
  rdf: {max: 5, bins: 125}
  flights: {bins: 60}"

# Bad settings: refused before the run with the place, and nothing written.
refused() { # name expected scenario-text
  printf '%s\n' "$3" >"$work/bad.yaml"
  rm -f "$work"/bad_*
  out=$(cd "$work" && "$carom" run bad.yaml --quiet 2>&1)
  status=$?
  if [ $status -eq 1 ] && [[ $out == *"$2"* ]] && ! compgen -G "$work/bad_*" >/dev/null && [ ! -e "$work/bad.json" ]; then
    pass "refused: $1"
  else
    fail "refused: $1" "status $status: $out"
  fi
}
base="seed: 1
run: {until: 1}"
refused "g(r) with walls" "bad.yaml:5:30: analysis.rdf needs a box periodic" "world: {dim: 2, boundary: walls, box: [20, 20]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: bad, rdf: {max: 2}}"
refused "flights under gravity" "analysis.msd and analysis.flights need bodies that fly straight" "world: {dim: 2, boundary: walls, box: [20, 20], gravity: [0, -1]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: bad, flights: {}}"
refused "nothing to measure" "analysis measures nothing" "world: {dim: 2, box: [20, 20]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: bad}"
refused "no output" "analysis needs output" "world: {dim: 2, box: [20, 20]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {rdf: {max: 2}}"
refused "an unknown key" "unknown key 'bins' in analysis.msd" "world: {dim: 2, box: [20, 20]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: bad, msd: {bins: 3}}"
refused "g(r) beyond half the box" "more than half the smallest side" "world: {dim: 2, box: [20, 20]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: bad, rdf: {max: 11}}"
refused "an output in a missing folder" "cannot write" "world: {dim: 2, box: [20, 20]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: no/such/folder/bad, rdf: {max: 2}}"
refused "too many wavevectors" "wavevectors" "world: {dim: 3, box: [40, 40, 40]}
bodies: [{count: 10, radius: 0.5}]
$base
analysis: {output: bad, structure_factor: {max: 30}}"
finish
