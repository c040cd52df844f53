"""Thermostats from Python: Andersen samples the Maxwell distribution at
its temperature, rescaling holds it exactly at its instants, white-noise
kicks put in the energy they should; a scenario's thermostat runs to the
same bits as `carom run`, and a checkpoint carries its generator on."""

import math
import subprocess

import numpy as np
import pytest

import carom
from conftest import gas, lattice

ANDERSEN = """world: {dim: 3, boundary: periodic}
seed: 31
bodies: [{count: 500, radius: 0.5, place: lattice, packing_fraction: 0.25}]
run: {until: 3}
thermostat:
  andersen: {temperature: 1.5, rate: 2.0}
"""


def test_andersen_samples_the_maxwell_distribution_at_its_temperature():
    world = gas(dim=3, per_side=8, spacing=1.4)  # kT = 1 to start
    bath = world.thermostat("andersen", temperature=2.0, rate=1.0, seed=5)
    world.run(until=10.0)
    samples = []
    for _ in range(40):
        world.advance(0.5)
        samples.append(world.velocities)
    v = np.concatenate(samples).reshape(-1)
    assert bath.events > 0.9 * 512 * 30
    assert abs(np.mean(v * v) / 2.0 - 1) < 0.02            # <v_x^2> = kT / m
    assert abs(np.mean(v ** 4) / np.mean(v * v) ** 2 - 3) < 0.06  # Gaussian kurtosis
    assert abs(world.stats()["temperature"] / 2.0 - 1) < 0.06


def test_rescaling_holds_the_temperature_exactly_at_its_instants():
    world = gas(dim=2, per_side=10, spacing=1.5, restitution=0.8)
    world.thermostat("rescale", temperature=0.5, every=0.25)
    for k in range(1, 9):
        world.run(until=0.25 * k)
        assert math.isclose(world.stats()["temperature"], 0.5, rel_tol=1e-12)
        world.run(until=0.25 * k + 0.1)
        assert world.stats()["temperature"] < 0.5  # the gas cools in between


def test_kicks_put_in_their_energy():
    """Bodies at rest, kicks of variance s^2 per component at rate nu per body:
    the kinetic energy grows by N nu t d m s^2 / 2 on average (the v . kick
    terms average out: over 1000 bodies their spread is 2.6% of the gain)."""
    world = carom.World(dim=3, box=30.0)
    world.add_bodies(lattice(3, 10, 3.0), velocities=0.0, radii=0.5)
    kicks = world.thermostat("drive", kick=1.0, rate=1.0, seed=9)
    world.run(until=5.0)
    gained = world.stats()["kinetic_energy"]
    expected = 1000 * 1.0 * 5.0 * 3 * 1.0 / 2
    assert abs(kicks.events / 5000 - 1) < 0.06
    assert abs(gained / expected - 1) < 0.1, (gained, expected)
    assert math.isclose(world.stats()["control_work"], gained, rel_tol=1e-9)


def test_a_scenarios_thermostat_gives_the_commands_bits(carom_bin, tmp_path):
    path = tmp_path / "bath.yaml"
    path.write_text(ANDERSEN)
    for args, until in ((["--until", "3", "--checkpoint", "end.ckpt"], 3.0),
                        (["--until", "1.5", "--checkpoint", "half.ckpt"], 1.5)):
        done = subprocess.run([carom_bin, "run", str(path), "--quiet", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    command = carom.World.from_checkpoint(tmp_path / "end.ckpt")
    world = carom.World.from_scenario(path)
    assert world._thermostat.kind == "andersen"
    world.run_scenario()
    assert world.time == command.time == 3.0
    assert np.array_equal(world.velocities, command.velocities) and world.counts() == command.counts()
    resumed = carom.World.from_checkpoint(tmp_path / "half.ckpt")  # its generator goes on where it was
    resumed.run_scenario(until=3.0)
    assert np.array_equal(resumed.velocities, command.velocities)
    assert resumed._thermostat.events == command._thermostat.events > 0


def test_seeds_and_bad_settings():
    a, b, c = (gas(dim=2, per_side=6, spacing=1.5) for _ in range(3))
    a.thermostat("andersen", temperature=1.0, rate=1.0, seed=1)
    b.thermostat("andersen", temperature=1.0, rate=1.0, seed=1)
    c.thermostat("andersen", temperature=1.0, rate=1.0, seed=2)
    for w in (a, b, c):
        w.run(until=2.0)
    assert np.array_equal(a.velocities, b.velocities) and not np.array_equal(a.velocities, c.velocities)
    a._thermostat.close()
    with pytest.raises(ValueError, match="andersen, rescale, drive"):
        a.thermostat("nose-hoover", temperature=1.0)
    with pytest.raises(ValueError, match="temperature > 0"):
        a.thermostat("andersen", rate=1.0)
    with pytest.raises(ValueError, match="kick does not apply"):
        a.thermostat("rescale", temperature=1.0, every=1.0, kick=0.1)
    a.thermostat("rescale", temperature=1.0, every=1.0)
    with pytest.raises(carom.CaromError, match="already has one"):
        a.thermostat("rescale", temperature=1.0, every=1.0)
    kinematic = carom.World(dim=2, box=5.0)
    kinematic.add_bodies([[0.0, 0.0]], masses=np.inf)
    with pytest.raises(carom.CaromError, match="no free body"):
        kinematic.thermostat("andersen", temperature=1.0, rate=1.0)


def test_a_python_checkpoint_carries_the_thermostat_on(tmp_path, carom_bin):
    world = gas(dim=3, per_side=5, spacing=1.4)
    world.thermostat("andersen", temperature=1.3, rate=2.0, seed=12)
    world.run(until=1.0)
    world.checkpoint(tmp_path / "py.ckpt")
    world.run(until=2.0)
    resumed = carom.World.from_checkpoint(tmp_path / "py.ckpt")
    assert resumed.time == 1.0 and resumed._thermostat.kind == "andersen"
    resumed.run(until=2.0)
    assert np.array_equal(resumed.velocities, world.velocities)
    # and the command restarts it too (a Python checkpoint has no end: --until gives one)
    done = subprocess.run([carom_bin, "run", "--restart", "py.ckpt", "--until", "2", "--checkpoint", "cli.ckpt",
                           "--stats", "", "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert np.array_equal(carom.World.from_checkpoint(tmp_path / "cli.ckpt").velocities, world.velocities)
    with pytest.raises(carom.FileError, match="cannot write"):
        world.checkpoint(tmp_path / "no" / "such" / "folder.ckpt")
