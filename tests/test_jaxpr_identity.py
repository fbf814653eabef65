"""A kernel through the shim traces to the identical jaxpr as the same kernel written directly
against the installed JAX: the shim costs nothing once a kernel is traced."""

from __future__ import annotations

import importlib
import inspect
import re

import jax
import pytest

import pallas_compat
from pallas_compat import pl, pltpu

jnp = jax.numpy
native_pl = importlib.import_module("jax.experimental.pallas")
native_tpu = importlib.import_module("jax.experimental.pallas.tpu")

pytestmark = pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def native_block_spec(block_shape, index_map):
    """BlockSpec in the order this JAX declares (read from its signature)."""
    first = next(iter(inspect.signature(native_pl.BlockSpec).parameters))
    if first == "index_map":
        return native_pl.BlockSpec(index_map, block_shape)
    return native_pl.BlockSpec(block_shape, index_map)


def native_params(**fields):
    """TPU compiler params as this JAX's own API spells them."""
    for name in ("CompilerParams", "TPUCompilerParams"):
        if name in vars(native_tpu):
            return getattr(native_tpu, name)(**fields)
    return {"mosaic": fields}


#: Some releases (0.4.38) print where each index map was written (``index_map_src_info=<lambda>
#: at tests/...py:52``): the two kernels' lambdas are on different lines of this file.
SOURCE_LINE = re.compile(r"(<[\w.<>]+> at )\S+:\d+")


def jaxpr_of(call, *args) -> str:
    return SOURCE_LINE.sub(r"\1<source>", str(jax.make_jaxpr(call)(*args)))


X = jnp.ones((16, 128), jnp.float32)
OUT = jax.ShapeDtypeStruct((16, 128), jnp.float32)
SEMANTICS = ("parallel",)


def direct():
    spec = native_block_spec((8, 128), lambda i: (i, 0))
    return native_pl.pallas_call(
        add_kernel,
        out_shape=OUT,
        grid=(2,),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=native_params(dimension_semantics=SEMANTICS),
        interpret=True,
    )


def test_new_style_through_the_shim() -> None:
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    shim = pl.pallas_call(
        add_kernel,
        out_shape=OUT,
        grid=(2,),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=pltpu.CompilerParams(dimension_semantics=SEMANTICS),
        interpret=True,
    )
    assert jaxpr_of(shim, X, X) == jaxpr_of(direct(), X, X)


@pytest.mark.parametrize("params", ["dict", "TPUCompilerParams"])
def test_old_style_through_the_shim(params: str) -> None:
    spec = pl.BlockSpec(lambda i: (i, 0), (8, 128))
    compiler_params = (
        {"mosaic": {"dimension_semantics": SEMANTICS}}
        if params == "dict"
        else pltpu.TPUCompilerParams(dimension_semantics=SEMANTICS)
    )
    shim = pl.pallas_call(
        f=add_kernel,
        out_shape=OUT,
        grid=(2,),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=compiler_params,
        interpret="interpret",
    )
    assert jaxpr_of(shim, X, X) == jaxpr_of(direct(), X, X)


def masked_kernel(load, x_ref, o_ref):
    mask = jnp.arange(8) < 5
    o_ref[...] = load(x_ref, (pl.ds(0, 8),), mask=mask, other=0.0)


def test_back_filled_load_is_the_old_primitive() -> None:
    """``pl.load`` on a release without it binds the same primitive as JAX's own old callable."""
    from jax._src.pallas import primitives

    x = jnp.ones((8,), jnp.float32)
    out = jax.ShapeDtypeStruct((8,), jnp.float32)

    def call(load):
        return native_pl.pallas_call(
            lambda x_ref, o_ref: masked_kernel(load, x_ref, o_ref), out_shape=out, interpret=True
        )

    assert jaxpr_of(call(pl.load), x) == jaxpr_of(call(primitives.load), x)
    assert pallas_compat.resolve(pallas_compat.FEATURES_BY_KEY["load"]).obj is not None
