"""GPU variants of the chapter's kernels: power-of-two blocks (Triton's rule) and no
accumulation across programs (GPU programs run in parallel, in no order; chapter §6.2), so
the K loop lives inside the kernel. They run in every mode, and gpu_lower lowers them for
CUDA without a GPU."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from kernels._case import MATMUL, case, f64, normal
from kernels.advanced import SOFTMAX, softmax_kernel, softmax_ref
from kernels.basics import add_kernel, sds
from pallas_compat import pl, pltriton


def triton_params(triton: bool) -> object:
    """Name the Triton backend when the kernel goes to a GPU: since 0.9 a GPU pallas_call
    without params lowers through Mosaic GPU instead; the TPU paths must not see them."""
    return pltriton.CompilerParams(num_warps=4) if triton else None


@case(
    "gpu_add_pow2_blocks",
    "§6.2 (GPU)",
    inputs=lambda r: (normal(r, 1024, 256), normal(r, 1024, 256)),
    reference=lambda x, y: f64(x) + f64(y),
    gpu=True,
)
def gpu_add(interpret, triton=False):
    spec = pl.BlockSpec((64, 128), lambda i, j: (i, j))
    return lambda x, y: pl.pallas_call(
        add_kernel,
        out_shape=sds(x),
        grid=(16, 2),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=triton_params(triton),
        interpret=interpret,
    )(x, y)


def matmul_k_loop(a, b, bm=64, bn=128, bk=None, interpret=True, triton=False):
    """The tiled matmul, K looped inside the kernel. The K step is per backend. On a GPU
    (``triton``), shared memory is the budget: a K step stages an A block (bm x bk) and a B
    block (bk x bn) of float32, and Triton keeps 3 steps in flight (its default
    ``num_stages`` on CUDA): with bk = 32, 3 x (64 x 32 + 32 x 128) x 4 B = 72 KiB of a
    Hopper's 227 KiB per block (bk = 128 asked for 256 KiB: an H200 refused it, ``Shared
    memory size limit exceeded``). On a TPU a K slice of A is along the lanes, so bk = 128:
    Mosaic cannot prove a 32-wide slice's start a multiple of 128."""
    bk = bk or (32 if triton else 128)
    m, k = a.shape
    n = b.shape[1]

    def kernel(a_ref, b_ref, o_ref):
        def step(kk, acc):
            start = pl.multiple_of(kk * bk, bk)  # lets Mosaic prove lane alignment
            a_blk = a_ref[:, pl.ds(start, bk)]
            b_blk = b_ref[pl.ds(start, bk), :]
            return acc + jnp.dot(a_blk, b_blk, preferred_element_type=jnp.float32)

        o_ref[...] = lax.fori_loop(0, k // bk, step, jnp.zeros((bm, bn), jnp.float32))

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // bm, n // bn),
        in_specs=[
            pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, bn), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        compiler_params=triton_params(triton),
        interpret=interpret,
    )(a, b)


@case(
    "gpu_matmul_k_loop",
    "§6.2 (GPU)",
    inputs=lambda r: (normal(r, 256, 256), normal(r, 256, 512)),
    reference=lambda a, b: f64(a) @ f64(b),
    tolerance=MATMUL,
    gpu=True,
)
def gpu_matmul(interpret, triton=False):
    return lambda a, b: matmul_k_loop(a, b, interpret=interpret, triton=triton)


@case(
    "gpu_softmax_pow2_rows",
    "§6.2 (GPU)",
    inputs=lambda r: (normal(r, 64, 256, scale=3.0),),
    reference=softmax_ref,
    tolerance=SOFTMAX,
    gpu=True,
)
def gpu_softmax(interpret, triton=False):
    spec = pl.BlockSpec((16, 256), lambda i: (i, 0))
    return lambda x: pl.pallas_call(
        softmax_kernel,
        out_shape=sds(x),
        grid=(4,),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=triton_params(triton),
        interpret=interpret,
    )(x)
