"""The chapter's wrong kernels: each bug must show in the modes the chapter says it shows in."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from common import KernelStatus
from kernels._case import MATMUL, f64, normal, wrong
from kernels.advanced import (
    EPS,
    LAYERNORM,
    ROWSUM,
    SOFTMAX,
    layernorm_ref,
    masked_inputs,
    matmul_masked,
    mm_inputs,
    mm_ref,
    row_call,
    rowsum,
    softmax_ref,
)
from kernels.basics import double_kernel, sds
from pallas_compat import pl

BOTH = {"interpret": KernelStatus.CAUGHT, "tpu_sim": KernelStatus.CAUGHT}


def mm_call(kernel, interpret):
    def call(a, b):
        return pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
            grid=(4, 4, 3),
            in_specs=[
                pl.BlockSpec((64, 128), lambda i, j, k: (i, k)),
                pl.BlockSpec((128, 128), lambda i, j, k: (k, j)),
            ],
            out_specs=pl.BlockSpec((64, 128), lambda i, j, k: (i, j)),
            interpret=interpret,
        )(a, b)

    return call


def mm_kernel_pyif(a_ref, b_ref, o_ref):
    if pl.program_id(2) == 0:  # a tracer: TracerBoolConversionError at trace time
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


@wrong(
    "python_if_on_program_id",
    "§4.1",
    inputs=mm_inputs,
    reference=mm_ref,
    tolerance=MATMUL,
    chapter_says={
        "interpret": KernelStatus.CAUGHT,
        "tpu_sim": KernelStatus.CAUGHT,
        "tpu_lower": KernelStatus.CAUGHT,
    },
)
def python_if(interpret):
    return mm_call(mm_kernel_pyif, interpret)


def mm_kernel_noinit(a_ref, b_ref, o_ref):
    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


@wrong(
    "accumulator_without_init",
    "§4.1",
    inputs=mm_inputs,
    reference=mm_ref,
    tolerance=MATMUL,
    chapter_says=BOTH,  # NaN under interpret=True; the reused VMEM block under the simulator
)
def accumulator_without_init(interpret):
    return mm_call(mm_kernel_noinit, interpret)


def softmax_kernel_naive(x_ref, o_ref):
    e = jnp.exp(x_ref[...])
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)


@wrong(
    "softmax_without_max",
    "§4.2",
    inputs=lambda r: (normal(r, 50, 256, scale=3.0) + np.float32(100.0),),
    reference=softmax_ref,
    tolerance=SOFTMAX,
    chapter_says={"interpret": KernelStatus.CAUGHT},
)
def softmax_without_max(interpret):
    return lambda x: row_call(softmax_kernel_naive, x, interpret=interpret)


def layernorm_kernel_onepass(x_ref, g_ref, b_ref, o_ref):
    x = x_ref[...]
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(x * x, axis=-1, keepdims=True) - mu * mu
    o_ref[...] = (x - mu) * lax.rsqrt(var + EPS) * g_ref[...] + b_ref[...]


@wrong(
    "one_pass_variance",
    "§4.2",
    inputs=lambda r: (
        normal(r, 50, 256) + np.float32(1e4),
        1.0 + 0.1 * normal(r, 1, 256),
        0.1 * normal(r, 1, 256),
    ),
    reference=layernorm_ref,
    tolerance=LAYERNORM,
    chapter_says={"interpret": KernelStatus.CAUGHT},
)
def one_pass_variance(interpret):
    return lambda x, g, b: row_call(layernorm_kernel_onepass, x, g, b, interpret=interpret)


@wrong(
    "unmasked_k",
    "§4.3",
    inputs=masked_inputs,
    reference=mm_ref,
    tolerance=MATMUL,
    chapter_says={"interpret": KernelStatus.CAUGHT},  # out-of-bounds reads are NaN there
)
def unmasked_k(interpret):
    return lambda a, b: matmul_masked(a, b, interpret=interpret, mask=False)


@wrong(
    "reduction_axis_first",
    "§4.4",
    inputs=lambda r: (normal(r, 96, 300),),
    reference=lambda x: f64(x).sum(1),
    tolerance=ROWSUM,
    chapter_says={
        "interpret": KernelStatus.MISSED,
        "tpu_sim": KernelStatus.CAUGHT,
    },  # "right by luck" / Revisited block
)
def reduction_axis_first(interpret):
    return lambda x: rowsum(x, reduce_last=False, interpret=interpret)


@wrong(
    "element_offset_index_map",
    "§2.2",
    inputs=lambda r: (np.arange(64, dtype=np.float32),),
    reference=lambda x: 2.0 * f64(x),
    chapter_says={
        "interpret": KernelStatus.CAUGHT
    },  # out-of-range block indices clamp: 32 of 64 wrong
)
def element_offset_index_map(interpret):
    return lambda x: pl.pallas_call(
        double_kernel,
        out_shape=sds(x),
        grid=(4,),
        in_specs=[pl.BlockSpec((16,), lambda i: (i * 16,))],
        out_specs=pl.BlockSpec((16,), lambda i: (i,)),
        interpret=interpret,
    )(x)
