"""§3: grid order, out-of-bounds blocks on a length no block divides."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kernels._case import case, normal
from kernels.advanced import RANK1
from kernels.basics import double_kernel, sds
from pallas_compat import pl, pltpu


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def lexicographic(grid: tuple[int, int]) -> np.ndarray:
    return np.array([(i, j) for i in range(grid[0]) for j in range(grid[1])], dtype=np.float64)


@case(
    "copy_grid_recorder",
    "§3.1",
    inputs=lambda r: (normal(r, 16, 384),),
    reference=lambda x: (x, lexicographic((2, 3))),
    skip_modes={"interpret": "the grid-point recorder is a TPU-simulator feature"},
)
def copy_grid_recorder(interpret):
    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))

    def copy(x, params):
        return pl.pallas_call(
            copy_kernel,
            out_shape=sds(x),
            grid=(2, 3),
            in_specs=[spec],
            out_specs=spec,
            interpret=params,
        )(x)

    if isinstance(interpret, bool):  # lowering: the kernel alone
        return lambda x: copy(x, interpret)

    def recorded(x):
        visits: list[tuple[int, ...]] = []

        def recorder(token, grid_point, core_id):
            visits.append(tuple(int(c) for c in grid_point))
            return token  # must come back unchanged (chapter §3.1)

        out = jax.block_until_ready(copy(x, pltpu.InterpretParams(grid_point_recorder=recorder)))
        return out, np.array(visits, dtype=np.float64)

    return recorded


@case(
    "padded_tail_read",
    "§3.2",
    inputs=lambda r: (np.arange(1, 101, dtype=np.float32),),
    reference=lambda x: x,
    lowers=RANK1.format("(32,) of a (100,) array"),
)
def padded_tail_read(interpret):
    def call(x):
        peek = pl.pallas_call(
            copy_kernel,
            out_shape=jax.ShapeDtypeStruct((4, 32), jnp.float32),
            grid=(pl.cdiv(100, 32),),
            in_specs=[pl.BlockSpec((32,), lambda i: (i,))],
            out_specs=pl.BlockSpec((None, 32), lambda i: (i, 0)),
            interpret=interpret,
        )(x)
        return peek.reshape(-1)[:100]  # the 28 padded reads are garbage: only the 100 count

    return call


@case(
    "elementwise_non_divisible",
    "§3.2",
    inputs=lambda r: (normal(r, 100),),
    reference=lambda x: 2.0 * np.float64(x),
    lowers=RANK1.format("(32,) of a (100,) array"),
)
def elementwise_non_divisible(interpret):
    spec = pl.BlockSpec((32,), lambda i: (i,))
    return lambda x: pl.pallas_call(
        double_kernel,
        out_shape=sds(x),
        grid=(pl.cdiv(100, 32),),
        in_specs=[spec],
        out_specs=spec,
        interpret=interpret,
    )(x)
