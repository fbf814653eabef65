"""The matrix's result as a terminal table (release x route, then the first failure of each
run with what doctor says about its lines), as JSON (``--format json``, what ``--merge``
reads) or as an HTML page (``_page``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from packaging.version import Version

from pallas_compat._file_writes import write_atomic
from pallas_compat.matrix._failure_advice import advice
from pallas_compat.matrix._page import page
from pallas_compat.matrix._results import Run, Status, as_json
from pallas_compat.matrix._routes import columns


def table(runs: list[Run], project: Path) -> str:
    routes = columns({r.route for r in runs})
    releases = sorted({r.release for r in runs}, key=Version)
    cells = {(r.release, r.route): r.summary() for r in runs}
    widths = [max([len("JAX"), *map(len, releases)])] + [
        max([len(route), *(len(cells.get((rel, route), "")) for rel in releases)])
        for route in routes
    ]
    rows = [["JAX", *routes]] + [
        [release, *(cells.get((release, route), "-") for route in routes)] for release in releases
    ]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    failing = sorted(
        (r for r in runs if r.status is not Status.PASSED),
        key=lambda r: (Version(r.release), routes.index(r.route)),
    )
    if failing:
        lines += ["", "First failures:"]
    for run in failing:
        lines.append(f"  JAX {run.release} {run.route}: {run.first_error()}")
        for entry in advice(run, project):
            lines.append(
                f"    doctor: {entry.where}: {entry.code} {entry.api} ({entry.verdict}); "
                f"write: {entry.write_instead}"
            )
    passed = sum(r.status is Status.PASSED for r in runs)
    lines += ["", f"{passed} of {len(runs)} runs passed"]
    return "\n".join(lines) + "\n"


def render(
    format: str, runs: list[Run], command: list[str], project: Path, report: str | None
) -> str:
    if format == "json":
        return json.dumps(as_json(runs, command, str(project)), indent=1) + "\n"
    if format == "html":
        return page(runs, command, project, report)
    return table(runs, project)


def write_output(path: str | None, text: str) -> None:
    """stdout, or the whole file at once (nothing half-written if the run is stopped)."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_atomic(Path(path), text)
