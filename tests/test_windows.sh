#!/usr/bin/env bash
# test_windows.sh — the scenario keys of driven bodies (issue 12) end to end:
# a run in windows (run.window) without controls gives the plain run's event
# log and final state bit for bit; a controls file moves a lone body as the
# closed form says (x = x0 + v t + a (t - t_a)^2 / 2 from the window start
# t_a where the row applies, in-window rows at the next start, decimal
# times on the start they name); a body under its own acceleration crosses
# a sensor at the root of its quadratic, in the right direction, and a
# body outside the sensor's extent crosses nothing; a kinematic body
# (mass .inf) keeps its motion through a collision and throws the free body
# back at 2u - v, the energy it gave counted as kinematic_work; a windowed
# run with controls restarted from checkpoints (on a window start and
# inside a window) ends bit for bit where the run in one go ends, and a
# changed controls file is refused at the restart; bad controls rows and a
# sensor outside the box fail with FILE:LINE:COL, writing nothing; carom
# compare refuses controls it cannot replay.
#
# usage: test_windows.sh CAROM_BINARY
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
source "$(dirname "$0")/testlib.sh"
# close A B TOLERANCE: |A - B| <= TOLERANCE * max(1, |B|)
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; if (s < 1) s = 1; exit !(d <= t * s) }'; }

# The body lines of the last frame of a trajectory.
last_frame() {
  awk 'state == 0 { left = $1; state = 1; n = 0; next }
       state == 1 { state = left > 0 ? 2 : 0; next }
       state == 2 { line[n++] = $0; if (--left == 0) state = 0 }
       END { for (k = 0; k < n; k++) print line[k] }' "$1"
}
# column C (1-based) of body line B (0-based) of the last frame
body_value() { last_frame "$1" | awk -v b="$2" -v c="$3" 'NR == b + 1 { print $c }'; }

# ---- windows without controls: the plain run's bits ---------------------------

check_windows_are_plain() {
  local dir=$work/plain
  mkdir -p "$dir"
  cat >"$dir/gas.yaml" <<'EOF'
world:
  dim: 2
  box: [24, 24]
  boundary: walls
  sensors: [{axis: x, at: 2}, {axis: y, at: -3, from: -6, to: 6}]
seed: 9
bodies:
  - {count: 50, radius: 0.5, velocity: {temperature: 1}, acceleration: [0.3, -0.5]}
  - {count: 30, radius: 0.4, velocity: {temperature: 1}, acceleration: [-0.2, 0.1]}
run: {until: 6}
EOF
  sed 's/run: {until: 6}/run: {until: 6, window: 0.0173}/' "$dir/gas.yaml" >"$dir/windowed.yaml"
  (cd "$dir" && "$carom" run gas.yaml --quiet --events-log p.csv --trajectory p.xyz --every 0.7 --stats p.json &&
   "$carom" run windowed.yaml --quiet --events-log w.csv --trajectory w.xyz --every 0.7 --stats w.json) ||
    { fail windows_are_plain "a run failed"; return; }
  cmp -s "$dir/p.csv" "$dir/w.csv" || { fail windows_are_plain "event logs differ: $(diff "$dir/p.csv" "$dir/w.csv" | head -3)"; return; }
  cmp -s "$dir/p.xyz" "$dir/w.xyz" || { fail windows_are_plain "trajectories differ"; return; }
  [ "$(awk -F, '$2 == "pair"' "$dir/p.csv" | wc -l)" -gt 100 ] && [ "$(awk -F, '$2 == "sensor"' "$dir/p.csv" | wc -l)" -gt 10 ] ||
    { fail windows_are_plain "too few pair or sensor events to mean anything"; return; }
  [ "$(json_event "$dir/w.json" sensor)" = "$(awk -F, '$2 == "sensor"' "$dir/w.csv" | wc -l)" ] ||
    { fail windows_are_plain "stats count $(json_event "$dir/w.json" sensor) sensor events, the log another number"; return; }
  pass "windows without controls: the plain run's event log and frames, bit for bit"
}

# ---- controls: the closed form --------------------------------------------------

