"""The removed ``pl.load`` / ``pl.store`` / ``pl.swap`` in every spelling: one rewrite each.

Real code writes them with keywords (jax-flash-attn2 and easydel: ``pl.load(ref, idx=...,
mask=..., other=...)``, ``pl.store(ref, val=..., idx=..., mask=...)``); JAX's own tests used
``pl.swap`` for its value. The positional and keyword spellings must come out the same.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

from pallas_compat.lint._migrate import MARKER, migrate_source
from pallas_compat.rules._edits import Text
from pallas_compat.rules._load_store_calls import canonical
from tests.third_party import real_file


def bound(text: str, name: str) -> str | None:
    """The call as its arguments bind to the old signature: the leading ones by position."""
    source = Text(text)
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call)
    found = canonical(node, name, source)
    if found is None:
        return None
    leading = [
        source.segment(a.node.value if isinstance(a.node, ast.keyword) else a.node)
        for a in found.leading
    ]
    rest = [source.segment(a.node) for a in found.rest]
    return f"pl.{name}({', '.join([*leading, *rest])})"


@pytest.mark.parametrize(
    "text",
    [
        "pl.load(x_ref, (0, slice(None)), mask=m, other=0.0)",
        "pl.load(x_ref, idx=(0, slice(None)), mask=m, other=0.0)",
        "pl.load(x_ref_or_view=x_ref, mask=m, idx=(0, slice(None)), other=0.0)",
    ],
)
def test_every_spelling_of_a_load_binds_to_one(text: str) -> None:
    assert bound(text, "load") == "pl.load(x_ref, (0, slice(None)), mask=m, other=0.0)"


def test_a_call_that_cannot_be_bound_is_not() -> None:
    assert bound("pl.load(*args)", "load") is None
    assert bound("pl.store(ref, val=v)", "store") is None  # no index


@pytest.mark.any_release
@pytest.mark.parametrize(
    ("library", "file"),
    [
        ("jax-flash-attn2", "pallas_kernels/gpu_mha_kernel.py"),
        ("easydel", "kernels/gpu_ops/_deprecated/pallas_gqa_flash_attention_2.py"),
        ("easydel", "kernels/rms_norm.py"),
    ],
)
def test_real_keyword_loads_and_stores_are_rewritten(library: str, file: str) -> None:
    source = real_file(library, file).read_text()
    migrated = migrate_source(source, "0.12.0.1")
    tree = ast.parse(migrated)
    left = [
        ast.unparse(node.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("pl.load", "pl.store")
    ]
    assert not left and "pl.load is not in" not in migrated and "pl.store is not in" not in migrated
    assert "pltriton.load(" in migrated and "pltriton.store(" in migrated


@pytest.mark.any_release
def test_a_misspelt_triton_key_is_dropped_by_migrate_with_a_note() -> None:
    """jax-flash-attn2 wrote ``dict(triton=dict(num_wraps=..., num_stages=1))``: the dict-era
    lowering ignored ``num_wraps``; migrate drops it and says so (the shim drops it at run
    time: tests/test_thirdparty.py runs the kernel)."""
    source = real_file("jax-flash-attn2", "pallas_kernels/gpu_mha_kernel.py").read_text()
    migrated = migrate_source(source, "0.12.0.1")
    assert "num_wraps=4" not in migrated and "pltriton.CompilerParams(num_stages=1)" in migrated
    assert "dropped num_wraps=, which no JAX release's triton params know" in migrated


SWAPS = """\
from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    old = pl.swap(o_ref, (slice(None),), x_ref[...])  # the old value
    pl.swap(x_ref, idx=(slice(None),), val=old + 1)
    both = pl.swap(o_ref, (slice(None),), old, mask=None) + 1
"""


def test_swap_for_its_value_becomes_the_read_and_the_write() -> None:
    migrated = migrate_source(SWAPS, "0.12.0.1")
    lines = migrated.splitlines()
    assert "    old = o_ref[slice(None)]" in lines
    assert "    o_ref[slice(None)] = x_ref[...]  # the old value" in lines
    assert "    x_ref[slice(None)] = old + 1" in lines
    # inside a larger expression it is left, with a note
    assert "pl.swap(o_ref, (slice(None),), old, mask=None) + 1" in migrated
    assert MARKER in lines[-1]


def test_the_rewritten_swap_does_what_swap_did() -> None:
    """Run the rewrite on the installed JAX: the output holds the input, the input the old
    output plus one, as ``pl.swap`` left them."""
    import jax
    import jax.numpy as jnp

    source = migrate_source(SWAPS.rsplit("\n    both", 1)[0] + "\n", "0.12.0.1")
    namespace: dict[str, object] = {}
    exec(compile(source, "swaps.py", "exec"), namespace)
    x, o = np.arange(8, dtype=np.float32), np.full(8, 10, np.float32)

    def kernel(x_ref: jax.Array, o_in: jax.Array, x_out: jax.Array, o_ref: jax.Array) -> None:
        x_out[...] = x_ref[...]
        o_ref[...] = o_in[...]
        namespace["kernel"](x_out, o_ref)  # type: ignore[operator]

    from pallas_compat import pl

    shape = jax.ShapeDtypeStruct((8,), jnp.float32)
    x_after, o_after = pl.pallas_call(kernel, out_shape=(shape, shape), interpret=True)(x, o)
    np.testing.assert_array_equal(np.asarray(o_after), x)
    np.testing.assert_array_equal(np.asarray(x_after), o + 1)
