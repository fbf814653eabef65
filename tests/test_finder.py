"""doctor's finder: every drifted use in the fixture, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pallas_compat.lint._finder import Use, UseState, uses_in
from pallas_compat.lint._report import Finding
from tests.third_party import real_file

FIXTURE = Path(__file__).parent / "fixtures" / "migrate" / "old_kernels.py"


def expected() -> list[tuple[int, str]]:
    """(line, api) from the ``# drift: <api>`` markers written by hand in the fixture."""
    marks = []
    for number, line in enumerate(FIXTURE.read_text().splitlines(), start=1):
        if match := re.search(r"# drift: (.+)$", line):
            marks.append((number, match.group(1)))
    return marks


def test_every_drifted_use_and_nothing_else() -> None:
    uses = uses_in(str(FIXTURE), FIXTURE.read_text())
    assert [(u.line, u.api) for u in uses] == expected()


def test_release_ranges_and_verdicts() -> None:
    uses = uses_in("f.py", FIXTURE.read_text())
    load = next(u for u in uses if u.api == "pl.load")
    assert not load.breaks_on("0.4.30") and not load.breaks_on("0.8.3")
    assert load.state_on("0.7.0") is UseState.WORKS
    assert load.state_on("0.7.1") is UseState.WARNS  # the deprecation table of 0.7.1-0.8.3
    assert load.breaks_on("0.9.0") and load.breaks_on("0.12.0.1")
    order = next(u for u in uses if u.api.startswith("BlockSpec("))
    assert order.state_on("0.4.30") is UseState.WORKS
    # 0.4.31-0.4.34 swap the two back with a DeprecationWarning (test_deprecation_windows)
    assert order.state_on("0.4.31") is order.state_on("0.4.34") is UseState.WARNS
    assert order.breaks_on("0.4.35")


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
    uses = uses_in("f.py", source)
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
    uses = uses_in("bound.py", BOUND)
    line = {text.split(" = ")[0].strip(): n for n, text in enumerate(BOUND.splitlines(), 1)}
    assert [(u.line, u.api, u.certain) for u in uses] == [
        (line["old_named"], "BlockSpec(index_map, block_shape)", True),
        (line["old_bound"], "BlockSpec(index_map, block_shape)", True),
        (line["return pl.BlockSpec(a, b)"], "BlockSpec(?, ?): argument order unknown", False),
    ]
    unknown = uses[-1]
    assert not unknown.breaks_on("0.12.0.1") and "cannot tell" in unknown.verdict("0.12.0.1")
    finding = Finding.of(unknown, "0.12.0.1", ["0.12.0.1"], "JAX 0.12.0.1")
    assert finding.as_json()["breaks_on_target"] is None
    assert "took index_map first" in unknown.hint


def test_a_member_moved_out_of_an_enum_is_named_with_its_releases() -> None:
    """``pltpu.MemorySpace.ANY``: the scan reads each release's enum and its module."""
    source = "from jax.experimental.pallas import tpu as pltpu\nx = pltpu.MemorySpace.ANY\n"
    uses = uses_in("any.py", source)
    (use,) = [u for u in uses if u.api.endswith(".ANY")]
    assert use.api == "pltpu.MemorySpace.ANY" and use.hint.startswith("pl.ANY")
    # a member to 0.8.1; 0.8.2-0.9.0.1 keep ``MemorySpace.ANY = pallas_core.MemorySpace.ANY``
    assert use.certain and use.releases == (("0.6.2", "0.9.0.1"),)
    assert use.breaks_on("0.12.0.1") and not use.breaks_on("0.7.2")


# -- real third-party and JAX code (fetched libraries; vendored JAX files)

REAL_JAX = Path(__file__).parent / "fixtures" / "real"


def uses_of(path: Path) -> list[Use]:
    return uses_in(str(path), path.read_text())


def first(uses: list[Use], api: str) -> Use:
    return next(u for u in uses if u.api == api)


