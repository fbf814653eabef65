"""JAX's own Mosaic GPU kernels (``ops/gpu/*_mgpu.py``, from JAX 0.4.36) as corpus cases.

They are written for Hopper (sm_90a) or Blackwell (sm_100a) and take float16 or bfloat16
operands with float32 accumulation, so each tolerance is the rounding of its float16 (or
bfloat16) output, stated per case; the float64 reference is taken on the operands as the
kernel sees them (already rounded). Each runs in the release's Mosaic GPU interpreter where
there is one that can run it, and is lowered for its GPU (an H100, or a B200) on every
release (``kernels/corpus/_mosaic_gpu.py``). Left out: the collective kernels
(``all_gather``, ``reduce_scatter``, ``collective_matmul``), which need several GPUs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from kernels.corpus._cases import CorpusCase, rng
from kernels.corpus._mosaic_gpu import interpreter
from kernels.corpus._references import attention64

#: Why the Mosaic GPU interpreter (0.12.0.1's) cannot run a kernel: what it said.
NO_WGMMA_PIPELINE = (
    "the Mosaic GPU interpreter cannot run a wgmma pipeline "
    "(0.12.0.1: Cannot lower jaxpr with effects _WGMMAPipelineEffect)"
)
NO_INLINE_MGPU = "the Mosaic GPU interpreter does not support inline_mgpu (0.12.0.1)"
NO_UPCAST_LAYOUT = (
    "the Mosaic GPU interpreter cannot run its int8 upcast "
    "(0.12.0.1: Expected shape (6,) but got (128, 64))"
)
BLACKWELL = "NVIDIA B200"


def half(name: str, shape: tuple[int, ...], dtype: str = "float16") -> np.ndarray:
    """Uniform in [-1, 1), rounded to ``dtype`` (float16 or bfloat16)."""
    import ml_dtypes

    values = rng(name).uniform(-1.0, 1.0, shape)
    return values.astype(getattr(ml_dtypes, dtype, dtype))


def in_interpreter(why_not: str | None, call: Callable[[], Any]) -> Any:
    with interpreter(why_not):
        return call()


def attention_case() -> CorpusCase:
    """Forward, not causal, one batch, 256 tokens, 2 heads of 64 (the kernel's smallest
    blocks: 64 queries, 64 keys, two steps in flight)."""
    q, k, v = (half(f"mgpu-attention-{t}", (1, 256, 2, 64)) for t in "qkv")

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        config = module.TuningConfig(block_q=64, block_kv=64, max_concurrent_steps=2)
        args = [jnp.asarray(t) for t in (q, k, v)]
        return in_interpreter(NO_WGMMA_PIPELINE, lambda: module.attention(*args, config))

    def reference() -> np.ndarray:
        return attention64(*(t.astype(np.float64) for t in (q, k, v)), causal=False)[0]

    return CorpusCase(
        "Mosaic GPU flash attention forward (float16)",
        "gpu/attention_mgpu.py",
        run,
        reference,
        2e-3,
    )


def hopper_matmul_case() -> CorpusCase:
    """256 x 256 x 256 in tiles of 128 x 128 x 64; ``c`` (an addend, from 0.9) is left out."""
    a, b = half("mgpu-matmul-a", (256, 256)), half("mgpu-matmul-b", (256, 256))

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        config = module.TuningConfig(tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=2)
        operands = [jnp.asarray(a), jnp.asarray(b)]
        if len(inspect.signature(module.matmul).parameters) == 4:  # matmul(a, b, c, config)
            operands.append(None)
        return in_interpreter(None, lambda: module.matmul(*operands, config))

    return CorpusCase(
        "Mosaic GPU Hopper matmul (float16)",
        "gpu/hopper_matmul_mgpu.py",
        run,
        lambda: a.astype(np.float64) @ b.astype(np.float64),
        1e-2,
    )


def mixed_matmul_case() -> CorpusCase:
    """int8 [-4, 4] x bfloat16 [-1, 1), 256 x 256 x 256, bfloat16 out (|out| < 64: half an
    ulp of bfloat16 there is 0.125)."""
    a = rng("mgpu-mixed-a").integers(-4, 5, (256, 256)).astype(np.int8)
    b = half("mgpu-mixed-b", (256, 256), "bfloat16")

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        config = module.TuningConfig(tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=2)
        return in_interpreter(
            NO_UPCAST_LAYOUT,
            lambda: module.mixed_matmul_kernel(
                jnp.asarray(a), jnp.asarray(b), out_dtype=jnp.bfloat16, config=config
            ),
        )

    return CorpusCase(
        "Mosaic GPU Hopper mixed-type matmul (int8 x bfloat16)",
        "gpu/hopper_mixed_type_matmul_mgpu.py",
        run,
        lambda: a.astype(np.float64) @ b.astype(np.float64),
        0.125,
    )


GROUP_SIZES = np.array([100, 156], np.int32)


def ragged_run(entry: str, lhs: np.ndarray, rhs: np.ndarray) -> Callable[[ModuleType], Any]:
    """Calls ``module.<entry>(lhs, rhs, group_sizes=...)`` in blocks of 64, two steps in
    flight: the signature the ragged and transposed ragged dots share."""

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        def call() -> Any:
            return getattr(module, entry)(
                jnp.asarray(lhs),
                jnp.asarray(rhs),
                group_sizes=jnp.asarray(GROUP_SIZES),
                block_m=64,
                block_n=64,
                block_k=64,
                max_concurrent_steps=2,
                grid_block_n=1,
            )

        return in_interpreter(None, call)

    return run


def ragged_dot_case() -> CorpusCase:
    """Rows of group g times ``rhs[g]``: groups of 100 and 156 rows (neither a whole block)."""
    lhs, rhs = half("mgpu-ragged-lhs", (256, 128)), half("mgpu-ragged-rhs", (2, 128, 128))

    def reference() -> np.ndarray:
        x = lhs.astype(np.float64)
        return np.concatenate([x[:100] @ rhs[0], x[100:] @ rhs[1]])

    return CorpusCase(
        "Mosaic GPU ragged dot (float16)",
        "gpu/ragged_dot_mgpu.py",
        ragged_run("ragged_dot", lhs, rhs),
        reference,
        1e-2,
    )


def transposed_ragged_dot_case() -> CorpusCase:
    """The contraction is ragged: group g sums over its own rows of K (100, then 156)."""
    lhs, rhs = half("mgpu-tragged-lhs", (256, 128)), half("mgpu-tragged-rhs", (256, 128))

    def reference() -> np.ndarray:
        x, y = lhs.astype(np.float64), rhs.astype(np.float64)
        return np.stack([x[:100].T @ y[:100], x[100:].T @ y[100:]])

    return CorpusCase(
        "Mosaic GPU transposed ragged dot (float16)",
        "gpu/transposed_ragged_dot_mgpu.py",
        ragged_run("transposed_ragged_dot", lhs, rhs),
        reference,
        1e-2,
    )


def blackwell_matmul_case() -> CorpusCase:
    """256 x 256 x 256 on a B200 (tcgen05), one CTA per tile."""
    a, b = half("mgpu-bw-a", (256, 256)), half("mgpu-bw-b", (256, 256))

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        config = module.TuningConfig(
            tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=2, collective=False
        )
        return in_interpreter(
            NO_INLINE_MGPU, lambda: module.matmul_kernel(jnp.asarray(a), jnp.asarray(b), config)
        )

    return CorpusCase(
        "Mosaic GPU Blackwell matmul (float16)",
        "gpu/blackwell_matmul_mgpu.py",
        run,
        lambda: a.astype(np.float64) @ b.astype(np.float64),
        1e-2,
        device=BLACKWELL,
    )


def mosaic_gpu_cases() -> list[CorpusCase]:
    return [
        attention_case(),
        hopper_matmul_case(),
        mixed_matmul_case(),
        ragged_dot_case(),
        transposed_ragged_dot_case(),
        blackwell_matmul_case(),
    ]
