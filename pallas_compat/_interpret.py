"""``interpret=`` for code that must run everywhere, and resetting the simulators."""

from __future__ import annotations

import enum
import sys
from typing import Any

from pallas_compat._errors import unsupported
from pallas_compat._facts import FEATURES_BY_KEY
from pallas_compat._resolve import Resolution, resolve


class InterpretMode(str, enum.Enum):
    """The modes ``interpret()`` takes; values are what people write."""

    INTERPRET = "interpret"
    """The HLO interpreter: ``interpret=True``, on every release and backend."""
    TPU_SIM = "tpu_sim"
    """The TPU simulator (``pltpu.InterpretParams``): races, DMAs, semaphores, on CPU."""
    GPU_SIM = "gpu_sim"
    """The Mosaic GPU simulator (``plgpu.InterpretGPUParams``)."""
    AUTO = "auto"
    """Compiled on TPU and GPU, the interpreter on CPU."""


def interpret(mode: str | InterpretMode = InterpretMode.INTERPRET, **params: Any) -> Any:
    """The value to pass as ``pallas_call(interpret=...)`` for ``mode`` on this JAX.

    ``params`` go to the simulator's params class (e.g. ``detect_races=True``).
    """
    try:
        mode = InterpretMode(mode)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in InterpretMode)
        raise ValueError(f"interpret mode {mode!r} is not one of {choices}") from None
    if mode is InterpretMode.INTERPRET:
        return True
    if mode is InterpretMode.AUTO:
        import jax

        return jax.default_backend() not in ("tpu", "gpu", "cuda", "rocm")
    key = "tpu_simulator" if mode is InterpretMode.TPU_SIM else "gpu_simulator"
    resolved = resolve(FEATURES_BY_KEY[key])
    if resolved.status is Resolution.UNAVAILABLE:
        raise unsupported(
            resolved.feature, f"interpret({mode.value!r})", 'use interpret("interpret")'
        )
    return resolved.obj(**params)


SIMULATOR_MODULE = "jax._src.pallas.mosaic.interpret"


def reset_interpret_state() -> None:
    """Clear the TPU simulator's global state (needed after a kernel raised inside it).

    Releases 0.5.1 to 0.6.2 have the state but no reset function: there the shim clears the
    same two module globals that 0.7.0's ``reset_tpu_interpret_mode_state`` clears. A no-op
    where the installed JAX has no simulator."""
    resolved = resolve(FEATURES_BY_KEY["tpu_simulator_reset"])
    if resolved.obj is not None:
        resolved.obj()
        return
    module = sys.modules.get(SIMULATOR_MODULE)
    lock = getattr(module, "_shared_memory_init_lock", None)
    if module is None or lock is None:
        return
    with lock:
        module._shared_memory = None  # type: ignore[attr-defined]
        module.races = None  # type: ignore[attr-defined]
