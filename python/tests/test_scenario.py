"""Scenario files and checkpoints from Python give the same bits as the
carom command; bad files raise with FILE:LINE:COL; the inputs that once
broke carom end cleanly here too."""

import glob
import math
import os
import subprocess

import numpy as np
import pytest

import carom
from conftest import REPO


def _cli(carom_bin, tmp_path, *args):
    done = subprocess.run([carom_bin, *[str(a) for a in args], "--quiet"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def _same_bits(a, b):
    assert a.time == b.time and len(a) == len(b)
    for name in ("positions", "velocities", "collisions", "angles", "orientations", "angular_velocities"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.counts() == b.counts()


@pytest.mark.parametrize("scenario, until", [
    ("examples/hard_spheres.yaml", 2.0),      # 3D periodic fluid, lattice start
    ("examples/granular_gravity.yaml", 6.0),  # 2D, gravity, restitution, walls, random placement
    ("examples/steer_circle.yaml", 5.0),      # a container, a steered body, windows
    ("examples/rough_gas.yaml", 2.0),         # rough spheres: spin
])
def test_python_runs_a_scenario_to_the_commands_bits(carom_bin, tmp_path, scenario, until):
    path = os.path.join(REPO, scenario)
    _cli(carom_bin, tmp_path, "run", path, "--until", until, "--trajectory", "", "--stats", "", "--events-log", "",
         "--checkpoint", "end.ckpt")
    command = carom.World.from_checkpoint(tmp_path / "end.ckpt")
    world = carom.World.from_scenario(path)
    world.run_scenario(until=until)
    _same_bits(world, command)
    assert world.stats()["kinetic_energy"] == command.stats()["kinetic_energy"]
    assert command.run_settings["until"] == until


def test_a_checkpoint_goes_on_in_python_as_the_commands_restart(carom_bin, tmp_path):
    path = os.path.join(REPO, "examples/hard_spheres.yaml")
    _cli(carom_bin, tmp_path, "run", path, "--until", 1.0, "--trajectory", "", "--stats", "", "--checkpoint", "a.ckpt")
    _cli(carom_bin, tmp_path, "run", "--restart", "a.ckpt", "--until", 2.0, "--trajectory", "", "--stats", "",
         "--checkpoint", "b.ckpt")
    world = carom.World.from_checkpoint(tmp_path / "a.ckpt")
    assert world.time == 1.0
    world.run_scenario(until=2.0)
    _same_bits(world, carom.World.from_checkpoint(tmp_path / "b.ckpt"))


def test_seed_species_and_run_settings():
    path = os.path.join(REPO, "examples/steer_circle.yaml")
    a, b = carom.World.from_scenario(path), carom.World.from_scenario(path)
    assert np.array_equal(a.positions, b.positions)
    c = carom.World.from_scenario(path, seed=4)
    assert not np.array_equal(a.positions, c.positions) and c.run_settings["seed"] == 4
    assert list(a.species) == ["S"] + ["F"] * 12
    assert a.run_settings == {"until": 60.0, "events": None, "equilibrate": 0.0, "window": 0.05,
                              "controls": False, "seed": 3}
    with pytest.raises(carom.CaromError, match="controls"):
        carom.World.from_scenario(os.path.join(REPO, "examples/driven_box.yaml")).run_scenario()


def test_a_bad_scenario_names_the_line_and_column(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("world:\n  dim: 3\nbodies:\n  - count: 10\n    radius: -2\nrun:\n  until: 1\n")
    with pytest.raises(carom.FileError, match=r"bad.yaml:5:\d+: .*radius"):
        carom.World.from_scenario(bad)
    bad.write_text("world: [unclosed\n")
    with pytest.raises(carom.FileError, match=r"bad.yaml:\d+:\d+"):
        carom.World.from_scenario(bad)
    with pytest.raises(carom.FileError, match="cannot open"):
        carom.World.from_scenario(tmp_path / "missing.yaml")
    junk = tmp_path / "junk.ckpt"
    junk.write_bytes(b"\0" * 100)
    with pytest.raises(carom.FileError, match="junk.ckpt"):
        carom.World.from_checkpoint(junk)


def _repro_inputs():
    folders = [os.path.join(REPO, "tests", "data", "repro"), os.path.join(REPO, "..", "shared", "repro")]
    found = []
    for folder in folders:
        found += sorted(glob.glob(os.path.join(folder, "*.yaml")) + glob.glob(os.path.join(folder, "*.ckpt")))
    return found


@pytest.mark.parametrize("path", _repro_inputs(), ids=os.path.basename)
def test_inputs_that_broke_carom_end_cleanly(path):
    """Each either runs to its end with finite state or raises a CaromError with a message."""
    try:
        if path.endswith(".ckpt"):
            world = carom.World.from_checkpoint(path)
            world.run_scenario(until=world.time + 1.0)
        else:
            world = carom.World.from_scenario(path)
            world.run_scenario()
    except carom.CaromError as error:
        assert str(error).strip()
        return
    assert math.isfinite(world.time)
    assert np.isfinite(world.positions).all() and np.isfinite(world.velocities).all()


def test_snapshots_continue_bit_for_bit():
    world = carom.World.from_scenario(os.path.join(REPO, "examples/granular_gravity.yaml"))
    world.run(until=2.0)
    copy = carom.World.from_snapshot(world.snapshot())
    assert copy.snapshot() == world.snapshot()
    world.run(until=4.0)
    copy.run(until=4.0)
    _same_bits(world, copy)
