"""The chapter's kernels, written once against ``pallas_compat``, checked against NumPy float64.

``python -m kernels`` runs every case under each mode (``interpret``, ``tpu_sim``,
``tpu_lower`` by default) and records a result per kernel x mode for the installed JAX.
"""

from __future__ import annotations

from kernels._case import CASES, WRONG, Case, Tolerance, WrongCase
from kernels._modes import DEFAULT_MODES, Mode

__all__ = ["CASES", "DEFAULT_MODES", "WRONG", "Case", "Mode", "Tolerance", "WrongCase"]
