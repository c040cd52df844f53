"""Lubachevsky-Stillinger compression (carom_compress): a fast compression
of monodisperse spheres jams in the published range, polydisperse disks
pass 0.70, nothing ever overlaps (checked pair by pair), size ratios are
kept, a target is met exactly, the command's run.compress gives the same
bits as Python's, and what cannot be compressed says why."""

import math
import subprocess

import numpy as np
import pytest

import carom
from conftest import lattice, maxwell


def _smallest_gap(world):
    """min over pairs of distance - (r_i + r_j), by brute force over nearest periodic images."""
    x, r = world.positions, world.radii
    side = np.array(world.definition["box"])
    periodic = np.array([b == "periodic" for b in world.definition["boundary"]])
    worst = math.inf
    for i in range(len(x) - 1):
        d = x[i + 1:] - x[i]
        d[:, periodic] -= side[periodic] * np.round(d[:, periodic] / side[periodic])
        worst = min(worst, float(np.min(np.sqrt((d * d).sum(axis=1)) - r[i + 1:] - r[i])))
    return worst


def _packing(world):
    dim, r = world.dim, world.radii
    volume = np.prod(world.definition["box"])
    return float(np.sum(4 / 3 * math.pi * r ** 3 if dim == 3 else math.pi * r ** 2) / volume)


def test_monodisperse_spheres_jam_at_random_close_packing():
    """Skoge, Donev, Stillinger & Torquato (2006): phi_J about 0.64 at fast growth rates."""
    world = carom.World(dim=3, box=8 * 1.6)
    x = lattice(3, 8, 1.6)
    world.add_bodies(x, velocities=maxwell(len(x), 3, 1.0, seed=4), radii=0.5)
    result = world.compress(rate=0.01)
    assert result["jammed"] and not result["reached_target"] and result["pressure"] > 1e4
    assert 0.63 < result["packing_fraction"] < 0.655, result
    assert math.isclose(_packing(world), result["packing_fraction"], rel_tol=1e-9)
    assert 0 <= _smallest_gap(world) < 1e-9  # contacts everywhere, overlaps nowhere
    assert world.time == 0 and len(world) == 512
    assert math.isclose(world.stats()["temperature"], 1.0, rel_tol=0.05)
    world.run(until=0.01)  # the jammed packing runs on in the engine


def test_polydisperse_disks_pass_seventy_percent_keeping_their_size_ratios():
    rng = np.random.default_rng(8)
    world = carom.World(dim=2, box=20 * 1.5, boundary="walls")
    radii = rng.uniform(0.35, 0.65, size=400) * 0.9
    x = lattice(2, 20, 1.5)
    world.add_bodies(x, velocities=maxwell(400, 2, 1.0, seed=5), radii=radii)
    result = world.compress(rate=0.02)
    assert result["jammed"] and result["packing_fraction"] >= 0.80, result
    assert _smallest_gap(world) >= 0
    ratio = world.radii / radii
    assert np.allclose(ratio, ratio[0], rtol=1e-13, atol=0)
    half = np.array(world.definition["box"]) / 2
    assert np.all(np.abs(world.positions) + world.radii[:, None] <= half)  # inside the walls


def test_a_target_is_met_exactly():
    world = carom.World(dim=3, box=6 * 1.5)
    x = lattice(3, 6, 1.5)
    world.add_bodies(x, velocities=maxwell(len(x), 3, 1.0, seed=6),
                     radii=np.random.default_rng(1).uniform(0.4, 0.6, len(x)))
    result = world.compress(rate=0.05, to=0.55)
    assert result["reached_target"] and not result["jammed"]
    assert math.isclose(result["packing_fraction"], 0.55, rel_tol=1e-12)
    assert math.isclose(_packing(world), 0.55, rel_tol=1e-10) and _smallest_gap(world) >= 0


def test_lists_and_cells_find_the_same_collisions():
    """neighbour_shell: lists (automatic and thin) against cells on a short compression of 216 spheres."""
    def compressed(shell):
        world = carom.World(dim=3, box=6 * 1.5)
        x = lattice(3, 6, 1.5)
        world.add_bodies(x, velocities=maxwell(len(x), 3, 1.0, seed=7),
                         radii=np.random.default_rng(2).uniform(0.4, 0.6, len(x)))
        return world, world.compress(rate=0.1, to=0.4, neighbour_shell=shell)
    cells, by_cells = compressed(-1)
    assert by_cells["pair_events"] > 5 * len(cells)
    for shell in (None, 0.05):
        lists, by_lists = compressed(shell)
        assert by_lists["pair_events"] == by_cells["pair_events"]
        d = lists.positions - cells.positions
        d -= 9.0 * np.round(d / 9.0)
        assert np.max(np.abs(d)) < 1e-4 and _smallest_gap(lists) >= 0
    with pytest.raises(carom.InvalidArgumentError, match="neighbour_shell"):
        compressed(3.0)


def test_the_commands_compression_gives_pythons_bits(carom_bin, tmp_path):
    (tmp_path / "dense.yaml").write_text("""world: {dim: 2, boundary: periodic}
seed: 9
bodies: [{count: 300, radius: 0.5, place: random, packing_fraction: 0.4}]
run: {until: 0.5, compress: {to: 0.7, rate: 0.05}}
""")
    done = subprocess.run([carom_bin, "run", "dense.yaml", "--checkpoint", "end.ckpt", "--stats", ""],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "compressed to packing fraction 0.700000" in done.stderr
    command = carom.World.from_checkpoint(tmp_path / "end.ckpt")
    world = carom.World.from_scenario(tmp_path / "dense.yaml")
    assert math.isclose(_packing(world), 0.7, rel_tol=1e-10)
    world.run_scenario()
    assert np.array_equal(world.positions, command.positions) and np.array_equal(world.radii, command.radii)


def test_what_cannot_be_compressed_says_why(tmp_path):
    def one(**fields):
        w = carom.World(dim=2, box=10.0, boundary="walls", **fields)
        w.add_bodies([[0.0, 0.0], [2.0, 0.0]])
        return w
    with pytest.raises(carom.InvalidArgumentError, match="rate"):
        one().compress(rate=0.0)
    with pytest.raises(carom.InvalidArgumentError, match="target"):
        one().compress(rate=0.1, to=0.001)
    with pytest.raises(carom.InvalidArgumentError, match="gravity"):
        one(gravity=[0, -1]).compress(rate=0.1)
    kinematic = one()
    kinematic.add_bodies([[3.0, 3.0]], masses=np.inf)
    with pytest.raises(carom.InvalidArgumentError, match="body 2 is kinematic"):
        kinematic.compress(rate=0.1)
    square = carom.World(dim=2, box=10.0, boundary="walls")
    square.add_bodies([[0.0, 0.0]], polygons=[np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])])
    with pytest.raises(carom.InvalidArgumentError, match="polygon"):
        square.compress(rate=0.1)
    world = one()
    before = world.snapshot()
    with pytest.raises(carom.InvalidArgumentError):
        world.compress(rate=-1.0)
    assert world.snapshot() == before
    (tmp_path / "bad.yaml").write_text("world: {dim: 2, box: [10, 10]}\nbodies: [{count: 3}]\n"
                                       "run: {until: 1, compress: {to: 0.5}}\n")
    with pytest.raises(carom.FileError, match=r"bad.yaml:3:\d+: run.compress needs rate"):
        carom.World.from_scenario(tmp_path / "bad.yaml")
