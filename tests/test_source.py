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


# -- BlockSpec order told from what the arguments are bound to (downstream style)

BOUND = """\
from jax.experimental import pallas as pl


def index_map(i, j):
    return (i, j)


def block_shape(bm, bn):
    return (bm, bn)


tile = (8, 128)
old_named = pl.BlockSpec(index_map, block_shape(8, 128))
old_bound = pl.BlockSpec(index_map, tile)
new_named = pl.BlockSpec(block_shape(8, 128), index_map)
new_bound = pl.BlockSpec(tile, lambda i, j: (i, j))


def make(a, b):
    return pl.BlockSpec(a, b)
"""


def test_block_spec_order_from_bindings() -> None:
    uses = find_uses("bound.py", cst.parse_module(BOUND))
    line = {text.split(" = ")[0].strip(): n for n, text in enumerate(BOUND.splitlines(), 1)}
    assert [(u.line, u.api, u.certain) for u in uses] == [
        (line["old_named"], "BlockSpec(index_map, block_shape)", True),
        (line["old_bound"], "BlockSpec(index_map, block_shape)", True),
        (line["return pl.BlockSpec(a, b)"], "BlockSpec(?, ?): argument order unknown", False),
    ]
    unknown = uses[-1]
    assert not unknown.breaks_on("0.12.0.1") and "cannot tell" in unknown.verdict("0.12.0.1")
    assert unknown.as_record("0.12.0.1")["breaks_on_target"] is None
    assert "took index_map first" in unknown.hint


def test_a_member_moved_out_of_an_enum_is_named_with_its_releases() -> None:
    """``pltpu.MemorySpace.ANY``: the scan reads each release's enum (0.6.2-0.8.1 have it)."""
    source = "from jax.experimental.pallas import tpu as pltpu\nx = pltpu.MemorySpace.ANY\n"
    uses = find_uses("any.py", cst.parse_module(source))
    (use,) = [u for u in uses if u.api.endswith(".ANY")]
    assert use.api == "pltpu.MemorySpace.ANY" and use.hint.startswith("pl.ANY")
    assert use.certain and use.works == (("0.6.2", "0.8.1"),)
    assert use.breaks_on("0.12.0.1") and not use.breaks_on("0.7.2")
