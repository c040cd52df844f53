"""Shared helpers of the Python package's tests: the package from this
checkout (python/), lattices with Maxwell velocities, and where the
carom command and the repository's data are."""

import math
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

import carom  # noqa: E402  (after the path above)


def lattice(dim, per_side, spacing):
    """A square (2D) or simple cubic (3D) lattice centred on the origin: (per_side^dim, dim)."""
    axis = (np.arange(per_side) - (per_side - 1) / 2.0) * spacing
    grids = np.meshgrid(*([axis] * dim), indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1)


def maxwell(count, dim, temperature, seed):
    """Velocities from the Maxwell distribution, total momentum zero (masses 1)."""
    v = np.random.default_rng(seed).normal(scale=math.sqrt(temperature), size=(count, dim))
    return v - v.mean(axis=0)


def gas(dim=3, per_side=6, spacing=1.25, radius=0.5, seed=1, boundary="periodic", **fields):
    """A periodic gas on a lattice of per_side^dim bodies."""
    world = carom.World(dim=dim, box=per_side * spacing, boundary=boundary, **fields)
    x = lattice(dim, per_side, spacing)
    world.add_bodies(x, velocities=maxwell(len(x), dim, 1.0, seed), radii=radius)
    return world


@pytest.fixture
def carom_bin():
    """The carom command of the build under test."""
    path = os.environ.get("CAROM_BIN") or os.path.join(os.environ.get("CAROM_LIB_DIR", ""), "carom")
    assert os.access(path, os.X_OK), "the carom command is needed (set CAROM_BIN): %r" % path
    return path
