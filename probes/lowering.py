"""Cross-lowering on a machine without accelerators: the lowering API and the TPU block-shape rule."""

from __future__ import annotations

from typing import Any

from kernels.basics import add_kernel
from pallas_compat.facts import GPU_CUSTOM_CALLS
from probes._kernels import matmul_bf16_scratch, sds
from probes._observe import error_record, observe
from probes._pallas import block_spec, pl, tpu_compiler_params
from probes._registry import probe

#: The ways JAX has offered to lower for a platform this machine lacks, newest first.
LOWERING_APIS = ("trace().lower(lowering_platforms=)", "lower(_experimental_lowering_parameters=)")


def cross_lower(fn: Any, args: tuple[Any, ...], platform: str, api: str = LOWERING_APIS[0]) -> str:
    import jax

    if api == LOWERING_APIS[0]:
        return jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,)).as_text()
    from jax._src.interpreters import mlir

    params = mlir.LoweringParameters(platforms=(platform,))
    return jax.jit(fn).lower(*args, _experimental_lowering_parameters=params).as_text()


def tpu_add_lowers(
    block: tuple[int, ...], shape: tuple[int, ...], dtype: Any = None
) -> dict[str, Any]:
    """The chapter's ``tpu_lowers``: does an add kernel with this block lower for TPU?"""
    import jax.numpy as jnp

    dtype = dtype or jnp.float32
    grid = tuple(s // b if s % b == 0 else 1 for s, b in zip(shape, block, strict=True))
    index_map = (lambda i: (i,)) if len(shape) == 1 else (lambda i, j: (i, j))
    spec = block_spec(block, index_map)
    call = pl().pallas_call(
        add_kernel, out_shape=sds(shape, dtype), grid=grid, in_specs=[spec, spec], out_specs=spec
    )
    try:
        text = cross_lower(call, (sds(shape, dtype), sds(shape, dtype)), "tpu")
    except Exception as exc:
        err = error_record(exc)
        return {"lowers": False, "first_sentence": err["message"].split(".")[0], "error": err}
    return {"lowers": "tpu_custom_call" in text}


@probe("behaviours.lowering_api")
def lowering_api() -> dict[str, Any]:
    import jax.numpy as jnp

    call = pl().pallas_call(add_kernel, out_shape=sds((8, 128), jnp.float32))
    args = (sds((8, 128)), sds((8, 128)))
    record = {}
    for api in LOWERING_APIS:
        record[api] = observe(
            lambda a=api: cross_lower(call, args, "tpu", a),
            lambda text: {"tpu_custom_call": "tpu_custom_call" in text},
        )
    return record


@probe("behaviours.tpu_block_shape_rule")
def tpu_block_shape_rule() -> dict[str, Any]:
    """§6.1: the last two block dims must divide by 8 and 128 or equal the array's dims."""
    blocks = [(8, 128), (64, 128), (256, 512), (4, 128), (64, 100), (8, 64)]
    record = {f"{b[0]}x{b[1]}": tpu_add_lowers(b, (256, 512)) for b in blocks}
    record["full_dims_4x100_of_4x100"] = tpu_add_lowers((4, 100), (4, 100))
    return record


@probe("behaviours.tpu_block_shape_narrow_and_1d")
def tpu_block_shape_narrow_and_1d() -> dict[str, Any]:
    """§6.1: a bf16 block, and 1-D blocks (which the chapter could not lower without a chip)."""
    import jax.numpy as jnp

    record = {
        f"bf16_{b[0]}x{b[1]}": tpu_add_lowers(b, (256, 512), jnp.bfloat16)
        for b in [(8, 128), (16, 128)]
    }
    for block in (128, 1024, 100, 2048):
        record[f"1d_{block}_of_2048"] = tpu_add_lowers((block,), (2048,))
    return record


@probe("behaviours.tpu_lowering_bf16_matmul")
def tpu_lowering_bf16_matmul() -> dict[str, Any]:
    """§6.2: the 2048³ bf16 matmul with dimension semantics and a VMEM limit lowers for TPU."""
    import jax.numpy as jnp

    params = tpu_compiler_params(
        dimension_semantics=("parallel", "parallel", "arbitrary"), vmem_limit_bytes=64 * 1024 * 1024
    )
    a = sds((2048, 2048), jnp.bfloat16)

    def lower() -> str:
        call = matmul_bf16_scratch(2048, 2048, 2048, (512, 512, 512), compiler_params=params)
        return cross_lower(call, (a, a), "tpu")

    return observe(
        lower,
        lambda text: {
            "tpu_custom_call": "tpu_custom_call" in text,
            "vmem_limit_in_config": "67108864" in text,
        },
    )


@probe("behaviours.gpu_cross_lowering")
def gpu_cross_lowering() -> dict[str, Any]:
    """§1 extra: GPU cross-lowering without a GPU (the chapter saw it fail)."""
    import jax.numpy as jnp

    call = pl().pallas_call(add_kernel, out_shape=sds((8, 128), jnp.float32))
    args = (sds((8, 128)), sds((8, 128)))
    return {
        platform: observe(
            lambda p=platform: cross_lower(call, args, p),
            lambda text: {"custom_calls": sorted({w for w in GPU_CUSTOM_CALLS if w in text})},
        )
        for platform in ("cuda", "rocm")
    }
