#!/usr/bin/env bash
# test_ase.sh CAROM — carom's trajectories as ASE reads them (Debian's
# python3-ase, installed by scripts/deps.sh). A small run of two named groups
# (argon-like and helium-like, different masses and radii) in a box periodic
# on x and y with walls on z writes a trajectory and its stats; ASE then
# reads every frame and must find what carom holds:
#  - the species (the groups' names), get_masses() (the masses given in the
#    scenario, not the periodic table's), the cell (diagonal Lx Ly Lz) and pbc;
#  - get_velocities() equal to the velo column OVITO reads;
#  - every body inside the cell once Origin= is added back (ASE puts its cell
#    at 0; carom's box is centred on 0);
#  - the kinetic energy from ASE's velocities and masses equal to carom's
#    (every frame: the run is elastic), and carom's temperature equal to
#    2 (KE - KE_cm) / (3 N - 2) computed from ASE's momenta (x and y conserve
#    momentum, z has walls);
#  - Time= of every frame at k * every.
# Then carom reads its own trajectory back (file: with frame: -1, no box in
# the scenario: the Lattice becomes the box) and its first frame repeats the
# last frame read, column for column. Last, the rotation columns of a rough
# 3D gas and of turned, spinning 2D disks: unit quaternions, the 2D
# quaternion the turn by the angle column, and carom's rotational energy and
# angular momentum recomputed from ASE's arrays.
# Prints "N passed, N failed" last.
set -u
carom=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "pass  $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

python=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import ase.io' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  fail "python3-ase" "no python3 with ASE (expected Debian's python3-ase: run scripts/deps.sh)"
  echo "$passed passed, $failed failed"
  exit 1
fi

cat >"$work/run.yaml" <<'EOF'
world:
  dim: 3
  box: [9, 10, 11]
  boundary: [periodic, periodic, walls]
seed: 7
bodies:
  - {name: Ar, count: 40, radius: 0.5, mass: 39.948, velocity: {temperature: 2}}
  - {name: He, count: 25, radius: 0.3, mass: 4.0026, velocity: {speed: 1.5}}
run:
  until: 2
output:
  trajectory: traj.xyz
  every: 0.5
  stats: stats.json
EOF
if (cd "$work" && "$carom" run run.yaml --quiet) >"$work/out" 2>&1; then
  pass "carom run"
else
  fail "carom run" "$(cat "$work/out")"
fi

cat >"$work/check.py" <<'EOF'
import json, sys
import numpy as np
import ase.io

traj, stats_path = sys.argv[1], sys.argv[2]
stats = json.load(open(stats_path))
frames = ase.io.read(traj, index=":", format="extxyz")
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

check(len(frames) >= 5, "%d frames, expected at least 5 (t = 0, 0.5, ..., 2)" % len(frames))
box = np.array([9.0, 10.0, 11.0])
masses = np.array([39.948] * 40 + [4.0026] * 25)
for k, atoms in enumerate(frames):
    where = "frame %d: " % k
    check(atoms.get_chemical_symbols() == ["Ar"] * 40 + ["He"] * 25, where + "species")
    check(np.array_equal(atoms.get_masses(), masses), where + "masses %s" % atoms.get_masses()[:3])
    check(np.array_equal(atoms.cell.array, np.diag(box)), where + "cell %s" % atoms.cell.array)
    check(list(atoms.pbc) == [True, True, False], where + "pbc %s" % atoms.pbc)
    check(abs(atoms.info["Time"] - 0.5 * k) <= 1e-12, where + "Time %r" % atoms.info["Time"])
    v = atoms.get_velocities()
    velo = atoms.arrays["velo"]
    check(np.all(np.abs(v - velo) <= 1e-14 * (1 + np.abs(velo))),
          where + "get_velocities() differs from velo by %g" % np.max(np.abs(v - velo)))
    check(np.linalg.norm(v) > 1, where + "velocities are zero")
    origin = atoms.info["Origin"]
    check(np.array_equal(origin, -box / 2), where + "Origin %s" % origin)
    inside = atoms.positions - origin
    radius = atoms.arrays["radius"]
    check(np.all(inside >= 0) and np.all(inside <= box), where + "bodies outside the cell")
    check(np.all(inside[:, 2] >= radius - 1e-12) and np.all(inside[:, 2] <= box[2] - radius + 1e-12),
          where + "a body through a wall")
    ke = 0.5 * np.sum(atoms.get_masses()[:, None] * v * v)
    check(abs(ke - stats["kinetic_energy"]) <= 1e-12 * ke,
          where + "KE %.17g, carom says %.17g" % (ke, stats["kinetic_energy"]))
last = frames[-1]
p = last.get_momenta().sum(axis=0)
ke = 0.5 * np.sum(last.get_masses()[:, None] * last.get_velocities() ** 2)
drift = (p[0] ** 2 + p[1] ** 2) / (2 * last.get_masses().sum())
kT = 2 * (ke - drift) / (3 * len(last) - 2)
check(abs(kT - stats["temperature"]) <= 1e-12 * kT,
      "temperature %.17g from ASE, carom says %.17g" % (kT, stats["temperature"]))
check(abs(stats["time"] - last.info["Time"]) <= 1e-12, "the last frame is not at the end")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
if out=$("$python" "$work/check.py" "$work/traj.xyz" "$work/stats.json" 2>&1); then
  pass "ASE reads species, masses, velocities, cell, pbc, energy"
