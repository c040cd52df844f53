"""Analysis at exact instants from Python: the observables of a scenario's
``analysis:`` section (g(r) per species pair, S(k), MSD and VACF, free
times and paths, collisions per species pair), computed by the same C code
as ``carom run``, so the files and numbers are the same bit for bit. A World
with an analysis stops its runs at every sample instant by itself."""

import csv
import ctypes
import io
import json
import math
import os
import shutil
import tempfile

import numpy as np

from . import _native as native
from .errors import CaromError

_SUFFIXES = {"rdf": "_rdf.csv", "structure_factor": "_sk.csv", "msd": "_msd.csv", "free_time": "_free_time.csv",
             "free_path": "_free_path.csv"}


class Analysis:
    """Made by World.analyse; see there."""

    def __init__(self, world, every, start, rdf, structure_factor, msd, flights):
        self._world = world
        self._handle = None
        self._scratch = None
        if not (math.isfinite(every) and every > 0):
            raise ValueError("analysis.every: expected a finite time > 0, got %r" % (every,))
        self._scratch = tempfile.mkdtemp(prefix="carom-analysis-")
        rdf = dict(rdf or {})
        sk = dict(structure_factor or {})
        msd = {"lags": 50, **dict(msd)} if msd is not None else {"lags": 0}
        flights = {"bins": 60, **dict(flights)} if flights is not None else {"bins": 0}
        for name, given, keys in (("rdf", rdf, {"max", "bins"}), ("structure_factor", sk, {"max"}),
                                  ("msd", msd, {"lags"}), ("flights", flights, {"bins"})):
            unknown = set(given) - keys
            if unknown:
                raise ValueError("analysis.%s: unknown key %r (expected %s)" % (name, sorted(unknown)[0],
                                                                                 ", ".join(sorted(keys))))
        why = ctypes.create_string_buffer(1024)
        handle = native.helper.carom_py_analysis_open(
            world._world(), world._sink, os.path.join(self._scratch, "a").encode(), float(every),
            math.nan if start is None else float(start), float(rdf.get("max", 0.0)), int(rdf.get("bins", 200)),
            float(sk.get("max", 0.0)), int(msd["lags"]), int(flights["bins"]),
            world._species_text.encode() if world._species_text else None, why, 1024)
        if not handle:
            shutil.rmtree(self._scratch, ignore_errors=True)
            raise CaromError(why.value.decode())
        self._handle = handle

    @property
    def next_time(self):
        return native.helper.carom_py_analysis_next_time(self._handle) if self._handle else math.inf

    @property
    def samples(self):
        return native.helper.carom_py_analysis_samples(self._handle) if self._handle else 0

    def _sample(self):
        why = ctypes.create_string_buffer(1024)
        if native.helper.carom_py_analysis_sample(self._handle, why, 1024) != 0:
            raise CaromError(why.value.decode())

    def write(self, prefix):
        """Writes PREFIX.json and PREFIX_*.csv, as ``carom run`` writes them
        for its analysis (each file whole or not at all)."""
        self._check_open()
        self._report()
        prefix = str(prefix)
        for suffix in [".json"] + list(_SUFFIXES.values()):
            made = os.path.join(self._scratch, "a" + suffix)
            if os.path.exists(made):
                shutil.copyfile(made, prefix + suffix + ".tmp")
                os.replace(prefix + suffix + ".tmp", prefix + suffix)

    def results(self):
        """Everything measured so far: "summary" (the JSON summary as a dict)
        and, for each observable asked for, its table as a numpy structured
        array with the CSV's columns ("rdf", "structure_factor", "msd",
        "free_time", "free_path")."""
        self._check_open()
        self._report()
        out = {"summary": json.load(open(os.path.join(self._scratch, "a.json")))}
        for name, suffix in _SUFFIXES.items():
            path = os.path.join(self._scratch, "a" + suffix)
            if os.path.exists(path):
                out[name] = _read_table(path)
        return out

    def _report(self):
        why = ctypes.create_string_buffer(1024)
        if native.helper.carom_py_analysis_report(self._handle, why, 1024) != 0:
            raise CaromError(why.value.decode())

    def _check_open(self):
        if not self._handle:
            raise CaromError("the analysis is closed")

    def close(self):
        """Stops the analysis (the world runs on without it)."""
        if self._handle:
            native.helper.carom_py_analysis_close(self._handle)
            self._handle = None
        if getattr(self, "_scratch", None):
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        world = getattr(self, "_world", None)
        if world is not None and getattr(world, "_analysis", None) is self:
            world._analysis = None

    __del__ = close


def _read_table(path):
    with open(path) as f:
        text = f.read()
    rows = list(csv.reader(io.StringIO(text)))
    names = rows[0]
    integer = {"count", "origins", "wavevectors"}
    dtype = [(name, np.int64 if name in integer else np.float64) for name in names]
    data = np.zeros(len(rows) - 1, dtype=dtype)
    for k, row in enumerate(rows[1:]):
        data[k] = tuple(int(v) if n in integer else (float(v) if v != "" else math.nan) for n, v in zip(names, row))
    return data
