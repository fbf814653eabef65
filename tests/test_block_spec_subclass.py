"""A user's ``BlockSpec`` subclass with its own ``__init__``: easydel's ``PatchBlockSpec``
(real code, read from the fetched library) by every route on the installed JAX.

From 0.10.0 Pallas rebuilds every spec with ``replace(memory_space=...)``, which calls the
subclass with all fields by keyword; the shim and ``patch()`` take that call apart, ``migrate``
adds ``**fields`` to the ``__init__``.
"""

from __future__ import annotations

import ast
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallas_compat.facts._table import BLOCK_SPEC_SUBCLASS, call_form_releases, works_in
from pallas_compat.lint._migrate import migrate_source
from tests.third_party import real_file

UTILS = "kernels/tpu_ops/ring_attention_pallas/_utils.py"


def real_class() -> str:
    """``class PatchBlockSpec(BlockSpec): ...`` as easydel wrote it (the rest of the file
    imports packages the corpus does not install)."""
    text = real_file("easydel", UTILS).read_text()
    (node,) = [
        s
        for s in ast.parse(text).body
        if isinstance(s, ast.ClassDef) and s.name == "PatchBlockSpec"
    ]
    lines = text.splitlines(keepends=True)
    return "".join(lines[node.lineno - 1 : node.end_lineno])


def define(route: str) -> Any:
    """The class as the route has it: the import line is the file's own."""
    source = "from jax.experimental.pallas import BlockSpec\n\n\n" + real_class()
    if route == "shim":
        source = source.replace(
            "from jax.experimental.pallas import", "from pallas_compat.pl import"
        )
    elif route == "migrate":
        source = migrate_source(source, jax.__version__)
    namespace: dict[str, Any] = {}
    exec(compile(source, f"patch_block_spec_{route}.py", "exec"), namespace)
    return namespace["PatchBlockSpec"]


def add_one(spec_class: Any, pl: Any) -> np.ndarray:
    spec = spec_class(lambda i: (i, 0), (8, 128))  # the old order, as the subclass takes it

    def kernel(x_ref: Any, o_ref: Any) -> None:
        o_ref[...] = x_ref[...] + 1.0

    x = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)
    call = pl.pallas_call(
        kernel,
        grid=(2,),
        in_specs=[spec],
        out_specs=spec,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
    )
    return np.asarray(call(x)) - np.asarray(x)


def test_migrate_passes_every_other_field_on() -> None:
    source = "from jax.experimental.pallas import BlockSpec\n\n\n" + real_class()
    code = migrate_source(source, "0.12.0.1")
    assert "def __init__(self, index_map, block_shape, **fields):" in code
    assert "super().__init__(block_shape=block_shape, index_map=index_map, **fields)" in code


@pytest.mark.parametrize("route", ["patch", "shim", "migrate"])
def test_the_real_subclass_works_by_each_route(route: str) -> None:
    import pallas_compat

    if route == "patch":
        pallas_compat.patch(warn=False)
    try:
        from jax.experimental import pallas as native_pl

        pl = pallas_compat.pl if route == "shim" else native_pl
        np.testing.assert_array_equal(add_one(define(route), pl), 1.0)
    finally:
        pallas_compat.unpatch()


def test_plain_jax_breaks_it_where_the_scan_says_specs_are_rebuilt() -> None:
    """The reason for the routes above: on a release that rebuilds specs by keyword, the
    unmodified class fails under plain JAX; elsewhere it works."""
    from jax.experimental import pallas as pl

    holds = works_in(call_form_releases(BLOCK_SPEC_SUBCLASS), jax.__version__)
    try:
        add_one(define("native"), pl)
    except TypeError as exc:
        assert not holds and "memory_space" in str(exc)
    else:
        assert holds