else
  fail "ASE" "$out"
fi

# carom reads the last frame back: the same numbers, column for column.
cat >"$work/again.yaml" <<'EOF'
world: {dim: 3, boundary: [periodic, periodic, walls]}
bodies:
  - {file: traj.xyz, frame: -1}
run: {until: 0.1}
output: {trajectory: again.xyz, every: 1}
EOF
n=$(head -1 "$work/traj.xyz")
if (cd "$work" && "$carom" run again.yaml --quiet) >"$work/out" 2>&1; then
  if diff <(tail -n "$n" "$work/traj.xyz" | cut -d' ' -f2-) \
          <(sed -n "3,$((n + 2))p" "$work/again.xyz" | cut -d' ' -f2-) >"$work/diff"; then
    pass "carom reads its last frame back (frame: -1, the Lattice as the box)"
  else
    fail "read back" "$(head -3 "$work/diff")"
  fi
  [[ $(sed -n 2p "$work/again.xyz") == Lattice=\"9\ 0.0\ 0.0\ 0.0\ 10\ 0.0\ 0.0\ 0.0\ 11\"\ Origin=\"-4.5\ -5\ -5.5\"* ]] &&
    pass "the box from the Lattice" || fail "box" "$(sed -n 2p "$work/again.xyz")"
else
  fail "read back" "$(cat "$work/out")"
fi

# Rotation columns (issue 14): a rough 3D gas and a 2D world of spinning,
# turned disks. ASE keeps orientation, omega and angle as per-atom arrays;
# each quaternion is a unit one, the 2D quaternion is the turn by the angle
# about z, and the rotational energy and angular momentum's spin part from
# ASE's arrays (I = 2 m r^2 / 5 for spheres, m r^2 / 2 for disks) equal
# carom's statistics at the end.
cat >"$work/rough.yaml" <<'EOF'
world: {dim: 3, box: 9, boundary: walls, tangential_restitution: 0.5, wall_tangential_restitution: 1}
seed: 5
bodies: [{name: Ar, count: 60, radius: 0.5, mass: 2, orientation: random, velocity: {temperature: 1}}]
run: {until: 3}
output: {trajectory: rough.xyz, every: 1, stats: rough.json}
EOF
cat >"$work/turned.yaml" <<'EOF'
world: {dim: 2, box: 12, boundary: walls}
seed: 6
bodies: [{name: He, count: 30, radius: 0.4, mass: 3, orientation: random, angular_velocity: 2.5}]
run: {until: 3}
output: {trajectory: turned.xyz, every: 1, stats: turned.json}
EOF
cat >"$work/spin.py" <<'EOF'
import json, sys
import numpy as np
import ase.io

traj, stats_path, dim = sys.argv[1], sys.argv[2], int(sys.argv[3])
stats = json.load(open(stats_path))
frames = ase.io.read(traj, index=":", format="extxyz")
problems = []
for k, atoms in enumerate(frames):
    q, w = atoms.arrays["orientation"], atoms.arrays["omega"]
    if q.shape != (len(atoms), 4) or w.shape != (len(atoms), 3):
        problems.append("frame %d: orientation %s, omega %s" % (k, q.shape, w.shape))
        continue
    if np.max(np.abs(np.sum(q * q, axis=1) - 1)) > 1e-12:
        problems.append("frame %d: quaternions not of unit length" % k)
    if dim == 2:
        angle = atoms.arrays["angle"]
        turn = np.stack([np.zeros_like(angle), np.zeros_like(angle), np.sin(angle / 2), np.cos(angle / 2)], axis=1)
        if np.max(np.abs(turn - q)) > 1e-12 or np.any(w[:, :2] != 0):
            problems.append("frame %d: the 2D orientation is not the turn by angle about z" % k)
last = frames[-1]
m, r, w = last.get_masses(), last.arrays["radius"], last.arrays["omega"]
inertia = (0.4 if dim == 3 else 0.5) * m * r * r
energy = 0.5 * np.sum(inertia * np.sum(w * w, axis=1))
if abs(energy - stats["rotational_energy"]) > 1e-12 * energy:
    problems.append("rotational energy %.17g from ASE, carom says %.17g" % (energy, stats["rotational_energy"]))
if energy <= 0:
    problems.append("nothing spins")
spin = np.sum(inertia[:, None] * w, axis=0)
orbit = np.sum(m[:, None] * np.cross(last.positions, last.get_velocities()), axis=0)  # carom's frame: about its origin
total = np.array(stats["angular_momentum"])
if np.max(np.abs(spin + orbit - total)) > 1e-10 * (1 + np.max(np.abs(total))):
    problems.append("angular momentum %s from ASE, carom says %s" % (spin + orbit, total))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
for case in "rough 3" "turned 2"; do
  read -r name dim <<<"$case"
  if (cd "$work" && "$carom" run "$name.yaml" --quiet) >"$work/out" 2>&1 &&
     out=$("$python" "$work/spin.py" "$work/$name.xyz" "$work/$name.json" "$dim" 2>&1); then
    pass "ASE reads the rotation columns (${dim}D): unit quaternions, angle, rotational energy, angular momentum"
  else
    fail "ASE rotation ${dim}D" "$(cat "$work/out") ${out:-}"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
