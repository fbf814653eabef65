"""Each backend's compiler params as the chapter constructs them, and how TPU accepts them."""

from __future__ import annotations

import dataclasses
from typing import Any

from common import normalize
from probes._observe import observe, py_repr
from probes._pallas import feature, pl
from probes._registry import probe


def _fields(params: Any) -> dict[str, str]:
    """Every field of the constructed dataclass with its value: new fields and defaults show."""
    return {f.name: py_repr(getattr(params, f.name)) for f in dataclasses.fields(params)}


def _construct(key: str, **fields: Any) -> dict[str, Any]:
    cls = feature(key)
    return observe(lambda: cls(**fields), _fields)


@probe("behaviours.compiler_params_tpu")
def tpu() -> dict[str, Any]:
    return _construct(
        "tpu_compiler_params",
        dimension_semantics=("parallel", "parallel", "arbitrary"),
        vmem_limit_bytes=64 * 1024 * 1024,
    )


@probe("behaviours.compiler_params_triton")
def triton() -> dict[str, Any]:
    return _construct("triton_compiler_params", num_warps=4, num_stages=3)


@probe("behaviours.compiler_params_mosaic_gpu")
def mosaic_gpu() -> dict[str, Any]:
    return _construct("mosaic_gpu_compiler_params", max_concurrent_steps=2)


@probe("behaviours.grid_dimension_semantics_enum")
def grid_dimension_semantics() -> dict[str, Any]:
    tpu = __import__(f"{pl().__name__}.tpu", fromlist=["_"])
    return {
        name: observe(
            lambda n=name: getattr(tpu, n), lambda v: {"repr": py_repr(v), "str": normalize(str(v))}
        )
        for name in ("PARALLEL", "ARBITRARY")
    }
