from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable

import pytest

from pallas_compat.shim import _fills, _warnings
from pallas_compat.shim._warnings import (
    SILENCE_ENV,
    PallasCompatDeprecationWarning,
    forget_warnings,
    warn_once,
)


def test_warns_once_per_key() -> None:
    forget_warnings()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            warn_once("a", "use b")
        warn_once("c", "use d")
    assert [str(w.message) for w in seen] == ["use b", "use d"]
    assert all(issubclass(w.category, DeprecationWarning) for w in seen)


def test_switch_silences(monkeypatch: pytest.MonkeyPatch) -> None:
    forget_warnings()
    monkeypatch.setenv(SILENCE_ENV, "1")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warn_once("e", "use f")
    assert not seen


def test_standard_filter_silences() -> None:
    forget_warnings()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=PallasCompatDeprecationWarning)
        warn_once("g", "use h")
    assert not seen


def _warned_at(use: Callable[[], object]) -> tuple[str, int]:
    """Where the one warning ``use()`` gives points: (file, line)."""
    forget_warnings()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        use()
    (warning,) = seen
    return warning.filename, warning.lineno


def test_a_warning_names_the_line_outside_the_shim_that_used_the_old_spelling() -> None:
    """However many of the shim's frames lie between (here ``backfilled`` building, then the
    call of what it built), the warning points at this file's line, as a user's would."""

    def old() -> None:
        """A stand-in for an old JAX function."""

    line = inspect.currentframe().f_lineno  # type: ignore[union-attr]
    assert _warned_at(lambda: warn_once("k1", "m")) == (__file__, line + 1)
    assert _warned_at(lambda: _fills.backfilled("x.old", old, "x.new")) == (__file__, line + 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        served = _fills.backfilled("x.older", old, "x.new")
    forget_warnings()
    assert _warned_at(lambda: served()) == (__file__, line + 7)


def test_importlib_s_own_frames_between_the_shim_s_are_stepped_over_as_warnings_does() -> None:
    """Where the shim reaches its own code again through an import, importlib's bootstrap lies
    between its frames; ``warnings`` skips such frames without counting them, and so must the
    count of the shim's. Frames with those file names are made here as Python makes them."""
    scope = {"warn_once": warn_once}
    for source, file in (
        ("def inner(): warn_once('k2', 'm')", _warnings.__file__),
        ("def via(): inner()", "<frozen importlib._bootstrap>"),
        ("def outer(): via()", _warnings.__file__),
    ):
        exec(compile(source, file, "exec"), scope)
    line = inspect.currentframe().f_lineno  # type: ignore[union-attr]
    assert _warned_at(lambda: scope["outer"]()) == (__file__, line + 1)
