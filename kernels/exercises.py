"""The chapter's four exercises, solved: AXPY with scalar inputs, column sums, RMSNorm (+ vmap),
SiLU with a Pallas backward kernel."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.test_util import check_grads

import pallas_compat
from kernels._case import Tolerance, case, f64, normal
from kernels.transforms import NO_FLOAT64
from pallas_compat import pl

COLSUM = Tolerance(1e-5, 1e-4, "float32 sums of 300 terms (as the chapter's row sums, §4.4)")
RMS = Tolerance(1e-5, 1e-6, "float32 mean of squares and rsqrt per row")
SILU = Tolerance(1e-5, 1e-6, "float32 sigmoid and its derivative, elementwise")
RMS_EPS = 1e-6


def axpy(x, alpha, beta, block=128, interpret=True):
    """y = alpha * x + beta; the scalars come in as (1,) arrays that every program shares."""
    n = x.shape[0]
    spec = pl.BlockSpec((block,), lambda i: (i,))
    scalar = pl.BlockSpec((1,), lambda i: (0,))

    def kernel(x_ref, a_ref, b_ref, o_ref):
        o_ref[...] = a_ref[0] * x_ref[...] + b_ref[0]  # elementwise: no mask needed

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(n, block),),
        in_specs=[spec, scalar, scalar],
        out_specs=spec,
        interpret=interpret,
    )(x, alpha, beta)


#: Exercise 1's own self-check (rtol=1e-6, atol=1e-6): a multiply and an add per element. With
#: rtol alone the verdict hung on how XLA compiled them: at optimization level 0 its CPU
#: backend missed 1e-6 relative where alpha * x and beta nearly cancel.
AXPY = Tolerance(1e-6, 1e-6, "float32 multiply-add: two roundings per element (Exercise 1)")


@case(
    "exercise_axpy_scalar_inputs",
    "Exercise 1",
    inputs=lambda r: (normal(r, 1000), np.float32([1.5]), np.float32([-0.25])),
    reference=lambda x, a, b: f64(a)[0] * f64(x) + f64(b)[0],
    tolerance=AXPY,
)
def exercise_axpy(interpret):
    return jax.jit(lambda x, a, b: axpy(x, a, b, interpret=interpret))


def colsum(x, br=128, bc=128, interpret=True):
    rows, cols = x.shape

    def kernel(x_ref, o_ref):
        i = pl.program_id(1)  # the reduction runs over row blocks: last in the grid

        @pl.when(i == 0)
        def _init():
            o_ref[...] = jnp.zeros_like(o_ref)

        row = i * br + lax.broadcasted_iota(jnp.int32, x_ref.shape, 0)
        o_ref[...] += jnp.sum(jnp.where(row < rows, x_ref[...], 0.0), axis=0)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((cols,), jnp.float32),
        grid=(pl.cdiv(cols, bc), pl.cdiv(rows, br)),
        in_specs=[pl.BlockSpec((br, bc), lambda j, i: (i, j))],
        out_specs=pl.BlockSpec((bc,), lambda j, i: (j,)),
        interpret=interpret,
    )(x)


@case(
    "exercise_column_sums",
    "Exercise 2",
    inputs=lambda r: (normal(r, 300, 256),),
    reference=lambda x: f64(x).sum(0),
    tolerance=COLSUM,
)
def exercise_colsum(interpret):
    return lambda x: colsum(x, interpret=interpret)


def rmsnorm_kernel(x_ref, w_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + RMS_EPS) * w_ref[...]


def rmsnorm(x, w, br=8, interpret=True):
    rows, cols = x.shape
    return pl.pallas_call(
        rmsnorm_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br),),
        in_specs=[
            pl.BlockSpec((br, cols), lambda i: (i, 0)),
            pl.BlockSpec((1, cols), lambda i: (0, 0)),
        ],
        out_specs=pl.BlockSpec((br, cols), lambda i: (i, 0)),
        interpret=interpret,
    )(x, w)


def rmsnorm_ref(x, w):
    x = f64(x)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + RMS_EPS) * f64(w)


@case(
    "exercise_rmsnorm",
    "Exercise 3",
    inputs=lambda r: (normal(r, 50, 384), 1.0 + 0.1 * normal(r, 1, 384)),
    reference=rmsnorm_ref,
    tolerance=RMS,
)
def exercise_rmsnorm(interpret):
    return lambda x, w: rmsnorm(x, w, interpret=interpret)


@case(
    "exercise_rmsnorm_vmap",
    "Exercise 3",
    inputs=lambda r: (normal(r, 4, 50, 384), 1.0 + 0.1 * normal(r, 1, 384)),
    reference=lambda x, w: np.stack([rmsnorm_ref(b, w) for b in x]),
    tolerance=RMS,
)
def exercise_rmsnorm_vmap(interpret):
    return jax.vmap(lambda x, w: rmsnorm(x, w, interpret=interpret), in_axes=(0, None))


def silu_with_vjp(interpret, block=(16, 128)):
    def tiled(kernel, *arrays):
        rows, cols = arrays[0].shape
        spec = pl.BlockSpec(block, lambda i, j: (i, j))
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct(arrays[0].shape, arrays[0].dtype),
            grid=(rows // block[0], cols // block[1]),
            in_specs=[spec] * len(arrays),
            out_specs=spec,
            interpret=interpret,
        )(*arrays)

    def fwd_kernel(x_ref, o_ref):
        x = x_ref[...]
        o_ref[...] = x * jax.nn.sigmoid(x)

    def bwd_kernel(x_ref, g_ref, o_ref):
        x = x_ref[...]
        s = jax.nn.sigmoid(x)
        o_ref[...] = g_ref[...] * s * (1 + x * (1 - s))

    @jax.custom_vjp
    def silu(x):
        return tiled(fwd_kernel, x)

    silu.defvjp(lambda x: (tiled(fwd_kernel, x), x), lambda x, g: (tiled(bwd_kernel, x, g),))
    return silu


def silu_grad_ref(x):
    x = f64(x)
    s = 1.0 / (1.0 + np.exp(-x))
    return s * (1 + x * (1 - s))


@case(
    "exercise_silu_grad",
    "Exercise 4",
    inputs=lambda r: (normal(r, 64, 256),),
    reference=silu_grad_ref,
    tolerance=SILU,
)
def exercise_silu_grad(interpret):
    silu = silu_with_vjp(interpret)
    return jax.grad(lambda x: jnp.sum(silu(x)))


def silu_checked(interpret, dtype):
    silu = silu_with_vjp(interpret)

    def run(x):
        if isinstance(x, jax.core.Tracer):  # lowering: the differentiated function
            return jax.grad(lambda v: jnp.sum(silu(v)))(x)
        if dtype == "float64":
            with pallas_compat.enable_x64():
                check_grads(silu, (jnp.asarray(x, jnp.float64),), order=1, modes=["rev"])
        else:
            check_grads(silu, (x,), order=1, modes=["rev"])
        return np.zeros(())

    return run


CHECKED = Tolerance(0.0, 0.0, "check_grads raises on a mismatch; the case returns 0 when it passes")


@case(
    "exercise_silu_check_grads_float32",
    "Exercise 4",
    inputs=lambda r: (normal(r, 64, 256),),
    reference=lambda x: np.zeros(()),
    tolerance=CHECKED,
)
def exercise_silu_check_grads_f32(interpret):
    return silu_checked(interpret, "float32")


@case(
    "exercise_silu_check_grads_float64",
    "Exercise 4",
    inputs=lambda r: (normal(r, 64, 256),),
    reference=lambda x: np.zeros(()),
    tolerance=CHECKED,
    skip_modes={"tpu_sim": NO_FLOAT64},
)
def exercise_silu_check_grads_f64(interpret):
    return silu_checked(interpret, "float64")
