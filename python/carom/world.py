"""World: a carom world from Python. Bodies go in and come out as numpy
arrays (float64, one row a body, dim columns); runs, windows, per-body
controls, sensors, steering filters, statistics, events (a callback, or a
structured array recorded in C), snapshots as bytes, and worlds built from
scenario files and checkpoints exactly as the ``carom`` command builds them.
Every call either succeeds or leaves the world as it was and raises a
CaromError carrying carom's message."""

import ctypes
import math
import weakref

import numpy as np

from . import _native as native
from .analysis import Analysis
from .thermostat import Thermostat
from .errors import CaromError, FileError, OutOfMemoryError, raise_for

OK, STOPPED = 0, 8
EVENT_KINDS = ("pair", "wall", "cell", "rest", "sensor")
_BOUNDARY = {"walls": 0, "periodic": 1}
_LAWS = {"off": 0, "naive": 1, "linear": 2, "quadratic": 3, "directional": 4, "backup": 5}
_WHY_SIZE = 1024


def _vec(values, what, dim=3):
    """A carom_vec from a sequence of up to 3 finite or infinite numbers."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size < 1 or v.size > 3:
        raise ValueError("%s: expected 1 to 3 numbers, got %d" % (what, v.size))
    v = np.concatenate([v, np.zeros(3 - v.size)])
    return native.Vec(float(v[0]), float(v[1]), float(v[2]))


def _column(values, count, width, what):
    """values as a (count, width) float64 array: a scalar or one row is repeated."""
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 0 or (a.ndim == 1 and width > 1 and a.shape[0] == width):
        a = np.broadcast_to(a, (count, width) if width > 1 else (count,))
    want = (count, width) if width > 1 else (count,)
    if a.shape != want:
        raise ValueError("%s: expected shape %s, got %s" % (what, want, a.shape))
    return a


class Event:
    """One processed event, as handed to an on_event callback."""

    __slots__ = ("time", "kind", "i", "j", "impulse", "direction")

    def __init__(self, c_event):
        self.time = c_event.time
        self.kind = EVENT_KINDS[c_event.kind] if 0 <= c_event.kind < len(EVENT_KINDS) else c_event.kind
        self.i, self.j = c_event.i, c_event.j
        self.impulse, self.direction = c_event.impulse, c_event.direction

    def __repr__(self):
        return "Event(time=%r, kind=%r, i=%d, j=%d, impulse=%r)" % (self.time, self.kind, self.i, self.j,
                                                                    self.impulse)


class World:
    """A world of hard disks (dim=2) or spheres (dim=3) in a box centred on
    the origin. Keyword arguments are carom_world_def's fields (carom.h):
    box (a number or one per axis), boundary ("periodic", "walls" or one per
    axis), gravity, restitution, wall_restitution, elastic_below_speed,
    collapse_time, max_collisions_per_instant, capacity_hint,
    neighbour_shell, tangential_restitution, wall_tangential_restitution and
    friction. Unset fields keep carom's defaults."""

    def __init__(self, dim=3, box=10.0, boundary="periodic", **fields):
        definition = native.core.carom_default_world_def()
        definition.dim = int(dim)
        sides = np.broadcast_to(np.asarray(box, dtype=np.float64), (3,)) if np.ndim(box) == 0 else box
        definition.box = _vec(sides, "box")
        names = [boundary] * 3 if isinstance(boundary, str) else list(boundary)
        for axis, name in enumerate(names[:3]):
            if name not in _BOUNDARY:
                raise ValueError("boundary: expected 'periodic' or 'walls', got %r" % (name,))
            definition.boundary[axis] = _BOUNDARY[name]
        for name, value in fields.items():
            if name == "gravity":
                definition.gravity = _vec(value, "gravity")
            elif name in ("max_collisions_per_instant", "capacity_hint"):
                setattr(definition, name, int(value))
            elif name in dict(native.WorldDef._fields_) and name not in ("on_event", "user", "allocator",
                                                                         "container", "dim", "box",
                                                                         "boundary"):
                setattr(definition, name, float(value))
            else:
                raise TypeError("World: unknown field %r" % (name,))
        self._adopt(None, None)
        definition.on_event, definition.user = native.ON_EVENT, self._sink
        handle = native.W()
        why = ctypes.create_string_buffer(_WHY_SIZE)
        status = native.core.carom_world_create(ctypes.byref(definition), ctypes.byref(handle), why, _WHY_SIZE)
        if status != OK:
            self.close()
            raise_for(status, why.value.decode())
        self._handle = handle.value

    # ---- construction from bytes and files ---------------------------------

    def _adopt(self, handle, species):
        """Sets up the Python side: an event sink, no callback, no handle yet."""
        self._handle = handle
        self._sink = native.helper.carom_py_events_create()
        if not self._sink:
            raise OutOfMemoryError("out of memory")
        self._on_event = None
        self._trampoline = None
        self._callback_error = None
        self._recording = False
        self.species = species
        self.run_settings = None
        self._species_text = None
        self._analysis = None
        self._thermostat = None

    @classmethod
    def _empty(cls):
        world = cls.__new__(cls)
        world._adopt(None, None)
        world._checkpointed = False
        return world

    @classmethod
    def from_snapshot(cls, data):
        """The world a snapshot (World.snapshot's bytes) holds; it goes on bit for bit as the original."""
        world = cls._empty()
        try:
            world._handle = world._restore(bytes(data))
        except BaseException:
            world.close()
            raise
        return world

    def _restore(self, data):
        """A new world handle from snapshot bytes, with this world's event sink."""
        buffer = ctypes.create_string_buffer(data, len(data))
        handle = native.W()
        why = ctypes.create_string_buffer(_WHY_SIZE)
        status = native.core.carom_world_restore(buffer, len(data), native.ON_EVENT, self._sink,
                                                 ctypes.byref(handle), why, _WHY_SIZE)
        if status != OK:
            raise_for(status, why.value.decode())
        return handle.value

    @classmethod
    def from_scenario(cls, path, seed=None):
        """The world a scenario file describes, built as ``carom run`` builds
        it: the same bodies, bit for bit, for the same seed (seed replaces the
        scenario's). run_settings holds the file's run section and species
        the bodies' species names; run_scenario runs it as the command does."""
        world = cls._empty()
        handle, run, species = native.W(), native.Run(), ctypes.c_void_p()
        why = ctypes.create_string_buffer(_WHY_SIZE)
        status = native.helper.carom_py_load_scenario(
            str(path).encode(), seed is not None, 0 if seed is None else int(seed), native.ON_EVENT, world._sink,
            ctypes.byref(handle), ctypes.byref(run), ctypes.byref(species), why, _WHY_SIZE)
        return world._finish_loading(status, handle, run, species, why)

    @classmethod
    def from_checkpoint(cls, path):
        """The world of a checkpoint file written by ``carom run --checkpoint``
        (with its thermostat, which goes on drawing the numbers it would have)."""
        world = cls._empty()
        world._checkpointed = True
        handle, run, species = native.W(), native.Run(), ctypes.c_void_p()
        why = ctypes.create_string_buffer(_WHY_SIZE)
        status = native.helper.carom_py_read_checkpoint(str(path).encode(), native.ON_EVENT, world._sink,
                                                        ctypes.byref(handle), ctypes.byref(run),
                                                        ctypes.byref(species), why, _WHY_SIZE)
        return world._finish_loading(status, handle, run, species, why)

    def _finish_loading(self, status, handle, run, species, why):
        if status != 0:
            self.close()
            raise FileError(why.value.decode())
        self._handle = handle.value
        text = ctypes.string_at(species.value).decode() if species.value else ""
        native.helper.carom_py_free(species)
        self._species_text = text or None
        self.species = _species_per_body(text, len(self))
        self.run_settings = {"until": run.until, "events": None if run.events < 0 else run.events,
                             "equilibrate": run.equilibrate, "window": run.window,
                             "controls": bool(run.has_controls), "seed": run.seed}
        if run.thermostat.kind != 0:
            state = native.Thermostat()
            ctypes.pointer(state)[0] = run.thermostat
            self._thermostat = Thermostat(self, state)
            if not self._checkpointed:  # a scenario's: started as the command starts it
                self._thermostat._check(native.helper.carom_py_thermostat_start(
                    ctypes.byref(state), self._world(), run.seed, *self._thermostat._why()))
        return self

    # ---- life ---------------------------------------------------------------

    def close(self):
        """Frees the world now (it also goes when garbage collected)."""
        if getattr(self, "_analysis", None) is not None:
            self._analysis.close()
        if getattr(self, "_handle", None):
            native.core.carom_world_destroy(self._handle)
        self._handle = None
        if getattr(self, "_sink", None):
            native.helper.carom_py_events_destroy(self._sink)
        self._sink = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _world(self):
        if not self._handle:
            raise CaromError("the world is closed")
        return self._handle

    def _check(self, status):
        if status != OK:
            raise_for(status, self.message)

    @property
    def message(self):
        """carom's message for the last failed call ("" if none)."""
        return native.core.carom_world_message(self._world()).decode()

    def __len__(self):
        return native.core.carom_world_body_count(self._world())

    def __repr__(self):
        if not self._handle:
            return "World(closed)"
        return "World(dim=%d, bodies=%d, time=%r)" % (self.dim, len(self), self.time)

    @property
    def dim(self):
        return native.core.carom_world_definition(self._world()).dim

    @property
    def time(self):
        return native.core.carom_world_time(self._world())

    @property
    def definition(self):
        """The world's carom_world_def as a dict."""
        d = native.core.carom_world_definition(self._world())
        out = {"dim": d.dim, "box": tuple(getattr(d.box, a) for a in "xyz"[:d.dim]),
               "boundary": tuple("periodic" if d.boundary[a] else "walls" for a in range(d.dim)),
               "gravity": tuple(getattr(d.gravity, a) for a in "xyz"[:d.dim]),
               "container": bool(d.container)}
        for name, kind in native.WorldDef._fields_:
            if kind in (ctypes.c_double, ctypes.c_int32) and name not in out:
                out[name] = getattr(d, name)
        return out

    # ---- bodies -------------------------------------------------------------

    def add_bodies(self, positions, velocities=0.0, radii=None, masses=None, accelerations=0.0,
                   orientations=None, angles=0.0, angular_velocities=0.0, inertias=0.0, polygons=None):
        """Adds bodies at the current time and returns their indices.
        positions is (n, dim); velocities and accelerations (n, dim) or one
        row; radii, masses (np.inf: kinematic) and inertias (0: from shape)
        (n,) or a number (default carom's: 0.5 and 1); 3D: orientations (n, 4)
        unit quaternions x y z w; 2D: angles (n,), angular_velocities (n,)
        (3D: (n, 3)), polygons a list of (k, 2) vertex arrays or None for a
        disk. All or nothing: a refused body raises with carom's message
        naming it, and the world is left as it was."""
        dim = self.dim
        if self._analysis is not None:
            raise CaromError("add_bodies: the world has an analysis, which follows a fixed set of bodies "
                             "(close it first)")
        x = np.asarray(positions, dtype=np.float64)
        if x.ndim == 1 and x.shape[0] == dim:
            x = x.reshape(1, dim)
        if x.ndim != 2 or x.shape[1] != dim:
            raise ValueError("positions: expected shape (n, %d), got %s" % (dim, x.shape))
        n = x.shape[0]
        start = len(self)
        if n == 0:
            return np.arange(start, start, dtype=np.int32)
        if start + n > 2**31 - 1:
            raise ValueError("add_bodies: %d bodies would pass carom's limit of 2^31 - 1" % (start + n))
        defaults = native.core.carom_default_body_def()
        defs = np.zeros(n, dtype=native.BODY_DEF)
        defs["position"][:, :dim] = x
        defs["velocity"][:, :dim] = _column(velocities, n, dim, "velocities")
        defs["acceleration"][:, :dim] = _column(accelerations, n, dim, "accelerations")
        defs["radius"] = _column(defaults.radius if radii is None else radii, n, 1, "radii")
        defs["mass"] = _column(defaults.mass if masses is None else masses, n, 1, "masses")
        defs["inertia"] = _column(inertias, n, 1, "inertias")
        if dim == 3:
            if orientations is not None:
                defs["orientation"] = _column(orientations, n, 4, "orientations")
            defs["angular_velocity"] = _column(angular_velocities, n, 3, "angular_velocities")
        else:
            defs["angle"] = _column(angles, n, 1, "angles")
            defs["angular_velocity"][:, 2] = _column(angular_velocities, n, 1, "angular_velocities")
        keep = _fill_polygons(defs, polygons, n)
        saved = self.snapshot()
        added = ctypes.c_int32()
        status = native.helper.carom_py_add_bodies(self._world(), defs.ctypes.data, n, ctypes.byref(added))
        del keep
        if status != OK:
            message = self.message
            self._replace(self._restore(saved))
            raise_for(status, message)
        if self._thermostat is not None:
            self._thermostat._bodies_changed()
        return np.arange(start, start + n, dtype=np.int32)

    def _replace(self, handle):
        native.core.carom_world_destroy(self._handle)
        self._handle = handle

    def states(self):
        """Every body's carom_body_state now, as a numpy structured array
        (fields position, velocity, acceleration (n, 3), orientation (n, 4),
        radius, mass, collisions, angle, angular_velocity, inertia, polygon_vertices)."""
        n = len(self)
        out = np.zeros(n, dtype=native.BODY_STATE)
        if n:
            self._check(native.helper.carom_py_get_states(self._world(), 0, n, out.ctypes.data))
        return out

    def _field(self, name, width=None):
        values = self.states()[name]
        return np.ascontiguousarray(values[:, :width] if width else values)

    @property
    def positions(self):
        """(n, dim) centres now (wrapped into the box on periodic axes)."""
        return self._field("position", self.dim)

    @property
    def velocities(self):
        return self._field("velocity", self.dim)

    @property
    def accelerations(self):
        """(n, dim) the bodies' own accelerations (world gravity not included)."""
        return self._field("acceleration", self.dim)

    @property
    def radii(self):
        return self._field("radius")

    @property
    def masses(self):
        return self._field("mass")

    @property
    def inertias(self):
        return self._field("inertia")

    @property
    def collisions(self):
        """(n,) pair and wall collisions each body took part in."""
        return self._field("collisions")

    @property
    def orientations(self):
        """(n, 4) unit quaternions x y z w (2D: the rotation by angle about z)."""
        return self._field("orientation")

    @property
    def angles(self):
        """(n,) 2D orientation angles (not wrapped); zeros in 3D."""
        return self._field("angle")

    @property
    def angular_velocities(self):
        """3D: (n, 3); 2D: (n,) about z."""
        w = self.states()["angular_velocity"]
        return np.ascontiguousarray(w if self.dim == 3 else w[:, 2])

    def polygon(self, body):
        """A polygon body's vertices now, (k, 2) counter-clockwise; (0, 2) for a disk."""
        capacity = 64
        vertices = (native.Vec2 * capacity)()
        count = ctypes.c_int32()
        self._check(native.core.carom_world_get_body_polygon(self._world(), int(body), vertices, capacity,
                                                              ctypes.byref(count)))
        return np.array([[v.x, v.y] for v in vertices[:count.value]], dtype=np.float64).reshape(-1, 2)

    # ---- controls -------------------------------------------------------------

    def set_velocity(self, body, velocity):
        self._check(native.core.carom_world_set_body_velocity(self._world(), int(body), _vec(velocity, "velocity")))

    def set_acceleration(self, body, acceleration):
        self._check(native.core.carom_world_set_body_acceleration(self._world(), int(body),
                                                                  _vec(acceleration, "acceleration")))

    def set_position(self, body, position):
        self._check(native.core.carom_world_set_body_position(self._world(), int(body), _vec(position, "position")))

    def set_angular_velocity(self, body, angular_velocity):
        value = [0.0, 0.0, float(angular_velocity)] if np.ndim(angular_velocity) == 0 else angular_velocity
        self._check(native.core.carom_world_set_body_angular_velocity(self._world(), int(body),
                                                                      _vec(value, "angular_velocity")))

    def drive(self, body, target, dt):
        """Sets the velocity that brings the body to target at now + dt."""
        self._check(native.core.carom_world_drive_body(self._world(), int(body), _vec(target, "target"),
                                                       float(dt)))

    def add_sensor(self, axis, position, lo=None, hi=None):
        """A sensor in the plane x[axis] = position (axis 0, 1, 2 or "x", "y",
        "z"), from lo to hi on the other axes (default: the whole box); returns its index."""
        sensor = native.core.carom_default_sensor_def()
        sensor.axis = "xyz".index(axis) if isinstance(axis, str) else int(axis)
        sensor.position = float(position)
        if lo is not None:
            sensor.lo = _vec(lo, "lo")
        if hi is not None:
            sensor.hi = _vec(hi, "hi")
        index = ctypes.c_int32()
        self._check(native.core.carom_world_add_sensor(self._world(), ctypes.byref(sensor), ctypes.byref(index)))
        return index.value

    def set_filter(self, body, law="linear", max_acceleration=1.0, safety=0.5, window=0.1):
        """Steers a body with the safety filter (carom_world_set_body_filter); law None unsteers it."""
        if law is None:
            self._check(native.core.carom_world_set_body_filter(self._world(), int(body), None))
            return
        if law not in _LAWS:
            raise ValueError("law: expected one of %s, got %r" % (", ".join(_LAWS), law))
        f = native.FilterDef(_LAWS[law], float(max_acceleration), float(safety), float(window))
        self._check(native.core.carom_world_set_body_filter(self._world(), int(body), ctypes.byref(f)))

    def filter_result(self, body):
        r = native.FilterResult()
        self._check(native.core.carom_world_get_body_filter(self._world(), int(body), ctypes.byref(r)))
        return {"acceleration": tuple(getattr(r.acceleration, a) for a in "xyz"[:self.dim]),
                "criticality": r.criticality, "speed_ratio": r.speed_ratio, "acted": bool(r.acted)}

    def least_clearance(self, body):
        least = ctypes.c_double()
        self._check(native.core.carom_world_get_least_clearance(self._world(), int(body), ctypes.byref(least)))
        return least.value

    # ---- running --------------------------------------------------------------

    def run(self, until=math.inf, max_events=None):
        """Runs until the clock reaches until or max_events events have been
        processed. Returns "ok", or "stopped" when on_event asked to stop.
        Raises JammedError at a jam (the world is consistent and may go on).
        With an analysis (analyse) the run stops at each of its samples."""
        if max_events is not None and max_events < 0:
            max_events = None  # no cap, as carom_world_run reads it
        if self._scheduled():
            return self._run_sampled(float(until), max_events)
        cap = -1 if max_events is None else int(max_events)
        return self._finish_run(native.core.carom_world_run(self._world(), float(until), cap))

    def advance(self, dt):
        """Runs every event up to now + dt and leaves the clock there (a window)."""
        if not self._scheduled():
            return self._finish_run(native.core.carom_world_advance(self._world(), float(dt)))
        end = self.time + float(dt)
        while self._next_stop() < end:
            if self._finish_run(native.core.carom_world_run(self._world(), self._next_stop(), -1)) != "ok":
                return "stopped"
            self._sample_if_due()
        now = self.time
        rest = end - now
        if now + rest == end:  # as carom run does at a window's end
            status = self._finish_run(native.core.carom_world_advance(self._world(), rest))
        else:
            status = self._finish_run(native.core.carom_world_run(self._world(), end, -1))
        self._sample_if_due()
        return status

    def _scheduled(self):
        """What stops runs at its own instants: the thermostat first, then the analysis (as carom run orders them)."""
        return [x for x in (self._thermostat, self._analysis) if x is not None]

    def _next_stop(self):
        return min([x.next_time for x in self._scheduled()] + [math.inf])

    def _sample_if_due(self):
        now = self.time
        if self._thermostat is not None and now >= self._thermostat.next_time:
            self._thermostat._fire()
        if self._analysis is not None and now >= self._analysis.next_time:
            self._analysis._sample()

    def _run_sampled(self, until, max_events):
        first = self.counts()["events"]
        while True:
            done = self.counts()
            ran = done["events"] - first
            if done["time"] >= until or (max_events is not None and ran >= max_events):
                return "ok"
            target = min(until, self._next_stop())
            cap = -1 if max_events is None else int(max_events) - ran
            if self._finish_run(native.core.carom_world_run(self._world(), target, cap)) != "ok":
                return "stopped"
            self._sample_if_due()
            after = self.counts()
            if after["events"] == done["events"] and after["time"] == done["time"]:
                if math.isinf(target):
                    return "ok"  # nothing can happen any more
                raise CaromError("run: no progress at t = %r towards %r" % (after["time"], target))

    def compress(self, rate, to=None, max_pressure=None, temperature=None, max_events=None, neighbour_shell=None):
        """Lubachevsky-Stillinger compression (carom_compress): every radius
        grows as r (1 + rate t), collisions exact, the velocities scaled back
        to the temperature after every N pair collisions, until the packing
        fraction `to` or jamming (PV/NkT above max_pressure, default 1e4).
        neighbour_shell: None or 0 for neighbour lists with a shell of 0.3
        mean diameters, 0.01 to 2 for another shell, < 0 for cells.
        The world becomes the compressed one (at time 0, its clock and
        statistics new); returns a dict: packing_fraction, pressure, time,
        events, pair_events, reached_target, jammed, capped."""
        if self._scheduled():
            raise CaromError("compress: close the world's analysis and thermostat first")
        d = native.core.carom_default_compress_def()
        d.rate = float(rate)
        d.target = 0.0 if to is None else float(to)
        if max_pressure is not None:
            d.max_pressure = float(max_pressure)
        if temperature is not None:
            d.temperature = float(temperature)
        if max_events is not None:
            d.max_events = int(max_events)
        if neighbour_shell is not None:
            d.neighbour_shell = float(neighbour_shell)
        out, result = native.W(), native.CompressResult()
        why = ctypes.create_string_buffer(_WHY_SIZE)
        status = native.core.carom_compress(self._world(), ctypes.byref(d), ctypes.byref(out), ctypes.byref(result),
                                            why, _WHY_SIZE)
        if status != OK:
            raise_for(status, why.value.decode())
        self._replace(out.value)
        return {name: getattr(result, name) if kind is not ctypes.c_int else bool(getattr(result, name))
                for name, kind in native.CompressResult._fields_}

    def thermostat(self, kind, temperature=None, rate=None, every=None, kick=None, seed=1):
        """Holds a temperature or drives the gas, by exact velocity changes
        (as a scenario's thermostat: does): "andersen" (temperature, rate per
        body), "rescale" (temperature, every) or "drive" (kick, rate per
        body). Runs then stop at its events by themselves. Returns the
        Thermostat (kind, events, close())."""
        if self._thermostat is not None:
            raise CaromError("thermostat: the world already has one (close it first)")
        self._thermostat = Thermostat._start(self, kind, seed, temperature=temperature, rate=rate, every=every,
                                             kick=kick)
        return self._thermostat

    def analyse(self, every, start=None, rdf=None, structure_factor=None, msd=None, flights=None):
        """Starts an analysis at exact instants start + k every (start: now),
        as a scenario's analysis: section does: rdf={"max": R, "bins": B},
        structure_factor={"max": K}, msd={"lags": L}, flights={"bins": B}
        (None: off; {} for the defaults). Runs then stop at each sample by
        themselves. Returns the Analysis (results(), write(prefix), close())."""
        if self._analysis is not None:
            raise CaromError("analyse: the world already has an analysis (close it first)")
        self._analysis = Analysis(self, every, start, rdf, structure_factor, msd, flights)
        self._sample_if_due()
        return self._analysis

    def _finish_run(self, status):
        error, self._callback_error = self._callback_error, None
        if error is not None:
            raise error
        if native.helper.carom_py_events_lost(self._sink):
            native.helper.carom_py_events_clear(self._sink)
            raise OutOfMemoryError("out of memory while recording events (the run stopped after the last one)")
        if status == STOPPED:
            return "stopped"
        self._check(status)
        return "ok"

    def next_event_time(self):
        return native.core.carom_world_next_event_time(self._world())

    def run_scenario(self, until=None, events=None):
        """Runs a world made by from_scenario or from_checkpoint to its run
        section's end as ``carom run`` does: the measuring window restarted
        at run.equilibrate, windows of run.window through advance, the cap
        run.events (until and events override them, as the command's
        --until and --events do). A run.controls file is replayed by the
        command only."""
        if self.run_settings is None:
            raise CaromError("run_scenario: this world has no run settings (make it with from_scenario)")
        settings = dict(self.run_settings)
        if until is not None:
            settings["until"] = float(until)
        if events is not None:
            settings["events"] = int(events)
        if settings["controls"]:
            raise CaromError("run_scenario: run.controls is replayed by `carom run` only; from Python, set "
                             "accelerations (set_acceleration) between windows (advance) yourself")
        return _ScenarioRun(self, settings).go()

    # ---- events ------------------------------------------------------------------

    @property
    def on_event(self):
        return self._on_event

    @on_event.setter
    def on_event(self, function):
        """function(event) is called after each pair, wall, rest or sensor
        event (see Event); a true return value stops the run there. An
        exception it raises stops the run and is raised again by run."""
        self._on_event = function
        if function is None:
            native.helper.carom_py_events_set_forward(self._sink, native.EventCallback(), None)
            self._trampoline = None
            return
        me = weakref.ref(self)

        def trampoline(_user, event):
            world = me()
            if world is None or world._on_event is None:
                return 0
            try:
                return 1 if world._on_event(Event(event.contents)) else 0
            except BaseException as error:  # raised again by run, never lost in C
                world._callback_error = error
                return 1

        self._trampoline = native.EventCallback(trampoline)
        native.helper.carom_py_events_set_forward(self._sink, self._trampoline, None)

    @property
    def record_events(self):
        return self._recording

    @record_events.setter
    def record_events(self, on):
        """While true, every event is recorded (in C) for events()."""
        self._recording = bool(on)
        native.helper.carom_py_events_set_record(self._sink, int(self._recording))

    def events(self):
        """The events recorded since the last call, as a structured array
        (time, kind, i, j, impulse, direction; kind indexes EVENT_KINDS), and forgets them."""
        count = native.helper.carom_py_events_count(self._sink)
        out = np.zeros(count, dtype=native.EVENT)
        if count:
            ctypes.memmove(out.ctypes.data, native.helper.carom_py_events_data(self._sink),
                           count * native.EVENT.itemsize)
        native.helper.carom_py_events_clear(self._sink)
        return out

    # ---- statistics and snapshots ------------------------------------------------

    def stats(self):
        """carom_stats as a dict (vectors as tuples of dim numbers; 2D
        angular_momentum a number, about z)."""
        s = native.core.carom_world_stats(self._world())
        out = {}
        for name, kind in native.Stats._fields_:
            value = getattr(s, name)
            if kind is native.Vec and name == "angular_momentum":
                value = value.z if s.dim == 2 else (value.x, value.y, value.z)
            elif kind is native.Vec:
                value = tuple(getattr(value, a) for a in "xyz"[:s.dim])
            out[name] = value
        return out

    def counts(self):
        """The clock and event counters alone, in O(1) (carom_world_counts)."""
        c = native.core.carom_world_counts(self._world())
        return {name: getattr(c, name) for name, _ in native.Counts._fields_}

    def reset_stats(self):
        """Starts a new measuring window now."""
        native.core.carom_world_reset_stats(self._world())

    def checkpoint(self, path):
        """Writes a checkpoint file, as ``carom run --checkpoint`` does: the
        world, its run settings and species (from a scenario), and its
        thermostat with its generator's state, so that from_checkpoint (or
        ``carom run --restart PATH --until T``) goes on bit for bit. Written
        under a temporary name and renamed when complete."""
        run = None
        if self.run_settings is not None:
            r = self.run_settings
            run = native.Run(r["until"], -1 if r["events"] is None else r["events"], r["equilibrate"], r["window"],
                             int(r["controls"]), r["seed"])
        state = self._thermostat._state if self._thermostat is not None else None
        why = ctypes.create_string_buffer(_WHY_SIZE)
        if native.helper.carom_py_write_checkpoint(
                str(path).encode(), self._world(), ctypes.byref(run) if run is not None else None,
                self._species_text.encode() if self._species_text else None,
                ctypes.byref(state) if state is not None else None, why, _WHY_SIZE) != 0:
            raise FileError(why.value.decode())

    def snapshot(self):
        """The world's complete state as bytes (World.from_snapshot restores it)."""
        size = native.core.carom_world_snapshot_size(self._world())
        if size == 0:
            raise OutOfMemoryError("the snapshot would not fit in memory")
        buffer = ctypes.create_string_buffer(size)
        self._check(native.core.carom_world_snapshot(self._world(), buffer, size))
        return buffer.raw


