"""FlashAttention forward and backward as GPU kernels (Triton's style, chapter §6.2): one
program per block of rows, the loop over the other axis inside the kernel (GPU programs run
in parallel, in no order, so nothing accumulates across them), power-of-two blocks, and the
causal loops stopping at the diagonal. The TPU-shaped version is ``flash_attention.py``;
both are checked against the same float64 references.

Shared memory, the budget the blocks assume: a loop step stages one key block and one value
block (64 x 64 float32: 16 KiB each), Triton keeps ``num_stages`` = 2 of them in flight, and
the row block (16 KiB) stays resident: 2 x 32 + 16 = 80 KiB per program, the backward's dk/dv
kernel the same with query and cotangent blocks; a Hopper gives a block 227 KiB. Products
are float32 (``jax.default_matmul_precision('highest')`` in the ``gpu`` mode: Triton's
default is TF32)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from kernels.flash_attention import register
from pallas_compat import pl, pltriton

BLOCK = 64
#: q @ k.T and its kind, without a transpose in the kernel: contract the last dims.
NT = (((1,), (1,)), ((), ()))
#: What Mosaic says of these blocks: a TPU block's last two dimensions are multiples of 8 and
#: 128 (or the whole array); the row statistics here are blocks of 64.
NOT_FOR_TPU = "Mosaic TPU needs blocks tiled by (8, 128): the 64-row blocks of a GPU kernel are not"
#: p.T @ do: contract the first dims.
TN = (((0,), (0,)), ((), ()))


def params(triton: bool) -> object:
    """Triton's params name its backend on a GPU (from 0.9 a bare GPU call is Mosaic GPU's)."""
    return pltriton.CompilerParams(num_warps=4, num_stages=2) if triton else None


def dot(a, b, dims=(((1,), (0,)), ((), ()))):
    return lax.dot_general(a, b, dims, preferred_element_type=jnp.float32)


def masked(s, rows, cols, causal):
    """Scores of the blocks at ``rows`` x ``cols``, -inf above the diagonal when causal."""
    if not causal:
        return s
    r = rows * BLOCK + lax.broadcasted_iota(jnp.int32, s.shape, 0)
    c = cols * BLOCK + lax.broadcasted_iota(jnp.int32, s.shape, 1)
    return jnp.where(c <= r, s, -jnp.inf)


def forward(q, k, v, *, causal, scale, interpret, triton):
    """(o, lse) over (BH, S, D): a program per block of query rows."""
    bh, seq, dim = q.shape
    blocks = seq // BLOCK

    def kernel(q_ref, k_ref, v_ref, o_ref, lse_ref):
        i = pl.program_id(1)
        rows = q_ref[...]

        def step(j, carry):
            m, total, acc = carry
            at = pl.ds(pl.multiple_of(j * BLOCK, BLOCK), BLOCK)
            s = masked(dot(rows, k_ref[at, :], NT) * scale, i, j, causal)
            m_new = jnp.maximum(m, jnp.max(s, axis=1))
            p = jnp.exp(s - m_new[:, None])
            correction = jnp.exp(m - m_new)
            total = total * correction + jnp.sum(p, axis=1)
            acc = acc * correction[:, None] + dot(p, v_ref[at, :])
            return m_new, total, acc

        init = (
            jnp.full((BLOCK,), -jnp.inf, jnp.float32),
            jnp.zeros((BLOCK,), jnp.float32),
            jnp.zeros((BLOCK, dim), jnp.float32),
        )
        m, total, acc = lax.fori_loop(0, i + 1 if causal else blocks, step, init)
        o_ref[...] = (acc / total[:, None]).astype(o_ref.dtype)
        lse_ref[...] = m + jnp.log(total)

    row_block = pl.BlockSpec((None, BLOCK, dim), lambda b, i: (b, i, 0))
    whole = pl.BlockSpec((None, seq, dim), lambda b, i: (b, 0, 0))
    return pl.pallas_call(
        kernel,
        out_shape=(
            jax.ShapeDtypeStruct(q.shape, q.dtype),
            jax.ShapeDtypeStruct((bh, seq), jnp.float32),
        ),
        grid=(bh, blocks),
        in_specs=[row_block, whole, whole],
        out_specs=(row_block, pl.BlockSpec((None, BLOCK), lambda b, i: (b, i))),
        compiler_params=params(triton),
        interpret=interpret,
    )(q, k, v)


def backward(q, k, v, o, lse, do, *, causal, scale, interpret, triton):
    """(dq, dk, dv): dq a program per query block, dk and dv a program per key block, each
    recomputing the probabilities from ``lse``."""
    bh, seq, dim = q.shape
    blocks = seq // BLOCK

    def dq_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, do_ref, dq_ref):
        i = pl.program_id(1)
        rows, d_out, lse_rows = q_ref[...], do_ref[...], lse_ref[...]
        delta = jnp.sum(d_out * o_ref[...], axis=1)

        def step(j, dq):
            at = pl.ds(pl.multiple_of(j * BLOCK, BLOCK), BLOCK)
            keys = k_ref[at, :]
            s = masked(dot(rows, keys, NT) * scale, i, j, causal)
            p = jnp.exp(s - lse_rows[:, None])
            ds = p * (dot(d_out, v_ref[at, :], NT) - delta[:, None])
            return dq + dot(ds, keys) * scale

        dq = lax.fori_loop(0, i + 1 if causal else blocks, step, jnp.zeros((BLOCK, dim)))
        dq_ref[...] = dq.astype(dq_ref.dtype)

    def dkv_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, do_ref, dk_ref, dv_ref):
        j = pl.program_id(1)
        keys, values = k_ref[...], v_ref[...]

        def step(i, carry):
            dk, dv = carry
            at = pl.ds(pl.multiple_of(i * BLOCK, BLOCK), BLOCK)
            rows, d_out = q_ref[at, :], do_ref[at, :]
            delta = jnp.sum(d_out * o_ref[at, :], axis=1)
            s = masked(dot(rows, keys, NT) * scale, i, j, causal)
            p = jnp.exp(s - lse_ref[at][:, None])
            dv = dv + dot(p, d_out, TN)
            ds = p * (dot(d_out, values, NT) - delta[:, None])
            return dk + dot(ds, rows, TN) * scale, dv

        zeros = jnp.zeros((BLOCK, dim), jnp.float32)
        dk, dv = lax.fori_loop(j if causal else 0, blocks, step, (zeros, zeros))
        dk_ref[...] = dk.astype(dk_ref.dtype)
        dv_ref[...] = dv.astype(dv_ref.dtype)

    row_block = pl.BlockSpec((None, BLOCK, dim), lambda b, i: (b, i, 0))
    whole = pl.BlockSpec((None, seq, dim), lambda b, i: (b, 0, 0))
    lse_block = pl.BlockSpec((None, BLOCK), lambda b, i: (b, i))
    lse_whole = pl.BlockSpec((None, seq), lambda b, i: (b, 0))
    dq = pl.pallas_call(
        dq_kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid=(bh, blocks),
        in_specs=[row_block, whole, whole, row_block, lse_block, row_block],
        out_specs=row_block,
        compiler_params=params(triton),
        interpret=interpret,
    )(q, k, v, o, lse, do)
    dk, dv = pl.pallas_call(
        dkv_kernel,
        out_shape=(jax.ShapeDtypeStruct(k.shape, k.dtype), jax.ShapeDtypeStruct(v.shape, v.dtype)),
        grid=(bh, blocks),
        in_specs=[whole, row_block, row_block, whole, lse_whole, whole],
        out_specs=(row_block, row_block),
        compiler_params=params(triton),
        interpret=interpret,
    )(q, k, v, o, lse, do)
    return dq, dk, dv


def flash_attention(interpret, *, causal, triton=False):
    """Attention over (BH, S, D) inputs, differentiable through the GPU kernels."""
    kw = dict(causal=causal, interpret=interpret, triton=triton)

    @jax.custom_vjp
    def attention(q, k, v):
        return forward(q, k, v, scale=q.shape[-1] ** -0.5, **kw)[0]

    def fwd(q, k, v):
        o, lse = forward(q, k, v, scale=q.shape[-1] ** -0.5, **kw)
        return o, (q, k, v, o, lse)

    def bwd(residuals, do):
        q, k, v, o, lse = residuals
        return backward(q, k, v, o, lse, do, scale=q.shape[-1] ** -0.5, **kw)

    attention.defvjp(fwd, bwd)
    return attention


register(
    "gpu_flash_attention",
    "beyond the chapter (GPU)",
    flash_attention,
    lowers=NOT_FOR_TPU,
    gpu=True,
)
