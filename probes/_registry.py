"""A probe is a named, zero-argument function whose return value is recorded in the snapshot."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

DEFAULT_TIMEOUT_S = 120.0

#: Top-level snapshot sections a probe key may start with.
SECTIONS = ("environment", "modules", "features", "behaviours", "autodiff", "hardware")


@dataclass(frozen=True)
class Probe:
    """``key`` is ``section.name``: where the value lands in the snapshot."""

    key: str
    fn: Callable[[], Any]
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def title(self) -> str:
        """What the probe tries, in words: the first line of its docstring (the report uses it
        to describe a behaviour that changed)."""
        fn = self.fn.func if isinstance(self.fn, functools.partial) else self.fn
        doc = (fn.__doc__ or "").strip()
        return doc.splitlines()[0].replace("``", "`") if doc else ""

    def __post_init__(self) -> None:
        section, _, name = self.key.partition(".")
        if section not in SECTIONS or not name:
            raise ValueError(
                f"probe key {self.key!r} must be '<section>.<name>', section in {SECTIONS}"
            )


def probe(
    key: str, *, timeout_s: float = DEFAULT_TIMEOUT_S
) -> Callable[[Callable[[], Any]], Probe]:
    """Declare a probe in a group module."""

    def register(fn: Callable[[], Any]) -> Probe:
        return Probe(key, fn, timeout_s)

    return register


def probes_of(module: ModuleType) -> list[Probe]:
    """A group module's probes: its ``probes()`` hook if it has one, else its Probe objects."""
    hook = getattr(module, "probes", None)
    found = hook() if callable(hook) else [v for v in vars(module).values() if isinstance(v, Probe)]
    return sorted(found, key=lambda p: p.key)