class _ScenarioRun:
    """The loop of tools/runner.c without its outputs: stops at the
    equilibration time and at window ends, windows through advance."""

    def __init__(self, world, settings):
        self.world = world
        self.until = settings["until"]
        self.cap = -1 if settings["events"] is None else settings["events"]
        self.equilibrate = settings["equilibrate"]
        self.window = settings["window"]
        now = world.time
        self.equilibrated = not (self.equilibrate > now)
        self.origin = now
        self.index = 0
        if math.isinf(self.until) and self.cap < 0:
            raise CaromError("run_scenario: nothing bounds the run (expected run.until or run.events)")
        if self.window > 0 and math.isinf(self.until):
            raise CaromError("run_scenario: run.window needs run.until")

    def window_time(self, k):
        return self.origin + float(k) * self.window

    def next_stop(self):
        target = self.until
        if self.equilibrate > 0 and not self.equilibrated:
            target = min(target, self.equilibrate)
        if self.window > 0:
            target = min(target, self.window_time(self.index + 1))
        return target

    def go(self):
        world = self.world
        while True:
            counts = world.counts()
            if (self.cap >= 0 and counts["events"] >= self.cap) or counts["time"] >= self.until:
                return "ok"
            slice_ = -1 if self.cap < 0 else self.cap - counts["events"]
            target = self.next_stop()
            now = counts["time"]
            dt = target - now
            if self.window > 0 and self.cap < 0 and now + dt == target:
                status = world.advance(dt)
            else:
                status = world.run(target, slice_)
            if status == "stopped":
                return status
            now = world.time
            if not math.isfinite(now) or (math.isinf(target) and world.counts()["events"] == counts["events"]):
                raise CaromError("run_scenario: at t = %r no further event can happen, so the cap of %d events "
                                 "cannot be reached" % (counts["time"], self.cap))
            while self.window > 0 and self.window_time(self.index + 1) <= now:
                self.index += 1
            if not self.equilibrated and now >= self.equilibrate:
                world.reset_stats()
                self.equilibrated = True
            if now == counts["time"] and world.counts()["events"] == counts["events"] and now < target:
                raise CaromError("run_scenario: the run made no progress at t = %r" % now)


def _fill_polygons(defs, polygons, n):
    """Points the defs at polygon vertex arrays; returns the arrays to keep alive."""
    if polygons is None:
        return []
    if len(polygons) != n:
        raise ValueError("polygons: expected %d entries (None for a disk), got %d" % (n, len(polygons)))
    keep = []
    for k, vertices in enumerate(polygons):
        if vertices is None:
            continue
        v = np.ascontiguousarray(vertices, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 2:
            raise ValueError("polygons[%d]: expected shape (k, 2), got %s" % (k, v.shape))
        keep.append(v)
        defs["polygon_vertices"][k] = v.shape[0]
        defs["polygon"][k] = v.ctypes.data
    return keep


def _species_per_body(text, count):
    """"NAME COUNT NAME COUNT ..." as one name a body (None if absent)."""
    words = text.split()
    if not words:
        return None
    names = []
    for name, many in zip(words[0::2], words[1::2]):
        names.extend([name] * int(many))
    return np.array(names[:count]) if len(names) >= count else None