# One disk at x0 = -3, y = 0.5, v = (0.5, 0) in an empty walled box; a row
# sets a = (1, 0) (the run's window given). At t = 2: x = -3 + 0.5 t +
# (2 - t_a)^2 / 2, vx = 0.5 + (2 - t_a), with t_a the window start the row applies at.
controlled() { # name window row-time t_a
  local dir=$work/controls_$1 x vx want_x want_vx
  mkdir -p "$dir"
  printf '1\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nB -3 0.5 0 0.5 0 0 0.5\n' >"$dir/one.xyz"
  printf 'time,body,ax,ay\n%s,0,1,0\n' "$3" >"$dir/c.csv"
  cat >"$dir/s.yaml" <<EOF
world: {dim: 2, box: [20, 20], boundary: walls}
bodies: [{file: one.xyz}]
run: {until: 2, window: $2, controls: c.csv}
output: {trajectory: t.xyz, every: 1}
EOF
  (cd "$dir" && "$carom" run s.yaml --quiet) || { fail "controls $1" "run failed"; return; }
  x=$(body_value "$dir/t.xyz" 0 2); vx=$(body_value "$dir/t.xyz" 0 5)
  want_x=$(awk -v a="$4" 'BEGIN { printf "%.17g", -3 + 0.5 * 2 + (2 - a) ^ 2 / 2 }')
  want_vx=$(awk -v a="$4" 'BEGIN { printf "%.17g", 0.5 + (2 - a) }')
  close "$x" "$want_x" 1e-12 && close "$vx" "$want_vx" 1e-12 ||
    { fail "controls $1" "at t = 2: x = $x, vx = $vx; closed form x = $want_x, vx = $want_vx (row applied at $4)"; return; }
  pass "controls $1: x(2) = $want_x as the closed form says"
}

check_controls() {
  controlled on_start 0.25 0.5 0.5
  controlled inside_a_window 0.25 0.6 0.75
  # 3 x 0.3 is 0.8999999999999999 < 0.9: the row still lands on that start
  controlled decimal_start 0.3 0.9 0.9
  # 0.14 / 0.02 is 7.000000000000001: the row lands on start 7 (0.14), not 8
  controlled decimal_ratio 0.02 0.14 0.14
  controlled at_zero 0.25 0 0
}

# ---- sensors ---------------------------------------------------------------------

# Body 0 at (-3, -5), v = (0.5, 0), own a = (1, 0) crosses x = 1 when
# -3 + t/2 + t^2/2 = 1: t = (-1 + sqrt(33)) / 2, towards +x. Body 1 at (5, 3),
# v = (0, -2), crosses y = 0 (sensor 1 spans x in [3, 7]) at t = 1.5, towards
# -y. Body 2 at (-8, 3), v = (0, -2), passes y = 0 outside that span: no row.
check_sensors() {
  local dir=$work/sensors rows t0
  mkdir -p "$dir"
  printf '1\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nA -3 -5 0 0.5 0 0 0.5\n' >"$dir/a.xyz"
  printf '2\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nB 5 3 0 0 -2 0 0.5\nB -8 3 0 0 -2 0 0.5\n' >"$dir/b.xyz"
  cat >"$dir/s.yaml" <<'EOF'
world:
  dim: 2
  box: [20, 20]
  boundary: walls
  sensors:
    - {axis: x, at: 1}
    - {axis: y, at: 0, from: [3], to: [7]}
bodies:
  - {file: a.xyz, acceleration: [1, 0]}
  - {file: b.xyz}
run: {until: 3}
output: {events: e.csv, stats: s.json}
EOF
  (cd "$dir" && "$carom" run s.yaml --quiet) || { fail sensors "run failed"; return; }
  rows=$(awk -F, '$2 == "sensor"' "$dir/e.csv")
  [ "$(echo "$rows" | wc -l)" -eq 2 ] || { fail sensors "expected 2 sensor rows, got: $rows"; return; }
  t0=$(awk 'BEGIN { printf "%.17g", (-1 + sqrt(33)) / 2 }')
  echo "$rows" | awk -F, '$3 == 0 && $4 == "0+"' | grep -q . &&
    close "$(echo "$rows" | awk -F, '$3 == 0 { print $1 }')" "$t0" 1e-12 ||
    { fail sensors "body 0 should cross sensor 0 towards +x at $t0: $rows"; return; }
  echo "$rows" | awk -F, '$3 == 1 && $4 == "1-"' | grep -q . &&
    close "$(echo "$rows" | awk -F, '$3 == 1 { print $1 }')" 1.5 1e-12 ||
    { fail sensors "body 1 should cross sensor 1 towards -y at 1.5: $rows"; return; }
  [ "$(json_event "$dir/s.json" sensor)" = 2 ] || { fail sensors "stats: $(json_event "$dir/s.json" sensor) sensor events"; return; }
  pass "sensors: rows at the closed-form crossing times, with their directions, none outside the extent"
}

