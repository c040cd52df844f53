"""Thermostats and driving from Python: Andersen's heat bath, velocity
rescaling and white-noise kicks (tools/thermostat.c, the code the carom
command runs), as exact events: a World with a thermostat stops its runs
at each of its events by itself. Deterministic for a seed."""

import ctypes
import math

from . import _native as native
from .errors import CaromError

KINDS = {"andersen": 1, "rescale": 2, "drive": 3}
_NEEDS = {"andersen": ("temperature", "rate"), "rescale": ("temperature", "every"), "drive": ("kick", "rate")}


class Thermostat:
    """Made by World.thermostat (or from a scenario's or checkpoint's thermostat:); see there."""

    def __init__(self, world, state):
        self._world = world
        self._state = state

    @classmethod
    def _start(cls, world, kind, seed, **settings):
        if kind not in KINDS:
            raise ValueError("thermostat: expected one of andersen, rescale, drive, got %r" % (kind,))
        state = native.Thermostat()
        state.kind = KINDS[kind]
        for name in _NEEDS[kind]:
            value = settings.get(name)
            if value is None or not (math.isfinite(value) and value > 0):
                raise ValueError("thermostat.%s needs %s > 0, got %r" % (kind, name, value))
            setattr(state, name, float(value))
        unknown = set(k for k, v in settings.items() if v is not None) - set(_NEEDS[kind])
        if unknown:
            raise ValueError("thermostat.%s: %s does not apply (expected %s)" % (kind, sorted(unknown)[0],
                                                                               " and ".join(_NEEDS[kind])))
        thermostat = cls(world, state)
        thermostat._check(native.helper.carom_py_thermostat_start(ctypes.byref(state), world._world(), int(seed),
                                                                  *thermostat._why()))
        return thermostat

    def _why(self):
        self._buffer = ctypes.create_string_buffer(1024)
        return self._buffer, 1024

    def _check(self, status):
        if status != 0:
            raise CaromError(self._buffer.value.decode())

    @property
    def kind(self):
        return {v: k for k, v in KINDS.items()}[self._state.kind]

    @property
    def next_time(self):
        return native.helper.carom_py_thermostat_next_time(ctypes.byref(self._state))

    @property
    def events(self):
        """Velocity changes made so far (a rescaling of every body counts once)."""
        return self._state.events

    def _fire(self):
        self._check(native.helper.carom_py_thermostat_apply(ctypes.byref(self._state), self._world._world(),
                                                            *self._why()))

    def _bodies_changed(self):
        self._state.free_count = 0  # counted again at the next event

    def close(self):
        """Stops the thermostat (the world runs on without it)."""
        if getattr(self._world, "_thermostat", None) is self:
            self._world._thermostat = None
