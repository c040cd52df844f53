"""Events through a Python callback and as a structured array recorded in
C: the same events, stops, exceptions carried out of the run."""

import numpy as np
import pytest

import carom
from conftest import gas


def test_recorded_events_are_the_callback_events():
    world = gas(dim=2, per_side=6, spacing=1.4, boundary="walls")
    seen = []
    world.on_event = lambda e: seen.append((e.time, e.kind, e.i, e.j, e.impulse)) and False
    world.record_events = True
    assert world.run(until=3.0) == "ok"
    events = world.events()
    assert events.dtype.names == ("time", "kind", "i", "j", "impulse", "direction")
    assert len(events) == len(seen) > 100
    assert [(t, carom.EVENT_KINDS[k], i, j, p) for t, k, i, j, p in
            zip(events["time"], events["kind"], events["i"], events["j"], events["impulse"])] == seen
    assert np.all(np.diff(events["time"]) >= 0) and np.all(events["time"] <= 3.0)
    pairs = events[events["kind"] == 0]
    assert np.all(pairs["i"] < pairs["j"])
    counts = world.counts()
    assert len(pairs) == counts["pair_events"] and (events["kind"] == 1).sum() == counts["wall_events"]
    assert len(world.events()) == 0  # drained


def test_a_true_return_stops_right_after_that_event():
    world = gas(dim=3, per_side=4, spacing=1.3)
    stop_at = []
    world.on_event = lambda e: len(stop_at) == 0 and e.kind == "pair" and stop_at.append(e.time) is None
    assert world.run(until=50.0) == "stopped"
    assert world.time == stop_at[0] and world.counts()["pair_events"] == 1
    world.on_event = None
    assert world.run(until=1.0) == "ok"


def test_an_exception_in_the_callback_leaves_the_run_and_the_world_goes_on():
    world = gas(dim=3, per_side=4, spacing=1.3)
    calls = []

    def explode(event):
        calls.append(event)
        raise RuntimeError("from the callback")

    world.on_event = explode
    with pytest.raises(RuntimeError, match="from the callback"):
        world.run(until=5.0)
    assert len(calls) == 1 and world.time == calls[0].time
    world.on_event = None
    world.run(until=5.0)
    assert world.time == 5.0


def test_windows_and_sensors():
    """A body crossing the sensor x = 0 is an exact event at the closed-form time."""
    world = carom.World(dim=2, box=10.0, boundary="walls")
    world.add_bodies([[-3.0, 1.0]], velocities=[0.5, 0.0], radii=0.2)
    sensor = world.add_sensor("x", 0.0)
    world.record_events = True
    for _ in range(10):
        world.advance(1.0)
    events = world.events()
    crossing = events[events["kind"] == 4]
    assert sensor == 0 and len(crossing) == 1
    assert crossing["time"][0] == 6.0 and crossing["direction"][0] == 1
    assert world.time == 10.0


def test_drive_reaches_its_target():
    world = carom.World(dim=3, box=10.0, boundary="walls")
    world.add_bodies([[0.0, 0.0, 0.0]], masses=np.inf, accelerations=[0.0, 0.0, -1.0])
    world.drive(0, [1.0, 2.0, -1.0], 2.0)
    world.advance(2.0)
    np.testing.assert_allclose(world.positions[0], [1.0, 2.0, -1.0], atol=1e-14)


def test_a_steered_body_never_reaches_the_wall():
    world = carom.World(dim=2, box=10.0, boundary="walls")
    world.add_bodies([[0.0, 0.0]], velocities=[3.0, 0.0], radii=0.5)
    world.set_filter(0, law="linear", max_acceleration=2.0, safety=0.5, window=0.05)
    world.set_acceleration(0, [2.0, 0.0])  # the player pushes at the wall
    least = np.inf
    world.record_events = True
    for _ in range(200):
        world.advance(0.05)
        least = min(least, world.least_clearance(0))
    assert least > 0
    assert not (world.events()["kind"] == 1).any()
    assert world.filter_result(0)["acted"] in (True, False)
