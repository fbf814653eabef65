"""What each third-party case calls in a library's kernel file, and the answer it must give.

The references are written here from the math (NumPy float64, or exact integers), never taken
from the libraries' own reference functions. Inputs are seeded. GPU-style kernels (Triton)
run with ``interpret=True``; TPU-style kernels inside ``pltpu.force_tpu_interpret_mode()``:
the TPU simulator where the release has one, else the HLO interpreter. A kernel that uses
what the TPU simulator does not run (an in-kernel ``for_loop``) runs every release in the HLO
interpreter instead, and says why.
"""

from __future__ import annotations

import contextlib
import inspect
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from kernels._compile import GPU_KIND
from kernels.corpus._cases_mosaic_gpu import half, in_interpreter
from kernels.corpus._compiles import compiling
from kernels.corpus._mosaic_gpu import as_if_on_gpu
from kernels.corpus._references import attention64, grouped_attention64, softmax64, unpage
from kernels.thirdparty._libraries import BY_NAME, Library


@dataclass(frozen=True)
class ThirdPartyCase:
    library: Library
    name: str
    #: The kernel file, relative to the library's top-level package folder.
    file: str
    run: Callable[[ModuleType], Any]
    reference: Callable[[], np.ndarray]
    atol: float
    #: GPU or TPU: what the kernel was written for (a Triton kernel, or Mosaic's).
    hardware: str
    #: NumPy work on what ``run`` returned, outside ``jax.jit``.
    finish: Callable[[np.ndarray], np.ndarray] = np.asarray
    #: The matmul precision the tolerance assumes: float32 products, which a GPU's Triton
    #: (TF32 by default) and a TPU (bfloat16 passes by default) give only at "highest".
    precision: str = "highest"
    #: A Mosaic GPU kernel (its case name says so): the GPU's answers stood in on a CPU.
    mosaic_gpu: bool = False
    #: The device kind it is lowered for, where not its hardware's default.
    device: str | None = None

    def machine(self) -> contextlib.AbstractContextManager[Any]:
        if not self.mosaic_gpu:
            return contextlib.nullcontext()
        return as_if_on_gpu(self.device or GPU_KIND)


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


@contextlib.contextmanager
def tpu_interpreter() -> Iterator[None]:
    """Every ``pallas_call`` of the block in the TPU simulator where the release has one (the
    TPU interpreter), else in the HLO interpreter: JAX's own from 0.7.0, the shim's before."""
    from pallas_compat import pltpu

    if compiling():  # lowered for a TPU: no interpreter
        yield
        return
    with pltpu.force_tpu_interpret_mode():
        yield


@contextlib.contextmanager
def hlo_interpreter() -> Iterator[None]:
    """Every ``pallas_call`` of the block in the HLO interpreter (``interpret=True``), on every
    release: for TPU kernels that use what the TPU simulator does not run."""
    from pallas_compat.shim._interpret import force_tpu_interpret_mode

    if compiling():
        yield
        return
    with force_tpu_interpret_mode(True):
        yield


def arrays(*values: np.ndarray) -> list[Any]:
    import jax.numpy as jnp

    return [jnp.asarray(v) for v in values]


def norm64(x: np.ndarray, w: np.ndarray, b: np.ndarray, *, centred: bool) -> np.ndarray:
    """Layer norm (``centred``) or RMS norm over the last axis, eps 1e-5, then ``* w + b``."""
    x64 = x.astype(np.float64)
    if centred:
        x64 = x64 - x64.mean(-1, keepdims=True)
    return x64 / np.sqrt((x64**2).mean(-1, keepdims=True) + 1e-5) * w + b


