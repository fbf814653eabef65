"""Kernel code as users write it against the shim, for ``mypy`` (``nox -s lint``): old names
JAX dropped and new ones it lacks type-check through ``pallas_compat``'s stubs, JAX's own
names keep their types, and a name nobody has is an error (``expect_error`` below)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from pallas_compat import jax_util, pl, plgpu, pltpu, pltriton
from pallas_compat.pl import BlockSpec


def kernel(x_ref: Any, o_ref: Any) -> None:
    o_ref[...] = pl.load(x_ref, (pl.dslice(0, 8),)) + 1  # gone in 0.9: served by the shim


def run(x: jax.Array) -> jax.Array:
    params = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))  # renamed in 0.5.0
    space = pltpu.TPUMemorySpace.ANY  # renamed, and its members moved
    spec = BlockSpec((8,), lambda i: (i,))
    out: jax.Array = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[spec],
        out_specs=pl.BlockSpec((8,), lambda i: (i,), memory_space=space),
        compiler_params=params,
        interpret=True,
    )(x)
    return out


def other_backends() -> list[Any]:
    return [pltriton.TritonCompilerParams, plgpu.GPUCompilerParams, jax_util.safe_map]


def native_names_keep_their_types() -> jax.Array:
    return jnp.zeros(pl.cdiv(10, 4))


def expect_error() -> Any:
    return pl.no_such_name  # type: ignore[attr-defined]  # unused (an error) if this passed
