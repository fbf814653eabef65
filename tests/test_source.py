"""doctor's finder: every drifted use in the fixture, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

from pallas_compat._source import find_uses

FIXTURE = Path(__file__).parent / "fixtures" / "migrate" / "old_kernels.py"


def expected() -> list[tuple[int, str]]:
    """(line, api) from the ``# drift: <api>`` markers written by hand in the fixture."""
    marks = []
    for number, line in enumerate(FIXTURE.read_text().splitlines(), start=1):
        if match := re.search(r"# drift: (.+)$", line):
            marks.append((number, match.group(1)))
    return marks


def test_every_drifted_use_and_nothing_else() -> None:
    uses = find_uses(str(FIXTURE), cst.parse_module(FIXTURE.read_text()))
    assert [(u.line, u.api) for u in uses] == expected()


def test_release_ranges_and_verdicts() -> None:
    uses = find_uses("f.py", cst.parse_module(FIXTURE.read_text()))
    load = next(u for u in uses if u.api == "pl.load")
    assert not load.breaks_on("0.4.30") and not load.breaks_on("0.7.0")
    assert load.breaks_on("0.7.1") and load.breaks_on("0.12.0.1")
    order = next(u for u in uses if u.api.startswith("BlockSpec("))
    assert not order.breaks_on("0.4.30") and order.breaks_on("0.4.31")


def test_import_spellings_all_resolve() -> None:
    source = (
        "import jax\n"
        "import jax.experimental.pallas.tpu as t\n"
        "from jax.experimental.pallas import tpu\n"
        "a = t.TPUCompilerParams\n"
        "b = tpu.TPUCompilerParams\n"
        "c = jax.experimental.pallas.tpu.TPUCompilerParams\n"
        "d = TPUCompilerParams  # an unrelated local name\n"
    )
    uses = find_uses("f.py", cst.parse_module(source))
    assert [(u.line, u.api) for u in uses] == [(n, "pltpu.TPUCompilerParams") for n in (4, 5, 6)]
