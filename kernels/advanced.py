"""§4: accumulating matmul, bf16 with a float32 scratch, softmax, LayerNorm, masks, reductions
across the grid, online logsumexp."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from kernels._case import MATMUL, Tolerance, case, f64, normal
from pallas_compat import pl, pltpu

BF16 = Tolerance(
    2**-7, 0.0, "bf16 output: relative error under 2^-7 (chapter §4.1', unit roundoff 2^-8)"
)
SOFTMAX = Tolerance(1e-5, 1e-7, "float32 exp and a row sum (chapter §4.2)")
LAYERNORM = Tolerance(1e-4, 1e-5, "float32 two-pass mean and variance (chapter §4.2)")
ROWSUM = Tolerance(1e-5, 1e-4, "float32 sums of 300 terms (chapter §4.4)")
LSE = Tolerance(1e-5, 0.0, "online logsumexp in float32 against scipy-style float64 (chapter §4.5)")
EPS = 1e-5
#: Mosaic's rule for rank-1 blocks (JAX's own error text): the whole array, a multiple of
#: sublanes * lanes = 1024, or a power of 2 of at least 128 lanes (float32).
RANK1 = "rank-1 block {}: TPU needs the whole array, a multiple of 1024, or a power of 2 >= 128"


def matmul_acc_kernel(a_ref, b_ref, o_ref):
    """§3: accumulate into the output block, zeroed on the first K step."""

    @pl.when(pl.program_id(2) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def matmul_acc(a, b, bm=64, bk=128, bn=128, interpret=True):
    m, k = a.shape
    n = b.shape[1]
    return pl.pallas_call(
        matmul_acc_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        interpret=interpret,
    )(a, b)


def mm_inputs(rng):
    return normal(rng, 256, 384), normal(rng, 384, 512)


def mm_ref(a, b):
    return f64(a) @ f64(b)


@case("matmul_accumulate", "§4.1", inputs=mm_inputs, reference=mm_ref, tolerance=MATMUL)
def matmul_accumulate(interpret):
    return lambda a, b: matmul_acc(a, b, interpret=interpret)


def matmul_bf16_kernel(a_ref, b_ref, o_ref, acc_ref):
    """§4.1 (scratch) and §6.2: accumulate in float32 scratch, write the output dtype on the
    last K step."""
    kk = pl.program_id(2)

    @pl.when(kk == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    @pl.when(kk == pl.num_programs(2) - 1)
    def _store():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul_bf16(a, b, bm=64, bk=128, bn=128, interpret=True, compiler_params=None):
    m, k = a.shape
    n = b.shape[1]
    return pl.pallas_call(
        matmul_bf16_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=compiler_params,
        interpret=interpret,
    )(a, b)


def bf16_inputs(rng):
    a, b = mm_inputs(rng)
    return jnp.asarray(a, jnp.bfloat16), jnp.asarray(b, jnp.bfloat16)


def bf16_ref(a, b):
    """The same bf16 inputs in float64; compared relative to |ref| + 1 as the chapter does."""
    return f64(a) @ f64(b)


@case(
    "matmul_bf16_scratch",
    "§4.1'",
    inputs=bf16_inputs,
    reference=bf16_ref,
    tolerance=Tolerance(2**-7, 2**-7, BF16.why + "; atol for entries near 0 (|ref| + 1 scaling)"),
)
def matmul_bf16_scratch(interpret):
    return lambda a, b: matmul_bf16(a, b, interpret=interpret)


def compute_dtype(dt):
    return jnp.promote_types(dt, jnp.float32)


def softmax_kernel(x_ref, o_ref):
    x = x_ref[...].astype(compute_dtype(x_ref.dtype))
    m = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - m)
    o_ref[...] = (e / jnp.sum(e, axis=-1, keepdims=True)).astype(o_ref.dtype)


def row_call(kernel, x, *extra, br=8, interpret=True):
    rows, cols = x.shape
    row_spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    vec_spec = pl.BlockSpec((1, cols), lambda i: (0, 0))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, br),),
        in_specs=[row_spec] + [vec_spec] * len(extra),
        out_specs=row_spec,
        interpret=interpret,
    )(x, *extra)


def softmax_ref(x):
    x = f64(x)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@case(
    "softmax_rows",
    "§4.2",
    inputs=lambda r: (normal(r, 50, 256, scale=3.0),),
    reference=softmax_ref,
    tolerance=SOFTMAX,
)
def softmax_rows(interpret):
    return lambda x: row_call(softmax_kernel, x, interpret=interpret)


def layernorm_kernel(x_ref, g_ref, b_ref, o_ref):
    x = x_ref[...].astype(compute_dtype(x_ref.dtype))
    mu = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)
    o_ref[...] = (xc * lax.rsqrt(var + EPS) * g_ref[...] + b_ref[...]).astype(o_ref.dtype)


def layernorm_ref(x, g, b):
    x = f64(x)
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * f64(g) + f64(b)


def layernorm_inputs(rng, offset=0.0):
    x = normal(rng, 50, 256) + np.float32(offset)
    return x, 1.0 + 0.1 * normal(rng, 1, 256), 0.1 * normal(rng, 1, 256)


@case(
    "layernorm_two_pass",
    "§4.2",
    inputs=layernorm_inputs,
    reference=layernorm_ref,
    tolerance=LAYERNORM,
)
def layernorm_two_pass(interpret):
    return lambda x, g, b: row_call(layernorm_kernel, x, g, b, interpret=interpret)


def matmul_masked(a, b, bm=64, bk=64, bn=64, interpret=True, mask=True):
    m, k_total = a.shape
    n = b.shape[1]

    def kernel(a_ref, b_ref, o_ref):
        k = pl.program_id(2)

        @pl.when(k == 0)
        def _init():
            o_ref[...] = jnp.zeros_like(o_ref)

        a_blk, b_blk = a_ref[...], b_ref[...]
        if mask:  # a Python bool fixed at build time, not a tracer
            ka = k * bk + lax.broadcasted_iota(jnp.int32, a_blk.shape, 1)
            a_blk = jnp.where(ka < k_total, a_blk, 0.0)
            kb = k * bk + lax.broadcasted_iota(jnp.int32, b_blk.shape, 0)
            b_blk = jnp.where(kb < k_total, b_blk, 0.0)
        o_ref[...] += jnp.dot(a_blk, b_blk, preferred_element_type=jnp.float32)

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(pl.cdiv(m, bm), pl.cdiv(n, bn), pl.cdiv(k_total, bk)),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        interpret=interpret,
    )(a, b)


def masked_inputs(rng):
    return normal(rng, 100, 200), normal(rng, 200, 130)


@case(
    "matmul_masked",
    "§4.3",
    inputs=masked_inputs,
    reference=mm_ref,
    tolerance=MATMUL,
    lowers="block (64, 64): TPU blocks need last two dims divisible by (8, 128)",
)
def matmul_masked_case(interpret):
    return lambda a, b: matmul_masked(a, b, interpret=interpret)


def rowsum_kernel(cols, bc, red_axis):
    """§4.4: the row-sum body for ``cols`` columns in blocks of ``bc``, reducing along grid
    axis ``red_axis`` (1: the right order; 0: the chapter's wrong one)."""

    def kernel(x_ref, o_ref):
        j = pl.program_id(red_axis)

        @pl.when(j == 0)
        def _init():
            o_ref[...] = jnp.zeros_like(o_ref)

        col = j * bc + lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
        o_ref[...] += jnp.sum(jnp.where(col < cols, x_ref[...], 0.0), axis=1)

    return kernel


def rowsum(x, br=32, bc=128, reduce_last=True, interpret=True):
    rows, cols = x.shape
    kernel = rowsum_kernel(cols, bc, 1 if reduce_last else 0)
    if reduce_last:
        grid, xmap, omap = (
            (pl.cdiv(rows, br), pl.cdiv(cols, bc)),
            (lambda i, j: (i, j)),
            (lambda i, j: (i,)),
        )
        params = pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary"))
    else:  # the chapter's wrong order: reduction dimension first
        grid, xmap, omap = (
            (pl.cdiv(cols, bc), pl.cdiv(rows, br)),
            (lambda j, i: (i, j)),
            (lambda j, i: (i,)),
        )
        params = None
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=grid,
        in_specs=[pl.BlockSpec((br, bc), xmap)],
        out_specs=pl.BlockSpec((br,), omap),
        compiler_params=params,
        interpret=interpret,
    )(x)


