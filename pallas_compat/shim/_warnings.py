"""One warning per back-fill, with the modern spelling, and the switches that silence them.

The category is ``pallas_compat.PallasCompatDeprecationWarning`` (a ``DeprecationWarning``),
so the standard switch works: ``warnings.filterwarnings("ignore",
category=pallas_compat.PallasCompatDeprecationWarning)``, also where a test suite runs with
``-W error``. Where code cannot be changed (a third-party module run under ``patch()``):
``pallas_compat.patch(warn=False)`` or the environment variable
``PALLAS_COMPAT_SILENCE_DEPRECATIONS=1``.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import types
import warnings
from collections.abc import Iterator

SILENCE_ENV = "PALLAS_COMPAT_SILENCE_DEPRECATIONS"


class PallasCompatDeprecationWarning(DeprecationWarning):
    """Old Pallas spelling served by pallas-compat; the message says what to write instead."""


_warned: set[str] = set()
#: While set, nothing warns and nothing is recorded as warned; a list collects what would
#: have warned: ``patch()`` building its fills, which warn later, where they are used.
_silenced: contextvars.ContextVar[list[tuple[str, str]] | None] = contextvars.ContextVar(
    "pallas_compat_silenced", default=None
)
#: ``patch(warn=False)`` in force.
_quiet = False
#: The folders whose frames are the shim's, this package's: a warning names the first line
#: outside them, the one that used the old spelling, however many of the shim's frames lie
#: between (a lookup through a namespace, a fill building another, ``patch()``'s module
#: ``__getattr__``). A tool that wraps the shim's functions adds its own (the tests do, under
#: mutmut).
INSIDE: tuple[str, ...] = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)


def internal(frame: types.FrameType) -> bool:
    """importlib's bootstrap, which ``warnings`` steps over without counting it."""
    name = frame.f_code.co_filename
    return "importlib" in name and "_bootstrap" in name


def user_stacklevel() -> int:
    """``warnings.warn``'s stacklevel, from ``warn_once``, of the first frame outside this
    package, counted as ``warnings`` counts."""
    frame: types.FrameType | None = sys._getframe(1)  # warn_once: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(INSIDE):
        frame = frame.f_back
        while frame is not None and internal(frame):
            frame = frame.f_back
        level += 1
    return level


def warn_once(key: str, message: str) -> None:
    """Warn about back-fill ``key`` the first time it is used in this process, at the line
    outside the shim that used it."""
    held = _silenced.get()
    if held is not None:
        held.append((key, message))
        return
    if key in _warned or _quiet:
        return
    _warned.add(key)
    if os.environ.get(SILENCE_ENV, "") not in ("", "0"):
        return
    warnings.warn(message, PallasCompatDeprecationWarning, stacklevel=user_stacklevel())


@contextlib.contextmanager
def silenced() -> Iterator[list[tuple[str, str]]]:
    """No warning in the block, and none recorded as warned (a later use still warns); the
    list holds each ``(key, message)`` the block would have warned with."""
    held: list[tuple[str, str]] = []
    token = _silenced.set(held)
    try:
        yield held
    finally:
        _silenced.reset(token)


def set_quiet(quiet: bool) -> None:
    """``patch(warn=False)``: no back-fill warns until ``unpatch()``."""
    global _quiet
    _quiet = quiet


def forget_warnings() -> None:
    """Let every back-fill warn again (tests, and ``unpatch()``)."""
    _warned.clear()
