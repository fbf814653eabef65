"""What each corpus case calls in an old ops file, and the float64 answer it must give.

The references are written here from the math, never taken from JAX's own reference
functions (they live in the files under test). Inputs are seeded.
"""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from kernels._compile import GPU_KIND
from kernels.corpus._compiles import compiling
from kernels.corpus._mosaic_gpu import as_if_on_gpu
from kernels.corpus._references import (
    attention64,
    grouped_attention64,
    philox4x32,
    ragged_attention64,
    softmax64,
    threefry2x32,
    unpage,
)


@dataclass(frozen=True)
class CorpusCase:
    name: str
    #: The ops file, relative to ``jax/experimental/pallas/ops``.
    file: str
    #: Calls the kernel of the loaded module; returns what is compared.
    run: Callable[[ModuleType], Any]
    reference: Callable[[], np.ndarray]
    atol: float
    #: NumPy work on what ``run`` returned, outside ``jax.jit``.
    finish: Callable[[np.ndarray], np.ndarray] = np.asarray
    #: The matmul precision the tolerance assumes: float32 products, which a GPU's Triton
    #: (TF32 by default) and a TPU (bfloat16 passes by default) give only at "highest".
    precision: str = "highest"
    #: The device kind it is lowered for, where not its hardware's default.
    device: str | None = None

    @property
    def hardware(self) -> str:
        """GPU or TPU: where JAX ships the file (``gpu/``, ``tpu/``)."""
        return "GPU" if self.file.startswith("gpu/") else "TPU"

    @property
    def mosaic_gpu(self) -> bool:
        """JAX names its Mosaic GPU kernels ``*_mgpu.py``."""
        return self.file.endswith("_mgpu.py")

    def machine(self) -> AbstractContextManager[Any]:
        return as_if_on_gpu(self.device or GPU_KIND) if self.mosaic_gpu else nullcontext()


def on_cpu(entry: Callable[..., Any]) -> tuple[dict[str, Any], AbstractContextManager[Any]]:
    """How to run a TPU kernel's entry point on a CPU: ``interpret=True`` where it takes one,
    else inside ``pltpu.force_tpu_interpret_mode()`` (JAX's from 0.7.0, the shim's before:
    the kernel's file is run unchanged either way). Neither while the call is lowered for a
    TPU."""
    from pallas_compat import pltpu

    if compiling():  # lowered for a TPU: the call as a TPU user makes it
        return {}, nullcontext()
    if "interpret" in inspect.signature(entry).parameters:
        return {"interpret": True}, nullcontext()
    return {}, pltpu.force_tpu_interpret_mode()


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


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

        sizes = module.BlockSizes(block_q=128, block_k_major=128, block_k=128, block_b=1)
        extra, mode = on_cpu(module.flash_attention)
        with mode:
            return module.flash_attention(
                *(jnp.asarray(t) for t in (q, k, v)),
                causal=True,
                sm_scale=1.0,
                block_sizes=sizes,
                **extra,
            )

    def reference() -> np.ndarray:
        as_gpu = [t.astype(np.float64).transpose(0, 2, 1, 3) for t in (q, k, v)]
        return attention64(*as_gpu, causal=True)[0].transpose(0, 2, 1, 3)

    return CorpusCase("TPU flash attention, causal", "tpu/flash_attention.py", run, reference, 5e-5)


