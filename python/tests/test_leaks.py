"""Nothing leaks over 10^4 worlds created and destroyed: the process's
resident memory stays flat, and a dropped World is freed at once (no
reference cycle through its callback)."""

import gc
import os
import weakref

import numpy as np
import pytest

import carom
from conftest import lattice, maxwell


def _resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _one_world(k, x, v):
    world = carom.World(dim=2, box=10.0, boundary="walls")
    world.add_bodies(x, velocities=v, radii=0.3)
    world.on_event = lambda event: False
    world.record_events = True
    world.run(until=0.5)
    assert len(world.events()) > 0
    copy = carom.World.from_snapshot(world.snapshot())
    if k % 2:
        copy.close()
    try:
        world.add_bodies(x[:1])  # refused: overlaps, and the world is restored
    except carom.OverlapError:
        pass


def test_ten_thousand_worlds_do_not_grow_the_process():
    x = lattice(2, 5, 1.8)
    v = maxwell(len(x), 2, 1.0, seed=5)
    for k in range(1000):
        _one_world(k, x, v)
    gc.collect()
    settled = _resident_bytes()
    for k in range(9000):
        _one_world(k, x, v)
    gc.collect()
    grown = _resident_bytes() - settled
    # one leaked world (25 bodies, its grid and calendar, an event array) is
    # several kilobytes: 9000 of them would be tens of megabytes
    assert grown < 4 * 2**20, "resident memory grew by %d bytes over 9000 worlds" % grown


def test_a_dropped_world_is_freed_at_once():
    world = carom.World(dim=3, box=5.0)
    world.add_bodies(np.zeros((1, 3)))
    world.on_event = lambda event: False
    gone = weakref.ref(world)
    del world
    assert gone() is None


def test_a_closed_world_can_be_closed_by_a_context_manager():
    with carom.World(dim=2, box=5.0) as world:
        world.add_bodies(np.zeros((1, 2)))
    with pytest.raises(carom.CaromError, match="closed"):
        len(world)
