"""Where the shim serves a name: derived for renames, measured for the rest.

A renamed or moved API (``renames()``: the table's renamed features and the scan's proven
moves) is served under each of its spellings on every release that has any of them: the
namespaces build that fill from the table alone, so its releases are derived here and a new
rename needs no other edit. Every other fill (``pl.load``, ``pltpu.repeat``, ...) is built by
code, so ``served.json`` holds the releases on which it was built when looked up
(``scripts/measure_served.py`` calls the shim on every scanned release, and keeps a rename's
row only where code serves it beyond what the facts derive: the params stand-ins, ...);
``tests/test_served.py`` measures the installed release again against both. A name JAX
itself has there is served too: the namespaces pass JAX's own names through.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TypedDict

from pallas_compat.facts._registry import registry
from pallas_compat.facts._table import (
    NAMESPACE_OF,
    Location,
    Spans,
    works_in,
)

SERVED_FILE = Path(__file__).with_name("served.json")
#: Keyword arguments that only steer scheduling or labels: dropped (with a warning) where the
#: installed JAX lacks them.
DROPPABLE = frozenset({"cost_estimate", "metadata"})
#: Every keyword the shim's ``pallas_call`` serves where the installed JAX lacks it: the old
#: kernel keyword, ``backend=`` (made params), ``scratch_shapes=`` (moved into a grid spec) and
#: the droppable.
SERVED_KEYWORDS = frozenset({"f", "kernel", "backend", "scratch_shapes", *DROPPABLE})


class ServedTable(TypedDict):
    """``served.json``: namespace alias -> fill name -> the releases it was built on."""

    source: str
    releases: list[str]
    namespaces: dict[str, dict[str, Spans]]


@functools.cache
def served_table() -> ServedTable:
    table: ServedTable = json.loads(SERVED_FILE.read_text())
    return table


def served_names() -> dict[str, dict[str, Spans]]:
    """Namespace alias -> each name the shim fills in -> the releases it serves it on: the
    fills built by code as measured, then every spelling of a rename as derived. What the docs'
    table of served names is made from."""
    found = {alias: dict(names) for alias, names in served_table()["namespaces"].items()}
    for (alias, name), spans in registry().rename_releases.items():
        found.setdefault(alias, {}).setdefault(name, spans)
    return found


def rename_releases(module: str, name: str) -> Spans | None:
    """The releases on which the shim serves ``module.name`` as a spelling of a renamed or
    moved API: every release that has one of its spellings. None when it is no such spelling."""
    alias = NAMESPACE_OF.get(module)
    return registry().rename_releases.get((alias, name)) if alias is not None else None


def fill_releases(module: str, name: str) -> Spans:
    """The releases on which the shim's namespace for ``module`` builds its fill ``name``."""
    alias = NAMESPACE_OF.get(module)
    if alias is None:
        return []
    measured = served_table()["namespaces"].get(alias, {}).get(name)
    if measured is not None:  # built by code (a rename some code serves further included)
        return measured
    return rename_releases(module, name) or []


def shim_serves(module: str, name: str, release: str) -> bool:
    """Does ``pallas_compat`` (its namespaces, or ``patch()``) give ``module.name`` on
    ``release``: a fill measured there, or JAX's own name (scanned)."""
    if works_in(fill_releases(module, name), release):
        return True
    return NAMESPACE_OF.get(module) is not None and works_in(
        Location(module, name).releases, release
    )
