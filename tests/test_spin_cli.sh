#!/usr/bin/env bash
# test_spin_cli.sh — spin and shape through `carom run` (issue 14): the
# examples rough_gas and polygons run to their end (a fifth of the way in
# the sanitizer pass) and write the rotation
# columns; the statistics' rotational energy, rotational temperature and
# angular momentum match closed forms for bodies given a spin (2D and 3D);
# kinetic + rotational energy is conserved in a perfectly rough elastic gas
# (beta = 1) while the spins take up energy; a trajectory frame of a rough,
# spinning run read back with file: gives the same orientation, omega and
# angle bits; a rough spinning run restarted from a checkpoint ends bit for
# bit where one run ends; bad spin keys fail with one line naming
# FILE:LINE:COL.
#
# usage: test_spin_cli.sh CAROM_BINARY EXAMPLES_DIR
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
examples=$(realpath "$2")
source "$(dirname "$0")/testlib.sh"
# close A B TOLERANCE: |A - B| <= TOLERANCE * max(1, |B|)
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; if (s < 1) s = 1; exit !(d <= t * s) }'; }
# json_vector FILE KEY: the three numbers of "KEY": [x, y, z], blank-separated.
json_vector() { sed -n "s/^ *\"$2\": \[\(.*\)\],\{0,1\}$/\1/p" "$1" | tr -d ',' | head -1; }

# The body lines of frame K (0-based) of a trajectory.
frame() {
  awk -v want="$2" '
    state == 0 { left = $1; state = 1; f++; next }
    state == 1 { state = left > 0 ? 2 : 0; next }
    state == 2 { if (f - 1 == want) print; if (--left == 0) state = 0 }' "$1"
}
last_frame() { frame "$1" $(($(grep -c 'Properties=' "$1") - 1)); }

# total_energy STATS SUFFIX: kinetic + potential + rotational ("" now, "_initial" at the start).
total_energy() {
  awk -v k="$(json_number "$1" kinetic_energy$2)" -v p="$(json_number "$1" potential_energy$2)" \
      -v r="$(json_number "$1" rotational_energy$2)" 'BEGIN { printf "%.17g", k + p + r }'
}

# ---- the examples run to their end ------------------------------------------

run_spin_example() { # name columns-in-the-header
  local name=$1 dir=$work/example_$1 stats traj until e e0
  mkdir -p "$dir"
  # a jam (events piling up at one instant) fails here, not at ctest's timeout
  until=$(example_until "$examples/$name.yaml")
  (cd "$dir" && timeout 300 "$carom" run "$examples/$name.yaml" --quiet --until "$until") >"$dir/out" 2>&1 ||
    { fail "example $name" "exit $?: $(tail -1 "$dir/out")"; return; }
  stats=$dir/${name}_stats.json traj=$dir/$name.xyz
  [ "$(json_text "$stats" status)" = completed ] || { fail "example $name" "status $(json_text "$stats" status)"; return; }
  close "$(json_number "$stats" time)" "$until" 1e-12 ||
    { fail "example $name" "ended at $(json_number "$stats" time), not $until"; return; }
  [ "$(grep -c "Properties=.*masses:R:1$2 Time=" "$traj")" -ge 2 ] ||
    { fail "example $name" "no rotation columns $2 in $(sed -n 2p "$traj")"; return; }
  for key in rotational_energy rotational_energy_initial rotational_temperature; do
    [ -n "$(json_number "$stats" $key)" ] || { fail "example $name" "no $key in the stats"; return; }
  done
  [ "$(json_vector "$stats" angular_momentum | wc -w)" -eq 3 ] || { fail "example $name" "no angular_momentum"; return; }
  # an inelastic run loses energy, counted with the spins'
  e=$(total_energy "$stats" "") e0=$(total_energy "$stats" _initial)
  awk -v a="$e" -v b="$e0" 'BEGIN { exit !(a < b) }' || { fail "example $name" "energy did not fall: $e0 -> $e"; return; }
  pass "example $name"
}

# The rough gas starts without spin; rough collisions spin it up.
check_rough_gas_spins() {
  local stats=$work/example_rough_gas/rough_gas_stats.json
  [ "$(json_number "$stats" rotational_energy_initial)" = 0 ] &&
    awk -v r="$(json_number "$stats" rotational_energy)" 'BEGIN { exit !(r > 1) }' ||
    { fail "rough gas spins up" "rotational energy $(json_number "$stats" rotational_energy_initial) -> $(json_number "$stats" rotational_energy)"; return; }
  pass "rough gas spins up"
}

# ---- statistics against closed forms -----------------------------------------

