"""§5: jit with static block sizes, vmap, grad through custom_vjp with a Pallas backward."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.test_util import check_grads

import pallas_compat
from kernels._case import MATMUL, Tolerance, case, f64, normal
from kernels.advanced import (
    masked_inputs,
    matmul_acc,
    matmul_masked,
    mm_inputs,
    mm_ref,
    row_call,
    softmax_kernel,
    softmax_ref,
)
from kernels.basics import add2d
from pallas_compat import pl

GRAD = Tolerance(1e-4, 1e-6, "softmax VJP in float32 against the float64 formula (chapter §5.3)")
#: Why float64 checks do not run in the TPU simulator.
NO_FLOAT64 = (
    "TPUs have no float64, and JAX's TPU simulator under enable_x64 fails on several "
    "releases (RuntimeError: Incorrect output dtype)"
)
CHECK = Tolerance(0.0, 0.0, "check_grads raises on a mismatch; the case returns 0 when it passes")


@case("jit_static_argnames", "§5.1", inputs=mm_inputs, reference=mm_ref, tolerance=MATMUL)
def jit_static_argnames(interpret):
    call = jax.jit(
        functools.partial(matmul_acc, interpret=interpret), static_argnames=("bm", "bk", "bn")
    )
    return lambda a, b: call(a, b, bm=128, bk=128, bn=256)


@case("jit_partial_blocks", "§5.1", inputs=mm_inputs, reference=mm_ref, tolerance=MATMUL)
def jit_partial_blocks(interpret):
    return jax.jit(functools.partial(matmul_acc, bm=32, bk=128, bn=128, interpret=interpret))


@case(
    "vmap_tiled_add",
    "§5.2",
    inputs=lambda r: (normal(r, 3, 256, 512), normal(r, 3, 256, 512)),
    reference=lambda x, y: f64(x) + f64(y),
)
def vmap_tiled_add(interpret):
    return jax.vmap(functools.partial(add2d, bm=64, bn=128, interpret=interpret))


@case(
    "vmap_masked_matmul_shared_b",
    "§5.2",
    inputs=lambda r: (normal(r, 3, 100, 200), masked_inputs(r)[1]),
    reference=lambda a, b: np.einsum("bmk,kn->bmn", f64(a), f64(b)),
    tolerance=MATMUL,
    lowers="block (64, 64): TPU blocks need last two dims divisible by (8, 128)",
)
def vmap_masked_matmul(interpret):
    return jax.vmap(functools.partial(matmul_masked, interpret=interpret), in_axes=(0, None))


def softmax_bwd_kernel(y_ref, dy_ref, dx_ref):
    y, dy = y_ref[...], dy_ref[...]
    dx_ref[...] = y * (dy - jnp.sum(dy * y, axis=-1, keepdims=True))


def softmax_with_vjp(interpret):
    """softmax whose forward and backward are both Pallas kernels."""

    def backward_kernel(y, dy, br=8):
        rows, cols = y.shape
        spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
        return pl.pallas_call(
            softmax_bwd_kernel,
            out_shape=jax.ShapeDtypeStruct(y.shape, y.dtype),
            grid=(pl.cdiv(rows, br),),
            in_specs=[spec, spec],
            out_specs=spec,
            interpret=interpret,
        )(y, dy)

    @jax.custom_vjp
    def softmax(x):
        return row_call(softmax_kernel, x, interpret=interpret)

    def fwd(x):
        y = row_call(softmax_kernel, x, interpret=interpret)
        return y, y

    def bwd(y, dy):
        return (backward_kernel(y, dy),)

    softmax.defvjp(fwd, bwd)
    return softmax


def softmax_grad_ref(x, w):
    y = softmax_ref(x)
    w = f64(w)
    return y * (w - (w * y).sum(-1, keepdims=True))


def grad_inputs(rng, *lead):
    return normal(rng, *lead, 16, 128), normal(rng, *lead, 16, 128)


@case(
    "softmax_grad_custom_vjp",
    "§5.3",
    inputs=grad_inputs,
    reference=softmax_grad_ref,
    tolerance=GRAD,
)
def softmax_grad(interpret):
    softmax = softmax_with_vjp(interpret)
    return jax.grad(lambda x, w: jnp.sum(softmax(x) * w))


@case("jit_grad", "§5.3", inputs=grad_inputs, reference=softmax_grad_ref, tolerance=GRAD)
def jit_grad(interpret):
    softmax = softmax_with_vjp(interpret)
    return jax.jit(jax.grad(lambda x, w: jnp.sum(softmax(x) * w)))


@case(
    "vmap_grad",
    "§5.3",
    inputs=lambda r: grad_inputs(r, 3),
    reference=lambda x, w: np.stack([softmax_grad_ref(a, b) for a, b in zip(x, w, strict=True)]),
    tolerance=GRAD,
)
def vmap_grad(interpret):
    softmax = softmax_with_vjp(interpret)
    return jax.vmap(jax.grad(lambda x, w: jnp.sum(softmax(x) * w)))


def checked(interpret, dtype):
    softmax = softmax_with_vjp(interpret)

    def run(x):
        if isinstance(x, jax.core.Tracer):  # lowering: the function check_grads differentiates
            return jax.grad(lambda v: jnp.sum(softmax(v) ** 2))(x)
        if dtype == "float64":
            with pallas_compat.enable_x64():
                check_grads(softmax, (jnp.asarray(x, jnp.float64),), order=1, modes=["rev"])
        else:
            check_grads(softmax, (x,), order=1, modes=["rev"])
        return np.zeros(())

    return run


@case(
    "check_grads_float32",
    "§5.3",
    inputs=lambda r: (normal(r, 16, 128),),
    reference=lambda x: np.zeros(()),
    tolerance=CHECK,
)
def check_grads_f32(interpret):
    return checked(interpret, "float32")


@case(
    "check_grads_float64",
    "§5.3",
    inputs=lambda r: (normal(r, 16, 128),),
    reference=lambda x: np.zeros(()),
    tolerance=CHECK,
    skip_modes={"tpu_sim": NO_FLOAT64},
)
def check_grads_f64(interpret):
    return checked(interpret, "float64")
