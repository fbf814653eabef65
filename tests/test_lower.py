from __future__ import annotations

import pytest

import pallas_compat
from pallas_compat import pl

jax = pytest.importorskip("jax")
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