# 10 disks (m 2, r 0.5: I = m r^2 / 2 = 0.25) at rest spinning at 3 in a
# smooth world: E_rot = 10 I w^2 / 2 = 11.25, kT_rot = 2 E_rot / N = 2.25,
# L_z = 10 I w = 7.5 (at rest: no orbital part); spins never change.
check_stats_2d() {
  local dir=$work/stats_2d lx ly lz
  mkdir -p "$dir"
  cat >"$dir/s.yaml" <<'YAML'
world: {dim: 2, box: 20, boundary: walls}
bodies: [{count: 10, radius: 0.5, mass: 2, angular_velocity: 3, velocity: {speed: 0}}]
run: {until: 1}
output: {stats: s.json}
YAML
  (cd "$dir" && "$carom" run s.yaml --quiet) || { fail "stats 2D" "run failed"; return; }
  local s=$dir/s.json
  close "$(json_number "$s" rotational_energy_initial)" 11.25 1e-14 && close "$(json_number "$s" rotational_energy)" 11.25 1e-14 &&
    close "$(json_number "$s" rotational_temperature)" 2.25 1e-14 ||
    { fail "stats 2D" "E_rot $(json_number "$s" rotational_energy), kT_rot $(json_number "$s" rotational_temperature)"; return; }
  read -r lx ly lz <<<"$(json_vector "$s" angular_momentum)"
  close "$lx" 0 1e-14 && close "$ly" 0 1e-14 && close "$lz" 7.5 1e-14 || { fail "stats 2D" "L = $lx $ly $lz"; return; }
  pass "stats 2D"
}

# 8 spheres (m 1, r 0.5: I = 2 m r^2 / 5 = 0.1) at rest spinning at
# (1, 2, 2), |w|^2 = 9: E_rot = 8 x 0.45 = 3.6, kT_rot = 2 E_rot / (3 N) = 0.3,
# L = 8 I w = (0.8, 1.6, 1.6).
check_stats_3d() {
  local dir=$work/stats_3d lx ly lz
  mkdir -p "$dir"
  cat >"$dir/s.yaml" <<'YAML'
world: {dim: 3, box: 10, boundary: walls}
bodies: [{count: 8, radius: 0.5, angular_velocity: [1, 2, 2], velocity: {speed: 0}, orientation: random}]
run: {until: 1}
output: {stats: s.json}
YAML
  (cd "$dir" && "$carom" run s.yaml --quiet) || { fail "stats 3D" "run failed"; return; }
  local s=$dir/s.json
  close "$(json_number "$s" rotational_energy)" 3.6 1e-14 && close "$(json_number "$s" rotational_temperature)" 0.3 1e-14 ||
    { fail "stats 3D" "E_rot $(json_number "$s" rotational_energy), kT_rot $(json_number "$s" rotational_temperature)"; return; }
  read -r lx ly lz <<<"$(json_vector "$s" angular_momentum)"
  close "$lx" 0.8 1e-14 && close "$ly" 1.6 1e-14 && close "$lz" 1.6 1e-14 || { fail "stats 3D" "L = $lx $ly $lz"; return; }
  pass "stats 3D"
}

# Perfectly rough, elastic spheres (e = 1, beta = 1 at pairs and walls):
# kinetic + rotational energy is conserved while the spins take a share.
check_rough_elastic_energy() {
  local dir=$work/rough_elastic
  mkdir -p "$dir"
  cat >"$dir/r.yaml" <<'YAML'
world: {dim: 3, box: 10, boundary: walls, tangential_restitution: 1, wall_tangential_restitution: 1}
seed: 3
bodies: [{count: 100, radius: 0.5, velocity: {temperature: 1}}]
run: {until: 10}
output: {stats: r.json}
YAML
  (cd "$dir" && "$carom" run r.yaml --quiet) || { fail "rough elastic energy" "run failed"; return; }
  local s=$dir/r.json k0 r
  k0=$(json_number "$s" kinetic_energy_initial) r=$(json_number "$s" rotational_energy)
  close "$(total_energy "$s" "")" "$(total_energy "$s" _initial)" 1e-12 ||
    { fail "rough elastic energy" "KE + E_rot = $(total_energy "$s" ""), was $k0"; return; }
  awk -v r="$r" -v k0="$k0" 'BEGIN { exit !(r > 0.1 * k0) }' || { fail "rough elastic energy" "spins took only $r of $k0"; return; }
  pass "rough elastic energy"
}

# ---- the trajectory as a start, and checkpoints -----------------------------

spinning='world: {dim: 2, box: [24, 20], boundary: walls, gravity: [0, -0.5], restitution: 0.95,
        tangential_restitution: 0.3, wall_tangential_restitution: 0.5}
seed: 12'

