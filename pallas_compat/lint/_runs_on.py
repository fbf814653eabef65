"""The releases a file (or a whole tree) runs on: unchanged, and through ``pallas_compat``.

"Unchanged" is every scanned release on which none of its uses breaks (a deprecation
warning still runs). "With pallas_compat" adds the releases where the shim serves each use
that breaks: a name where ``served.json`` measured its fill (or JAX has it), and the call
forms and keywords the shim's facades take on every release (``tests/test_shim_kernels.py``
runs each of them on every release of the default matrix), and the modules outside Pallas
that ``patch()`` installs where JAX dropped them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from pallas_compat.facts._served import SERVED_KEYWORDS, shim_serves
from pallas_compat.facts._table import ALIASES, NAMESPACE_OF, scanned_releases
from pallas_compat.lint._report import FileRuns, RunsOn
from pallas_compat.rules import gpu_mesh
from pallas_compat.rules._use import Use, UseState, runs

#: Rules whose old form the shim's facades (or ``patch()``) take on every release.
#: (PAL202 too: the shim's BlockSpec tells the two orders apart when it is called.)
FORMS_SERVED = frozenset(
    {
        *("PAL103", "PAL104", "PAL107", "PAL201", "PAL202", "PAL203", "PAL204", "PAL205"),
        *("PAL206", "PAL208", "PAL209", "PAL210", "PAL211", "PAL212", "PAL213"),
        *("PAL303", "PAL304"),
    }
)
#: ``pallas_call(name=...)``: the keyword a PAL207 use names.
KEYWORD = re.compile(r"^(?:pl\.)?pallas_call\((\w+)=")
MODULE_OF_ALIAS = {alias: module for module, alias in ALIASES.items()}


def location_of(api: str) -> tuple[str, str] | None:
    """``pltpu.TPUCompilerParams`` -> (module, name); None for a call form."""
    if not re.fullmatch(r"[\w.]+", api) or "." not in api:
        return None
    head, _, name = api.rpartition(".")
    return MODULE_OF_ALIAS.get(head, head), name


def served(use: Use, release: str) -> bool:
    """Does ``pallas_compat`` run this use on ``release`` (natively or by serving it)?"""
    if use.state_on(release) not in (UseState.BREAKS, UseState.UNKNOWN):
        return True
    if use.code in FORMS_SERVED:
        return True
    if not use.certain:
        return False
    keyword = KEYWORD.match(use.api)
    if use.code == gpu_mesh.RULE.code:
        return gpu_mesh.served_on(use.api, release)
    if use.code == "PAL207":
        return keyword is not None and keyword.group(1) in SERVED_KEYWORDS
    if use.api in NAMESPACE_OF:  # a module old files import (jax.util): patch() installs it,
        return True  # on every release (tests/test_outside.py runs the real files' imports)
    place = location_of(use.api)
    return place is not None and shim_serves(*place, release)


def unchanged_on(uses: Iterable[Use], releases: Sequence[str]) -> list[str]:
    found = list(uses)
    return [
        r
        for r in releases
        if all(u.state_on(r) not in (UseState.BREAKS, UseState.UNKNOWN) for u in found)
    ]


def with_shim_on(uses: Iterable[Use], releases: Sequence[str]) -> list[str]:
    found = list(uses)
    return [r for r in releases if all(served(u, r) for u in found)]


def spans(releases: Sequence[str]) -> str:
    return f"JAX {runs(releases)}" if releases else "no scanned release"


def ranges(uses: Iterable[Use]) -> RunsOn:
    """Where ``uses`` run: unchanged (``JAX 0.4.33-0.7.1``), with pallas_compat (``JAX
    0.4.30-0.12.0.1``). Uses that differ only in where they are count once."""
    found = list({dataclasses.replace(u, path="", line=0, column=0): None for u in uses})
    every = scanned_releases()
    return RunsOn(spans(unchanged_on(found, every)), spans(with_shim_on(found, every)))


def by_file(uses: Sequence[Use]) -> tuple[FileRuns, ...]:
    """One entry per file that has uses, in the order doctor found them."""
    files: dict[str, list[Use]] = {}
    for use in uses:
        files.setdefault(use.path, []).append(use)
    return tuple(FileRuns(path, ranges(found)) for path, found in files.items())


def line(where: str, runs: RunsOn) -> str:
    return (
        f"{where}: runs unchanged on {runs.runs_unchanged}; "
        f"with pallas_compat on {runs.with_pallas_compat}"
    )