def double_case() -> CorpusCase:
    """The TPU example kernel: ``pallas_call`` with no grid and no interpret= of its own."""
    x = rng("double").standard_normal((8, 128)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        extra, mode = on_cpu(module.double)
        with mode:
            return module.double(jnp.asarray(x), **extra)

    return CorpusCase(
        "TPU example kernel (double)", "tpu/example_kernel.py", run, lambda: 2.0 * x, 0.0
    )


def tpu_matmul_case() -> CorpusCase:
    x = rng("tpu-matmul-x").standard_normal((256, 512)).astype(np.float32)
    y = rng("tpu-matmul-y").standard_normal((512, 256)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        extra, mode = on_cpu(module.matmul)
        with mode:
            return module.matmul(
                jnp.asarray(x), jnp.asarray(y), block_shape=(128, 128), block_k=256, **extra
            )

    return CorpusCase(
        "TPU matmul, K accumulated in scratch",
        "tpu/matmul.py",
        run,
        lambda: x.astype(np.float64) @ y,
        2e-4,
    )


def gqa_case() -> CorpusCase:
    q = rng("gqa-q").standard_normal((2, 32, 64)).astype(np.float32)
    k, v = rng("gqa-kv").standard_normal((2, 2, 512, 2, 64)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        return module.gqa(
            jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), sm_scale=1.0, k_splits=4, interpret=True
        )

    return CorpusCase(
        "decode attention (gqa, 16 q heads per kv head)",
        "gpu/decode_attention.py",
        run,
        lambda: grouped_attention64(q, k, v),
        1e-5,
    )


def paged_inputs(name: str) -> tuple[np.ndarray, ...]:
    """q [2, 8, 128]; k and v pages [2 kv heads, 16 pages, 16, 128]; 8 pages per sequence in
    a shuffled order; lengths 100 and 77 (the last pages partly or wholly unused)."""
    r = rng(name)
    q = r.standard_normal((2, 8, 128)).astype(np.float32)
    k_pages, v_pages = r.standard_normal((2, 2, 16, 16, 128)).astype(np.float32)
    page_indices = r.permutation(16).reshape(2, 8).astype(np.int32)
    return q, k_pages, v_pages, np.array([100, 77], np.int32), page_indices


def paged_reference(name: str, kv_dtype: str = "float32") -> Callable[[], np.ndarray]:
    """``kv_dtype``: what the kernel rounds the pages to before it computes."""
    import ml_dtypes

    q, k_pages, v_pages, lengths, page_indices = paged_inputs(name)
    k, v = (
        unpage(pages.astype(getattr(ml_dtypes, kv_dtype, kv_dtype)), page_indices)
        for pages in (k_pages, v_pages)
    )
    return lambda: grouped_attention64(q, k, v, lengths)


def tpu_paged_case() -> CorpusCase:
    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        q, k_pages, v_pages, lengths, page_indices = map(jnp.asarray, paged_inputs("tpu-paged"))
        extra, mode = on_cpu(module.paged_attention)
        with mode:
            return module.paged_attention(
                q, k_pages, v_pages, lengths, page_indices, pages_per_compute_block=4, **extra
            )

    return CorpusCase(  # the kernel loads every page as bfloat16 (``_maybe_dequantize``)
        "TPU paged attention (pages in bfloat16)",
        "tpu/paged_attention/paged_attention_kernel.py",
        run,
        paged_reference("tpu-paged", kv_dtype="bfloat16"),
        2e-5,
    )


def gpu_paged_case() -> CorpusCase:
    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        q, k_pages, v_pages, lengths, page_indices = map(jnp.asarray, paged_inputs("gpu-paged"))
        return module.paged_attention(
            q,
            k_pages,
            v_pages,
            page_indices,
            lengths,
            pages_per_compute_block=4,
            k_splits=2,
            interpret=True,
        )

    return CorpusCase(
        "GPU paged attention", "gpu/paged_attention.py", run, paged_reference("gpu-paged"), 1e-5
    )


def splash_case() -> CorpusCase:
    """Splash attention with a causal mask per head, vmapped over the batch as its users do."""
    q, k, v = rng("splash").standard_normal((3, 2, 2, 256, 128)).astype(np.float32)

    def run(module: ModuleType) -> Any:
        import jax
        import jax.numpy as jnp

        masks = module.mask_lib.MultiHeadMask([module.mask_lib.CausalMask((256, 256))] * 2)
        extra, mode = on_cpu(module._make_splash_attention)
        with mode:
            kernel = module.make_splash_mha(masks, head_shards=1, q_seq_shards=1, **extra)
            return jax.vmap(kernel)(*(jnp.asarray(t) for t in (q, k, v)))

    def reference() -> np.ndarray:
        as_bshd = [t.astype(np.float64).transpose(0, 2, 1, 3) for t in (q, k, v)]
        return attention64(*as_bshd, causal=True)[0].transpose(0, 2, 1, 3)

    return CorpusCase(
        "splash attention, causal mask",
        "tpu/splash_attention/splash_attention_kernel.py",
        run,
        reference,
        5e-5,
    )


def ragged_case() -> CorpusCase:
    """Three sequences in one batch: a 3-token prefill, a decode step, a 10-token prefill."""
    r = rng("ragged")
    q = r.standard_normal((16, 4, 128)).astype(np.float32)  # 14 real rows, 2 padding
    kv_pages = r.standard_normal((16, 16, 2, 128)).astype(np.float32)  # one kv head
    kv_lens = np.array([40, 17, 60], np.int32)
    page_indices = r.permutation(16)[:12].reshape(3, 4).astype(np.int32)
    cu_q_lens = np.array([0, 3, 4, 14], np.int32)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        extra, mode = on_cpu(module.ragged_paged_attention)
        with mode:
            out = module.ragged_paged_attention(
                *(jnp.asarray(t) for t in (q, kv_pages, kv_lens, page_indices, cu_q_lens)),
                jnp.array([3], jnp.int32),
                num_kv_pages_per_block=2,
                num_queries_per_block=8,
                **extra,
            )
        return out[:14]

    return CorpusCase(
        "ragged paged attention (prefill and decode mixed)",
        "tpu/ragged_paged_attention/kernel.py",
        run,
        lambda: ragged_attention64(q, kv_pages, kv_lens, page_indices, cu_q_lens),
        1e-5,
    )


def random_bits_case(
    generator: str,
    file: str,
    entry: str,
    key: np.ndarray,
    bits: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> CorpusCase:
    """32 random bits per element of a (16, 300) array (padded to the kernel's block);
    ``bits(key, count)`` gives them for the flat index of each element."""
    shape = (16, 300)

    def run(module: ModuleType) -> Any:
        import jax.numpy as jnp

        function = getattr(module, entry)
        extra, mode = on_cpu(function)
        with mode:
            return function(jnp.asarray(key), 32, shape, **extra)

    def reference() -> np.ndarray:
        return bits(key, np.arange(np.prod(shape), dtype=np.uint32).reshape(shape))

    return CorpusCase(f"random bits ({generator})", file, run, reference, 0.0)


def threefry_bits(key: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Threefry-2x32 of the counter (0, flat index), both words XORed."""
    high, low = threefry2x32(key, np.zeros_like(count), count)
    return high ^ low


def philox_bits(key: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Philox-4x32 of the counter (0, flat index, 0, 0), the first two words XORed."""
    zero = np.zeros_like(count)
    c0, c1, _, _ = philox4x32(key, (zero, count, zero, zero))
    return c0 ^ c1


def cases() -> list[CorpusCase]:
    from kernels.corpus._cases_mosaic_gpu import mosaic_gpu_cases

    return [*triton_and_tpu_cases(), *mosaic_gpu_cases()]


def triton_and_tpu_cases() -> list[CorpusCase]:
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
        gqa_case(),
        gpu_paged_case(),
        gmm_case(),
        tpu_flash_case(),
        double_case(),
        tpu_matmul_case(),
        tpu_paged_case(),
        splash_case(),
        ragged_case(),
        random_bits_case(
            "Threefry",
            "tpu/random/threefry.py",
            "plthreefry_random_bits",
            np.array([0x12345678, 0x9ABCDEF0], np.uint32),
            threefry_bits,
        ),
        random_bits_case(
            "Philox",
            "tpu/random/philox.py",
            "philox_random_bits",
            np.array([0x0BADF00D, 0xC0FFEE11], np.uint32),
            philox_bits,
        ),
    ]
