#!/usr/bin/env bash
# test_steer_cli.sh — `carom steer` end to end (issue 13, items 8 and 9):
# every player (toward-wall, random, circle, a replayed CSV) under every law
# keeps the steered body off the wall — checked by the printed figures and,
# independently, by the clearance R - |x| - r computed here from the
# trajectory (a circle, a sphere) — while with the filter off the
# toward-wall player hits the wall; the lambda log holds lambda in [0, 1],
# |a| <= a_max and, where the filter did not act, the player's input bit for
# bit; the same seed gives the same figures; bad containers, scenarios,
# player files and options fail with the place named (FILE:LINE:COL, the
# body, the option), a non-zero exit and nothing written.
#
# usage: test_steer_cli.sh CAROM_BINARY
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
source "$(dirname "$0")/testlib.sh"

# min_circle_clearance FILE.xyz R: the least R - |x| - r over the frames'
# first body (columns: species x y z vx vy vz m r ...).
min_circle_clearance() {
  awk -v R="$2" 'left == 0 { left = $1 + 1; line = 0; next }
    { left--; line++ }
    line == 2 { c = R - sqrt($2 * $2 + $3 * $3 + $4 * $4) - $9; if (min == "" || c < min) min = c }
    END { printf "%.17g\n", min }' "$1"
}
is_true() { awk "BEGIN { exit !($1) }"; }

check_help() {
  local out
  out=$("$carom" steer --help) && [[ $out == *"--player P"* && $out == *"--law L"* && $out == *"time to cross"* ]] ||
    { fail help "carom steer --help"; return; }
  out=$("$carom" --help) && [[ $out == *"carom steer"* ]] || { fail help "carom --help lacks steer"; return; }
  pass help
}

# A player file for the default world (one body, 2D): a_max along +x, then
# along a corner's diagonal, then spiralling: inputs above a_max are clamped.
write_player_csv() {
  {
    echo "time,body,ax,ay"
    echo "0,0,1,0"
    echo "2,0,0.7071067811865476,0.7071067811865476"
    echo "4,0,-3,0.5"
    for k in $(seq 0 40); do awk -v k="$k" 'BEGIN { t = 6 + 0.5 * k; printf "%g,0,%.6f,%.6f\n", t, cos(k), sin(k) }'; done
  } >"$work/player.csv"
}

# A filtered body may creep up to the wall, but the filter sees the
# clearance less a skin (2^-36 of the positions' scale), so it must never
# touch it: no contact, and never inside the wall beyond round-off (CLEAR:
# the trajectory's clearance is computed here from rounded positions).
CLEAR=-1e-9

# safe NAME ARGS...: the filter on: clearance >= 0 printed, >= CLEAR in the trajectory, no contact.
safe() {
  local name=$1 out c traj hardest
  shift
  out=$("$carom" steer --windows 600 --json "$work/s.json" --trajectory "$work/s.xyz" --quiet "$@" 2>&1) ||
    { fail "safe $name" "exit $?: $out"; return; }
  c=$(json_number "$work/s.json" min_clearance); hardest=$(json_number "$work/s.json" hardest_impact)
  traj=$(min_circle_clearance "$work/s.xyz" 5)
  [ "$(grep -c '^1$' "$work/s.xyz")" -eq 601 ] || { fail "safe $name" "frames: $(grep -c '^1$' "$work/s.xyz")"; return; }
  is_true "$c >= 0 && $traj >= $CLEAR && $(json_number "$work/s.json" wall_contacts) == 0" ||
    { fail "safe $name" "min clearance $c, from the trajectory $traj, hardest contact $hardest"; return; }
  pass "safe $name"
}

check_players_and_laws() {
  write_player_csv
  local law player
  for law in naive linear quadratic backup; do
    for player in toward-wall random circle "$work/player.csv"; do
      safe "$law/$(basename "$player")" --law "$law" --player "$player"
    done
  done
  safe "linear/at-window-starts" --law linear --player toward-wall --at-window-starts
  safe "quadratic/at-window-starts/circle" --law quadratic --player circle --at-window-starts
  safe "linear/window0.2" --law linear --player toward-wall --window 0.2
  safe "quadratic/window0.01/circle" --law quadratic --player circle --window 0.01
  safe "linear/sigma0.9" --law linear --safety 0.9 --max-acceleration 3 --player random
}

