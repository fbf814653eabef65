"""What the main job recorded under ``reports/`` for the installed release: the expectations of
tests that run the same code live, so that a regression fails the suite before ``nox`` reruns
(the record was written by an earlier run, never by the test)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jax
from packaging.version import Version

REPO = Path(__file__).resolve().parent.parent
KERNELS = REPO / "reports" / "kernels"


@cache
def kernel_statuses() -> dict[tuple[str, str], set[str]]:
    """(kernel, mode) -> the statuses recorded for the installed release; where it has no record
    (a release outside the default matrix), those of the recorded releases on either side."""
    records = {Version(path.stem.removeprefix("jax-")): path for path in KERNELS.glob("jax-*.json")}
    installed = Version(jax.__version__)
    if installed in records:
        chosen = [records[installed]]
    else:
        below = [v for v in records if v < installed]
        above = [v for v in records if v > installed]
        chosen = [records[v] for v in (max(below, default=None), min(above, default=None)) if v]
    statuses: dict[tuple[str, str], set[str]] = {}
    for path in chosen:
        for result in json.loads(path.read_text())["results"]:
            statuses.setdefault((result["kernel"], result["mode"]), set()).add(result["status"])
    return statuses


def recorded_status(kernel: str, mode: str) -> set[str]:
    found = kernel_statuses().get((kernel, mode))
    assert found, f"reports/kernels records no {kernel} in mode {mode}: rerun nox -s kernels"
    return found
