"""Analysis at exact instants from Python: the same files, byte for byte,
as `carom run` writes for the same scenario, results as numpy arrays, and
the world's runs stopping at every sample by themselves."""

import json
import math
import os
import subprocess

import numpy as np
import pytest

import carom
from conftest import REPO, gas

SCENARIO = """world: {dim: 3, boundary: periodic}
seed: 21
bodies:
  - {count: 300, radius: 0.5, place: random, name: A, packing_fraction: 0.25}
  - {count: 100, radius: 0.4, place: random, name: B}
run: {until: 6, equilibrate: 2}
analysis:
  output: cli
  every: 0.25
  rdf: {max: 3, bins: 60}
  structure_factor: {max: 2}
  msd: {lags: 8}
  flights: {bins: 20}
"""
FILES = [".json", "_rdf.csv", "_sk.csv", "_msd.csv", "_free_time.csv", "_free_path.csv"]


def test_python_writes_the_commands_files_byte_for_byte(carom_bin, tmp_path):
    path = tmp_path / "mix.yaml"
    path.write_text(SCENARIO)
    done = subprocess.run([carom_bin, "run", str(path), "--quiet"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    world = carom.World.from_scenario(path)
    analysis = world.analyse(every=0.25, start=2.0, rdf={"max": 3, "bins": 60}, structure_factor={"max": 2},
                             msd={"lags": 8}, flights={"bins": 20})
    world.run_scenario()
    analysis.write(tmp_path / "py")
    for suffix in FILES:
        assert (tmp_path / ("py" + suffix)).read_bytes() == (tmp_path / ("cli" + suffix)).read_bytes(), suffix
    summary = json.loads((tmp_path / "py.json").read_text())
    assert summary["samples"] == 17 and summary["species"] == ["A", "B"] == list(dict.fromkeys(world.species))


def test_results_are_numpy_tables_and_samples_are_exact_instants():
    world = gas(dim=2, per_side=12, spacing=1.6)
    analysis = world.analyse(every=0.5, rdf={"max": 4.0, "bins": 80}, msd={"lags": 4}, flights={})
    world.run(until=10.0)
    results = analysis.results()
    assert analysis.samples == 21 and results["summary"]["samples"] == 21
    rdf = results["rdf"]
    assert rdf.dtype.names == ("r_low", "r_high", "g_all_all") and len(rdf) == 80
    assert np.all(rdf["g_all_all"][rdf["r_high"] <= 1.0] == 0)
    msd = results["msd"]
    assert msd["lag_time"].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0] and msd["msd"][0] == 0
    assert math.isclose(msd["vacf"][0], 2 * world.stats()["kinetic_energy"] / len(world), rel_tol=1e-12)
    assert results["free_time"]["count"].sum() + results["summary"]["flights_beyond_tables"][0] == \
        results["summary"]["flights"]
    assert world.time == 10.0


def test_windows_sample_inside_them_and_the_analysis_can_close():
    world = gas(dim=3, per_side=5, spacing=1.3)
    analysis = world.analyse(every=0.3, msd={"lags": 3})
    for _ in range(10):
        world.advance(0.25)
    assert world.time == 2.5 and analysis.samples == 9  # 0, 0.3, ..., 2.4
    with pytest.raises(carom.CaromError, match="fixed set of bodies"):
        world.add_bodies([[0.0, 0.0, 0.0]])
    analysis.close()
    with pytest.raises(carom.CaromError, match="closed"):
        analysis.results()
    world.run(until=3.0)
    assert world.time == 3.0


def test_bad_analysis_settings_say_what_is_wrong():
    walled = gas(dim=2, per_side=4, spacing=2.0, boundary="walls")
    with pytest.raises(carom.CaromError, match="analysis.rdf needs a box periodic"):
        walled.analyse(every=1.0, rdf={"max": 2.0})
    periodic = gas(dim=2, per_side=4, spacing=2.0)
    with pytest.raises(carom.CaromError, match="more than half the smallest side"):
        periodic.analyse(every=1.0, rdf={"max": 5.0})
    with pytest.raises(ValueError, match="unknown key 'bins'"):
        periodic.analyse(every=1.0, msd={"bins": 3})
    with pytest.raises(ValueError, match="every"):
        periodic.analyse(every=0.0, msd={})
    with pytest.raises(carom.CaromError, match="every 1e-300 cannot advance the clock"):
        periodic.analyse(every=1e-300, start=1e10, msd={})
    falling = carom.World(dim=2, box=10.0, boundary="walls", gravity=[0, -1])
    falling.add_bodies([[0.0, 0.0]])
    with pytest.raises(carom.CaromError, match="fly straight"):
        falling.analyse(every=1.0, flights={})
    first = periodic.analyse(every=1.0, msd={})
    with pytest.raises(carom.CaromError, match="already has an analysis"):
        periodic.analyse(every=1.0, msd={})
    first.close()
    periodic.analyse(every=1.0, msd={}).close()
