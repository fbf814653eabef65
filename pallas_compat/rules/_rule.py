"""What a drift rule is: a stable code and name, what it checks, and how far ``migrate`` fixes it."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass


class Fix(str, enum.Enum):
    """How far ``migrate`` goes with a rule's finds; the values are what ``rules`` prints."""

    REWRITES = "migrate rewrites it"
    PARTLY = "migrate rewrites the forms it can prove, notes the rest"
    NOTES = "migrate notes it (a person decides)"
    NONE = "no fix (doctor only)"

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Example:
    """The rule at work: old code as people wrote it, and what ``migrate --target`` writes
    for it (the same text, with its note, where migrate leaves it to a person). The rule's
    docs show it; the tests hold doctor to finding it and migrate to writing ``after``."""

    before: str
    #: The text (None: ``before`` as it is), or a function giving it where it holds code kept
    #: elsewhere (``for_loop``'s local helper).
    after: str | Callable[[], str] | None = None
    target: str = "0.12.0.1"

    @property
    def migrated(self) -> str:
        if self.after is None:
            return self.before
        return self.after() if callable(self.after) else self.after


@dataclass(frozen=True)
class Rule:
    """One kind of drift. ``code`` and ``name`` never change once released (``# noqa``,
    ``--select`` and users' ``pyproject.toml`` name them)."""

    code: str
    name: str
    #: What it checks, in one line (``pallas-compat rules``).
    summary: str
    fix: Fix
    example: Example

    def __str__(self) -> str:
        return f"{self.code} {self.name}"
