#!/usr/bin/env bash
# test_cli.sh — the carom command end to end: help and version; every example
# runs and its statistics are consistent (energy conserved at e = 1, event
# counts add up, the collision rate is 2 x pairs / (N t)); a catalogue of
# broken scenarios each fails with one line naming FILE:LINE:COL and writes
# nothing; a trajectory frame read back as input reproduces the state
# exactly; a run restarted from a checkpoint ends bit for bit where one run
# in one go ends, with the same event log.
#
# usage: test_cli.sh CAROM_BINARY EXAMPLES_DIR
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
examples=$(realpath "$2")
source "$(dirname "$0")/testlib.sh"
# close A B TOLERANCE: |A - B| <= TOLERANCE * max(1, |B|)
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; if (s < 1) s = 1; exit !(d <= t * s) }'; }

# ---- help and version ---------------------------------------------------

check_help() {
  local out
  out=$("$carom" --help) && [[ $out == *"carom run SCENARIO.yaml"* ]] || { fail help "carom --help"; return; }
  out=$("$carom" run --help) && [[ $out == *"--checkpoint-every"* && $out == *"--events-log"* ]] ||
    { fail help "carom run --help"; return; }
  out=$("$carom" --version) && [[ $out =~ ^carom\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || { fail help "--version: $out"; return; }
  "$carom" >/dev/null 2>&1 && { fail help "no arguments should fail"; return; }
  out=$("$carom" frobnicate 2>&1); [ $? -eq 2 ] && [[ $out == "carom: unknown command 'frobnicate'"* ]] ||
    { fail help "unknown command: $out"; return; }
  out=$("$carom" run "$examples/hard_spheres.yaml" --until abc 2>&1); [ $? -eq 2 ] && [[ $out == *"--until: 'abc'"* ]] ||
    { fail help "bad option value: $out"; return; }
  out=$("$carom" run "$examples/hard_spheres.yaml" --frobnicate 2>&1); [ $? -eq 2 ] && [[ $out == *"unknown option '--frobnicate'"* ]] ||
    { fail help "unknown option: $out"; return; }
  pass help
}

# ---- the examples ---------------------------------------------------------

# check_stats STATS ELASTIC: internal consistency of a stats file.
check_stats() {
  local stats=$1 elastic=$2 total pair wall cell n t rate ke ke0
  total=$(json_event "$stats" total); pair=$(json_event "$stats" pair)
  wall=$(json_event "$stats" wall); cell=$(json_event "$stats" cell)
  [ -n "$total" ] && [ "$total" -eq $((pair + wall + cell)) ] || { echo "events $total != $pair + $wall + $cell"; return 1; }
  [ "$pair" -gt 0 ] || { echo "no pair collisions"; return 1; }
  n=$(sed -n 's/.*"n": \([0-9]*\).*/\1/p' "$stats"); t=$(json_number "$stats" time)
  rate=$(json_number "$stats" collision_rate)
  close "$rate" "$(awk -v p="$pair" -v n="$n" -v t="$t" 'BEGIN { printf "%.17g", 2 * p / (n * t) }')" 1e-12 ||
    { echo "collision_rate $rate is not 2 pairs / (N t)"; return 1; }
  local e e0
  # kinetic + rotational + potential: a rough run passes energy to the spins
  e=$(awk -v k="$(json_number "$stats" kinetic_energy)" -v p="$(json_number "$stats" potential_energy)" \
        -v r="$(json_number "$stats" rotational_energy)" 'BEGIN { printf "%.17g", k + p + r }')
  e0=$(awk -v k="$(json_number "$stats" kinetic_energy_initial)" -v p="$(json_number "$stats" potential_energy_initial)" \
         -v r="$(json_number "$stats" rotational_energy_initial)" 'BEGIN { printf "%.17g", k + p + r }')
  if [ "$elastic" = yes ]; then
    close "$e" "$e0" 1e-10 || { echo "energy not conserved: $e0 -> $e"; return 1; }
  else
    awk -v a="$e" -v b="$e0" 'BEGIN { exit !(a < b - 1) }' || { echo "inelastic gas did not lose energy: $e0 -> $e"; return 1; }
  fi
  return 0
}

run_example() { # name elastic until
  local name=$1 dir=$work/example_$1 why
  mkdir -p "$dir"
  (cd "$dir" && "$carom" run "$examples/$name.yaml" --until "$3" --quiet) >"$dir/out" 2>&1 ||
    { fail "example $name" "$(cat "$dir/out")"; return; }
  local stats
  stats=$(ls "$dir"/*stats.json 2>/dev/null | head -1)
  [ -n "$stats" ] || { fail "example $name" "no stats written"; return; }
  why=$(check_stats "$stats" "$2") || { fail "example $name" "$why"; return; }
  local traj
  traj=$(ls "$dir"/*.xyz | head -1)
  [ "$(grep -c 'Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1:momenta:R:3:masses:R:1' "$traj")" -ge 2 ] ||
    { fail "example $name" "trajectory has fewer than 2 frames"; return; }
  ls "$dir" | grep -q 'XXXXXX\|\.[A-Za-z0-9]\{6\}$' && { fail "example $name" "temporary files left: $(ls "$dir")"; return; }
  pass "example $name"
}

# ---- broken scenarios -----------------------------------------------------

# broken NAME LINE PHRASE <<< scenario text: must fail at NAME.yaml:LINE: with PHRASE, writing nothing.
broken() {
  local name=$1 line=$2 phrase=$3 dir=$work/broken_$1 out status
  mkdir -p "$dir"
  cat >"$dir/$name.yaml"
  out=$(cd "$dir" && "$carom" run "$name.yaml" --quiet 2>&1 >/dev/null); status=$?
  [ $status -ne 0 ] || { fail "broken $name" "exit status 0"; return; }
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { fail "broken $name" "not one line: $out"; return; }
  [[ $out == "carom: $name.yaml:$line:"[0-9]*": "* ]] || { fail "broken $name" "expected $name.yaml:$line:COL: ... got: $out"; return; }
  [[ $out == *"$phrase"* ]] || { fail "broken $name" "expected '$phrase' in: $out"; return; }
  local extra
  extra=$(ls "$dir" | grep -v "^$name.yaml$" | grep -v '^frame.xyz$')
  [ -z "$extra" ] || { fail "broken $name" "files written: $extra"; return; }
  pass "broken $name"
}

outputs='output:
  trajectory: t.xyz
  events: e.csv
  stats: s.json'

check_broken() {
  broken unknown_key 3 "colour" <<EOF
world:
  dim: 2
  colour: blue
  box: [10, 10]
bodies:
  - count: 3
run: {until: 1}
$outputs
EOF
  broken wrong_type 2 "dim" <<EOF
world:
  dim: three
  box: [10, 10, 10]
bodies:
  - count: 3
run: {until: 1}
$outputs
EOF
  broken negative_radius 6 "radius" <<EOF
world:
  dim: 3
  box: [10, 10, 10]
bodies:
  - count: 3
    radius: -0.5
run: {until: 1}
$outputs
EOF
  broken nan_value 4 "restitution" <<EOF
world:
  dim: 3
  box: [10, 10, 10]
  restitution: .nan
bodies:
  - count: 3
run: {until: 1}
$outputs
EOF
  broken impossible_density 5 "do not fit" <<EOF
world:
  dim: 2
  box: [10, 10]
bodies:
  - count: 200
    radius: 0.5
    place: random
run: {until: 1}
$outputs
EOF
  broken body_too_big 7 "does not fit" <<EOF
world:
  dim: 3
  box: [4, 4, 4]
  boundary: walls
bodies:
  - count: 1
    radius: 3
run: {until: 1}
$outputs
EOF
  broken missing_file 5 "cannot open" <<EOF
world:
  dim: 3
  box: [10, 10, 10]
bodies:
  - file: no_such_file.xyz
run: {until: 1}
$outputs
EOF
  # Two bodies 0.5 apart with radius 0.5: they overlap.
  mkdir -p "$work/broken_overlap_file"
  printf '2\nLattice="10 0 0 0 10 0 0 0 10" Properties=species:S:1:pos:R:3:radius:R:1 Time=0\nB 0 0 0 0.5\nB 0.5 0 0 0.5\n' \
    >"$work/broken_overlap_file/frame.xyz"
  broken overlap_file 5 "overlap" <<EOF
world:
  dim: 3
  box: [10, 10, 10]
bodies:
  - file: frame.xyz
run: {until: 1}
$outputs
EOF
}

# An output that cannot be written fails cleanly and leaves no other output behind.
check_unwritable_output() {
  local dir=$work/unwritable out
  mkdir -p "$dir"
  out=$(cd "$dir" && "$carom" run "$examples/hard_spheres.yaml" --until 0.5 --quiet \
        --stats s.json --trajectory no_such_dir/t.xyz 2>&1)
  [ $? -eq 1 ] && [[ $out == *"no_such_dir/t.xyz: cannot write"* ]] || { fail unwritable "$out"; return; }
  [ -z "$(ls "$dir")" ] || { fail unwritable "files written: $(ls "$dir")"; return; }
  pass unwritable
}

# A jammed row (seed 002, 2.1.2) stops with a message, not an endless loop,
# and keeps what it wrote: the event log so far, and statistics saying why.
check_jam() {
  local dir=$work/jam out
  mkdir -p "$dir"
  printf '3\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nB -1 0 0 0 0 0 0.5\nB 0 0 0 1 0 0 0.5\nB 1 0 0 0 0 0 0.5\n' >"$dir/row.xyz"
  cat >"$dir/jam.yaml" <<EOF
world: {dim: 2, box: [3, 10], boundary: walls}
bodies:
  - file: row.xyz
run: {until: 10}
output: {stats: s.json, events: e.csv}
EOF
  out=$(cd "$dir" && timeout 60 "$carom" run jam.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"jammed"* ]] || { fail jam "$out"; return; }
  grep -q '"status": "failed"' "$dir/s.json" && grep -q '"message": ".*jammed' "$dir/s.json" ||
    { fail jam "stats without the failure: $(head -3 "$dir/s.json" 2>&1)"; return; }
  [ "$(head -1 "$dir/e.csv")" = "time,kind,i,j" ] && [ "$(wc -l <"$dir/e.csv")" -gt 100 ] ||
    { fail jam "event log not kept: $(wc -l <"$dir/e.csv" 2>&1)"; return; }
  [ -z "$(ls "$dir" | grep -v '^row.xyz$\|^jam.yaml$\|^s.json$\|^e.csv$')" ] || { fail jam "files written: $(ls "$dir")"; return; }
  pass jam
}

# ---- round trip and restart -----------------------------------------------

# The body lines of frame K (0-based) of a trajectory: count line, header, bodies.
frame() {
  awk -v want="$2" '
    state == 0 { left = $1; state = 1; f++; next }
    state == 1 { state = left > 0 ? 2 : 0; next }
    state == 2 { if (f - 1 == want) print; if (--left == 0) state = 0 }' "$1"
}
last_frame() { frame "$1" $(($(grep -c 'Properties=' "$1") - 1)); }

check_round_trip() {
  local dir=$work/round_trip
  mkdir -p "$dir"
  (cd "$dir" && "$carom" run "$examples/granular_gravity.yaml" --until 3 --every 3 --quiet \
     --trajectory first.xyz) || { fail round_trip "first run failed"; return; }
  # The last frame (t = 3) becomes the input of a new run.
  local n
  n=$(head -1 "$dir/first.xyz")
  tail -n $((n + 2)) "$dir/first.xyz" >"$dir/frame.xyz"
  cat >"$dir/again.yaml" <<EOF
world:
  dim: 2
  box: [60, 40]
  boundary: [periodic, walls]
  gravity: [0, -1]
bodies:
  - file: frame.xyz
run: {until: 1}
output: {trajectory: again.xyz, every: 1}
EOF
  (cd "$dir" && "$carom" run again.yaml --quiet) || { fail round_trip "second run failed"; return; }
  if diff <(tail -n "$n" "$dir/frame.xyz") <(frame "$dir/again.xyz" 0) >/dev/null; then
    pass round_trip
  else
    fail round_trip "frame read back differs: $(diff <(tail -n "$n" "$dir/frame.xyz") <(frame "$dir/again.xyz" 0) | head -3)"
  fi
}

check_restart() { # example, total time
  local name=$1 until=$2 half dir=$work/restart_$1
  half=$(awk -v u="$until" 'BEGIN { printf "%.17g", u / 2 }')
  mkdir -p "$dir"
  (cd "$dir" && "$carom" run "$examples/$name.yaml" --until "$until" --quiet --every "$half" \
     --trajectory one.xyz --events-log one.csv --stats one.json &&
   "$carom" run "$examples/$name.yaml" --until "$half" --quiet --checkpoint half.ckpt \
     --events-log first.csv --trajectory first.xyz --every "$half" &&
   "$carom" run --restart half.ckpt --until "$until" --quiet --events-log second.csv \
     --trajectory second.xyz --stats two.json) || { fail "restart $name" "a run failed"; return; }
  if ! diff <(last_frame "$dir/one.xyz") <(last_frame "$dir/second.xyz") >/dev/null; then
    fail "restart $name" "final states differ"; return
  fi
  if ! diff "$dir/one.csv" <(cat "$dir/first.csv"; tail -n +2 "$dir/second.csv") >/dev/null; then
    fail "restart $name" "event logs differ"; return
  fi
  [ "$(json_event "$dir/one.json" total)" = "$(json_event "$dir/two.json" total)" ] ||
    { fail "restart $name" "event counts differ"; return; }
  [ "$(wc -l <"$dir/one.csv")" -gt 100 ] || { fail "restart $name" "too few events to mean anything"; return; }
  pass "restart $name"
}

check_periodic_checkpoints() {
  local dir=$work/periodic_checkpoints
  mkdir -p "$dir"
  (cd "$dir" && "$carom" run "$examples/seed002_box.yaml" --until 2 --quiet --checkpoint c.ckpt \
     --checkpoint-every 0.5 --stats s.json) || { fail periodic_checkpoints "run failed"; return; }
  [ -s "$dir/c.ckpt" ] && [ -z "$(ls "$dir" | grep -v '^c.ckpt$\|^s.json$\|\.xyz$\|\.csv$')" ] ||
    { fail periodic_checkpoints "unexpected files: $(ls "$dir")"; return; }
  local out
  out=$("$carom" run --restart "$dir/c.ckpt" --until 1 --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"before the checkpoint"* ]] || { fail periodic_checkpoints "going back: $out"; return; }
  printf 'not a checkpoint' >"$dir/bad.ckpt"
  out=$("$carom" run --restart "$dir/bad.ckpt" --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"bad.ckpt: not a"* ]] || { fail periodic_checkpoints "bad checkpoint: $out"; return; }
  pass periodic_checkpoints
}

# run.equilibrate T: the measuring window (pressure, collision rate, mean
# temperature) starts at T, so it spans until - T, and the collision rate
# counts only the pair collisions after T (from the event log).
check_equilibrate() {
  local dir=$work/equilibrate window pairs rate
  mkdir -p "$dir"
  cat >"$dir/eq.yaml" <<EOF
world: {dim: 2, box: [30, 30], boundary: walls}
seed: 4
bodies:
  - {count: 60, radius: 0.5, place: random, velocity: {temperature: 1.0}}
run: {until: 3, equilibrate: 1.25}
output: {stats: s.json, events: e.csv}
EOF
  (cd "$dir" && "$carom" run eq.yaml --quiet) || { fail equilibrate "run failed"; return; }
  window=$(json_number "$dir/s.json" measured_over)
  [ "$window" = 1.75 ] || { fail equilibrate "measured_over $window, expected 1.75"; return; }
  pairs=$(awk -F, 'NR > 1 && $2 == "pair" && $1 > 1.25' "$dir/e.csv" | wc -l)
  rate=$(json_number "$dir/s.json" collision_rate)
  close "$rate" "$(awk -v p="$pairs" 'BEGIN { printf "%.17g", 2 * p / (60 * 1.75) }')" 1e-12 ||
    { fail equilibrate "collision_rate $rate is not 2 x $pairs / (60 x 1.75)"; return; }
  local out
  out=$(cd "$dir" && sed 's/equilibrate: 1.25/equilibrate: 3/' eq.yaml >late.yaml && "$carom" run late.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"late.yaml:"*":"*": run.equilibrate 3 is not before run.until 3"* ]] || { fail equilibrate "late: $out"; return; }
  pass equilibrate
}

check_help
check_equilibrate
run_example seed002_box yes 2
run_example hard_spheres yes 2
run_example granular_gravity no 5
check_broken
check_unwritable_output
check_jam
check_round_trip
check_restart hard_spheres 4
check_restart granular_gravity 6
check_periodic_checkpoints
finish
