"""What each namespace adds to the native module: back-fills of old names on new JAX,
forward-fills of new names on old JAX, and the call-form adapters.

Every entry is built on first lookup from the API-facts table; nothing here compares versions.
"""

from __future__ import annotations

import enum
import functools
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from pallas_compat._errors import missing
from pallas_compat._facts import FEATURES_BY_KEY, MOSAIC_GPU, PL, TPU, TRITON, Location
from pallas_compat._namespace import Fill
from pallas_compat._resolve import Resolution, find, native, resolve
from pallas_compat._warnings import warn_once


def shim(module: str) -> ModuleType:
    """A shim module, imported when the first fill that needs it is built (keeps import cheap)."""
    return importlib.import_module(f"pallas_compat.{module}")


def backfilled(spelling: str, obj: Any, modern: str) -> Any:
    """``obj`` served under an old name: warn once, on first lookup or first call."""
    message = f"{spelling} is gone from the installed JAX; pallas-compat serves it. Write: {modern}"
    warn_once(spelling, message, stacklevel=5)
    if isinstance(obj, type) or not callable(obj):
        return obj

    @functools.wraps(obj)
    def call(*args: Any, **kwargs: Any) -> Any:
        warn_once(spelling, message)
        return obj(*args, **kwargs)

    return call


def old_signature(module: str, name: str, key: str) -> Fill:
    """An old name whose callable JAX still has, same signature, in a private module."""

    def build() -> Any:
        here = native(module, name)
        if here is not None:
            return here
        feature = FEATURES_BY_KEY[key]
        spelling = f"{Location(module, name).spelling}"
        if feature.backfill is not None:
            state, obj = find(feature.backfill)
            if state == "present":
                return backfilled(spelling, obj, feature.hint)
        raise missing(feature, spelling)

    return build


def feature_object(key: str, spelling: str, *, old: bool = False) -> Fill:
    """Wherever the feature lives on this JAX (public, deprecated or private)."""

    def build() -> Any:
        resolved = resolve(FEATURES_BY_KEY[key])
        if resolved.status is Resolution.UNAVAILABLE:
            raise missing(resolved.feature, spelling)
        if old and resolved.location is not None and resolved.location.spelling != spelling:
            return backfilled(spelling, resolved.obj, resolved.feature.hint)
        return resolved.obj

    return build


def native_or(module: str, name: str, fallback: Callable[[], Any]) -> Fill:
    return lambda: n if (n := native(module, name)) is not None else fallback()


def params(backend: str, spelling: str, *, old: bool = False) -> Fill:
    def build() -> Any:
        where = resolve(
            FEATURES_BY_KEY[shim("_compiler_params").BACKEND_FEATURES[backend]]
        ).location
        renamed = old and (where is None or where.spelling != spelling)
        cls = shim("_compiler_params").params_class(backend, spelling if renamed else None)
        if cls is None:
            raise missing(
                FEATURES_BY_KEY[shim("_compiler_params").BACKEND_FEATURES[backend]], spelling
            )
        return cls

    return build


def scratch_grid_spec(**kwargs: Any) -> Any:
    return importlib.import_module(TPU).PrefetchScalarGridSpec(**kwargs)


def pl_fills() -> dict[str, Fill]:
    fills: dict[str, Fill] = {
        "pallas_call": lambda: shim("_pallas_call").make_pallas_call(
            native(PL, "pallas_call"), scratch_grid_spec
        ),
        "BlockSpec": lambda: shim("_block_spec").block_spec_class(),
        **{
            name: native_or(PL, name, lambda name=name: getattr(shim("_block_spec"), name))
            for name in ("Unblocked", "unblocked", "blocked", "Element", "Squeezed", "squeezed")
        },
        "CostEstimate": native_or(PL, "CostEstimate", lambda: CostEstimate),
    }
    for key in ("load", "store", "swap", "dot", "max_contiguous"):
        fills[key] = old_signature(PL, key, key)
    for op in ("add", "and", "cas", "max", "min", "or", "xchg", "xor"):
        fills[f"atomic_{op}"] = old_signature(PL, f"atomic_{op}", f"atomic_{op}")
    return fills


def tpu_fills() -> dict[str, Fill]:
    return {
        "CompilerParams": params("mosaic", "pltpu.CompilerParams"),
        "TPUCompilerParams": params("mosaic", "pltpu.TPUCompilerParams", old=True),
        "MemorySpace": feature_object("tpu_memory_space", "pltpu.MemorySpace"),
        "TPUMemorySpace": feature_object("tpu_memory_space", "pltpu.TPUMemorySpace", old=True),
        "InterpretParams": lambda: shim("_interpret").tpu_params_class(
            feature_object("tpu_simulator", "pltpu.InterpretParams")()
        ),
        "reset_tpu_interpret_mode_state": native_or(
            TPU, "reset_tpu_interpret_mode_state", lambda: shim("_interpret").reset_interpret_state
        ),
        "ChipVersion": lambda: shim("_tpu_info").chip_version_class(),
        "get_tpu_info_for_chip": native_or(
            TPU, "get_tpu_info_for_chip", lambda: shim("_tpu_info").get_tpu_info_for_chip
        ),
        "GridDimensionSemantics": native_or(
            TPU, "GridDimensionSemantics", lambda: GridDimensionSemantics
        ),
        "PARALLEL": native_or(TPU, "PARALLEL", lambda: GridDimensionSemantics.PARALLEL),
        "ARBITRARY": native_or(TPU, "ARBITRARY", lambda: GridDimensionSemantics.ARBITRARY),
    }


def triton_fills() -> dict[str, Fill]:
    return {
        "CompilerParams": params("triton", "pltriton.CompilerParams"),
        "TritonCompilerParams": params("triton", "pltriton.TritonCompilerParams", old=True),
    }


def mosaic_gpu_fills() -> dict[str, Fill]:
    return {
        "CompilerParams": feature_object("mosaic_gpu_compiler_params", "plmgpu.CompilerParams"),
        "GPUCompilerParams": feature_object(
            "mosaic_gpu_compiler_params", "plmgpu.GPUCompilerParams", old=True
        ),
        "InterpretGPUParams": feature_object("gpu_simulator", "plmgpu.InterpretGPUParams"),
    }


class GridDimensionSemantics(str, enum.Enum):
    """``pltpu.GridDimensionSemantics`` before 0.5.3, where the strings were the API."""

    PARALLEL = "parallel"
    ARBITRARY = "arbitrary"


class CostEstimate:
    """``pl.CostEstimate`` before 0.4.33: kept for the call form, dropped by ``pallas_call``."""

    def __init__(self, flops: int, transcendentals: int, bytes_accessed: int) -> None:
        self.flops, self.transcendentals = flops, transcendentals
        self.bytes_accessed = bytes_accessed

    def __bool__(self) -> bool:
        return True


#: Namespace name -> (native module candidates, newest first; fills).
NAMESPACES: dict[str, tuple[tuple[str, ...], Callable[[], dict[str, Fill]]]] = {
    "pl": ((PL,), pl_fills),
    "pltpu": ((TPU,), tpu_fills),
    "pltriton": ((TRITON, f"{PL}.gpu"), triton_fills),
    "plmgpu": ((MOSAIC_GPU,), mosaic_gpu_fills),
}