# ---- kinematic bodies ----------------------------------------------------------------

# A kinematic disk at x = 0 moving at u = 1 meets a free disk at x = 4 moving
# at v = -1 (radii 0.5) at t = 1.5; the free one leaves at 2u - v = 3 (e = 1),
# so at t = 2 the kinematic one is at 2 and the free one at 4; the work done
# is (3^2 - 1^2) / 2 = 4.
check_kinematic() {
  local dir=$work/kinematic
  mkdir -p "$dir"
  printf '1\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nK 0 0 0 1 0 0 0.5\n' >"$dir/k.xyz"
  printf '1\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nF 4 0 0 -1 0 0 0.5\n' >"$dir/f.xyz"
  cat >"$dir/s.yaml" <<'EOF'
world: {dim: 2, box: [20, 20], boundary: walls}
bodies:
  - {file: k.xyz, mass: .inf}
  - {file: f.xyz}
run: {until: 2, window: 0.1}
output: {trajectory: t.xyz, every: 2, events: e.csv, stats: s.json}
EOF
  (cd "$dir" && "$carom" run s.yaml --quiet) || { fail kinematic "run failed"; return; }
  close "$(body_value "$dir/t.xyz" 0 2)" 2 1e-12 && close "$(body_value "$dir/t.xyz" 0 5)" 1 1e-12 ||
    { fail kinematic "the kinematic body is not at x = 2 with vx = 1: $(last_frame "$dir/t.xyz" | head -1)"; return; }
  close "$(body_value "$dir/t.xyz" 1 2)" 4 1e-12 && close "$(body_value "$dir/t.xyz" 1 5)" 3 1e-12 ||
    { fail kinematic "the free body is not at x = 4 with vx = 3: $(last_frame "$dir/t.xyz" | tail -1)"; return; }
  close "$(json_number "$dir/s.json" kinematic_work)" 4 1e-12 ||
    { fail kinematic "kinematic_work $(json_number "$dir/s.json" kinematic_work), expected 4"; return; }
  close "$(awk -F, '$2 == "pair" { print $1 }' "$dir/e.csv")" 1.5 1e-12 || { fail kinematic "the collision is not at t = 1.5"; return; }
  # the last frame read back as input: mass inf is a kinematic body again
  tail -n 4 "$dir/t.xyz" >"$dir/again.xyz"
  printf 'world: {dim: 2, box: [20, 20], boundary: walls}\nbodies: [{file: again.xyz}]\nrun: {until: 1}\noutput: {trajectory: a.xyz, every: 1}\n' >"$dir/again.yaml"
  (cd "$dir" && "$carom" run again.yaml --quiet) || { fail kinematic "its trajectory does not read back"; return; }
  [ "$(body_value "$dir/a.xyz" 0 8)" = inf ] && [ "$(body_value "$dir/a.xyz" 0 10)" = 0 ] &&
    close "$(body_value "$dir/a.xyz" 0 2)" 3 1e-12 ||
    { fail kinematic "read back, body 0 is not kinematic at x = 3: $(last_frame "$dir/a.xyz" | head -1)"; return; }
  pass "kinematic body: keeps its motion, throws the free body back at 2u - v, kinematic_work 4; reads back from its trajectory"
}

# ---- restarts of a windowed run with controls -----------------------------------------