# The last frame of a rough, spinning run read back with file: is the first
# frame of the next run, bit for bit (orientation, omega, angle included).
check_trajectory_restart() {
  local dir=$work/trajectory_restart
  mkdir -p "$dir"
  cat >"$dir/one.yaml" <<YAML
$spinning
bodies: [{count: 80, radius: 0.4, orientation: random, angular_velocity: 2, velocity: {temperature: 1}}]
run: {until: 3}
output: {trajectory: one.xyz, every: 3}
YAML
  cat >"$dir/two.yaml" <<YAML
$spinning
bodies: [{file: one.xyz, frame: -1}]
run: {until: 1}
output: {trajectory: two.xyz, every: 1}
YAML
  (cd "$dir" && "$carom" run one.yaml --quiet && "$carom" run two.yaml --quiet) || { fail "trajectory restart" "a run failed"; return; }
  [ "$(last_frame "$dir/one.xyz" | awk '$NF != 0' | wc -l)" -gt 40 ] || { fail "trajectory restart" "too few turned bodies"; return; }
  diff <(last_frame "$dir/one.xyz") <(frame "$dir/two.xyz" 0) >/dev/null ||
    { fail "trajectory restart" "$(diff <(last_frame "$dir/one.xyz") <(frame "$dir/two.xyz" 0) | head -3)"; return; }
  pass "trajectory restart"
}

# A rough, spinning run restarted from a checkpoint ends where one run ends.
check_checkpoint_restart() {
  local dir=$work/checkpoint_restart
  mkdir -p "$dir"
  cat >"$dir/c.yaml" <<YAML
$spinning
bodies: [{count: 80, radius: 0.4, orientation: random, angular_velocity: 2, velocity: {temperature: 1}}]
YAML
  (cd "$dir" && "$carom" run c.yaml --until 4 --quiet --every 4 --trajectory one.xyz --stats one.json &&
   "$carom" run c.yaml --until 2 --quiet --checkpoint half.ckpt &&
   "$carom" run --restart half.ckpt --until 4 --quiet --every 4 --trajectory two.xyz --stats two.json) >"$dir/out" 2>&1 ||
    { fail "checkpoint restart" "a run failed: $(tail -1 "$dir/out")"; return; }
  diff <(last_frame "$dir/one.xyz") <(last_frame "$dir/two.xyz") >/dev/null ||
    { fail "checkpoint restart" "final states differ: $(diff <(last_frame "$dir/one.xyz") <(last_frame "$dir/two.xyz") | head -2)"; return; }
  for key in rotational_energy rotational_energy_initial kinetic_energy; do
    [ "$(json_number "$dir/one.json" $key)" = "$(json_number "$dir/two.json" $key)" ] ||
      { fail "checkpoint restart" "$key $(json_number "$dir/one.json" $key) vs $(json_number "$dir/two.json" $key)"; return; }
  done
  pass "checkpoint restart"
}

# ---- bad keys ------------------------------------------------------------------

# broken NAME LINE:COL PHRASE < scenario: one line "carom: NAME.yaml:LINE:COL: ...PHRASE...", exit 1.
broken() {
  local name=$1 where=$2 phrase=$3 dir=$work/broken_$1 out status
  mkdir -p "$dir"
  cat >"$dir/$name.yaml"
  out=$(cd "$dir" && "$carom" run "$name.yaml" --quiet 2>&1 >/dev/null); status=$?
  [ $status -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == "carom: $name.yaml:$where: "* ]] &&
    [[ $out == *"$phrase"* ]] || { fail "broken $name" "status $status: $out"; return; }
  pass "broken $name"
}

check_broken() {
  broken nonconvex 4:50 "bodies[0].shape.polygon: the polygon is refused: vertex 2" <<'YAML'
world:
  dim: 2
bodies:
  - {count: 3, shape: {polygon: [[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]}}
YAML
  broken shape_3d 4:12 "polygons are 2D shapes, but this world is 3D" <<'YAML'
world: {dim: 3}
bodies:
  - count: 3
    shape: {box: [1, 1]}
YAML
  broken beta 1:33 "world.tangential_restitution = 2 is out of range (expected a number in [-1, 1])" <<'YAML'
world: {tangential_restitution: 2}
bodies: [{count: 1}]
YAML
  broken quaternion 2:34 "bodies[0].orientation has length" <<'YAML'
world: {}
bodies: [{count: 1, orientation: [1, 0, 0, 1]}]
YAML
}

check_broken
run_spin_example rough_gas ":orientation:R:4:omega:R:3"
run_spin_example polygons ":orientation:R:4:omega:R:3:angle:R:1"
check_rough_gas_spins
check_stats_2d
check_stats_3d
check_rough_elastic_energy
check_trajectory_restart
check_checkpoint_restart
finish
