"""The modes a kernel runs under; values are the text people pass to ``--modes``."""

from __future__ import annotations

import enum
from typing import Any

import pallas_compat


class Mode(str, enum.Enum):
    INTERPRET = "interpret"
    """``interpret=True``: the HLO interpreter, on every release."""
    TPU_SIM = "tpu_sim"
    """The TPU simulator (``pltpu.InterpretParams()``): TPU memory semantics on CPU."""
    TPU_LOWER = "tpu_lower"
    """Cross-lowering for TPU: the Mosaic custom call is emitted and block shapes are legal."""
    TPU_COMPILE = "tpu_compile"
    """Opt-in: deviceless ahead-of-time compilation with libtpu for TPU v4, v5e, v5p and
    v6e, which catches what lowering cannot (VMEM overflows)."""
    GPU_LOWER = "gpu_lower"
    """Opt-in: cross-lowering of the GPU variants for CUDA (Triton), without a GPU."""
    GPU = "gpu"
    """Opt-in: the GPU variants compiled and run on a GPU, when one is present."""


DEFAULT_MODES = (Mode.INTERPRET, Mode.TPU_SIM, Mode.TPU_LOWER)


def interpret_value(mode: Mode) -> Any:
    """The ``interpret=`` value for an executing mode; PallasCompatError where it is missing."""
    if mode is Mode.INTERPRET:
        return pallas_compat.interpret("interpret")
    if mode is Mode.TPU_SIM:
        return pallas_compat.interpret("tpu_sim")
    if mode is Mode.GPU:
        import jax

        if jax.default_backend() not in ("gpu", "cuda", "rocm"):
            raise pallas_compat.UnsupportedFeatureError(
                f"no GPU here (JAX's default backend is {jax.default_backend()}); "
                "install jax[cuda12] on a machine with a GPU"
            )
        return False
    raise ValueError(f"{mode.value} does not execute kernels")