check_directional() {
  # The directional law is guaranteed only against one flat wall (filter.c):
  # a body driven straight at a side of a square, far from its corners.
  cat >"$work/square.yaml" <<'YAML'
world:
  dim: 2
  container: {box: [10, 10]}
bodies:
  - file: square.xyz
    radius: 0.5
YAML
  printf '1\nProperties=species:S:1:pos:R:3\nX 1 0.25 0\n' >"$work/square.xyz"
  local out c
  out=$("$carom" steer "$work/square.yaml" --law directional --windows 600 --json "$work/sq.json" --quiet 2>&1) ||
    { fail "safe directional/flat wall" "exit $?: $out"; return; }
  c=$(json_number "$work/sq.json" min_clearance)
  is_true "$c >= 0 && $(json_number "$work/sq.json" wall_contacts) == 0 && $(json_number "$work/sq.json" acted_fraction) > 0" ||
    { fail "safe directional/flat wall" "min clearance $c"; return; }
  pass "safe directional/flat wall"
}

# With the filter off the toward-wall player must hit the wall (the world
# bounces it off the circle: contacts at speed, a clearance of 0 reached).
check_unfiltered() {
  local out c contacts hardest
  out=$("$carom" steer --law off --windows 600 --json "$work/off.json" --quiet 2>&1) ||
    { fail unfiltered "exit $?: $out"; return; }
  c=$(json_number "$work/off.json" min_clearance); contacts=$(json_number "$work/off.json" wall_contacts)
  hardest=$(json_number "$work/off.json" hardest_impact)
  is_true "$c <= 1e-9 && $contacts > 0 && $hardest > 0.5" ||
    { fail unfiltered "min clearance $c, contacts $contacts, hardest $hardest"; return; }
  [ "$(json_number "$work/off.json" acted_fraction)" = 0 ] || { fail unfiltered "the filter acted"; return; }
  pass unfiltered
}

# A sphere in 3D: the clearance from the trajectory, as for the circle.
check_3d() {
  cat >"$work/sphere.yaml" <<'EOF'
world:
  dim: 3
  container: {sphere: 5}
bodies:
  - count: 1
    radius: 0.5
    velocity: {speed: 0.5}
    steer: {law: linear, max_acceleration: 1, safety: 0.5}
run:
  window: 0.05
EOF
  local player c
  for player in toward-wall random circle; do
    "$carom" steer "$work/sphere.yaml" --player "$player" --windows 600 --trajectory "$work/3d.xyz" \
      --json "$work/3d.json" --quiet >"$work/3d.txt" 2>&1 || { fail "3d $player" "exit $?: $(cat "$work/3d.txt")"; return; }
    c=$(min_circle_clearance "$work/3d.xyz" 5)
    is_true "$c >= $CLEAR && $(json_number "$work/3d.json" min_clearance) >= 0 && $(json_number "$work/3d.json" wall_contacts) == 0" ||
      { fail "3d $player" "clearance $c, hardest contact $(json_number "$work/3d.json" hardest_impact)"; return; }
  done
  pass 3d
}

# The lambda log: one row per window; lambda in [0, 1]; |a| <= a_max; where
# the filter did not act (and the input was not longer than a_max by a
# rounding), a is the player's input character for character.
check_lambda_log() {
  "$carom" steer --player circle --law linear --windows 400 --lambda "$work/l.csv" --quiet >/dev/null 2>&1 ||
    { fail lambda "exit $?"; return; }
  [ "$(head -1 "$work/l.csv")" = "time,body,lambda,acted,apx,apy,apz,ax,ay,az,clearance" ] &&
    [ "$(wc -l <"$work/l.csv")" -eq 401 ] || { fail lambda "header or rows"; return; }
  local bad
  bad=$(awk -F, 'NR > 1 && ($3 < 0 || $3 > 1 || sqrt($8*$8 + $9*$9 + $10*$10) > 1 + 1e-12 ||
                 ($4 == 0 && $5*$5 + $6*$6 + $7*$7 <= 1 && ($5 != $8 || $6 != $9 || $7 != $10))) { n++ }
               END { print n + 0 }' "$work/l.csv")
  local acted
  acted=$(awk -F, 'NR > 1 && $4 == 1 { n++ } END { print n + 0 }' "$work/l.csv")
  [ "$bad" -eq 0 ] && [ "$acted" -gt 0 ] || { fail lambda "$bad bad rows, $acted acted"; return; }
  pass lambda
}

