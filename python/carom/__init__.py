"""carom: exact event-driven simulation of hard disks and spheres, from
Python. The engine is the C library libcarom (loaded through ctypes); this
package turns its bodies into numpy arrays and its failures into
exceptions carrying carom's messages. See the README's "Python" section."""

from .errors import (BoxTooSmallError, CaromError, FileError, InvalidArgumentError, JammedError, NotFoundError,
                     OutOfMemoryError, OutsideBoxError, OverlapError)
from .analysis import Analysis
from .thermostat import Thermostat
from .world import EVENT_KINDS, Event, World

__version__ = "0.1.0"

__all__ = ["World", "Analysis", "Thermostat", "Event", "EVENT_KINDS", "CaromError", "InvalidArgumentError", "OutOfMemoryError",
           "OutsideBoxError", "OverlapError", "BoxTooSmallError", "JammedError", "NotFoundError", "FileError"]
