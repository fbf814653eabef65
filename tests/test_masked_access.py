"""pallas_compat/rules/masked_access.py: what migrate writes for a masked ``pl.load`` or
``pl.store`` on 0.12, where ``pltriton.load(ref.at[idx], mask=...)`` takes it and a static
slice past the end of the array is refused before the mask applies.

Each expected line was checked by hand: literal ``pl.dslice(start, n)`` starts become index
arrays (``start + jnp.arange(n)``), several of them an outer grid that broadcasts one axis
each; an index that a name could turn into a slice, ``None``, or a start known only at run
time stays as it was (JAX never checks a dynamic start); ``pl`` is imported only while used.
"""

from __future__ import annotations

import pytest

from pallas_compat.lint._migrate import migrate_source

HEAD = "import jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n\ndef k(x_ref, o_ref, m, i, k):\n"
PL_IMPORT = "from jax.experimental import pallas as pl\n"


@pytest.mark.parametrize(
    ("old", "new", "still_pl"),
    [
        (
            "v = pl.load(x_ref, (pl.dslice(0, 8), pl.dslice(16, 32)), mask=m, other=0.0)",
            "v = pltriton.load(x_ref.at[(jnp.arange(8))[:, None], (16 + jnp.arange(32))[None, :]],"
            " mask=m, other=0.0)",
            False,
        ),
        (
            "v = pl.load(x_ref, (pl.dslice(0, 8), pl.dslice(0, 4), pl.dslice(2, 2)), mask=m)",
            "v = pltriton.load(x_ref.at[(jnp.arange(8))[:, None, None], (jnp.arange(4))[None, :, None],"
            " (2 + jnp.arange(2))[None, None, :]], mask=m)",
            False,
        ),
        (
            "v = pl.load(x_ref, (i, pl.dslice(0, 8)), mask=m)",
            "v = pltriton.load(x_ref.at[i, jnp.arange(8)], mask=m)",
            False,
        ),
        (
            "v = pl.load(x_ref, pl.dslice(0, 8), mask=m)",
            "v = pltriton.load(x_ref.at[jnp.arange(8)], mask=m)",
            False,
        ),
        (
            "pl.store(o_ref, (pl.dslice(8, 8), 2), v, mask=m)",
            "pltriton.store(o_ref.at[8 + jnp.arange(8), 2], v, mask=m)",
            False,
        ),
        (  # two arrays and a name that may hold a slice: no outer grid can be told
            "v = pl.load(x_ref, (pl.dslice(0, 8), i, pl.dslice(0, 4)), mask=m)",
            "v = pltriton.load(x_ref.at[pl.dslice(0, 8), i, pl.dslice(0, 4)], mask=m)",
            True,
        ),
        (
            "v = pl.load(x_ref, (pl.dslice(0, 8), None), mask=m)",
            "v = pltriton.load(x_ref.at[pl.dslice(0, 8), None], mask=m)",
            True,
        ),
        (  # a start known at run time is never checked against the array's end
            "v = pl.load(x_ref, (pl.dslice(k, 8), 3), mask=m)",
            "v = pltriton.load(x_ref.at[pl.dslice(k, 8), 3], mask=m)",
            True,
        ),
    ],
)
def test_a_masked_access_is_rewritten_with_index_arrays_where_they_can_be_told(
    old: str, new: str, still_pl: bool
) -> None:
    out = migrate_source(f"{HEAD}    {old}\n", "0.12.0.1", frozenset({"PAL301"}))
    assert out.endswith(f"):\n    {new}\n")
    assert "from jax.experimental.pallas import triton as pltriton\n" in out
    assert (PL_IMPORT in out) is still_pl


SWAP_HEAD = "from jax.experimental import pallas as pl\n\n\ndef k(o_ref, i, v, args):\n"


@pytest.mark.parametrize("target", ["0.8.3", "0.12.0.1"])
def test_a_swap_used_for_its_value_becomes_its_read_then_its_write(target: str) -> None:
    """Where ``pl.swap`` is deprecated (0.8.3) or gone (0.12.0.1); on 0.4.30 it stays."""
    old = "    old = pl.swap(o_ref, (pl.ds(0, 8), i), v * 2)\n"
    out = migrate_source(SWAP_HEAD + old, target, frozenset({"PAL301"}))
    assert out == SWAP_HEAD + "    old = o_ref[pl.ds(0, 8), i]\n    o_ref[pl.ds(0, 8), i] = v * 2\n"
    assert migrate_source(SWAP_HEAD + old, "0.4.30", frozenset({"PAL301"})) == SWAP_HEAD + old


@pytest.mark.parametrize(
    "old",
    [
        "y = pl.swap(o_ref, i, v) + 1",  # its value inside an expression: no statement to split
        "old = pl.swap(o_ref, i, v, mask=i)",  # masked: no indexing form swaps under a mask
    ],
)
def test_a_swap_no_rewrite_fits_is_left_with_the_note(old: str) -> None:
    out = migrate_source(f"{SWAP_HEAD}    {old}\n", "0.12.0.1", frozenset({"PAL301"}))
    assert out == (
        f"{SWAP_HEAD}    {old}  # pallas-compat: pl.swap is not in JAX 0.12.0.1: "
        "old = x_ref[idx]; x_ref[idx] = v\n"
    )


LOAD_NOTE = (
    "x_ref[idx] (no mask); masked: pltriton.load(ref.at[idx], mask=..., other=...) on GPU, "
    "pltpu.load(ref.at[idx], mask=...) on TPU (JAX 0.7.1 on)"
)


@pytest.mark.parametrize(
    ("target", "fate"),
    [("0.7.1", "is deprecated in"), ("0.8.3", "is deprecated in"), ("0.9.0", "is not in")],
)
def test_a_call_no_rewrite_fits_is_noted_as_deprecated_where_the_target_still_has_it(
    target: str, fate: str
) -> None:
    """``pl.load(*args)`` cannot be bound to the old signature; the note says what the target
    does with ``pl.load``: 0.7.1-0.8.3 warn, 0.9 lacks it (the note said "is not in" for all)."""
    old = "    w = pl.load(*args)\n"
    out = migrate_source(SWAP_HEAD + old, target, frozenset({"PAL301"}))
    assert out == (
        f"{SWAP_HEAD}    w = pl.load(*args)  # pallas-compat: pl.load {fate} JAX {target}: "
        f"{LOAD_NOTE}\n"
    )
    assert migrate_source(SWAP_HEAD + old, "0.7.0", frozenset({"PAL301"})) == SWAP_HEAD + old