check_determinism() {
  "$carom" steer --player random --seed 4 --windows 300 --json "$work/d1.json" --quiet >/dev/null &&
    "$carom" steer --player random --seed 4 --windows 300 --json "$work/d2.json" --quiet >/dev/null &&
    "$carom" steer --player random --seed 5 --windows 300 --json "$work/d3.json" --quiet >/dev/null ||
    { fail determinism "a run failed"; return; }
  cmp -s "$work/d1.json" "$work/d2.json" || { fail determinism "seed 4 twice differs"; return; }
  cmp -s "$work/d1.json" "$work/d3.json" && { fail determinism "seeds 4 and 5 agree"; return; }
  pass determinism
}

# The examples run, and the steered bodies stay clear.
check_examples() {
  local dir ex c
  dir=$(dirname "$0")/../examples
  for ex in steer_circle steer_rink steer_difference; do
    "$carom" steer "$dir/$ex.yaml" --player circle --windows 400 --json "$work/ex.json" --quiet >/dev/null 2>"$work/ex.err" ||
      { fail "example $ex" "$(cat "$work/ex.err")"; return; }
    c=$(json_number "$work/ex.json" min_clearance)
    is_true "$c >= 0 && $(json_number "$work/ex.json" wall_contacts) == 0" ||
      { fail "example $ex" "min clearance $c"; return; }
  done
  pass examples
}

# bad_scenario NAME EXPECTED YAML: exit 1, one line with EXPECTED (which
# starts with the place), nothing written.
bad_scenario() {
  local name=$1 expected=$2 out status
  printf '%s\n' "$3" >"$work/bad_$name.yaml"
  rm -f "$work"/out.*
  out=$(cd "$work" && "$carom" steer "bad_$name.yaml" --windows 5 --json out.json --trajectory out.xyz 2>&1); status=$?
  if [ $status -ne 1 ] || [[ $out != *"$expected"* ]] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] ||
     compgen -G "$work/out.*" >/dev/null; then
    fail "bad scenario $name" "status $status: $out"
    return
  fi
  pass "bad scenario $name"
}

check_bad_scenarios() {
  bad_scenario empty-intersection "bad_empty-intersection.yaml:5:7: world.container.intersection is refused:" \
'world:
  dim: 2
  container:
    intersection:
      - circle: {centre: [-10, 0], radius: 2}
      - circle: {centre: [10, 0], radius: 2}
bodies:
  - count: 1'
  grep -qi empty <<<"$(cd "$work" && "$carom" steer bad_empty-intersection.yaml 2>&1)" ||
    fail "bad scenario empty-intersection" "the reason does not say empty"
  bad_scenario not-convex "world.container.polygon is refused:" \
'world:
  dim: 2
  container: {polygon: [[0, 0], [4, 0], [1, 1], [4, 4], [0, 4]]}
bodies:
  - count: 1
    radius: 0.1'
  # the place: the vertex the library names, else the polygon's list (both on line 3)
  grep -q "bad_not-convex.yaml:3:" <<<"$(cd "$work" && "$carom" steer bad_not-convex.yaml 2>&1)" ||
    fail "bad scenario not-convex" "no place on line 3"
  bad_scenario repeated-vertex "bad_repeated-vertex.yaml:3:49: world.container.polygon vertex 3 repeats vertex 0" \
'world:
  dim: 2
  container: {polygon: [[0, 0], [4, 0], [4, 4], [0, 0]]}
bodies:
  - count: 1'
  bad_scenario two-vertices "bad_two-vertices.yaml:3:24: world.container.polygon has 2 vertices, which enclose no area" \
'world:
  dim: 2
  container: {polygon: [[0, 0], [4, 0]]}
bodies:
  - count: 1'
  bad_scenario polygon-3d "bad_polygon-3d.yaml:3:24: world.container.polygon is a 2D shape in a 3D world" \
'world:
  dim: 3
  container: {polygon: [[0, 0], [4, 0], [0, 4]]}
bodies:
  - count: 1'
  bad_scenario unknown-shape "bad_unknown-shape.yaml:5:10: world.container.union[1]: unknown shape 'hexagon'" \
'world:
  dim: 2
  container:
    union: [{circle: 3},
        {hexagon: 2}]
bodies:
  - count: 1'
  bad_scenario radius-word "bad_radius-word.yaml:3:55: world.container.capsule.radius = 'big' is not a number" \
'world:
  dim: 2
  container: {capsule: {a: [0, 0], b: [1, 0], radius: big}}
bodies:
  - count: 1'
  printf '1\nProperties=species:S:1:pos:R:3\nX 4.8 0 0\n' >"$work/outside.xyz"
  bad_scenario body-outside "bad_body-outside.yaml:5:5: body 0 of this group (id 0) (outside.xyz, line 3) at (4.7999999999999998, 0) is outside world.container" \
'world:
  dim: 2
  container: {circle: 5}
bodies:
  - file: outside.xyz
    radius: 0.5'
  bad_scenario lattice-outside "bad_lattice-outside.yaml:6:5: body 0 of this group (id 1)" \
'world:
  dim: 2
  container: {circle: 5}
bodies:
  - count: 1
  - count: 4
    place: lattice'
  bad_scenario small-box "bad_small-box.yaml:3:8: world.box does not hold world.container" \
'world:
  dim: 2
  box: [8, 8]
  container: {circle: 5}
bodies:
  - count: 1'
  bad_scenario periodic "bad_periodic.yaml:3:13: world.boundary is periodic along x" \
'world:
  dim: 2
  boundary: periodic
  container: {circle: 5}
bodies:
  - count: 1'
  bad_scenario steer-law "bad_steer-law.yaml:6:18: bodies[0].steer.law = fast is not allowed" \
'world:
  dim: 2
  container: {circle: 5}
bodies:
  - count: 1
    steer: {law: fast}'
  bad_scenario steer-safety "bad_steer-safety.yaml:6:21: bodies[0].steer.safety = 1 is out of range (expected a number in [0, 1))" \
'world:
  dim: 2
  container: {circle: 5}
bodies:
  - count: 1
    steer: {safety: 1}'
  bad_scenario steer-kinematic "bad_steer-kinematic.yaml:8:12: bodies[0].steer is for free bodies" \
'world:
  dim: 2
  container: {circle: 5}
bodies:
  - count: 1
    mass: .inf
    velocity: {speed: 0}
    steer: {law: linear}'
  local deep
  deep=$(awk 'BEGIN { for (k = 0; k < 70; k++) printf "{union: ["; printf "{circle: 1}";
                      for (k = 0; k < 70; k++) printf ", {circle: 2}]}" }')
  bad_scenario too-deep "composites nested more than 64 deep" "world:
  dim: 2
  container: $deep
bodies:
  - count: 1"
  bad_scenario no-walls "the box is periodic along x, so there is no wall to steer clear of" \
'world:
  dim: 2
  box: 10
bodies:
  - count: 1'
}

