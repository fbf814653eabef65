from __future__ import annotations

import warnings

import pytest

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
