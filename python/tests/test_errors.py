"""Bad input raises a CaromError (and the built-in kind a Python caller
expects) carrying carom's message, and leaves the world as it was."""

import math

import numpy as np
import pytest

import carom
from conftest import gas


def _same_world(world, snapshot):
    return world.snapshot() == snapshot


@pytest.mark.parametrize("bad, kind, words", [
    ({"positions": [[0.0, 0.0, math.nan]]}, carom.InvalidArgumentError, "body 64"),
    ({"positions": [[0.0, 0.0, 0.0]], "radii": -1.0}, carom.InvalidArgumentError, "body 64"),
    ({"positions": [[0.0, 0.0, 0.0]], "masses": 0.0}, carom.InvalidArgumentError, "body 64"),
    ({"positions": [[0.0, 0.0, 0.0]], "velocities": [math.inf, 0.0, 0.0]}, carom.InvalidArgumentError,
     "body 64"),
    ({"positions": [[0.2, 0.2, 0.2]]}, carom.OverlapError, "overlaps body"),
    ({"positions": [[0.0, 0.0, 50.0]]}, carom.OutsideBoxError, "body 64"),
])
def test_a_refused_body_names_itself_and_changes_nothing(bad, kind, words):
    world = gas(dim=3, per_side=4, spacing=1.5)
    world.run(until=0.5)
    before = world.snapshot()
    args = dict(bad)
    with pytest.raises(kind) as caught:
        world.add_bodies(args.pop("positions"), **args)
    assert words in str(caught.value) and caught.value.message == str(caught.value)
    assert isinstance(caught.value, carom.CaromError) and caught.value.status == kind.status
    assert len(world) == 64 and _same_world(world, before)
    world.run(until=1.0)  # and goes on


def test_a_batch_is_all_or_nothing():
    """The tenth body of a batch overlaps the first: none of the ten is kept."""
    world = gas(dim=2, per_side=4, spacing=2.0)
    before = world.snapshot()
    x = np.array([[x, 0.0] for x in np.linspace(-3.9, 3.9, 9)] + [[-3.9, 0.04]])
    with pytest.raises(carom.OverlapError, match="body 25"):
        world.add_bodies(x, radii=0.05)
    assert len(world) == 16 and world.snapshot() == before
    world.add_bodies(x[:9], radii=0.05)  # the rest fits where it is free
    assert len(world) == 25
    world.run(until=1.0)


def test_shapes_and_fields_are_checked_in_python():
    world = carom.World(dim=2, box=5.0)
    with pytest.raises(ValueError, match=r"positions: expected shape \(n, 2\)"):
        world.add_bodies(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="velocities"):
        world.add_bodies(np.zeros((1, 2)), velocities=np.zeros((2, 2)))
    with pytest.raises(TypeError, match="unknown field 'restitutoin'"):
        carom.World(dim=2, restitutoin=0.5)
    with pytest.raises(ValueError, match="boundary"):
        carom.World(dim=2, boundary="wall")
    assert len(world) == 0


@pytest.mark.parametrize("fields, words", [
    ({"dim": 4}, "dim"), ({"dim": 3, "box": -1.0}, "box"), ({"dim": 3, "restitution": 1.5}, "restitution"),
    ({"dim": 3, "box": 2.0}, "cell"),
])
def test_a_bad_world_definition_raises_with_the_reason(fields, words):
    dim = fields.pop("dim")
    with pytest.raises(carom.CaromError, match=words):
        world = carom.World(dim=dim, **fields)
        world.add_bodies(np.zeros((1, 3)), radii=0.5)


def test_bad_indices_and_controls():
    world = gas(dim=3, per_side=3, spacing=1.5)
    with pytest.raises(carom.NotFoundError, match="body 27"):
        world.set_velocity(27, [1.0, 0.0, 0.0])
    with pytest.raises(IndexError):
        world.set_velocity(-1, [1.0, 0.0, 0.0])
    with pytest.raises(carom.InvalidArgumentError, match="body 0"):
        world.set_velocity(0, [math.nan, 0.0, 0.0])
    with pytest.raises(carom.InvalidArgumentError):
        world.advance(-1.0)
    with pytest.raises(carom.OverlapError):
        world.set_position(0, world.positions[1])
    with pytest.raises(ValueError, match="law"):
        world.set_filter(0, law="sideways")


def test_damaged_snapshots_are_refused_with_the_place():
    data = bytearray(gas(dim=3, per_side=3, spacing=1.5).snapshot())
    for where in (0, len(data) // 2, len(data) - 1):
        damaged = bytearray(data)
        damaged[where] ^= 0x10
        with pytest.raises(carom.CaromError) as caught:
            carom.World.from_snapshot(bytes(damaged))
        assert str(caught.value)
    with pytest.raises(carom.CaromError):
        carom.World.from_snapshot(b"")
    with pytest.raises(carom.CaromError):
        carom.World.from_snapshot(bytes(data[:-7]))


def test_setters_are_refused_inside_the_callback_and_the_world_can_be_read():
    world = gas(dim=3, per_side=4, spacing=1.3)
    seen = {}

    def on_event(event):
        seen["positions"] = world.positions  # reading is allowed
        world.set_velocity(event.i, [0.0, 0.0, 0.0])

    world.on_event = on_event
    with pytest.raises(carom.InvalidArgumentError, match="callback"):
        world.run(until=10.0)
    assert seen["positions"].shape == (64, 3)
    t = world.time
    assert 0 < t < 10.0
    world.on_event = None
    assert world.run(until=10.0) == "ok" and world.time == 10.0


def test_a_closed_world_says_so():
    world = gas(dim=2, per_side=2, spacing=2.0)
    world.close()
    with pytest.raises(carom.CaromError, match="closed"):
        world.run(until=1.0)
    world.close()  # twice is harmless
    assert repr(world) == "World(closed)"
