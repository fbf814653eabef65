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


def warn_once(key: str, message: str, *, stacklevel: int = 3) -> None:
    """Warn about back-fill ``key`` the first time it is used in this process."""
    held = _silenced.get()
    if held is not None:
        held.append((key, message))
        return
    if key in _warned or _quiet:
        return
    _warned.add(key)
    if os.environ.get(SILENCE_ENV, "") not in ("", "0"):
        return
    warnings.warn(message, PallasCompatDeprecationWarning, stacklevel=stacklevel)


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
