"""One warning per back-fill, with the modern spelling, and one switch to silence them all.

The switch is the standard one: ``warnings.filterwarnings("ignore",
category=pallas_compat.PallasCompatDeprecationWarning)``; or, where code cannot be changed (a
third-party module run under ``patch()``), the environment variable
``PALLAS_COMPAT_SILENCE_DEPRECATIONS=1``.
"""

from __future__ import annotations

import os
import warnings

SILENCE_ENV = "PALLAS_COMPAT_SILENCE_DEPRECATIONS"


class PallasCompatDeprecationWarning(DeprecationWarning):
    """Old Pallas spelling served by pallas-compat; the message says what to write instead."""


_warned: set[str] = set()


def warn_once(key: str, message: str, *, stacklevel: int = 3) -> None:
    """Warn about back-fill ``key`` the first time it is used in this process."""
    if key in _warned:
        return
    _warned.add(key)
    if os.environ.get(SILENCE_ENV, "") not in ("", "0"):
        return
    warnings.warn(message, PallasCompatDeprecationWarning, stacklevel=stacklevel)


def forget_warnings() -> None:
    """Let every back-fill warn again (tests, and ``unpatch()``)."""
    _warned.clear()
