"""The report's real-kernel section: JAX's own kernels of release X on release Y, per route.

Read from ``reports/corpus/jax-Y.json`` (``python -m kernels.corpus``). A case counts only
where it works natively on its own release X; one that does not is listed as dropped, with
the reason. Rows are X x kernel, columns Y; a cell gives each route's verdict.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from probes._report import Cell, Section, Table

ROUTE_LETTER = {"native": "native", "patch": "P", "shim": "S", "migrate": "M"}
MARK = {"works": "✓", "wrong": "✗", "error": "!", "dependency": "dep"}
LEGEND = (
    "Cells: P = `pallas_compat.patch()` on the unmodified file, S = only its Pallas imports "
    "changed to `from pallas_compat import ...`, M = `pallas-compat migrate` then plain JAX; "
    "✓ works (within the tolerance of a NumPy float64 reference), ✗ wrong, ! error, "
    "dep = the kernel needs a JAX API outside Pallas that the release lacks (a private helper "
    "that is gone, or a newer `jax.jit` form): its own dependency, not counted against the "
    "shim."
)


def validation(results: dict[str, dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(X, kernel) -> the native record of X's own run, where X ran."""
    found = {}
    for release, document in results.items():
        for record in document["results"]:
            if record["route"] == "native" and record["from"] == release:
                found[(release, record["kernel"])] = record
    return found


def tone(records: list[dict[str, Any]]) -> str:
    statuses = {r["status"] for r in records}
    if statuses & {"error", "wrong"}:
        return "bad"
    if statuses == {"works"}:
        return "good"
    return "info"


def corpus(results: dict[str, dict[str, Any]]) -> Section:
    releases = sorted(results, key=Version)
    native = validation(results)
    cells: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    for release in releases:
        for record in results[release]["results"]:
            if record["route"] != "native":
                cells.setdefault((record["from"], record["kernel"]), {}).setdefault(
                    release, []
                ).append(record)
    rows, dropped, problems = [], [], {}
    for (source, kernel), by_release in sorted(
        cells.items(), key=lambda kv: (Version(kv[0][0]), kv[0][1])
    ):
        check = native.get((source, kernel))
        if check is not None and check["status"] != "works":
            reason = check.get("detail") or f"max abs error {check.get('max_abs_err')}"
            dropped.append(
                [
                    Cell(source),
                    Cell(kernel),
                    Cell(f"{check['status']} on JAX {source}: {reason}", "info"),
                ]
            )
            continue
        label = (
            kernel if check is not None else f"{kernel} (not validated: JAX {source} did not run)"
        )
        row = [Cell(source), Cell(label)]
        for release in releases:
            records = by_release.get(release)
            if release == source:
                row.append(Cell("native ✓" if check else "—", "good" if check else "info"))
                continue
            if not records:
                row.append(Cell("—", "info"))
                continue
            text = " ".join(f"{ROUTE_LETTER[r['route']]}{MARK[r['status']]}" for r in records)
            row.append(Cell(text, tone(records)))
            for r in records:
                if r["status"] in ("error", "wrong"):
                    what = r.get("detail") or f"max abs error {r.get('max_abs_err')}"
                    key = (source, kernel, r["route"], r.get("whose", "—"), what)
                    problems.setdefault(key, []).append(release)
        rows.append(row)
    tables = [
        Table(
            ["from JAX", "kernel", *releases], rows, caption="kernel of release X, run on release Y"
        )
    ]
    if problems:
        problem_rows = [
            [
                Cell(source),
                Cell(kernel),
                Cell(route),
                Cell(who),
                Cell(", ".join(on)),
                Cell(what, "bad"),
            ]
            for (source, kernel, route, who, what), on in problems.items()
        ]
        tables.append(
            Table(
                ["from JAX", "kernel", "route", "whose", "on JAX", "first line"],
                problem_rows,
                caption="what went wrong",
            )
        )
    if dropped:
        tables.append(
            Table(
                ["from JAX", "kernel", "why dropped"],
                dropped,
                caption="not counted: wrong on their own release",
            )
        )
    return Section(
        "Real kernels: JAX's own ops on other releases",
        "corpus",
        "JAX's own kernels (`jax/experimental/pallas/ops`) of each release X, run on release Y "
        "under interpret mode on a CPU (GPU kernels with `interpret=True`; TPU kernels with "
        "their own `interpret=` or inside `pltpu.force_tpu_interpret_mode()`, which "
        "pallas-compat back-fills before JAX 0.7.0: the TPU simulator where the release has "
        "one, else the HLO interpreter): `python -m kernels.corpus`, `nox -s corpus`. "
        f"{LEGEND}",
        tables,
    )
