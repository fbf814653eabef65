"""Three views of every old kernel of the corpora agree on every release: what ``doctor`` says
of its file (it runs with pallas_compat there; every use that breaks there is one migrate
rewrites, as the guides say), and what its patch, shim and migrate routes measured
(``reports/corpus``, ``reports/thirdparty``). A route that fails where the tools say it runs
must fail for a reason the report names (JAX's own change or limitation, a bug of the old
kernel); a route that runs where doctor says it does not is doctor being wrong the other way.

The committed records are measurements; doctor and migrate's promises are the code under
test, computed here.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from kernels.corpus._cases import cases as ops_cases
from kernels.thirdparty._cases import cases as library_cases
from kernels.thirdparty._libraries import LIBRARIES
from pallas_compat.facts import Location, scanned_releases
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._runs_on import location_of, with_shim_on
from pallas_compat.rules import RULES_BY_CODE, Fix
from pallas_compat.rules._use import Use
from report._corpus import validated, why_unfixed, works
from report._migrated import rewrites

REPO = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "pallas-compat"
NAME_RULES = frozenset({"PAL101", "PAL102"})


def committed(kind: str) -> dict[str, list[dict[str, Any]]]:
    return {
        path.stem.removeprefix("jax-"): json.loads(path.read_text())["results"]
        for path in sorted((REPO / "reports" / kind).glob("jax-*.json"))
    }


@cache
def uses(path: Path) -> tuple[Use, ...]:
    return tuple(uses_in(str(path), path.read_text()))


def migrate_rewrites(use: Use, release: str) -> bool:
    """The guides' "migrate rewrites it" for one use on ``release``: for a name, what migrate
    writes for it (``report/_migrated``); for anything else, its rule's word (only a rule that
    rewrites every form counts)."""
    rule = RULES_BY_CODE[use.code]
    if use.code in NAME_RULES and (place := location_of(str(use.api))) is not None:
        found = rewrites(*place, release)
        if found is not None:
            return found
    return rule.fix is Fix.REWRITES


def failure(record: dict[str, Any]) -> str:
    if record["status"] in ("works", "lowered only"):
        return str((record.get("lowered") or {}).get("detail", ""))
    return str(record.get("detail", ""))


def disagreements(kind: str, file_of: Any, source: Any) -> list[tuple[str, ...]]:
    results = committed(kind)
    native = {
        (source(r), r["kernel"]): r
        for records in results.values()
        for r in records
        if r["route"] == "native"
    }
    found = []
    for release, records in results.items():
        for record in records:
            home = native.get((source(record), record["kernel"]))
            old = Version(record["from"]) < Version(release)
            if record["route"] == "native" or not old or record["status"] == "dependency":
                continue
            if not validated(home):
                continue
            path = file_of(record)
            if path is None:
                continue
            these = uses(path)
            if record["route"] == "migrate":
                said = all(migrate_rewrites(u, release) for u in these if u.breaks_on(release))
            else:
                said = release in with_shim_on(these, scanned_releases())
            ran = works(record, home)
            reason = why_unfixed(failure(record), record["route"])
            named = not reason.startswith(("not known yet", "a gap"))
            where = (release, source(record), record["kernel"], record["route"])
            if said and not ran and not named:
                found.append(("runs, says the tool; fails for no named reason", *where))
            if ran and not said and record["route"] != "migrate":
                found.append(("runs, but doctor says it does not", *where))
    return found


def ops_file(record: dict[str, Any]) -> Path | None:
    files = {c.name: c.file for c in ops_cases()}
    path = CACHE / "ops" / record["from"] / files[record["kernel"]]
    return path if path.is_file() else None


def library_file(record: dict[str, Any]) -> Path | None:
    library = next(lib for lib in LIBRARIES if lib.name == record["library"])
    case = next(c for c in library_cases() if c.library == library and c.name == record["kernel"])
    path = CACHE / "libraries" / f"{library.name}-{library.version}" / library.package / case.file
    return path if path.is_file() else None


def fetched(folder: str) -> None:
    if not (CACHE / folder).is_dir():
        pytest.fail(f"the {folder} cache is missing: run scripts/fetch_{folder}.py (nox does)")


def test_ops_corpus_routes_agree_with_doctor_and_migrate() -> None:
    fetched("ops")
    found = disagreements("corpus", ops_file, lambda r: str(r["from"]))
    assert found == []


def test_library_routes_agree_with_doctor_and_migrate() -> None:
    fetched("libraries")
    found = disagreements("thirdparty", library_file, lambda r: f"{r['library']} {r['from']}")
    assert found == []


def test_a_use_migrate_leaves_is_no_promise() -> None:
    """The guides' word per use, checked on two uses of one old file: ``pltpu.delay`` (gone,
    no successor) is left; ``pltpu.TPUCompilerParams`` is rewritten."""
    given = "from jax.experimental.pallas import tpu as pltpu\nx = pltpu.delay\ny = pltpu.TPUCompilerParams\n"
    found = {str(u.api): migrate_rewrites(u, "0.12.0.1") for u in uses_in("<t>", given)}
    assert found == {"pltpu.delay": False, "pltpu.TPUCompilerParams": True}
    assert Location.parse("jax.experimental.pallas.tpu:delay").spelling == "pltpu.delay"