@case(
    "rowsum_dimension_semantics",
    "§4.4",
    inputs=lambda r: (normal(r, 96, 300),),
    reference=lambda x: f64(x).sum(1),
    tolerance=ROWSUM,
    lowers=RANK1.format("(32,) of the (96,) output"),
)
def rowsum_case(interpret):
    return lambda x: rowsum(x, interpret=interpret)


def logsumexp_rows(x, br=16, bc=128, interpret=True):
    rows, cols = x.shape

    def kernel(x_ref, o_ref, m_ref, l_ref):
        j = pl.program_id(1)

        @pl.when(j == 0)
        def _init():
            m_ref[...] = jnp.full_like(m_ref, -jnp.inf)
            l_ref[...] = jnp.zeros_like(l_ref)

        col = j * bc + lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
        xb = jnp.where(col < cols, x_ref[...], -jnp.inf)
        m_old = m_ref[...]
        m_new = jnp.maximum(m_old, jnp.max(xb, axis=1))
        l_ref[...] = l_ref[...] * jnp.exp(m_old - m_new) + jnp.sum(
            jnp.exp(xb - m_new[:, None]), axis=1
        )
        m_ref[...] = m_new

        @pl.when(j == pl.num_programs(1) - 1)
        def _store():
            o_ref[...] = m_ref[...] + jnp.log(l_ref[...])

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(pl.cdiv(rows, br), pl.cdiv(cols, bc)),
        in_specs=[pl.BlockSpec((br, bc), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((br,), lambda i, j: (i,)),
        scratch_shapes=[pltpu.VMEM((br,), jnp.float32), pltpu.VMEM((br,), jnp.float32)],
        interpret=interpret,
    )(x)


def logsumexp_ref(x):
    x = f64(x)
    m = x.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]


@case(
    "online_logsumexp",
    "§4.5",
    inputs=lambda r: (normal(r, 40, 1000, scale=4.0) + np.float32(50.0),),
    reference=logsumexp_ref,
    tolerance=LSE,
    lowers=RANK1.format("(16,) of the (40,) output"),
)
def online_logsumexp(interpret):
    return lambda x: logsumexp_rows(x, interpret=interpret)
