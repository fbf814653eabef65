"""What ``doctor`` and ``migrate`` were asked, typed: made once from the command line (the CLI
is the only module that sees ``argparse``), read by the modules that choose the files, the
releases and the rules, as doctor's ``Report`` is typed on the way out."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from pallas_compat.lint._tree import Exclusions

__all__ = ["Choice", "DoctorOptions", "Inputs", "MigrateOptions", "Mode"]


@dataclass(frozen=True)
class Inputs:
    """Which files are read, and how: the paths, what the walk leaves out, the processes
    and the cache folder (None: no cache)."""

    paths: tuple[str, ...]
    exclusions: Exclusions = field(default_factory=Exclusions)
    #: Worker processes; None: the CPUs this process may use.
    jobs: int | None = None
    cache: Path | None = None


@dataclass(frozen=True)
class Choice:
    """What the files are checked against, as the command line says it (``pyproject.toml``
    and the installed JAX fill in the rest: ``_settings``)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    target: str | None = None
    #: ``OLDEST:NEWEST``, as written.
    support: str | None = None


class Mode(str, enum.Enum):
    """What ``migrate`` does with a rewrite; the values are the flags' names."""

    DIFF = "diff"
    WRITE = "write"
    CHECK = "check"


@dataclass(frozen=True)
class DoctorOptions:
    inputs: Inputs
    choice: Choice
    #: text, json, html, github or sarif.
    format: str = "text"
    #: The API-diff page an HTML report links into.
    report: str | None = None
    #: The docs site whose rule pages HTML and SARIF link to.
    docs: str | None = None


@dataclass(frozen=True)
class MigrateOptions:
    inputs: Inputs
    choice: Choice
    mode: Mode = Mode.DIFF