def rms_norm_grad64(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """d sum(rms_norm(x) * w + b) / dx, eps 1e-5, float64."""
    x64 = x.astype(np.float64)
    n = x64.shape[-1]
    r = 1 / np.sqrt((x64**2).mean(-1, keepdims=True) + 1e-5)
    return w * r - x64 * r**3 * (x64 * w).sum(-1, keepdims=True) / n


# -- fjformer 0.0.70 (JAX 0.4.30): kernels for GPU, written from JAX's own, and for TPU

FJFORMER = BY_NAME["fjformer"]


def fjformer_softmax(row: int) -> ThirdPartyCase:
    x = rng(f"fjformer-softmax{row}").standard_normal((3, row)).astype(np.float32)
    label = "a block that overhangs the row" if row & (row - 1) else "a power-of-two row"
    return ThirdPartyCase(
        FJFORMER,
        f"softmax, {label}",
        "pallas_operations/gpu/softmax/softmax.py",
        lambda m: m.softmax(*arrays(x), interpret=True),
        lambda: softmax64(x.astype(np.float64)),
        1e-6,
        hardware="GPU",
    )


def fjformer_norm_inputs(
    name: str, features: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = rng(name).standard_normal((2, 4, features)).astype(np.float32)
    w, b = rng(name + "-affine").standard_normal((2, features)).astype(np.float32)
    return x, w, b


def fjformer_rms_norm() -> ThirdPartyCase:
    x, w, b = fjformer_norm_inputs("fjformer-rms")
    return ThirdPartyCase(
        FJFORMER,
        "RMS norm (in-kernel for_loop)",
        "pallas_operations/gpu/rms_norm/rms_norm.py",
        lambda m: m.rms_norm(*arrays(x, w, b), interpret=True),
        lambda: norm64(x, w, b, centred=False),
        1e-5,
        hardware="GPU",
    )


def fjformer_rms_norm_grad() -> ThirdPartyCase:
    x, w, b = fjformer_norm_inputs("fjformer-rms-grad")

    def run(m: ModuleType) -> Any:
        import jax

        xj, wj, bj = arrays(x, w, b)
        return jax.grad(lambda x: m.rms_norm(x, wj, bj, interpret=True).sum())(xj)

    return ThirdPartyCase(
        FJFORMER,
        "RMS norm backward (d/dx)",
        "pallas_operations/gpu/rms_norm/rms_norm.py",
        run,
        lambda: rms_norm_grad64(x, w),
        1e-4,
        hardware="GPU",
    )


def fjformer_layer_norm(features: int = 100) -> ThirdPartyCase:
    """Blocks of at most 4096 features: 100 take one loop step, 5000 take two, the second one
    masked past the end."""
    x, w, b = fjformer_norm_inputs(f"fjformer-layer-{features}", features)
    steps = "one for_loop step" if features <= 4096 else "two for_loop steps, the last masked"
    return ThirdPartyCase(
        FJFORMER,
        f"layer norm, {features} features ({steps})",
        "pallas_operations/gpu/layer_norm/layer_norm.py",
        lambda m: m.layer_norm(*arrays(x, w, b), interpret=True),
        lambda: norm64(x, w, b, centred=True),
        1e-5,
        hardware="GPU",
    )


def gpu_attention_inputs(name: str, seq: int = 128) -> tuple[np.ndarray, ...]:
    """q, k, v: [batch 1, seq, heads 2, head dim 64]."""
    return tuple(rng(name).standard_normal((3, 1, seq, 2, 64)).astype(np.float32))


def fjformer_mha(grad: bool, seq: int = 128) -> ThirdPartyCase:
    """Blocks of 128: at 256 the causal mask skips a block."""
    q, k, v = gpu_attention_inputs(f"fjformer-mha-{seq}", seq)

    def run(m: ModuleType) -> Any:
        import jax

        qj, kj, vj = arrays(q, k, v)
        call = lambda q: m.mha(q, kj, vj, None, sm_scale=1.0, causal=True, interpret=True)  # noqa: E731
        return jax.grad(lambda q: call(q).sum())(qj) if grad else call(qj)

    def reference() -> np.ndarray:
        out, d_q = attention64(*(t.astype(np.float64) for t in (q, k, v)), causal=True)
        return d_q if grad else out

    what = "backward (d/dq)" if grad else "forward"
    return ThirdPartyCase(
        FJFORMER,
        f"GPU flash attention {what}, causal, sequence {seq}",
        "pallas_operations/gpu/flash_attention/mha.py",
        run,
        reference,
        2e-4 if grad else 2e-5,
        hardware="GPU",
    )


def fjformer_biased_attention() -> ThirdPartyCase:
    """fjformer's own attention kernel: non-causal, one additive bias for every head."""
    q, k, v = gpu_attention_inputs("fjformer-bias")
    bias = rng("fjformer-bias-b").standard_normal((1, 1, 128, 128)).astype(np.float32)

    def reference() -> np.ndarray:
        q64, k64, v64 = (t.astype(np.float64) for t in (q, k, v))
        p = softmax64(np.einsum("bqhd,bkhd->bhqk", q64, k64) + bias)
        return np.einsum("bhqk,bkhd->bqhd", p, v64)

    return ThirdPartyCase(
        FJFORMER,
        "flash attention with a bias",
        "pallas_operations/pallas_attention/attention.py",
        lambda m: m.flash_attention(*arrays(q, k, v, bias), sm_scale=1.0, interpret=True),
        reference,
        2e-5,
        hardware="GPU",
    )


def fjformer_tpu_flash() -> ThirdPartyCase:
    q, k, v = rng("fjformer-tpu-flash").standard_normal((3, 1, 2, 256, 128)).astype(np.float32)

    def run(m: ModuleType) -> Any:
        sizes = m.BlockSizes(block_q=128, block_k_major=128, block_k=128, block_b=1)
        with tpu_interpreter():
            return m.flash_attention(*arrays(q, k, v), causal=True, sm_scale=1.0, block_sizes=sizes)

    def reference() -> np.ndarray:
        as_bshd = [t.astype(np.float64).transpose(0, 2, 1, 3) for t in (q, k, v)]
        return attention64(*as_bshd, causal=True)[0].transpose(0, 2, 1, 3)

    return ThirdPartyCase(
        FJFORMER,
        "TPU flash attention, causal",
        "pallas_operations/tpu/flash_attention/flash_attention.py",
        run,
        reference,
        5e-5,
        hardware="TPU",
    )


def paged_inputs(name: str) -> tuple[np.ndarray, ...]:
    """q [2, 8, 128]; k and v pages [2 kv heads, 16 pages, 16, 128]; 8 pages per sequence in
    a shuffled order; lengths 100 and 77 (the last pages partly or wholly unused)."""
    r = rng(name)
    q = r.standard_normal((2, 8, 128)).astype(np.float32)
    k_pages, v_pages = r.standard_normal((2, 2, 16, 16, 128)).astype(np.float32)
    page_indices = r.permutation(16).reshape(2, 8).astype(np.int32)
    return q, k_pages, v_pages, np.array([100, 77], np.int32), page_indices


def paged_reference(name: str) -> Callable[[], np.ndarray]:
    q, k_pages, v_pages, lengths, page_indices = paged_inputs(name)
    k, v = (unpage(pages, page_indices) for pages in (k_pages, v_pages))
    return lambda: grouped_attention64(q, k, v, lengths)


def fjformer_tpu_paged() -> ThirdPartyCase:
    def run(m: ModuleType) -> Any:
        q, k_pages, v_pages, lengths, page_indices = arrays(*paged_inputs("fjformer-paged"))
        with tpu_interpreter():
            return m.paged_attention(
                q, k_pages, v_pages, lengths, page_indices, pages_per_compute_block=4
            )

    return ThirdPartyCase(
        FJFORMER,
        "TPU paged attention (pltpu.TPUMemorySpace.ANY)",
        "pallas_operations/tpu/paged_attention/paged_attention.py",
        run,
        paged_reference("fjformer-paged"),
        2e-5,
        hardware="TPU",
    )


# -- ringattention 0.1.2 (JAX 0.4.30): blockwise ring attention, its TPU kernels in Pallas

RINGATTENTION = BY_NAME["ringattention"]


@contextlib.contextmanager
def one_device_ring() -> Iterator[Any]:
    """The mesh of a ring of one device (axis ``"sp"``) that ring attention runs over. While
    the case is lowered for a TPU on an abstract device (``pallas_compat.lower``'s), the ring
    is that abstract TPU, in context for the whole call, so that every mesh JAX sees agrees."""
    import jax
    import numpy as np_
    from jax.sharding import Mesh

    from kernels.corpus._compiles import PLATFORMS
    from pallas_compat.shim._lower import target_device

    if compiling():
        with target_device(*PLATFORMS["TPU"]):
            context = getattr(jax.sharding, "get_abstract_mesh", lambda: None)()
            if context is not None and not getattr(context, "empty", True):
                auto = (jax.sharding.AxisType.Auto,)  # as a concrete Mesh's default axis
                ring = context.update(axis_names=("sp",), axis_types=auto)
                with jax.sharding.use_abstract_mesh(ring):
                    yield ring
                return
    yield Mesh(np_.array(jax.devices()[:1]), ("sp",))


def on_one_device_ring(fn: Callable[..., Any], mesh: Any, *args: Any) -> Any:
    """``fn`` inside ``shard_map`` over ``mesh``, as ring attention is called: the
    collectives it makes (``ppermute``, ``psum``) then keep the data where it is."""
    import jax
    from jax.sharding import PartitionSpec

    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:
        from jax.experimental.shard_map import shard_map
    spec = PartitionSpec(None, "sp", None, None)
    # pallas_call has no replication rule: the check is off (its keyword changed in 0.7)
    takes = inspect.signature(shard_map).parameters
    unchecked = {"check_vma": False} if "check_vma" in takes else {"check_rep": False}
    mapped = shard_map(fn, mesh=mesh, in_specs=(spec,) * len(args), out_specs=spec, **unchecked)
    return mapped(*args)


def ring_attention(grad: bool, causal: bool) -> ThirdPartyCase:
    name = f"ring-{grad}-{causal}"
    q, k, v = rng(name).standard_normal((3, 1, 256, 2, 128)).astype(np.float32)
    chunks = {"query_chunk_size": 128, "key_chunk_size": 128}
    chunks["causal_block_size"] = 1 if causal else None

    def run(m: ModuleType) -> Any:
        import jax

        def attend(q: Any, k: Any, v: Any) -> Any:  # the kernel scales q by dim ** -0.5
            return m.ring_flash_attention_tpu(q, k, v, None, None, None, "sp", True, chunks)

        qj, kj, vj = arrays(q, k, v)
        with one_device_ring() as mesh, tpu_interpreter():
            if grad:
                total = lambda q: on_one_device_ring(attend, mesh, q, kj, vj).sum()  # noqa: E731
                return jax.grad(total)(qj)
            return on_one_device_ring(attend, mesh, qj, kj, vj)

    def reference() -> np.ndarray:
        scale = q.shape[-1] ** -0.5
        out, d_q = attention64(q.astype(np.float64) * scale, k, v, causal=causal)
        return d_q * scale if grad else out

    return ThirdPartyCase(
        RINGATTENTION,
        f"ring flash attention{' backward (d/dq)' if grad else ''}{', causal' if causal else ''}",
        "ringattention_pallas_tpu.py",
        run,
        reference,
        2e-4 if grad else 5e-5,
        hardware="TPU",
    )


# -- jax-flash-attn2 0.0.1 (JAX 0.4.35): FlashAttention-2 for GPU in Pallas (Triton)

FLASH_ATTN2 = BY_NAME["jax-flash-attn2"]


def flash_attn2(grad: bool = False, bias: bool = True, seq: int = 128) -> ThirdPartyCase:
    """Its Triton kernels run interpreted on a CPU on their own (``interpret=`` follows the
    backend), with ``compiler_params=dict(triton=dict(num_wraps=...))``: a misspelt key that
    old releases' Triton lowering ignored."""
    name = f"flash-attn2-{grad}-{bias}-{seq}"
    q, k, v = gpu_attention_inputs(name, seq)
    b = rng(name + "-b").standard_normal((1, 2, seq, seq)).astype(np.float32) if bias else None

    def run(m: ModuleType) -> Any:
        import jax

        qj, kj, vj = arrays(q, k, v)
        bj = None if b is None else arrays(b)[0]
        call = lambda q: m.pallas_flash_mha_attn_2_gpu(q, kj, vj, bj, softmax_scale=1.0)  # noqa: E731
        return jax.grad(lambda q: call(q).sum())(qj) if grad else call(qj)

    def reference() -> np.ndarray:
        q64, k64, v64 = (t.astype(np.float64) for t in (q, k, v))
        p = softmax64(np.einsum("bqhd,bkhd->bhqk", q64, k64) + (0 if b is None else b))
        if not grad:
            return np.einsum("bhqk,bkhd->bqhd", p, v64)
        d_p = np.einsum("bkhd->bhk", v64)[:, :, None, :] * np.ones_like(p)
        d_logits = p * (d_p - (d_p * p).sum(-1, keepdims=True))
        return np.einsum("bhqk,bkhd->bqhd", d_logits, k64)

    what = "with a bias per head" if bias else "without a bias"
    return ThirdPartyCase(
        FLASH_ATTN2,
        f"flash attention 2 {what}, sequence {seq}{', backward (d/dq)' if grad else ''}",
        "pallas_kernels/gpu_mha_kernel.py",
        run,
        reference,
        2e-4 if grad else 2e-5,
        hardware="GPU",
    )


# -- jaxite 0.0.3 (JAX 0.4.35): homomorphic encryption, integer polynomial products on TPU

JAXITE = BY_NAME["jaxite"]


def negacyclic64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * b mod (X^n + 1) with uint32 coefficients that wrap, as exact integers."""
    n = len(a)
    full = np.convolve(a.astype(object), b.astype(object))
    wrapped = full[:n].copy()
    wrapped[: n - 1] -= full[n:]
    return np.array([int(c) % 2**32 for c in wrapped], dtype=np.uint64)


def jaxite_polymul(degree: int = 256) -> ThirdPartyCase:
    """A vector of 4 polynomials times a 4 x 3 matrix of them, mod X^degree + 1: the TPU
    kernel (``pltpu.roll`` with a stride), called where jaxite calls it on a TPU v5."""
    r = rng(f"jaxite-polymul-{degree}")
    vec = r.integers(0, 2**32, (4, degree), dtype=np.uint64).astype(np.uint32)
    mat = r.integers(0, 2**32, (4, 3, degree), dtype=np.uint64).astype(np.uint32)

    def run(m: ModuleType) -> Any:
        with tpu_interpreter():
            return m._vector_matrix_polymul(*arrays(vec.astype(np.int32), mat.astype(np.int32)))

    def reference() -> np.ndarray:
        out = np.zeros((3, degree), np.uint64)
        for j in range(3):
            for i in range(4):
                out[j] = (out[j] + negacyclic64(vec[i], mat[i, j])) % 2**32
        return out

    return ThirdPartyCase(
        JAXITE,
        f"negacyclic vector-matrix polynomial product, degree {degree} (exact, uint32)",
        "jaxite_lib/polymul_kernel.py",
        run,
        reference,
        0.0,
        hardware="TPU",
        finish=lambda out: out.astype(np.uint64),
    )


def jaxite_i32_matmul() -> ThirdPartyCase:
    """uint32 matrix product, exact mod 2^32, from bfloat16 products of the bytes."""
    r = rng("jaxite-i32")
    lhs = r.integers(0, 2**32, (8, 128), dtype=np.uint64).astype(np.uint32)
    rhs = r.integers(0, 2**32, (128, 128), dtype=np.uint64).astype(np.uint32)

    def run(m: ModuleType) -> Any:
        with tpu_interpreter():
            return m.i32_matmul(*arrays(lhs.astype(np.int32), rhs.astype(np.int32)))

    def reference() -> np.ndarray:
        exact = lhs.astype(object) @ rhs.astype(object)
        return np.vectorize(lambda c: int(c) % 2**32, otypes=[np.uint64])(exact)

    return ThirdPartyCase(
        JAXITE,
        "uint32 matmul from byte products (exact)",
        "jaxite_lib/polymul_kernel.py",
        run,
        reference,
        0.0,
        hardware="TPU",
        finish=lambda out: out.astype(np.uint64),
    )


def jaxite_toeplitz() -> ThirdPartyCase:
    """Row i is x rolled right by i (``pltpu.roll`` with a stride), negated below the diagonal:
    the matrix a negacyclic product multiplies by."""
    x = rng("jaxite-toeplitz").integers(-(2**20), 2**20, 256).astype(np.int32)

    def run(m: ModuleType) -> Any:
        with tpu_interpreter():
            return m.toeplitz_kernelized(*arrays(x))

    def reference() -> np.ndarray:
        rows = np.stack([np.roll(x.astype(np.int64), i) for i in range(256)])
        below = np.arange(256)[:, None] > np.arange(256)[None, :]
        return np.where(below, -rows, rows).astype(np.float64)

    return ThirdPartyCase(
        JAXITE,
        "signed Toeplitz matrix (pltpu.roll with a stride, exact)",
        "jaxite_lib/matrix_utils.py",
        run,
        reference,
        0.0,
        hardware="TPU",
    )


# -- easydel 0.1.4 (JAX 0.5.3): a training and serving library's GPU and TPU kernels

EASYDEL = BY_NAME["easydel"]


def easydel_rms_norm(grad: bool) -> ThirdPartyCase:
    """20 rows in blocks of 8 (the last block overhangs, masked); its own custom VJP."""
    r = rng(f"easydel-rms-{grad}")
    x = r.standard_normal((20, 128)).astype(np.float32)
    w = r.standard_normal(128).astype(np.float32)

    def run(m: ModuleType) -> Any:
        import jax

        xj, wj = arrays(x, w)
        if grad:
            return jax.grad(lambda x: m.rms_norm(x, wj, 8).sum())(xj)
        return m.rms_norm(xj, wj, 8)

    def reference() -> np.ndarray:
        return rms_norm_grad64(x, w) if grad else norm64(x, w, 0.0, centred=False)

    return ThirdPartyCase(
        EASYDEL,
        f"RMS norm{' backward (d/dx)' if grad else ''}, a row block that overhangs (masked)",
        "kernels/rms_norm.py",
        run,
        reference,
        1e-4 if grad else 1e-5,
        hardware="GPU",
    )


def grouped_attention_inputs(name: str) -> tuple[np.ndarray, ...]:
    """q [batch 1, seq 128, 4 heads, dim 64]; k, v [1, 128, 2 kv heads, 64]."""
    r = rng(name)
    q = r.standard_normal((1, 128, 4, 64)).astype(np.float32)
    k, v = r.standard_normal((2, 1, 128, 2, 64)).astype(np.float32)
    return q, k, v


def easydel_flash_attention() -> ThirdPartyCase:
    """Its grouped-query FlashAttention 2 for GPU, with one query head per KV head (with more,
    its head indexing is wrong on every release: not a Pallas matter): ``functools.partial(
    pl.pallas_call, ...)`` as a decorator, keyword ``pl.load(ref, idx=..., mask=...,
    other=...)`` and ``pl.store(ref, val=..., idx=..., mask=...)``, ``num_wraps``. Its backward
    raises "Under Development!" by design."""
    q, k, v = gpu_attention_inputs("easydel-flash")

    def reference() -> np.ndarray:
        return attention64(*(t.astype(np.float64) for t in (q, k, v)), causal=False)[0]

    return ThirdPartyCase(
        EASYDEL,
        "flash attention 2 (its GQA kernel, one query head per KV head)",
        "kernels/gpu_ops/_deprecated/pallas_gqa_flash_attention_2.py",
        lambda m: m.flash_attention2(*arrays(q, k, v), softmax_scale=1.0, interpret=True),
        reference,
        2e-5,
        hardware="GPU",
    )


def easydel_ragged_mqa() -> ThirdPartyCase:
    """Decode attention over ragged lengths: two sequences of 300 and 512 keys in blocks of
    128; scalar prefetch, dict ``compiler_params``, ``cost_estimate=``. In the HLO
    interpreter: 0.5.3's TPU simulator cannot run its index maps, which read the prefetched
    lengths (```get` must be called on `Ref` types``); 0.6.2's and later run them."""
    r = rng("easydel-ragged")
    q = r.standard_normal((2, 8, 128)).astype(np.float32)
    k, v = r.standard_normal((2, 2, 512, 128)).astype(np.float32)
    lengths = np.array([300, 512], np.int32)

    def run(m: ModuleType) -> Any:
        starts = np.zeros(2, np.int32)
        with hlo_interpreter():
            out, _, _ = m.ragged_mqa(*arrays(q, k, v, lengths, starts), block_size=128)
        return out

    def reference() -> np.ndarray:
        k4, v4 = (t[:, :, None, :] for t in (k, v))  # one KV head for all 8 query heads
        return grouped_attention64(q, k4, v4, lengths)

    return ThirdPartyCase(
        EASYDEL,
        "ragged multi-query attention (scalar prefetch, dict compiler_params)",
        "kernels/tpu_ops/ragged_attention_pallas/_forward_pallas.py",
        run,
        reference,
        2e-5,
        hardware="TPU",
    )


def matmul_inputs(name: str) -> tuple[np.ndarray, np.ndarray]:
    r = rng(name)
    return (
        r.standard_normal((64, 128)).astype(np.float32),
        r.standard_normal((128, 96)).astype(np.float32),
    )


def easydel_tpu_matmul() -> ThirdPartyCase:
    """``pl.pallas_call(f=...)``, dict ``compiler_params``, scratch in the grid spec. Blocks
    of 64 x 128 x 128, a 2 x 2 x 2 grid: a TPU block's last two dimensions are multiples of
    8 and 128 (Mosaic refuses 32 x 32)."""
    r = rng("easydel-tpu-matmul-128")
    a = r.standard_normal((128, 256)).astype(np.float32)
    b = r.standard_normal((256, 256)).astype(np.float32)

    def run(m: ModuleType) -> Any:
        with tpu_interpreter():
            return m.matmul(*arrays(a, b), 64, 128, 128)

    return ThirdPartyCase(
        EASYDEL,
        "TPU matmul, K accumulated in VMEM scratch (pallas_call(f=...))",
        "kernels/tpu_ops/matmul_pallas/_caller.py",
        run,
        lambda: a.astype(np.float64) @ b,
        1e-4,
        hardware="TPU",
    )


def easydel_gpu_matmul() -> ThirdPartyCase:
    a, b = matmul_inputs("easydel-gpu-matmul")

    def run(m: ModuleType) -> Any:
        import jax.numpy as jnp

        return m.gpu_matmul(*arrays(a, b), 16, 16, 16, jnp.float32)

    return ThirdPartyCase(
        EASYDEL,
        "GPU matmul (pallas_call(f=...))",
        "kernels/gpu_ops/_deprecated/pallas_gemm.py",
        run,
        lambda: a.astype(np.float64) @ b,
        1e-4,
        hardware="GPU",
    )


def easydel_paged() -> ThirdPartyCase:
    def run(m: ModuleType) -> Any:
        q, k_pages, v_pages, lengths, page_indices = arrays(*paged_inputs("easydel-paged"))
        with tpu_interpreter():
            return m.paged_attention(
                q, k_pages, v_pages, lengths, page_indices, pages_per_compute_block=4
            )

    return ThirdPartyCase(
        EASYDEL,
        "TPU paged attention (pltpu.TPUMemorySpace.ANY, TPUCompilerParams)",
        "kernels/tpu_ops/paged_attention_pallas/_paged_attention.py",
        run,
        paged_reference("easydel-paged"),
        2e-5,
        hardware="TPU",
    )


# -- recurrentgemma 1.0.0 (JAX 0.5.3): the Griffin LRU scan as a TPU kernel

RECURRENTGEMMA = BY_NAME["recurrentgemma"]


def lru_inputs(name: str, dtype: Any = np.float32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x [batch 2, seq 40, width 128] (the kernel pads seq to blocks of 16), decays a of
    modulus in [0.5, 0.99) (complex: with a phase), and the initial state h0 [2, 128]."""
    r = rng(name)
    x = r.standard_normal((2, 40, 128))
    a = r.uniform(0.5, 0.99, (2, 40, 128))
    h0 = r.standard_normal((2, 128))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.standard_normal(x.shape)
        a = a * np.exp(1j * r.uniform(-np.pi, np.pi, a.shape))
        h0 = h0 + 1j * r.standard_normal(h0.shape)
    return x.astype(dtype), a.astype(dtype), h0.astype(dtype)


def lru64(x: np.ndarray, a: np.ndarray, h0: np.ndarray, reverse: bool) -> np.ndarray:
    """h_t = a_t * h_(t-1) + x_t from h0, over time (backwards when ``reverse``): every h_t."""
    steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    h, out = h0.astype(np.complex128), np.zeros(x.shape, np.complex128)
    for t in steps:
        h = a[:, t] * h + x[:, t]
        out[:, t] = h
    return out if np.iscomplexobj(x) else out.real


def recurrentgemma_lru(
    reverse: bool = False, grad: bool = False, complex_values: bool = False
) -> ThirdPartyCase:
    """The kernel loops over time with the in-kernel ``for_loop`` of ``jax._src``, which the
    TPU simulator does not run (``NotImplementedError: for_p``; Mosaic compiles it): it runs
    in the HLO interpreter on every release. Complex values go through recurrentgemma's own
    ``Complex`` pytree (real and imaginary parts as separate refs)."""
    name = f"lru-{reverse}-{grad}-{complex_values}"
    x, a, h0 = lru_inputs(name, np.complex64 if complex_values else np.float32)

    def run(m: ModuleType) -> Any:
        import jax

        xj, aj, hj = arrays(x, a, h0)
        with hlo_interpreter():
            if grad:
                return jax.grad(lambda x: m.lru_pallas_scan(x, aj, hj)[0].sum())(xj)
            return m.lru_pallas_scan(xj, aj, hj, reverse=reverse)[0]

    def reference() -> np.ndarray:
        if grad:  # d sum(h) / d x_t = 1 + a_(t+1) + a_(t+1) a_(t+2) + ...
            return lru64(np.ones_like(x), np.concatenate([a[:, 1:], a[:, :1]], 1), 0 * h0, True)
        y = lru64(x, a, h0, reverse)
        return np.stack([y.real, y.imag]) if complex_values else y

    what = "backward (d/dx)" if grad else ("reversed" if reverse else "forward")
    return ThirdPartyCase(
        RECURRENTGEMMA,
        f"LRU linear scan, {what}{', complex' if complex_values else ''} (in-kernel for_loop)",
        "jax/pallas.py",
        run,
        reference,
        1e-4,
        hardware="TPU",
        finish=(lambda y: np.stack([y.real, y.imag])) if complex_values else np.asarray,
    )


# -- aqtp 0.8.2 (JAX 0.4.35): AQT's quantized tensors inside Pallas kernels

AQT = BY_NAME["aqtp"]


def int8_symmetric(x: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """AQT's int8 numerics as documented there: scale = absmax / 127.5 along ``axis`` (float32),
    q = x / scale clipped to +-127 and rounded half to even. Returns (q, scale)."""
    scale = (np.abs(x).max(axis=axis, keepdims=True) / np.float32(127.5)).astype(np.float32)
    q = np.round(np.clip((x / scale).astype(np.float32), -127, 127))
    return q.astype(np.float64), scale.astype(np.float64)


def aqt_matmul(quantize_rhs: bool) -> ThirdPartyCase:
    """A blocked matmul whose kernel takes AQT ``QTensor`` refs: ``aqt_pl.pallas_call`` builds
    the BlockSpecs of the values and their scales, the kernel calls ``aqt_pl.load_qtensor``
    and ``aqt_pl.dot_general``, as AQT's own tests of it do; K in two blocks."""
    r = rng(f"aqt-{quantize_rhs}")
    lhs = r.uniform(size=(128, 256)).astype(np.float32)
    rhs = r.uniform(size=(256, 128)).astype(np.float32)

    def run(m: ModuleType) -> Any:
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl  # the case's own code: JAX's, as written

        def kernel(lhs_ref: Any, rhs_ref: Any, out_ref: Any) -> None:
            @pl.when(pl.program_id(axis=2) == 0)
            def _() -> None:
                out_ref[...] = jnp.zeros_like(out_ref)

            lhs = m.load_qtensor(lhs_ref)
            rhs = m.load_qtensor(rhs_ref) if quantize_rhs else rhs_ref[...]
            out_ref[...] += m.dot_general(lhs, rhs, dimension_numbers=(((1,), (0,)), ((), ())))

        def call(lhs: Any, rhs: Any) -> Any:
            qlhs = m.quant(lhs, n_bits=8, calibration_axes=(1,))
            qrhs = m.quant(rhs, n_bits=8, calibration_axes=(0,)) if quantize_rhs else rhs
            return m.pallas_call(
                kernel,
                out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32),
                grid=(1, 1, 2),
                in_specs=[
                    pl.BlockSpec((128, 128), lambda i, j, k: (i, k)),
                    pl.BlockSpec((128, 128), lambda i, j, k: (k, j)),
                ],
                out_specs=pl.BlockSpec((128, 128), lambda i, j, k: (i, j)),
                interpret=True,
            )(qlhs, qrhs)

        return jax.jit(call)(*arrays(lhs, rhs))

    def reference() -> np.ndarray:
        ql, sl = int8_symmetric(lhs, 1)
        if not quantize_rhs:
            return (ql * sl) @ rhs.astype(np.float64)
        qr, sr = int8_symmetric(rhs, 0)
        return (ql @ qr) * sl * sr

    return ThirdPartyCase(
        AQT,
        f"int8 matmul of AQT QTensors ({'both operands' if quantize_rhs else 'lhs'} quantized)",
        "jax/v2/pallas/__init__.py",
        run,
        reference,
        1e-3,
        hardware="TPU",
    )


# -- tokamax 0.0.2 (JAX 0.7.2): openxla's kernel library, its Mosaic GPU ragged dot

TOKAMAX = BY_NAME["tokamax"]


def tokamax_ragged_dot() -> ThirdPartyCase:
    """Groups of 100 and 156 rows, float16 in and out (float32 accumulation): half an ulp of
    float16 at the outputs' size (|out| < 16) is under 1e-2. Hopper (an H100), no warp
    specialization."""
    lhs, rhs = half("tokamax-ragged-lhs", (256, 128)), half("tokamax-ragged-rhs", (2, 128, 128))
    sizes = np.array([100, 156], np.int32)

    def run(m: ModuleType) -> Any:
        import jax.numpy as jnp

        config = m.common.Config(
            block_m=64, block_n=64, block_k=64, num_stages=2, split_k=1, warp_specialized=False
        )
        return in_interpreter(
            None,
            lambda: m.ragged_dot_non_quantized_kernel(
                *arrays(lhs, rhs, sizes), jnp.float16, config
            ),
        )

    def reference() -> np.ndarray:
        x = lhs.astype(np.float64)
        return np.concatenate([x[:100] @ rhs[0], x[100:] @ rhs[1]])

    return ThirdPartyCase(
        TOKAMAX,
        "Mosaic GPU ragged dot (float16)",
        "_src/ops/ragged_dot/pallas_mosaic_gpu_non_quant_kernel.py",
        run,
        reference,
        1e-2,
        hardware="GPU",
        mosaic_gpu=True,
    )


def cases() -> list[ThirdPartyCase]:
    return [
        fjformer_softmax(100),
        fjformer_softmax(128),
        fjformer_rms_norm(),
        fjformer_rms_norm_grad(),
        fjformer_layer_norm(),
        fjformer_layer_norm(5000),
        fjformer_mha(grad=False),
        fjformer_mha(grad=True),
        fjformer_mha(grad=False, seq=256),
        fjformer_biased_attention(),
        fjformer_tpu_flash(),
        fjformer_tpu_paged(),
        ring_attention(grad=False, causal=False),
        ring_attention(grad=False, causal=True),
        ring_attention(grad=True, causal=True),
        flash_attn2(),
        flash_attn2(bias=False, seq=256),
        flash_attn2(grad=True),
        jaxite_polymul(),
        jaxite_polymul(512),
        jaxite_i32_matmul(),
        jaxite_toeplitz(),
        easydel_rms_norm(grad=False),
        easydel_rms_norm(grad=True),
        easydel_flash_attention(),
        easydel_ragged_mqa(),
        easydel_tpu_matmul(),
        easydel_gpu_matmul(),
        easydel_paged(),
        tokamax_ragged_dot(),
        recurrentgemma_lru(),
        recurrentgemma_lru(reverse=True),
        recurrentgemma_lru(grad=True),
        recurrentgemma_lru(complex_values=True),
        aqt_matmul(quantize_rhs=True),
        aqt_matmul(quantize_rhs=False),
    ]
