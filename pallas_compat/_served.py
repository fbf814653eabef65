"""Where the shim serves a name: measured, not claimed.

``served.json`` holds, for each namespace, the releases on which each of its fills was built
when looked up (``scripts/measure_served.py`` calls the shim on every scanned release, and
``tests/test_served.py`` measures the installed one again). A name JAX itself has there is
served too: the namespaces pass JAX's own names through.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pallas_compat._facts import NAMESPACE_OF, Location, works_in

SERVED_FILE = Path(__file__).with_name("served.json")


@functools.cache
def served_table() -> dict[str, Any]:
    return json.loads(SERVED_FILE.read_text())


def fill_releases(module: str, name: str) -> list[list[str]]:
    """The releases on which the shim's namespace for ``module`` builds its fill ``name``."""
    alias = NAMESPACE_OF.get(module)
    return served_table()["namespaces"].get(alias, {}).get(name, []) if alias else []


def shim_serves(module: str, name: str, release: str) -> bool:
    """Does ``pallas_compat`` (its namespaces, or ``patch()``) give ``module.name`` on
    ``release``: a fill measured there, or JAX's own name (scanned)."""
    if works_in(fill_releases(module, name), release):
        return True
    return NAMESPACE_OF.get(module) is not None and works_in(
        Location(module, name).releases, release
    )
