"""PAL304 loop-body-index: a ``plgpu.nd_loop`` body that unpacks the index tuple, found for
the releases before ``NDLoopInfo`` and rewritten to read ``loop_info.index``."""

from __future__ import annotations

from pallas_compat.facts import release_ranges
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import migrate_source

SOURCE = """\
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(grid):
    @plgpu.nd_loop(grid, collective_axes="sm")
    def old(idx):
        \"\"\"One tile.\"\"\"
        mi, ni = idx
        return mi + ni

    @plgpu.nd_loop(grid, collective_axes="sm")
    def indexed(idx):
        return idx[0]

    @plgpu.nd_loop(grid, collective_axes="sm")
    def new(loop_info):
        mi, ni = loop_info.index
        return mi

    @plgpu.nd_loop(grid, collective_axes="sm")
    def unknown(step):
        return helper(step)
"""


def test_doctor_finds_the_bodies_that_unpack() -> None:
    uses = [u for u in uses_in("k.py", SOURCE) if u.code == "PAL304"]
    assert [u.line for u in uses] == [6, 12]
    info = release_ranges()["locations"]["jax.experimental.pallas.mosaic_gpu:NDLoopInfo"]
    first_info = info[0][0]
    assert uses[0].state_on(first_info).value == "breaks"
    assert f"from JAX {first_info}" in uses[0].hint


def test_migrate_unpacks_loop_info_index_first_thing() -> None:
    code = migrate_source(SOURCE, "0.12.0.1")
    assert (
        '    def old(loop_info):\n        """One tile."""\n        idx = loop_info.index\n' in code
    )
    assert (
        "    def indexed(loop_info):\n        idx = loop_info.index\n        return idx[0]" in code
    )
    assert "    def new(loop_info):\n        mi, ni = loop_info.index\n" in code
    assert "    def unknown(step):\n" in code


def test_a_target_that_hands_the_tuple_is_left_alone() -> None:
    assert migrate_source(SOURCE, "0.7.2") == SOURCE


HANDED = """\
import functools

from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(grid):
    def loop_body(m_offset, idx):
        mi, ni = idx
        return mi + m_offset

    plgpu.nd_loop(grid, collective_axes="sm")(functools.partial(loop_body, 0))
    plgpu.nd_loop(grid, collective_axes="sm")(loop_body)
    loop_body(0, (1, 2))
"""


def test_a_body_handed_over_by_name_reads_the_index() -> None:
    """tokamax 0.0.2's ragged dot: the body is a partial, and is also called with a tuple."""
    uses = [u for u in uses_in("k.py", HANDED) if u.code == "PAL304"]
    assert [u.line for u in uses] == [11]  # loop_body's first argument is no index
    code = migrate_source(HANDED, "0.12.0.1")
    assert "(lambda loop_info: functools.partial(loop_body, 0)(loop_info.index))" in code
    assert "    def loop_body(m_offset, idx):\n" in code and "loop_body(0, (1, 2))" in code
