"""carom's failures as Python exceptions. Each carries the status's name
(``status``) and carom's one-line message (``message``), which names the
body, the file position (FILE:LINE:COL) or the value at fault. They also
derive from the built-in exception a Python caller would expect (a bad value
is a ValueError, a missing body an IndexError, no memory a MemoryError)."""


class CaromError(Exception):
    """A call into carom failed; ``str(error)`` is carom's message."""

    status = "error"

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class InvalidArgumentError(CaromError, ValueError):
    status = "invalid argument"


class OutOfMemoryError(CaromError, MemoryError):
    status = "out of memory"


class OutsideBoxError(CaromError, ValueError):
    status = "outside box"


class OverlapError(CaromError, ValueError):
    status = "overlap"


class BoxTooSmallError(CaromError, ValueError):
    status = "box too small"


class JammedError(CaromError):
    """The run stopped at a jam; the world is consistent and may go on."""
    status = "jammed"


class NotFoundError(CaromError, IndexError):
    status = "not found"


class FileError(CaromError, ValueError):
    """A scenario or checkpoint file could not be read: the message says
    where (FILE:LINE:COL for a scenario) and what was expected."""
    status = "file"


# carom_status's values, in carom.h's order (CAROM_OK = 0 and CAROM_STOPPED = 8 are not failures).
BY_STATUS = {1: InvalidArgumentError, 2: OutOfMemoryError, 3: OutsideBoxError, 4: OverlapError,
             5: BoxTooSmallError, 6: JammedError, 7: NotFoundError}


def raise_for(status, message):
    """Raises the exception for a failed carom_status."""
    kind = BY_STATUS.get(status, CaromError)
    raise kind(message or kind.status)
