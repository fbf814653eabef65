"""tpu_compile and gpu_lower: the opt-in modes that target hardware this machine lacks."""

from __future__ import annotations

from typing import Any

import numpy as np

import pallas_compat
from pallas_compat.shim._lower import target_device

#: Chip -> the single-chip topology libtpu compiles for.
TOPOLOGIES = {"v4": "v4:1x1x1", "v5e": "v5e:1x1", "v5p": "v5p:1x1x1", "v6e": "v6e:1x1"}
#: The GPU that gpu_lower targets (any device kind JAX knows would do).
GPU_KIND = "NVIDIA H100 80GB HBM3"


def libtpu_missing() -> str | None:
    """Why deviceless TPU compilation cannot run here, or None when it can."""
    try:
        import libtpu  # noqa: F401
    except ImportError:
        return "libtpu is not installed: pip install 'jax[tpu]==<this jax>' to compile for TPU"
    try:
        from jax.experimental import topologies
    except ImportError:
        return "this JAX has no jax.experimental.topologies"
    try:
        topologies.get_topology_desc(TOPOLOGIES["v5e"], "tpu")
    except Exception as exc:
        return f"libtpu cannot describe a TPU topology here: {type(exc).__name__}: {exc}"
    return None


def compile_for(chip: str, fn: Any, inputs: tuple[Any, ...]) -> str | None:
    """Compile ``fn`` for one chip with no TPU attached; None when it fits, else the reason."""
    import jax
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    device = topologies.get_topology_desc(TOPOLOGIES[chip], "tpu").devices[0]
    sharding = SingleDeviceSharding(device)
    args = [jax.ShapeDtypeStruct(np.shape(x), x.dtype, sharding=sharding) for x in inputs]
    try:
        with target_device("tpu", chip):  # Mosaic reads the chip for some layouts
            jax.jit(fn).trace(*args).lower().compile()
    except Exception as exc:
        return str(exc).strip().splitlines()[0][:300]
    return None


def gpu_lower(fn: Any, inputs: tuple[Any, ...]) -> str:
    import jax

    shapes = [jax.ShapeDtypeStruct(np.shape(x), x.dtype) for x in inputs]
    return pallas_compat.lower(fn, *shapes, platform="cuda", chip=GPU_KIND)
