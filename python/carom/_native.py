"""The ctypes side of carom: finds libcarom.so and its Python helper
libcarom_py.so, mirrors the public structs of carom.h, declares every
function used and checks at import that each struct has the size the C
compiler gave it (python/native/carom_py.h), so a header change that Python
does not follow fails loudly instead of reading the wrong bytes."""

import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t,
                    c_uint32, c_uint64, c_void_p)

import numpy as np


class Vec(Structure):
    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double)]


class Vec2(Structure):
    _fields_ = [("x", c_double), ("y", c_double)]


class Quat(Structure):
    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double), ("w", c_double)]


class Allocator(Structure):
    _fields_ = [("allocate", c_void_p), ("reallocate", c_void_p), ("release", c_void_p), ("user", c_void_p)]


class WorldDef(Structure):
    _fields_ = [("dim", c_int), ("box", Vec), ("boundary", c_int * 3), ("gravity", Vec),
                ("restitution", c_double), ("wall_restitution", c_double), ("elastic_below_speed", c_double),
                ("collapse_time", c_double), ("max_collisions_per_instant", c_int32),
                ("capacity_hint", c_int32), ("neighbour_shell", c_double), ("on_event", c_void_p),
                ("user", c_void_p), ("allocator", Allocator), ("container", c_void_p),
                ("tangential_restitution", c_double), ("wall_tangential_restitution", c_double),
                ("friction", c_double)]


class BodyDef(Structure):
    _fields_ = [("position", Vec), ("velocity", Vec), ("radius", c_double), ("mass", c_double),
                ("acceleration", Vec), ("orientation", Quat), ("angle", c_double),
                ("angular_velocity", Vec), ("inertia", c_double), ("polygon_vertices", c_int32),
                ("polygon", c_void_p)]


class BodyState(Structure):
    _fields_ = [("position", Vec), ("velocity", Vec), ("radius", c_double), ("mass", c_double),
                ("collisions", c_uint64), ("acceleration", Vec), ("orientation", Quat), ("angle", c_double),
                ("angular_velocity", Vec), ("inertia", c_double), ("polygon_vertices", c_int32)]


class Event(Structure):
    _fields_ = [("time", c_double), ("kind", c_int), ("i", c_int32), ("j", c_int32), ("impulse", c_double),
                ("direction", c_int32)]


class Stats(Structure):
    _fields_ = [("dim", c_int), ("bodies", c_int64), ("time", c_double), ("volume", c_double),
                ("kinetic_energy", c_double), ("potential_energy", c_double), ("temperature", c_double),
                ("momentum", Vec), ("events", c_int64), ("pair_events", c_int64), ("wall_events", c_int64),
                ("cell_events", c_int64), ("rest_events", c_int64), ("stale_events", c_int64),
                ("predictions", c_int64), ("window", c_double), ("mean_temperature", c_double),
                ("collision_rate", c_double), ("pressure", c_double), ("compressibility", c_double),
                ("wall_pressure", c_double), ("sensor_events", c_int64), ("control_work", c_double),
                ("kinematic_work", c_double), ("rotational_energy", c_double), ("angular_momentum", Vec),
                ("rotational_temperature", c_double)]


class Counts(Structure):
    _fields_ = [("time", c_double), ("events", c_int64), ("pair_events", c_int64), ("wall_events", c_int64),
                ("cell_events", c_int64), ("rest_events", c_int64), ("sensor_events", c_int64),
                ("stale_events", c_int64), ("predictions", c_int64)]


class SensorDef(Structure):
    _fields_ = [("axis", c_int), ("position", c_double), ("lo", Vec), ("hi", Vec)]


class FilterDef(Structure):
    _fields_ = [("law", c_int), ("max_acceleration", c_double), ("safety", c_double), ("window", c_double)]


class FilterResult(Structure):
    _fields_ = [("acceleration", Vec), ("criticality", c_double), ("speed_ratio", c_double), ("acted", c_int)]


class Thermostat(Structure):
    _fields_ = [("kind", c_int), ("temperature", c_double), ("rate", c_double), ("every", c_double),
                ("kick", c_double), ("rng", c_uint64 * 4), ("next", c_double), ("origin", c_double),
                ("index", c_int64), ("events", c_int64), ("free_count", c_int32)]


class CompressDef(Structure):
    _fields_ = [("rate", c_double), ("target", c_double), ("max_pressure", c_double), ("temperature", c_double),
                ("max_events", c_int64), ("neighbour_shell", c_double)]


