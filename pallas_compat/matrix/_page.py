"""``pallas-compat matrix --format html``: the release x route table and every failure with its
first error and what doctor says about the lines it passed through, in the report's style.
One self-contained page; every string escaped."""

from __future__ import annotations

import html
from pathlib import Path

from packaging.version import Version

from pallas_compat.lint._render_html import STYLE
from pallas_compat.matrix._failure_advice import advice
from pallas_compat.matrix._results import Run, Status
from pallas_compat.matrix._routes import columns

#: Release numbers never wrap mid-number; test ids read left to right.
OWN_STYLE = ".col,.grid td{white-space:nowrap}.test{text-align:left;font-weight:normal}"

TONES = {Status.PASSED: "good", Status.FAILED: "bad", Status.ERROR: "bad"}


def cell_id(run: Run) -> str:
    return f"run-{run.release.replace('.', '-')}-{run.route}"


def failure_section(run: Run, project: Path, report: str | None) -> str:
    esc = html.escape
    items = (
        "".join(f"<li><code>{esc(f.test)}</code>: {esc(f.error)}</li>" for f in run.failures)
        or f"<li>{esc(run.reason)}</li>"
    )
    found = advice(run, project)
    said = ""
    if found:
        rows = []
        for entry in found:
            api = esc(entry.api)
            if report:
                api = f'<a href="{esc(report)}#{esc(entry.anchor)}">{api}</a>'
            rows.append(
                f"<tr><td>{esc(entry.where)}</td><td>{esc(entry.code)}</td><td>{api}</td>"
                f"<td>{esc(entry.verdict)}</td><td>{esc(entry.write_instead)}</td></tr>"
            )
        said = (
            "<p>What <code>pallas-compat doctor</code> says about the lines these failures "
            "passed through:</p><table><tr><th>where</th><th>rule</th><th>API</th>"
            f"<th>verdict</th><th>write instead</th></tr>{''.join(rows)}</table>"
        )
    return (
        f'<section id="{cell_id(run)}"><h3>JAX {esc(run.release)}, {esc(run.route)}: '
        f"{esc(run.summary())}</h3><ul>{items}</ul>{said}</section>"
    )


def per_test(runs: list[Run], releases: list[str], routes: list[str]) -> str:
    """A row per test that failed in some run, a column per release and route that ran tests
    (one that could not install is in the table above)."""
    esc = html.escape
    by_cell = {(r.release, r.route): r.outcomes for r in runs if r.outcomes}
    columns = [(rel, route) for rel in releases for route in routes if (rel, route) in by_cell]
    names = sorted({t for outcomes in by_cell.values() for t in outcomes})
    uneven = [t for t in names if any(by_cell[c].get(t) == "failed" for c in columns)]
    if not uneven:
        return ""
    head = "".join(f'<th class="col">{esc(rel)}<br>{esc(route)}</th>' for rel, route in columns)
    rows = []
    for test in uneven:
        cells = []
        for column in columns:
            outcome = by_cell[column].get(test, "not run")
            tone = {"passed": "good", "failed": "bad"}.get(outcome, "info")
            cells.append(f'<td class="{tone}">{esc(outcome)}</td>')
        rows.append(f'<tr><th class="test">{esc(test)}</th>{"".join(cells)}</tr>')
    return (
        f"<h2>Tests that failed somewhere ({len(uneven)} of {len(names)})</h2>"
        f'<table class="grid"><tr><th>test</th>{head}</tr>{"".join(rows)}</table>'
    )


def page(runs: list[Run], command: list[str], project: Path, report: str | None) -> str:
    esc = html.escape
    routes = columns({r.route for r in runs})
    releases = sorted({r.release for r in runs}, key=Version)
    by_cell = {(r.release, r.route): r for r in runs}
    rows = []
    for release in releases:
        cells = []
        for route in routes:
            run = by_cell.get((release, route))
            if run is None:
                cells.append('<td class="info">-</td>')
                continue
            text = esc(run.summary())
            if run.status is not Status.PASSED:
                text = f'<a href="#{cell_id(run)}">{text}</a>'
            cells.append(f'<td class="{TONES.get(run.status, "info")}">{text}</td>')
        rows.append(f"<tr><th>{esc(release)}</th>{''.join(cells)}</tr>")
    head = "".join(f"<th>{esc(route)}</th>" for route in routes)
    failing = sorted(
        (r for r in runs if r.status is not Status.PASSED),
        key=lambda r: (Version(r.release), routes.index(r.route)),
    )
    passed = len(runs) - len(failing)
    tests = per_test(runs, releases, routes)
    title = f"pallas-compat matrix: {passed} of {len(runs)} runs passed"
    sections = "".join(failure_section(run, project, report) for run in failing)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}{OWN_STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1>"
        f"<p><code>{esc(' '.join(command))}</code> in {esc(project.name)}, on each JAX release "
        "by each route: <b>native</b> the code as it is, <b>patch</b> with "
        "<code>pallas_compat.patch()</code>, <b>migrate</b> after <code>pallas-compat migrate "
        "--write --target</code> the release.</p>"
        f"<table><tr><th>JAX</th>{head}</tr>{''.join(rows)}</table>"
        + tests
        + (f"<h2>Failures</h2>{sections}" if sections else "")
        + "</body></html>\n"
    )
