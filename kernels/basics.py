"""§0-§2: Refs, out_shape, grid, BlockSpec, program_id."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kernels._case import MATMUL, case, normal
from pallas_compat import pl


def sds(x):
    return jax.ShapeDtypeStruct(x.shape, x.dtype)


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def pair(rng, *shape):
    return normal(rng, *shape), normal(rng, *shape)


@case("add", "§0", inputs=lambda r: pair(r, 8), reference=lambda x, y: np.add(x, y, dtype=float))
def add(interpret):
    return lambda x, y: pl.pallas_call(add_kernel, out_shape=sds(x), interpret=interpret)(x, y)


def add_halves_kernel(x_ref, y_ref, o_ref):
    o_ref[pl.ds(0, 4)] = x_ref[pl.ds(0, 4)] + y_ref[pl.ds(0, 4)]
    o_ref[pl.ds(4, 4)] = x_ref[pl.ds(4, 4)] + y_ref[pl.ds(4, 4)]


@case(
    "add_ds_halves",
    "§0",
    inputs=lambda r: pair(r, 8),
    reference=lambda x, y: np.add(x, y, dtype=float),
)
def add_ds_halves(interpret):
    return lambda x, y: pl.pallas_call(add_halves_kernel, out_shape=sds(x), interpret=interpret)(
        x, y
    )


def sum_diff_kernel(x_ref, y_ref, s_ref, d_ref):
    x, y = x_ref[...], y_ref[...]
    s_ref[...] = x + y
    d_ref[...] = x - y


@case(
    "sum_diff",
    "§2.1",
    inputs=lambda r: pair(r, 4, 6),
    reference=lambda x, y: (np.add(x, y, dtype=float), np.subtract(x, y, dtype=float)),
)
def sum_diff(interpret):
    return lambda x, y: pl.pallas_call(
        sum_diff_kernel, out_shape=(sds(x), sds(x)), interpret=interpret
    )(x, y)


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


@case("double", "§2.1", inputs=lambda r: (normal(r, 4, 6),), reference=lambda x: 2.0 * x)
def double(interpret):
    return lambda x: pl.pallas_call(double_kernel, out_shape=sds(x), interpret=interpret)(x)


SCALE = 0.5


def bias_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = x_ref[...] * SCALE + w_ref[...]  # a Python float may be captured; arrays may not


@case(
    "bias_captured_scalar",
    "§2.1",
    inputs=lambda r: (normal(r, 4, 6), np.arange(6, dtype=np.float32)),
    reference=lambda x, w: np.float64(x) * SCALE + w,
)
def bias(interpret):
    return lambda x, w: pl.pallas_call(bias_kernel, out_shape=sds(x), interpret=interpret)(x, w)


def add2d(x, y, bm=64, bn=128, interpret=True):
    m, n = x.shape
    spec = pl.BlockSpec((bm, bn), lambda i, j: (i, j))
    return pl.pallas_call(
        add_kernel,
        out_shape=sds(x),
        grid=(m // bm, n // bn),
        in_specs=[spec, spec],
        out_specs=spec,
        interpret=interpret,
    )(x, y)


@case(
    "add2d_tiled",
    "§2.2",
    inputs=lambda r: pair(r, 256, 512),
    reference=lambda x, y: np.add(x, y, dtype=float),
)
def add2d_tiled(interpret):
    return lambda x, y: add2d(x, y, interpret=interpret)


def pid_kernel(o_ref):
    i, j = pl.program_id(0), pl.program_id(1)
    o_ref[...] = jnp.full(o_ref.shape, 10 * i + j, o_ref.dtype)


@case(
    "program_id_map",
    "§2.2",
    inputs=lambda r: (),
    reference=lambda: np.kron(np.array([[0, 1, 2], [10, 11, 12]]), np.ones((2, 2))),
    lowers="block (2, 2) of a (4, 6) array: TPU blocks need last two dims divisible by (8, 128)",
)
def program_id_map(interpret):
    return lambda: pl.pallas_call(
        pid_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 6), jnp.int32),
        grid=(2, 3),
        out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)),
        interpret=interpret,
    )()


def matmul_rc_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


@case(
    "matmul_row_column",
    "§2.3",
    inputs=lambda r: (normal(r, 256, 384), normal(r, 384, 512)),
    reference=lambda a, b: np.float64(a) @ np.float64(b),
    tolerance=MATMUL,
)
def matmul_row_column(interpret, bm=64, bn=128):
    def call(a, b):
        m, k = a.shape
        n = b.shape[1]
        return pl.pallas_call(
            matmul_rc_kernel,
            out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
            grid=(m // bm, n // bn),
            in_specs=[
                pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                pl.BlockSpec((k, bn), lambda i, j: (0, j)),
            ],
            out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
            interpret=interpret,
        )(a, b)

    return call
