"""Physics through Python, checked against closed forms, an independent
brute-force event-driven reference written here in numpy, and the
Carnahan-Starling equation of state."""

import math

import numpy as np

import carom
from conftest import gas, lattice, maxwell


def test_head_on_collision_of_unequal_masses():
    """Time of contact (d - 2r) / closing speed; velocities from momentum and energy conservation."""
    m1, m2, u1, u2 = 1.0, 3.0, 2.0, -1.0
    world = carom.World(dim=3, box=40.0, boundary="walls")
    world.add_bodies([[-5.0, 0.0, 0.0], [5.0, 0.0, 0.0]], velocities=[[u1, 0, 0], [u2, 0, 0]], radii=0.5,
                     masses=[m1, m2])
    world.record_events = True
    world.run(until=5.0)
    events = world.events()
    pairs = events[events["kind"] == 0]
    assert len(pairs) == 1
    assert math.isclose(pairs["time"][0], (10.0 - 1.0) / (u1 - u2), rel_tol=1e-15)
    v1 = ((m1 - m2) * u1 + 2 * m2 * u2) / (m1 + m2)
    v2 = ((m2 - m1) * u2 + 2 * m1 * u1) / (m1 + m2)
    np.testing.assert_allclose(world.velocities[:, 0], [v1, v2], rtol=1e-14)
    assert math.isclose(pairs["impulse"][0], m1 * abs(v1 - u1), rel_tol=1e-14)


def test_restitution_scales_the_normal_relative_velocity():
    e = 0.6
    world = carom.World(dim=2, box=40.0, boundary="walls", restitution=e)
    world.add_bodies([[-3.0, 0.0], [3.0, 0.0]], velocities=[[1.0, 0.0], [-1.0, 0.0]])
    world.run(until=5.0)
    v = world.velocities[:, 0]
    assert math.isclose(v[1] - v[0], e * 2.0, rel_tol=1e-14)
    assert math.isclose(v[0] + v[1], 0.0, abs_tol=1e-15)


def _reference_events(x, v, radius, half, count):
    """Disks of equal mass in a box with walls at +-half: the earliest of all
    pair and wall times, found by scanning every pair, count times. Returns
    (time, kind, i, j) with kind 0 pair, 1 wall and j the wall (2 axis + side)."""
    x, v, t, out = x.copy(), v.copy(), 0.0, []
    n = len(x)
    for _ in range(count):
        best = (math.inf, None)
        for i in range(n):
            for axis in range(2):
                if v[i, axis] > 0:
                    best = min(best, (t + (half - radius - x[i, axis]) / v[i, axis], (1, i, 2 * axis + 1)))
                elif v[i, axis] < 0:
                    best = min(best, (t + (-half + radius - x[i, axis]) / v[i, axis], (1, i, 2 * axis)))
            dx, dv = x[i + 1:] - x[i], v[i + 1:] - v[i]
            b = (dx * dv).sum(axis=1)
            a = (dv * dv).sum(axis=1)
            c = (dx * dx).sum(axis=1) - (2 * radius) ** 2
            disc = b * b - a * c
            for k in np.nonzero((b < 0) & (disc > 0))[0]:
                best = min(best, (t + c[k] / (-b[k] + math.sqrt(disc[k])), (0, i, i + 1 + k)))
        when, (kind, i, j) = best
        x += v * (when - t)
        t = when
        if kind == 1:
            v[i, j // 2] = -v[i, j // 2]
        else:
            normal = (x[j] - x[i]) / np.linalg.norm(x[j] - x[i])
            dvn = np.dot(v[j] - v[i], normal)
            v[i] += dvn * normal
            v[j] -= dvn * normal
        out.append((t, kind, i, j))
    return out


def test_event_sequence_matches_a_brute_force_reference():
    rng = np.random.default_rng(7)
    x = lattice(2, 5, 2.0) + rng.uniform(-0.3, 0.3, size=(25, 2))
    v = maxwell(25, 2, 1.0, seed=8)
    world = carom.World(dim=2, box=10.0, boundary="walls")
    world.add_bodies(x, velocities=v, radii=0.5)
    world.record_events = True
    want = _reference_events(x, v, 0.5, 5.0, 150)
    world.run(max_events=5000)
    got = world.events()
    got = got[got["kind"] != 2][:150]  # cell crossings are bookkeeping
    assert [(int(k), int(i), int(j)) for k, i, j in zip(got["kind"], got["i"], got["j"])] == \
        [(k, i, j) for _, k, i, j in want]
    np.testing.assert_allclose(got["time"], [t for t, _, _, _ in want], rtol=1e-9)


def test_energy_and_momentum_are_conserved():
    world = gas(dim=3, per_side=6, spacing=1.2)
    before = world.stats()
    world.run(until=5.0)
    after = world.stats()
    assert after["pair_events"] > 1000
    assert math.isclose(after["kinetic_energy"], before["kinetic_energy"], rel_tol=1e-12)
    np.testing.assert_allclose(after["momentum"], before["momentum"], atol=1e-11)


def test_pressure_follows_carnahan_starling():
    """An fcc fluid at packing fraction 0.30: Z = (1 + p + p^2 - p^3) / (1 - p)^3 = 3.9738."""
    phi, cells = 0.30, 5
    side = cells * (16.0 * math.pi / (6.0 * 4.0 * phi)) ** (1.0 / 3.0) / 2.0 * 2.0
    a = side / cells
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    x = np.array([(np.array([i, j, k]) + b) * a for i in range(cells) for j in range(cells)
                  for k in range(cells) for b in basis]) - side / 2 + a / 4
    world = carom.World(dim=3, box=side)
    world.add_bodies(x, velocities=maxwell(len(x), 3, 1.0, seed=2), radii=0.5)
    assert math.isclose(len(x) * math.pi / 6 / side ** 3, phi, rel_tol=1e-12)
    world.run(until=5.0)
    world.reset_stats()
    world.run(until=45.0)
    z = world.stats()["compressibility"]
    p = phi
    assert abs(z - (1 + p + p * p - p ** 3) / (1 - p) ** 3) < 0.06, z