# carom run with world.container: free disks placed inside a circle stay
# inside it (every body of every frame, from the trajectory) and bounce.
check_run_container() {
  cat >"$work/gas.yaml" <<'YAML'
world:
  dim: 2
  container: {circle: 6}
bodies:
  - count: 40
    radius: 0.3
    velocity: {speed: 2}
run:
  until: 10
output:
  trajectory: gas.xyz
  every: 0.1
YAML
  local out worst
  out=$(cd "$work" && "$carom" run gas.yaml --stats - --quiet 2>&1) || { fail "run container" "exit $?: $out"; return; }
  worst=$(awk 'left == 0 { left = $1 + 1; line = 0; next } { left--; line++ }
    line >= 2 { c = 6 - sqrt($2 * $2 + $3 * $3) - $9; if (min == "" || c < min) min = c } END { print min }' "$work/gas.xyz")
  is_true "$worst >= $CLEAR" && [ "$(json_event <(printf '%s\n' "$out") wall)" -gt 0 ] ||
    { fail "run container" "least clearance $worst; $(printf '%s\n' "$out" | grep "\"events\"")"; return; }
  pass "run container"
}

# A scenario's run.controls is the default player (replayed: the body goes up).
check_scenario_controls() {
  printf 'time,body,ax,ay\n0,0,0,1\n' >"$work/up.csv"
  printf '1\nProperties=species:S:1:pos:R:3\nX 1 0.25 0\n' >"$work/square.xyz"
  cat >"$work/ctl.yaml" <<'YAML'
world:
  dim: 2
  container: {circle: 5}
bodies:
  - file: square.xyz
    steer: {}
run:
  window: 0.05
  controls: up.csv
YAML
  local out
  out=$("$carom" steer "$work/ctl.yaml" --windows 100 --trajectory "$work/up.xyz" --quiet 2>&1) ||
    { fail "scenario controls" "exit $?: $out"; return; }
  # the last frame's body is above where it started (y = 0.25), and x has not changed
  tail -1 "$work/up.xyz" | awk '{ exit !($3 > 2 && $2 == 1) }' && [[ $out == *"player $work/up.csv"* ]] ||
    { fail "scenario controls" "$out; $(tail -1 "$work/up.xyz")"; return; }
  pass "scenario controls"
}

# carom run steers a scenario's steer: groups (the world's filter): a disk
# blown toward the wall by its own acceleration stays clear of it; without
# steer: it hits. A steered group needs run.window.
check_run_steers() {
  local body='    velocity: {speed: 0}
    acceleration: [1, 0]'
  printf 'world:\n  dim: 2\n  container: {circle: 5}\nbodies:\n  - count: 1\n%s\n%s\nrun:\n  until: 30\n  window: 0.05\noutput:\n  trajectory: %s\n  every: 0.05\n' \
    "$body" "    steer: {law: linear}" blown.xyz >"$work/blown.yaml"
  printf 'world:\n  dim: 2\n  container: {circle: 5}\nbodies:\n  - count: 1\n%s\nrun:\n  until: 30\n  window: 0.05\noutput:\n  trajectory: %s\n  every: 0.05\n' \
    "$body" free.xyz >"$work/free.yaml"
  (cd "$work" && "$carom" run blown.yaml --quiet && "$carom" run free.yaml --quiet) >"$work/run.txt" 2>&1 ||
    { fail "run steers" "$(cat "$work/run.txt")"; return; }
  local steered free
  steered=$(min_circle_clearance "$work/blown.xyz" 5); free=$(min_circle_clearance "$work/free.xyz" 5)
  is_true "$steered >= $CLEAR && $free < 0.01" || { fail "run steers" "clearance $steered steered, $free free"; return; }
  printf 'world:\n  dim: 2\n  container: {circle: 5}\nbodies:\n  - count: 1\n    steer: {}\nrun:\n  until: 1\n' >"$work/nowin.yaml"
  local out status
  out=$(cd "$work" && "$carom" run nowin.yaml 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"nowin.yaml:6:12: bodies[0].steer filters the bodies' accelerations at window starts, but run has no window"* ]] ||
    { fail "run steers" "no window: status $status: $out"; return; }
  pass "run steers"
}

