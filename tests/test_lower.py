from __future__ import annotations

import jax
import pytest

import pallas_compat
from pallas_compat import pl

jnp = jax.numpy


def add(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def test_cross_lowers_a_kernel_for_tpu_on_this_machine() -> None:
    shape = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    call = pl.pallas_call(add, out_shape=shape)
    text = pallas_compat.lower(call, shape, shape, platform="tpu")
    assert "tpu_custom_call" in text


def test_plain_function_lowers_without_a_custom_call() -> None:
    shape = jax.ShapeDtypeStruct((4,), jnp.float32)
    text = pallas_compat.lower(lambda x: x * 2, shape, platform="tpu")
    assert "stablehlo.multiply" in text and "tpu_custom_call" not in text


def double(x_ref, o_ref):
    o_ref[...] = 2.0 * x_ref[...]


def test_one_dimensional_kernel_lowers_for_a_named_chip() -> None:
    """JAX 0.12's Mosaic asks which TPU it lowers for (1-D layouts); ``chip=`` answers."""
    shape = jax.ShapeDtypeStruct((1024,), jnp.float32)
    call = pl.pallas_call(double, out_shape=shape)
    for chip in ("v4", "v5e", "v6e"):
        assert "tpu_custom_call" in pallas_compat.lower(call, shape, platform="tpu", chip=chip)
    with pytest.raises(ValueError, match="unknown TPU chip 'v9'"):
        pallas_compat.lower(call, shape, platform="tpu", chip="v9")
