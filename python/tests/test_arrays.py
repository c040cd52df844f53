"""Bodies in and out as numpy arrays: shapes, dtypes, values kept bit for
bit, broadcasting of numbers and rows, 2D and 3D, spin and polygons."""

import math

import numpy as np
import pytest

import carom
from conftest import gas, lattice, maxwell


@pytest.mark.parametrize("dim", [2, 3])
def test_shapes_dtypes_and_values_round_trip(dim):
    world = carom.World(dim=dim, box=8.0, boundary="walls")
    x = lattice(dim, 4, 1.5)
    v = maxwell(len(x), dim, 2.0, seed=3)
    radii = np.linspace(0.3, 0.6, len(x))
    masses = np.linspace(1.0, 3.0, len(x))
    ids = world.add_bodies(x, velocities=v, radii=radii, masses=masses)
    assert ids.dtype == np.int32 and list(ids) == list(range(len(x)))
    assert len(world) == len(x) and world.dim == dim and world.time == 0.0
    for name, want in (("positions", x), ("velocities", v)):
        got = getattr(world, name)
        assert got.shape == (len(x), dim) and got.dtype == np.float64 and got.flags.c_contiguous
        assert np.array_equal(got, want), name  # bit for bit at t = 0
    assert np.array_equal(world.radii, radii) and np.array_equal(world.masses, masses)
    assert world.collisions.dtype == np.uint64 and not world.collisions.any()
    assert world.accelerations.shape == (len(x), dim) and not world.accelerations.any()
    assert world.orientations.shape == (len(x), 4)
    assert np.array_equal(world.orientations, np.tile([0.0, 0.0, 0.0, 1.0], (len(x), 1)))
    assert world.angular_velocities.shape == ((len(x),) if dim == 2 else (len(x), 3))


def test_numbers_and_rows_are_broadcast():
    world = carom.World(dim=3, box=10.0, boundary="walls")
    world.add_bodies(lattice(3, 2, 2.0), velocities=[1.0, -2.0, 0.5], radii=0.25, masses=2.0,
                     accelerations=[0.0, 0.0, -1.0])
    assert np.array_equal(world.velocities, np.tile([1.0, -2.0, 0.5], (8, 1)))
    assert np.array_equal(world.radii, np.full(8, 0.25))
    assert np.array_equal(world.accelerations, np.tile([0.0, 0.0, -1.0], (8, 1)))
    one = world.add_bodies([0.0, 0.0, 0.0], radii=0.25)  # a single row is one body
    assert list(one) == [8] and len(world) == 9


def test_positions_after_a_run_follow_free_flight():
    """Two bodies that never meet: x(t) = x0 + v t, wrapped into the periodic box."""
    world = carom.World(dim=2, box=10.0)
    world.add_bodies([[-2.0, -2.0], [2.5, 2.0]], velocities=[[1.0, 0.0], [0.0, -1.0]], radii=0.1)
    world.run(until=9.0)
    want = np.array([[-2.0 + 9.0, -2.0], [2.5, 2.0 - 9.0]])
    want = (want + 5.0) % 10.0 - 5.0
    assert world.time == 9.0
    np.testing.assert_allclose(world.positions, want, rtol=0, atol=1e-12)


def test_spin_and_orientation_arrays():
    world = carom.World(dim=3, box=10.0, tangential_restitution=1.0)
    q = np.array([[0.0, 0.0, math.sin(0.25), math.cos(0.25)], [0.0, 0.0, 0.0, 1.0]])
    world.add_bodies([[-2.0, 0.0, 0.0], [2.0, 0.0, 0.0]], orientations=q,
                     angular_velocities=[[0.0, 0.0, 2.0], [1.0, 0.0, 0.0]])
    world.advance(0.5)
    assert np.array_equal(world.angular_velocities, [[0.0, 0.0, 2.0], [1.0, 0.0, 0.0]])
    # a turn at 2 rad/T about z for 0.5 T adds 1 rad: the half angle goes from 0.25 to 0.75
    np.testing.assert_allclose(world.orientations[0], [0.0, 0.0, math.sin(0.75), math.cos(0.75)], atol=1e-14)
    np.testing.assert_allclose(world.inertias, [0.1, 0.1])  # 2/5 m r^2 for m = 1, r = 0.5


def test_polygons_and_angles_in_2d():
    world = carom.World(dim=2, box=10.0, boundary="walls")
    square = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    world.add_bodies([[0.0, 0.0], [3.0, 0.0]], angles=[math.pi / 4, 0.0], angular_velocities=[0.0, 1.0],
                     polygons=[square, None])
    corners = world.polygon(0)
    assert corners.shape == (4, 2)
    np.testing.assert_allclose(np.sort(np.abs(corners).max(axis=1)), np.full(4, math.sqrt(0.5)), atol=1e-12)
    assert world.polygon(1).shape == (0, 2)
    world.advance(0.25)
    np.testing.assert_allclose(world.angles, [math.pi / 4, 0.25], atol=1e-15)
    assert world.states()["polygon_vertices"].tolist() == [4, 0]


def test_kinematic_bodies_and_definition():
    world = carom.World(dim=2, box=[6.0, 4.0], boundary=["walls", "periodic"], gravity=[0.0, -1.0],
                        restitution=0.9)
    world.add_bodies([[0.0, 0.0]], masses=np.inf, velocities=[1.0, 0.0])
    assert world.masses[0] == np.inf
    d = world.definition
    assert d["box"] == (6.0, 4.0) and d["boundary"] == ("walls", "periodic")
    assert d["gravity"] == (0.0, -1.0) and d["restitution"] == 0.9 and d["dim"] == 2


def test_stats_and_counts_are_dicts_of_numbers():
    world = gas(dim=3, per_side=4)
    world.run(until=1.0)
    stats, counts = world.stats(), world.counts()
    assert stats["bodies"] == 64 and stats["dim"] == 3 and len(stats["momentum"]) == 3
    assert counts["pair_events"] == stats["pair_events"] > 0 and counts["time"] == 1.0
    assert isinstance(stats["angular_momentum"], tuple)
    two = gas(dim=2, per_side=4)
    assert isinstance(two.stats()["angular_momentum"], float) and len(two.stats()["momentum"]) == 2
