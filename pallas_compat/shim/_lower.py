"""Cross-lowering for a platform this machine lacks (TPU from a CPU box), as text."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from pallas_compat.facts._table import installed_jax
from pallas_compat.shim._errors import UnsupportedFeatureError
from pallas_compat.shim._tpu_info import table

#: Streaming multiprocessors of the GPUs lowered for by name: an abstract device answers
#: ``num_cores`` with them, as the real one does (Mosaic GPU kernels size their grids by it).
GPU_CORES = {"NVIDIA H100 80GB HBM3": 132, "NVIDIA H200": 132, "NVIDIA B200": 148}


def device_kinds() -> dict[str, str]:
    """ChipVersion value -> the device kind JAX reads to pick a TPU's layout rules, from the
    one chip table (``tpu_chips.json``; ``scripts/update_tpu_table.py`` checks each against
    JAX's ``chip_version_from_device_kind``)."""

    return {chip["value"]: chip["device_kind"] for chip in table().values()}


@contextlib.contextmanager
def target_device(platform: str, chip: str | None) -> Iterator[None]:
    """Tell JAX which device it lowers for. Newer releases ask: Mosaic TPU reads the device
    kind for some layouts (1-D blocks; "Unsupported TPU device kind: cpu" on a CPU host), and
    GPU lowering wants one ("No supported GPU devices found"). Releases without
    ``use_abstract_mesh`` do not ask, so nothing is needed there."""
    import jax

    kinds = device_kinds()
    if platform == "tpu" and chip is not None and chip not in kinds:
        raise ValueError(f"unknown TPU chip {chip!r}; known: {', '.join(kinds)}")
    use = getattr(jax.sharding, "use_abstract_mesh", None)
    if chip is None or use is None:
        yield
        return
    from jax._src.mesh import AbstractDevice, AbstractMesh

    kind = kinds[chip] if platform == "tpu" else chip
    fields = inspect.signature(AbstractDevice).parameters
    device_args: dict[str, Any] = {
        "device_kind": kind,
        "num_cores": 1 if platform == "tpu" else GPU_CORES.get(kind),
    }
    if "platform" in fields:  # 0.10 on; 0.7-0.9 abstract devices are TPUs only
        device_args["platform"] = platform
    elif platform != "tpu":
        yield
        return
    with use(AbstractMesh((1,), ("x",), abstract_device=AbstractDevice(**device_args))):
        yield


def lower(
    fn: Callable[..., Any], *args: Any, platform: str = "tpu", chip: str | None = None
) -> str:
    """Lower ``jax.jit(fn)`` on ``args`` (``jax.ShapeDtypeStruct`` or arrays) for ``platform``
    and return the StableHLO text; a Pallas TPU kernel shows up as a ``tpu_custom_call``.

    ``chip`` names the device where JAX needs to know: a TPU version (``"v5e"``, ``"v6e"``,
    ...) for ``platform="tpu"``, a device kind (``"NVIDIA H100 80GB HBM3"``) for
    ``"cuda"``/``"rocm"``."""
    import jax

    jitted = jax.jit(fn)
    trace = getattr(jitted, "trace", None)
    if trace is None:
        raise UnsupportedFeatureError(
            f"cross-lowering needs jax.jit(f).trace(...), which JAX {installed_jax()} lacks; "
            "upgrade to jax>=0.4.30"
        )
    with target_device(platform, chip):
        return str(trace(*args).lower(lowering_platforms=(platform,)).as_text())
