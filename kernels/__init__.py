"""The chapter's kernels, written once against ``pallas_compat``, checked against NumPy float64.

``python -m kernels`` runs every case under each mode (``interpret``, ``tpu_sim``,
``tpu_lower`` by default) and records a result per kernel x mode for the installed JAX.

The names below load on first use: nox's own environment (no NumPy, no JAX) imports
``kernels.thirdparty._libraries`` through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kernels._case import CASES, WRONG, Case, Tolerance, WrongCase
    from kernels._modes import DEFAULT_MODES, Mode

__all__ = ["CASES", "DEFAULT_MODES", "WRONG", "Case", "Mode", "Tolerance", "WrongCase"]

_HOME = {"DEFAULT_MODES": "kernels._modes", "Mode": "kernels._modes"}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'kernels' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME.get(name, "kernels._case")), name)
