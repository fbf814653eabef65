"""What a drift rule is: a stable code and name, what it checks, and how far ``migrate`` fixes it."""

from __future__ import annotations

import enum
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
class Rule:
    """One kind of drift. ``code`` and ``name`` never change once released (``# noqa``,
    ``--select`` and users' ``pyproject.toml`` name them)."""

    code: str
    name: str
    #: What it checks, in one line (``pallas-compat rules``).
    summary: str
    fix: Fix

    def __str__(self) -> str:
        return f"{self.code} {self.name}"