class CompressResult(Structure):
    _fields_ = [("packing_fraction", c_double), ("pressure", c_double), ("time", c_double), ("events", c_int64),
                ("pair_events", c_int64), ("reached_target", c_int), ("jammed", c_int), ("capped", c_int),
                ("box_limited", c_int)]


class Run(Structure):
    _fields_ = [("until", c_double), ("events", c_int64), ("equilibrate", c_double), ("window", c_double),
                ("has_controls", c_int), ("seed", c_uint64), ("thermostat", Thermostat)]


EventCallback = CFUNCTYPE(c_int, c_void_p, POINTER(Event))

# The order of carom_py_struct_size's argument.
_MIRRORED = [WorldDef, BodyDef, BodyState, Event, Stats, Counts, SensorDef, FilterDef, FilterResult, Run,
             Thermostat]

_WIDTH = {3: Vec, 2: Vec2, 4: Quat}


def flat_dtype(struct):
    """A numpy dtype with the struct's layout (offsets and size from ctypes,
    which follows the C compiler's rules), vectors as float64 subarrays."""
    names, formats, offsets = [], [], []
    for name, kind in struct._fields_:
        if kind in (Vec, Vec2, Quat):
            fmt = ("<f8", (len(kind._fields_),))
        elif kind is c_double:
            fmt = "<f8"
        elif kind in (c_int, c_int32):
            fmt = "<i4"
        elif kind is c_int64:
            fmt = "<i8"
        elif kind is c_uint64:
            fmt = "<u8"
        elif kind is c_void_p:
            fmt = np.uintp
        else:
            continue  # nested structs Python never fills in bulk
        names.append(name)
        formats.append(fmt)
        offsets.append(getattr(struct, name).offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ctypes.sizeof(struct)})


def _library_dirs():
    here = os.path.dirname(os.path.abspath(__file__))
    given = os.environ.get("CAROM_LIB_DIR")
    if given:
        return [given]
    repo = os.path.dirname(os.path.dirname(here))
    return [here, os.path.join(repo, "build", "release"), os.path.join(repo, "build")]


def _load():
    tried = []
    for folder in _library_dirs():
        core = os.path.join(folder, "libcarom.so.0")
        helper = os.path.join(folder, "libcarom_py.so")
        if os.path.exists(core) and os.path.exists(helper):
            return ctypes.CDLL(core), ctypes.CDLL(helper)
        tried.append(folder)
    raise ImportError("carom: libcarom.so.0 and libcarom_py.so not found in " + ", ".join(tried) +
                      " (build them with cmake, install the package with scripts/python.sh, "
                      "or point CAROM_LIB_DIR at the folder that holds them)")


core, helper = _load()


def _declare(library, name, restype, *argtypes):
    function = getattr(library, name)
    function.restype = restype
    function.argtypes = list(argtypes)


W = c_void_p  # carom_world *
_declare(core, "carom_status_name", c_char_p, c_int)
_declare(core, "carom_default_world_def", WorldDef)
_declare(core, "carom_default_body_def", BodyDef)
_declare(core, "carom_default_sensor_def", SensorDef)
_declare(core, "carom_default_filter_def", FilterDef)
_declare(core, "carom_world_create", c_int, POINTER(WorldDef), POINTER(W), c_char_p, c_size_t)
_declare(core, "carom_world_destroy", None, W)
_declare(core, "carom_world_message", c_char_p, W)
_declare(core, "carom_world_definition", WorldDef, W)
_declare(core, "carom_world_body_count", c_int32, W)
_declare(core, "carom_world_time", c_double, W)
_declare(core, "carom_world_run", c_int, W, c_double, c_int64)
_declare(core, "carom_world_advance", c_int, W, c_double)
_declare(core, "carom_world_next_event_time", c_double, W)
_declare(core, "carom_world_get_body", c_int, W, c_int32, POINTER(BodyState))
_declare(core, "carom_world_set_body_velocity", c_int, W, c_int32, Vec)
_declare(core, "carom_world_set_body_acceleration", c_int, W, c_int32, Vec)
_declare(core, "carom_world_set_body_position", c_int, W, c_int32, Vec)
_declare(core, "carom_world_set_body_angular_velocity", c_int, W, c_int32, Vec)
_declare(core, "carom_world_drive_body", c_int, W, c_int32, Vec, c_double)
_declare(core, "carom_world_add_sensor", c_int, W, POINTER(SensorDef), POINTER(c_int32))
_declare(core, "carom_world_sensor_count", c_int32, W)
_declare(core, "carom_world_get_body_polygon", c_int, W, c_int32, POINTER(Vec2), c_int32, POINTER(c_int32))
_declare(core, "carom_world_set_body_filter", c_int, W, c_int32, POINTER(FilterDef))
_declare(core, "carom_world_get_body_filter", c_int, W, c_int32, POINTER(FilterResult))
_declare(core, "carom_world_get_least_clearance", c_int, W, c_int32, POINTER(c_double))
_declare(core, "carom_world_stats", Stats, W)
_declare(core, "carom_world_counts", Counts, W)
_declare(core, "carom_world_reset_stats", None, W)
_declare(core, "carom_world_snapshot_size", c_size_t, W)
_declare(core, "carom_world_snapshot", c_int, W, c_void_p, c_size_t)
_declare(core, "carom_world_restore", c_int, c_void_p, c_size_t, c_void_p, c_void_p, POINTER(W), c_char_p,
         c_size_t)