# bad NAME EXPECTED ARGS...: exit 2, one line containing EXPECTED, nothing written
bad() { refused_option steer --json "$@"; }

check_bad_options() {
  bad law "--law: 'fast' is not a usable value (expected off, naive, linear, quadratic, directional or backup)" --law fast
  bad player "--player: 'wall' is not a usable value (expected toward-wall, random, circle, or a readable CSV file" --player wall
  bad windows-zero "--windows: '0' is not a usable value (expected a whole number from 1 to 1000000000)" --windows 0
  bad windows-word "--windows: 'many'" --windows many
  bad window "--window: '-1' is not a usable value (expected a finite number > 0)" --window -1
  bad seed "--seed: '-3' is not a usable value" --seed -3
  bad safety "--safety: '1' is not a usable value (expected a number in [0, 1))" --safety 1
  bad amax "--max-acceleration: 'inf' is not a usable value" --max-acceleration inf
  bad unknown "unknown option '--frobnicate'" --frobnicate 1
  bad missing "--windows needs a value" --windows
  bad two-scenarios "unexpected argument 'b.yaml' (steer takes one scenario)" a.yaml b.yaml
  # a player file with a body that is not there: its line and column, status 1, nothing written
  printf 'time,body,ax,ay\n0,0,1,0\n1,7,1,0\n' >"$work/p.csv"
  local out status
  out=$("$carom" steer --player "$work/p.csv" --json "$work/bad.json" 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"p.csv:3:"* ]] && ! [ -e "$work/bad.json" ] ||
    { fail "bad player file" "status $status: $out"; return; }
  pass "bad player file"
  out=$("$carom" steer --windows 5 --json "$work/no/such/dir/f.json" 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"no/such/dir/f.json: cannot write"* ]] || { fail "bad output" "status $status: $out"; return; }
  out=$("$carom" steer --windows 5 --json "$work/same.json" --lambda "$work/same.json" 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"named for both"* ]] && ! [ -e "$work/same.json" ] ||
    { fail "bad output" "same file: status $status: $out"; return; }
  pass "bad output"
}

check_help
check_players_and_laws
check_directional
check_unfiltered
check_3d
check_lambda_log
check_determinism
check_examples
check_bad_scenarios
check_run_container
check_scenario_controls
check_run_steers
check_bad_options
finish