check_restart() {
  local dir=$work/restart
  mkdir -p "$dir"
  cat >"$dir/s.yaml" <<'EOF'
world: {dim: 2, box: [30, 30], boundary: walls}
seed: 21
bodies:
  - {count: 60, radius: 0.5, velocity: {temperature: 1}}
run: {until: 4, window: 0.25, controls: c.csv}
EOF
  # every 0.1, a new acceleration for body (7 k mod 60): rows on starts and inside windows
  awk 'BEGIN { print "time,body,ax,ay"; for (k = 0; k < 40; k++) printf "%.1f,%d,%.3f,%.3f\n", k / 10, (7 * k) % 60, sin(k), cos(3 * k) }' >"$dir/c.csv"
  (cd "$dir" && "$carom" run s.yaml --quiet --events-log one.csv --trajectory one.xyz --every 4 &&
   "$carom" run s.yaml --quiet --until 2 --checkpoint start.ckpt --events-log a.csv --trajectory a.xyz --every 4 &&
   "$carom" run --restart start.ckpt --quiet --until 4 --events-log a.csv --trajectory a.xyz &&
   "$carom" run s.yaml --quiet --until 1.9 --checkpoint inside.ckpt --events-log b.csv &&
   "$carom" run --restart inside.ckpt --quiet --until 4 --events-log b.csv --trajectory b.xyz) ||
    { fail restart "a run failed"; return; }
  cmp -s "$dir/one.csv" "$dir/a.csv" && cmp -s "$dir/one.csv" "$dir/b.csv" ||
    { fail restart "event logs differ from the run in one go"; return; }
  diff <(last_frame "$dir/one.xyz") <(last_frame "$dir/a.xyz") >/dev/null &&
    diff <(last_frame "$dir/one.xyz") <(last_frame "$dir/b.xyz") >/dev/null ||
    { fail restart "final states differ from the run in one go"; return; }
  # the controls do change the run
  sed 's/, controls: c.csv//' "$dir/s.yaml" >"$dir/free.yaml"
  (cd "$dir" && "$carom" run free.yaml --quiet --events-log free.csv) && ! cmp -s "$dir/free.csv" "$dir/one.csv" ||
    { fail restart "the controls changed nothing"; return; }
  local out
  echo "3.95,1,0,0" >>"$dir/c.csv"
  out=$(cd "$dir" && "$carom" run --restart inside.ckpt --quiet --until 4 2>&1)
  [ $? -eq 1 ] && [[ $out == *"c.csv: changed since the checkpoint"* ]] || { fail restart "changed controls: $out"; return; }
  pass "a windowed run with controls restarted on a window start and inside a window ends as the run in one go"
}

# ---- bad input ----------------------------------------------------------------------------

# bad_controls NAME LINE COL PHRASE < rows after the header "time,body,ax,ay" (the whole file for
# the cases header and empty)
bad_controls() {
  local name=$1 dir=$work/bad_$1 out status
  mkdir -p "$dir"
  { [ "$name" = header ] || [ "$name" = empty ] || echo "time,body,ax,ay"; cat; } >"$dir/c.csv"
  cat >"$dir/s.yaml" <<'EOF'
world: {dim: 2, box: [10, 10], boundary: walls}
bodies: [{count: 3, radius: 0.5}]
run: {until: 1, window: 0.1, controls: c.csv}
output: {events: e.csv, stats: s.json, trajectory: t.xyz}
EOF
  out=$(cd "$dir" && "$carom" run s.yaml --quiet 2>&1); status=$?
  [ $status -eq 1 ] || { fail "bad controls $name" "exit status $status: $out"; return; }
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == "carom: "*"c.csv:$2:$3: "*"$4"* ]] ||
    { fail "bad controls $name" "expected c.csv:$2:$3: ...$4..., got: $out"; return; }
  [ -z "$(ls "$dir" | grep -v '^s.yaml$\|^c.csv$')" ] || { fail "bad controls $name" "files written: $(ls "$dir")"; return; }
  pass "bad controls $name"
}

check_bad_controls() {
  bad_controls header 1 1 "the header is 'time,body,ax' (expected time,body,ax,ay,az, or time,body,ax,ay in 2D)" < <(printf 'time,body,ax\n0,1,2\n')
  bad_controls empty 1 1 "the file is empty" < <(printf '')
  bad_controls time_word 3 1 "time 'soon' is not a number" < <(printf '0,1,2,3\nsoon,1,2,3\n')
  bad_controls nan 2 5 "ax 'nan' is not a number (expected a finite decimal number)" < <(printf '0,1,nan,3\n')
  bad_controls unsorted 3 1 "time 0.25 is before 0.5 on line 2 (expected rows sorted by time)" < <(printf '0.5,1,2,3\n0.25,1,2,3\n')
  bad_controls unknown_body 3 6 "body 3 does not exist (expected a body index from 0 to 2)" < <(printf '0,1,2,3\n0.5, 3, 2, 3\n')
  bad_controls negative_body 2 3 "body '-1' is not a body index" < <(printf '0,-1,2,3\n')
  bad_controls short_row 2 1 "a row with 3 fields (expected 4" < <(printf '0,1,2\n')
  bad_controls long_row 2 9 "a row with 5 fields (expected 4" < <(printf '0,1,2,3,4\n')
  bad_controls negative_time 2 1 "time -1 is negative" < <(printf -- '-1,1,2,3\n')
  bad_controls quoted 2 7 "ay '\"3\"' is not a number" < <(printf '0,1,2,"3"\n')
}

