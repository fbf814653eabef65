"""§6: TPU compiler parameters, in-place updates and cost estimates."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import pallas_compat
from kernels._case import Tolerance, case, f64
from kernels.advanced import BF16, bf16_inputs, bf16_ref, matmul_bf16
from pallas_compat import pl, pltpu


@case(
    "matmul_bf16_compiler_params",
    "§6.2",
    inputs=bf16_inputs,
    reference=bf16_ref,
    tolerance=Tolerance(2**-7, 2**-7, BF16.why),
)
def matmul_bf16_params(interpret):
    params = pltpu.CompilerParams(
        dimension_semantics=("parallel", "parallel", "arbitrary"),
        vmem_limit_bytes=64 * 1024 * 1024,
    )
    return lambda a, b: matmul_bf16(a, b, interpret=interpret, compiler_params=params)


def axpy_inplace_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = 2.0 * x_ref[...] + y_ref[...]


@case(
    "axpy_inplace_aliases",
    "§6.3",
    inputs=lambda r: (np.arange(16, dtype=np.float32), np.ones(16, np.float32)),
    reference=lambda x, y: 2.0 * f64(x) + f64(y),
)
def axpy_inplace(interpret):
    return lambda x, y: pl.pallas_call(
        axpy_inplace_kernel,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        input_output_aliases={1: 0},
        cost_estimate=pl.CostEstimate(flops=32, transcendentals=0, bytes_accessed=3 * 16 * 4),
        interpret=interpret,
    )(x, y)


#: The VMEM budget case (chapter §6.3): (256, 12288) x (12288, 256) bf16 blocks, two K steps
#: so that the pipeline double-buffers them.
BUDGET = {"bm": 256, "bk": 12288, "bn": 256, "vmem_limit_bytes": 48 * 1024 * 1024}


def vmem_need(bm: int, bk: int, bn: int) -> int:
    """Double-buffered bf16 input and output blocks plus the float32 scratch (§6.3)."""
    return 2 * (bm * bk + bk * bn) * 2 + 2 * bm * bn * 2 + bm * bn * 4


def fits(chip: str) -> bool:
    need = vmem_need(BUDGET["bm"], BUDGET["bk"], BUDGET["bn"])
    capacity = pallas_compat.tpu_info(chip).vmem_capacity_bytes
    return need <= min(BUDGET["vmem_limit_bytes"], capacity)


def budget_inputs(rng):
    k = 2 * BUDGET["bk"]
    a = jnp.asarray(rng.standard_normal((BUDGET["bm"], k)), jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal((k, BUDGET["bn"])), jnp.bfloat16)
    return a, b


@case(
    "matmul_bf16_vmem_budget",
    "§6.3",
    inputs=budget_inputs,
    reference=bf16_ref,
    tolerance=Tolerance(2**-7, 2**-7, BF16.why),
    fits={chip: fits(chip) for chip in ("v4", "v5e", "v5p", "v6e")},
)
def matmul_bf16_vmem_budget(interpret):
    """24.5 MiB of VMEM: lowers everywhere, fits v5e, v5p and v6e but not v4's 16 MiB."""
    params = pltpu.CompilerParams(
        dimension_semantics=("parallel", "parallel", "arbitrary"),
        vmem_limit_bytes=BUDGET["vmem_limit_bytes"],
    )
    bm, bk, bn = BUDGET["bm"], BUDGET["bk"], BUDGET["bn"]
    return lambda a, b: matmul_bf16(
        a, b, bm=bm, bk=bk, bn=bn, interpret=interpret, compiler_params=params
    )
