"""What each corpus case calls in an old ops file, and the float64 answer it must give.

The references are written here from the math, never taken from JAX's own reference
functions (they live in the files under test). Inputs are seeded.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CorpusCase:
    name: str
    #: The ops file, relative to ``jax/experimental/pallas/ops``.
    file: str
    #: Calls the kernel of the loaded module; returns what is compared.
    run: Callable[[ModuleType], Any]
    reference: Callable[[], np.ndarray]
    atol: float
    #: An attribute of ``jax.experimental.pallas.tpu`` the running release must have.
    needs_tpu: str | None = None


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def softmax64(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention64(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """[batch, seq, heads, dim]; (output, d sum(output) / dq), scale 1, float64."""
    logits = np.einsum("bqhd,bkhd->bhqk", q, k)
    if causal:
        seq = q.shape[1]
        logits = np.where(np.tril(np.ones((seq, seq), bool)), logits, -np.inf)
    p = softmax64(logits)
    out = np.einsum("bhqk,bkhd->bqhd", p, v)
    d_p = np.einsum("bkhd->bhk", v)[:, :, None, :] * np.ones_like(p)  # d sum(out) / d p
    d_logits = p * (d_p - (d_p * p).sum(-1, keepdims=True))
    return out, np.einsum("bhqk,bkhd->bqhd", d_logits, k)


def gpu_attention_inputs(name: str) -> tuple[np.ndarray, ...]:
    return tuple(rng(name).standard_normal((3, 1, 128, 2, 64)).astype(np.float32))


def mha_forward(module: ModuleType) -> Any:
    import jax.numpy as jnp

    q, k, v = (jnp.asarray(t) for t in gpu_attention_inputs("mha"))
    return module.mha(q, k, v, None, causal=True, interpret=True)


def mha_grad(module: ModuleType) -> Any:
    import jax
    import jax.numpy as jnp

    q, k, v = (jnp.asarray(t) for t in gpu_attention_inputs("mha"))
    return jax.grad(lambda q: module.mha(q, k, v, None, causal=True, interpret=True).sum())(q)


def softmax_case(row: int) -> CorpusCase:
    x = rng(f"softmax{row}").standard_normal((3, row)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        return module.softmax(jnp.asarray(x), interpret=True)

    label = "a block that overhangs the row" if row & (row - 1) else "a power-of-two row"
    return CorpusCase(
        f"softmax, {label}", "gpu/softmax.py", run, lambda: softmax64(x.astype(np.float64)), 1e-6
    )


def norm_case(kind: str) -> CorpusCase:
    x = rng(kind).standard_normal((2, 4, 100)).astype(np.float32)  # [batch, seq, features]
    w, b = rng(kind + "-affine").standard_normal((2, 100)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        return getattr(module, kind)(*(jnp.asarray(t) for t in (x, w, b)), interpret=True)

    def reference() -> np.ndarray:
        x64 = x.astype(np.float64)
        if kind == "layer_norm":
            centred = x64 - x64.mean(-1, keepdims=True)
            return centred / np.sqrt((centred**2).mean(-1, keepdims=True) + 1e-5) * w + b
        return x64 / np.sqrt((x64**2).mean(-1, keepdims=True) + 1e-5) * w + b

    return CorpusCase(kind.replace("_", " "), f"gpu/{kind}.py", run, reference, 1e-5)


def mqa_case() -> CorpusCase:
    q = rng("mqa-q").standard_normal((2, 16, 64)).astype(np.float32)
    k, v = rng("mqa-kv").standard_normal((2, 2, 512, 64)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        return module.mqa(
            jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), sm_scale=1.0, k_splits=4, interpret=True
        )

    def reference() -> np.ndarray:
        p = softmax64(np.einsum("bnd,bsd->bns", q.astype(np.float64), k))
        return np.einsum("bns,bsd->bnd", p, v)

    return CorpusCase("decode attention (mqa)", "gpu/decode_attention.py", run, reference, 1e-5)


def gmm_case() -> CorpusCase:
    """Megablox grouped matmul: rows of group i times rhs[i]; uneven groups (100, 156)."""
    lhs = rng("gmm-lhs").standard_normal((256, 128)).astype(np.float32)
    rhs = rng("gmm-rhs").standard_normal((2, 128, 128)).astype(np.float32)
    sizes = np.array([100, 156], np.int32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        return module.gmm(jnp.asarray(lhs), jnp.asarray(rhs), jnp.asarray(sizes), interpret=True)

    def reference() -> np.ndarray:
        x = lhs.astype(np.float64)
        return np.concatenate([x[:100] @ rhs[0], x[100:] @ rhs[1]])

    return CorpusCase("grouped matmul (megablox gmm)", "tpu/megablox/gmm.py", run, reference, 1e-4)


def tpu_flash_case() -> CorpusCase:
    q, k, v = rng("tpu-flash").standard_normal((3, 1, 2, 256, 128)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp
        from jax.experimental.pallas import tpu

        sizes = module.BlockSizes(block_q=128, block_k_major=128, block_k=128, block_b=1)
        with tpu.force_tpu_interpret_mode():
            return module.flash_attention(
                *(jnp.asarray(t) for t in (q, k, v)), causal=True, sm_scale=1.0, block_sizes=sizes
            )

    def reference() -> np.ndarray:
        as_gpu = [t.astype(np.float64).transpose(0, 2, 1, 3) for t in (q, k, v)]
        return attention64(*as_gpu, causal=True)[0].transpose(0, 2, 1, 3)

    return CorpusCase(
        "TPU flash attention, causal",
        "tpu/flash_attention.py",
        run,
        reference,
        5e-5,
        needs_tpu="force_tpu_interpret_mode",
    )


def cases() -> list[CorpusCase]:
    q, k, v = (t.astype(np.float64) for t in gpu_attention_inputs("mha"))
    out, d_q = attention64(q, k, v, causal=True)
    return [
        softmax_case(100),
        softmax_case(128),
        norm_case("layer_norm"),
        norm_case("rms_norm"),
        CorpusCase("attention forward, causal", "gpu/attention.py", mha_forward, lambda: out, 2e-5),
        CorpusCase(
            "attention backward (d/dq), causal", "gpu/attention.py", mha_grad, lambda: d_q, 2e-4
        ),
        mqa_case(),
        gmm_case(),
        tpu_flash_case(),
    ]