check_az_in_2d() {
  local dir=$work/az out
  mkdir -p "$dir"
  printf 'time,body,ax,ay,az\n0,0,1,0,0\n0.2,1,1,0,0.5\n' >"$dir/c.csv"
  printf 'world: {dim: 2, box: [10, 10], boundary: walls}\nbodies: [{count: 3}]\nrun: {until: 1, window: 0.1, controls: c.csv}\n' >"$dir/s.yaml"
  out=$(cd "$dir" && "$carom" run s.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"c.csv:3:11: az = 0.5 in a 2D world (expected 0, or no az column)"* ]] ||
    { fail az_in_2d "$out"; return; }
  printf 'time,body,ax,ay\n0,0,1,0\n' >"$dir/c.csv"
  printf 'world: {dim: 3, box: [10, 10, 10], boundary: walls}\nbodies: [{count: 3}]\nrun: {until: 1, window: 0.1, controls: c.csv}\n' >"$dir/s.yaml"
  out=$(cd "$dir" && "$carom" run s.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"c.csv:1:1: the header is 'time,body,ax,ay' (expected time,body,ax,ay,az)"* ]] ||
    { fail az_in_2d "3D without az: $out"; return; }
  pass "az in a 2D world: 0 is taken, anything else refused at its column; 3D needs the az column"
}

check_sensor_outside() {
  local dir=$work/sensor_outside out
  mkdir -p "$dir"
  printf 'world:\n  dim: 2\n  box: [10, 10]\n  sensors:\n    - {axis: y, at: 6}\nbodies: [{count: 3}]\nrun: {until: 1}\n' >"$dir/s.yaml"
  out=$(cd "$dir" && "$carom" run s.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"s.yaml:5:21: world.sensors[0].at = 6 is outside the box along y (expected -5 to 5)"* ]] ||
    { fail sensor_outside "at: $out"; return; }
  printf 'world:\n  dim: 2\n  box: [10, 10]\n  sensors:\n    - {axis: y, at: 1, from: -7, to: 2}\nbodies: [{count: 3}]\nrun: {until: 1}\n' >"$dir/s.yaml"
  out=$(cd "$dir" && "$carom" run s.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"s.yaml:5:30: world.sensors[0].from = -7 is outside the box along x (expected -5 to 5)"* ]] ||
    { fail sensor_outside "from: $out"; return; }
  pass "a sensor outside the box is refused at its line and column"
}

check_window_needs_until() {
  local dir=$work/window_until out
  mkdir -p "$dir"
  printf 'world: {dim: 2, box: [10, 10]}\nbodies: [{count: 3}]\nrun: {events: 100, window: 0.1}\n' >"$dir/s.yaml"
  out=$(cd "$dir" && "$carom" run s.yaml --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"run.window needs an end"* ]] || { fail window_needs_until "$out"; return; }
  pass "a windowed run needs run.until"
}

# carom compare has no windows to apply controls at: it says so.
check_compare_refuses_controls() {
  local dir=$work/compare out
  mkdir -p "$dir"
  printf 'time,body,ax,ay\n0,0,1,0\n' >"$dir/c.csv"
  printf 'world: {dim: 2, box: [10, 10], boundary: walls}\nbodies: [{count: 3}]\nrun: {until: 1, window: 0.1, controls: c.csv}\n' >"$dir/s.yaml"
  out=$(cd "$dir" && "$carom" compare s.yaml --dt 0.01 --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"s.yaml:3:40: run.controls is not replayed by carom compare"* ]] || { fail compare_refuses_controls "$out"; return; }
  pass "carom compare refuses a scenario with controls, at the key"
}

check_windows_are_plain
check_compare_refuses_controls
check_controls
check_sensors
check_kinematic
check_restart
check_bad_controls
check_az_in_2d
check_sensor_outside
check_window_needs_until
finish