def test_a_triton_params_dict_is_named_for_its_backend_on_real_code() -> None:
    """fjformer's softmax: ``compiler_params=dict(triton=dict(...))`` is the Triton dict form,
    so the advice is the Triton class, not the TPU one."""
    uses = uses_of(real_file("fjformer", "pallas_operations/gpu/softmax/softmax.py"))
    params = first(uses, 'compiler_params={"triton": {...}}')
    assert params.hint.startswith("compiler_params=pltriton.CompilerParams(")
    assert params.releases == (("0.4.30", "0.6.0"),) and params.breaks_on("0.6.1")
    assert {"pl.load", "pl.store"} <= {u.api for u in uses}


def test_a_misspelt_triton_key_is_named_by_doctor() -> None:
    """jax-flash-attn2 wrote ``num_wraps``; the dict era ignored it, so it never failed."""
    uses = uses_of(real_file("jax-flash-attn2", "pallas_kernels/gpu_mha_kernel.py"))
    params = first(uses, 'compiler_params={"triton": {...}}')
    assert "num_wraps= is no triton param" in params.hint and "migrate drops it" in params.hint


def test_a_partial_of_pallas_call_is_read_like_the_call() -> None:
    """easydel decorates kernels with ``@partial(pl.pallas_call, ..., compiler_params=...)``."""
    path = real_file("easydel", "kernels/gpu_ops/_deprecated/pallas_gqa_flash_attention_2.py")
    lines = path.read_text().splitlines()
    params = [u for u in uses_of(path) if u.api == 'compiler_params={"triton": {...}}']
    assert len(params) == 3
    for use in params:  # each inside a partial(pl.pallas_call, ...) opened above it
        opened = max(n for n in range(use.line) if lines[n - 1].lstrip().startswith("@partial("))
        assert lines[opened].strip() == "pl.pallas_call,"


def test_a_block_spec_subclass_with_its_own_init_is_found() -> None:
    uses = uses_of(real_file("easydel", "kernels/tpu_ops/ring_attention_pallas/_utils.py"))
    (use,) = uses
    assert use.api == "class X(BlockSpec) with its own __init__" and use.breaks_on("0.12.0.1")
    assert "**" in use.hint


def test_a_memory_space_member_that_moved_is_found_on_real_code() -> None:
    """fjformer's paged attention: ``pltpu.TPUMemorySpace.ANY``, both the enum and the
    member drifted."""
    uses = uses_of(
        real_file("fjformer", "pallas_operations/tpu/paged_attention/paged_attention.py")
    )
    member = first(uses, "pltpu.TPUMemorySpace.ANY")
    assert member.hint.startswith("pl.ANY") and member.breaks_on("0.12.0.1")
    assert first(uses, "pltpu.TPUMemorySpace").hint.startswith("pltpu.MemorySpace")


@pytest.mark.parametrize(
    ("path", "api", "instead", "last"),
    [
        (
            ("recurrentgemma", "jax/pallas.py"),
            "jax._src.lax.control_flow.for_loop.for_loop",
            "jax.lax.fori_loop",
            "0.7.1",
        ),
        (
            REAL_JAX / "jax_0_4_30/splash_attention_mask_info.py",
            "jax.util",
            "from jax._src import util",
            "0.7.2",
        ),
        (
            REAL_JAX / "jax_0_6_2/ragged_paged_attention_kernel.py",
            "jax._src.dtypes.bit_width",
            "jax.dtypes.itemsize_bits",
            "0.8.1",
        ),
        (
            REAL_JAX / "jax_0_6_2/threefry.py",
            "jax._src.prng.threefry2x32_p",
            "jax._src.random.threefry2x32.threefry2x32_p",
            "0.10.1",
        ),
    ],
)
def test_jax_apis_outside_pallas_that_kernels_import_are_found(
    path: Path | tuple[str, str], api: str, instead: str, last: str
) -> None:
    """Kernel files import private JAX modules that moved or went: the scan proves the
    releases of each, as for Pallas names."""
    file = real_file(*path) if isinstance(path, tuple) else path
    use = first(uses_of(file), api)
    assert use.hint.startswith(instead) and use.releases[-1][1] == last
    assert use.breaks_on("0.12.0.1") and not use.breaks_on(last)