_declare(core, "carom_crc32c", c_uint32, c_uint32, c_void_p, c_size_t)

S = c_void_p  # carom_py_events *
_declare(helper, "carom_py_events_create", S)
_declare(helper, "carom_py_events_destroy", None, S)
_declare(helper, "carom_py_events_set_record", None, S, c_int)
_declare(helper, "carom_py_events_set_forward", None, S, EventCallback, c_void_p)
_declare(helper, "carom_py_events_data", POINTER(Event), S)
_declare(helper, "carom_py_events_count", c_int64, S)
_declare(helper, "carom_py_events_lost", c_int, S)
_declare(helper, "carom_py_events_clear", None, S)
_declare(helper, "carom_py_load_scenario", c_int, c_char_p, c_int, c_uint64, c_void_p, c_void_p, POINTER(W),
         POINTER(Run), POINTER(c_void_p), c_char_p, c_size_t)
_declare(helper, "carom_py_read_checkpoint", c_int, c_char_p, c_void_p, c_void_p, POINTER(W), POINTER(Run),
         POINTER(c_void_p), c_char_p, c_size_t)
_declare(helper, "carom_py_free", None, c_void_p)
_declare(helper, "carom_py_add_bodies", c_int, W, c_void_p, c_int32, POINTER(c_int32))
_declare(helper, "carom_py_get_states", c_int, W, c_int32, c_int32, c_void_p)
_declare(helper, "carom_py_struct_size", c_size_t, c_int)

# The world's callback: the helper's sink, which records and forwards.
ON_EVENT = ctypes.cast(helper.carom_py_on_event, c_void_p).value

for _which, _struct in enumerate(_MIRRORED):
    if helper.carom_py_struct_size(_which) != ctypes.sizeof(_struct):
        raise ImportError("carom: the Python mirror of %s has %d bytes but the C library's has %d "
                          "(python/carom/_native.py no longer follows include/carom.h)"
                          % (_struct.__name__, ctypes.sizeof(_struct), helper.carom_py_struct_size(_which)))

BODY_DEF = flat_dtype(BodyDef)
BODY_STATE = flat_dtype(BodyState)
EVENT = flat_dtype(Event)

A = c_void_p  # carom_py_analysis *
_declare(helper, "carom_py_analysis_open", A, W, S, c_char_p, c_double, c_double, c_double, c_int, c_double, c_int,
         c_int, c_char_p, c_char_p, c_size_t)
_declare(helper, "carom_py_analysis_next_time", c_double, A)
_declare(helper, "carom_py_analysis_sample", c_int, A, c_char_p, c_size_t)
_declare(helper, "carom_py_analysis_report", c_int, A, c_char_p, c_size_t)
_declare(helper, "carom_py_analysis_samples", c_int64, A)
_declare(helper, "carom_py_analysis_close", None, A)

T = POINTER(Thermostat)
_declare(helper, "carom_py_thermostat_start", c_int, T, W, c_uint64, c_char_p, c_size_t)
_declare(helper, "carom_py_thermostat_next_time", c_double, T)
_declare(helper, "carom_py_thermostat_apply", c_int, T, W, c_char_p, c_size_t)

_declare(core, "carom_default_compress_def", CompressDef)
_declare(core, "carom_compress", c_int, W, POINTER(CompressDef), POINTER(W), POINTER(CompressResult), c_char_p,
         c_size_t)
_declare(helper, "carom_py_write_checkpoint", c_int, c_char_p, W, POINTER(Run), c_char_p, T, c_char_p, c_size_t)
