"""FlashAttention forward and backward: what the chapter's online logsumexp (§4.5) builds
toward. The forward pass keeps a running max and sum per query row, so the S x S attention
matrix never exists; the backward pass is two more Pallas kernels (dq; dk and dv) that
recompute the probabilities from the saved log-sum-exp, all under ``jax.custom_vjp``."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.test_util import check_grads

import pallas_compat
from kernels._case import MATMUL, Tolerance, case, f64, normal
from kernels.transforms import NO_FLOAT64
from pallas_compat import pl, pltpu

BLOCK = 128
NEG_INF = -jnp.inf
ATTENTION = Tolerance(1e-4, 1e-4, MATMUL.why + "; softmax over 256 keys in float32")


def causal_mask(scores, q_block, k_block):
    rows = q_block * BLOCK + lax.broadcasted_iota(jnp.int32, scores.shape, 0)
    cols = k_block * BLOCK + lax.broadcasted_iota(jnp.int32, scores.shape, 1)
    return jnp.where(cols <= rows, scores, NEG_INF)


def forward(q, k, v, *, causal, scale, interpret):
    """(o, lse): o (BH, S, D); lse (BH, S, 1), the residual the backward pass needs."""
    bh, seq, dim = q.shape
    acc = jnp.promote_types(q.dtype, jnp.float32)  # float32, or float64 under enable_x64

    def kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, m_ref, l_ref, acc_ref):
        i, j = pl.program_id(1), pl.program_id(2)

        @pl.when(j == 0)
        def _init():
            m_ref[...] = jnp.full_like(m_ref, NEG_INF)
            l_ref[...] = jnp.zeros_like(l_ref)
            acc_ref[...] = jnp.zeros_like(acc_ref)

        s = jnp.dot(q_ref[...], k_ref[...].T, preferred_element_type=acc) * scale
        if causal:  # a Python bool fixed at build time
            s = causal_mask(s, i, j)
        m_old = m_ref[...]
        m_new = jnp.maximum(m_old, jnp.max(s, axis=1, keepdims=True))
        p = jnp.exp(s - m_new)
        correction = jnp.exp(m_old - m_new)
        l_ref[...] = l_ref[...] * correction + jnp.sum(p, axis=1, keepdims=True)
        acc_ref[...] = acc_ref[...] * correction + jnp.dot(
            p, v_ref[...], preferred_element_type=acc
        )
        m_ref[...] = m_new

        @pl.when(j == pl.num_programs(2) - 1)
        def _store():
            o_ref[...] = (acc_ref[...] / l_ref[...]).astype(o_ref.dtype)
            lse_ref[...] = m_ref[...] + jnp.log(l_ref[...])

    q_spec = pl.BlockSpec((None, BLOCK, dim), lambda b, i, j: (b, i, 0))
    kv_spec = pl.BlockSpec((None, BLOCK, dim), lambda b, i, j: (b, j, 0))
    return pl.pallas_call(
        kernel,
        out_shape=(
            jax.ShapeDtypeStruct(q.shape, q.dtype),
            jax.ShapeDtypeStruct((bh, seq, 1), acc),
        ),
        grid=(bh, seq // BLOCK, seq // BLOCK),
        in_specs=[q_spec, kv_spec, kv_spec],
        out_specs=(q_spec, pl.BlockSpec((None, BLOCK, 1), lambda b, i, j: (b, i, 0))),
        scratch_shapes=[
            pltpu.VMEM((BLOCK, 1), acc),
            pltpu.VMEM((BLOCK, 1), acc),
            pltpu.VMEM((BLOCK, dim), acc),
        ],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")
        ),
        interpret=interpret,
    )(q, k, v)


def probabilities(q, k, lse, i, j, *, causal, scale):
    s = jnp.dot(q, k.T, preferred_element_type=lse.dtype) * scale
    if causal:
        s = causal_mask(s, i, j)
    return jnp.exp(s - lse)


def backward(q, k, v, o, lse, do, *, causal, scale, interpret):
    """(dq, dk, dv) by two kernels that recompute P from lse instead of storing it."""
    bh, seq, dim = q.shape
    acc = jnp.promote_types(q.dtype, jnp.float32)

    def dq_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, do_ref, dq_ref, acc_ref):
        i, j = pl.program_id(1), pl.program_id(2)

        @pl.when(j == 0)
        def _init():
            acc_ref[...] = jnp.zeros_like(acc_ref)

        p = probabilities(q_ref[...], k_ref[...], lse_ref[...], i, j, causal=causal, scale=scale)
        do = do_ref[...]
        delta = jnp.sum(do * o_ref[...], axis=1, keepdims=True)
        dp = jnp.dot(do, v_ref[...].T, preferred_element_type=acc)
        ds = p * (dp - delta)
        acc_ref[...] += jnp.dot(ds, k_ref[...], preferred_element_type=acc) * scale

        @pl.when(j == pl.num_programs(2) - 1)
        def _store():
            dq_ref[...] = acc_ref[...].astype(dq_ref.dtype)

    def dkv_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, do_ref, dk_ref, dv_ref, dk_acc, dv_acc):
        j, i = pl.program_id(1), pl.program_id(2)

        @pl.when(i == 0)
        def _init():
            dk_acc[...] = jnp.zeros_like(dk_acc)
            dv_acc[...] = jnp.zeros_like(dv_acc)

        p = probabilities(q_ref[...], k_ref[...], lse_ref[...], i, j, causal=causal, scale=scale)
        do = do_ref[...]
        delta = jnp.sum(do * o_ref[...], axis=1, keepdims=True)
        dv_acc[...] += jnp.dot(p.T, do, preferred_element_type=acc)
        dp = jnp.dot(do, v_ref[...].T, preferred_element_type=acc)
        ds = p * (dp - delta)
        dk_acc[...] += jnp.dot(ds.T, q_ref[...], preferred_element_type=acc) * scale

        @pl.when(i == pl.num_programs(2) - 1)
        def _store():
            dk_ref[...] = dk_acc[...].astype(dk_ref.dtype)
            dv_ref[...] = dv_acc[...].astype(dv_ref.dtype)

    params = pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary"))
    rows = pl.BlockSpec((None, BLOCK, dim), lambda b, i, j: (b, i, 0))
    cols = pl.BlockSpec((None, BLOCK, dim), lambda b, i, j: (b, j, 0))
    lse_rows = pl.BlockSpec((None, BLOCK, 1), lambda b, i, j: (b, i, 0))
    dq = pl.pallas_call(
        dq_kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid=(bh, seq // BLOCK, seq // BLOCK),
        in_specs=[rows, cols, cols, rows, lse_rows, rows],
        out_specs=rows,
        scratch_shapes=[pltpu.VMEM((BLOCK, dim), acc)],
        compiler_params=params,
        interpret=interpret,
    )(q, k, v, o, lse, do)
    # dk, dv: the grid walks key blocks (axis 1) and, innermost, query blocks (axis 2).
    q_inner = pl.BlockSpec((None, BLOCK, dim), lambda b, j, i: (b, i, 0))
    kv_outer = pl.BlockSpec((None, BLOCK, dim), lambda b, j, i: (b, j, 0))
    lse_inner = pl.BlockSpec((None, BLOCK, 1), lambda b, j, i: (b, i, 0))
    dk, dv = pl.pallas_call(
        dkv_kernel,
        out_shape=(
            jax.ShapeDtypeStruct(k.shape, k.dtype),
            jax.ShapeDtypeStruct(v.shape, v.dtype),
        ),
        grid=(bh, seq // BLOCK, seq // BLOCK),
        in_specs=[q_inner, kv_outer, kv_outer, q_inner, lse_inner, q_inner],
        out_specs=(kv_outer, kv_outer),
        scratch_shapes=[pltpu.VMEM((BLOCK, dim), acc)] * 2,
        compiler_params=params,
        interpret=interpret,
    )(q, k, v, o, lse, do)
    return dq, dk, dv


def flash_attention(interpret, *, causal):
    """Attention over (BH, S, D) inputs, differentiable through Pallas kernels."""

    @functools.partial(jax.custom_vjp, nondiff_argnums=())
    def attention(q, k, v):
        scale = 1.0 / np.sqrt(q.shape[-1])
        return forward(q, k, v, causal=causal, scale=scale, interpret=interpret)[0]

    def fwd(q, k, v):
        scale = 1.0 / np.sqrt(q.shape[-1])
        o, lse = forward(q, k, v, causal=causal, scale=scale, interpret=interpret)
        return o, (q, k, v, o, lse)

    def bwd(residuals, do):
        q, k, v, o, lse = residuals
        scale = 1.0 / np.sqrt(q.shape[-1])
        return backward(q, k, v, o, lse, do, causal=causal, scale=scale, interpret=interpret)

    attention.defvjp(fwd, bwd)
    return attention


# -- float64 references


def reference_probabilities(q, k, causal):
    q, k = f64(q), f64(k)
    s = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


def reference_forward(q, k, v, causal):
    return np.einsum("bqk,bkd->bqd", reference_probabilities(q, k, causal), f64(v))


def reference_grads(q, k, v, w, causal):
    """Gradients of sum(attention(q, k, v) * w), by the softmax VJP in float64."""
    p = reference_probabilities(q, k, causal)
    q, k, v, w = f64(q), f64(k), f64(v), f64(w)
    scale = 1.0 / np.sqrt(q.shape[-1])
    dv = np.einsum("bqk,bqd->bkd", p, w)
    dp = np.einsum("bqd,bkd->bqk", w, v)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    dq = np.einsum("bqk,bkd->bqd", ds, k) * scale
    dk = np.einsum("bqk,bqd->bkd", ds, q) * scale
    return dq, dk, dv


def qkv(rng, with_cotangent=False):
    shape = (2, 256, 64)  # batch x heads folded to 2, 256 positions, head dim 64
    arrays = [normal(rng, *shape) for _ in range(4 if with_cotangent else 3)]
    return tuple(arrays)


def register(prefix, section, attention_of, **extra):
    """The forward and backward cases of an attention, full then causal:
    ``attention_of(interpret, causal=..., **build)`` makes it (a GPU variant's build takes
    ``triton=``); ``extra`` goes to ``case`` (``gpu=True``, a TPU lowering verdict)."""
    for causal in (False, True):
        tag = "causal" if causal else "full"

        def forward(interpret, causal=causal, **build):
            return attention_of(interpret, causal=causal, **build)

        def backward(interpret, causal=causal, **build):
            attention = attention_of(interpret, causal=causal, **build)
            loss = lambda q, k, v, w: jnp.sum(attention(q, k, v) * w)  # noqa: E731
            return jax.grad(loss, argnums=(0, 1, 2))

        for kind, build, inputs, reference in (
            ("forward", forward, qkv, reference_forward),
            ("backward", backward, functools.partial(qkv, with_cotangent=True), reference_grads),
        ):
            case(
                f"{prefix}_{kind}_{tag}",
                section,
                inputs=inputs,
                reference=functools.partial(reference, causal=causal),
                tolerance=ATTENTION,
                **extra,
            )(build)


register("flash_attention", "beyond the chapter", flash_attention)


def checked(interpret, dtype):
    attention = flash_attention(interpret, causal=True)

    def run(q, k, v):
        if isinstance(q, jax.core.Tracer):  # lowering: the differentiated function
            grad = jax.grad(lambda a, b, c: jnp.sum(attention(a, b, c)), argnums=(0, 1, 2))
            return grad(q, k, v)
        if dtype == "float64":
            with pallas_compat.enable_x64():
                args = tuple(jnp.asarray(x, jnp.float64) for x in (q, k, v))
                check_grads(attention, args, order=1, modes=["rev"])
        else:  # finite differences in float32 need the looser tolerance (chapter §5 summary)
            check_grads(attention, (q, k, v), order=1, modes=["rev"], atol=1e-2, rtol=1e-2)
        return np.zeros(())

    return run


CHECKED = Tolerance(0.0, 0.0, "check_grads raises on a mismatch; the case returns 0 when it passes")


@case(
    "flash_attention_check_grads_float32",
    "beyond the chapter",
    inputs=lambda r: tuple(0.5 * x[:1] for x in qkv(r)),  # one head: check_grads is costly
    reference=lambda q, k, v: np.zeros(()),
    tolerance=CHECKED,
)
def flash_attention_check_grads_f32(interpret):
    return checked(interpret, "float32")


@case(
    "flash_attention_check_grads_float64",
    "beyond the chapter",
    inputs=lambda r: tuple(0.5 * x[:1] for x in qkv(r)),  # one head: check_grads is costly
    reference=lambda q, k, v: np.zeros(()),
    tolerance=CHECKED,
    skip_modes={"tpu_sim": NO_FLOAT64},
)
def flash_attention_check_grads_f64(interpret):
    return checked(interpret, "float64")
