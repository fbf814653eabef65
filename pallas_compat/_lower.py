"""Cross-lowering for a platform this machine lacks (TPU from a CPU box), as text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pallas_compat._errors import UnsupportedFeatureError, installed_jax


def lower(fn: Callable[..., Any], *args: Any, platform: str = "tpu") -> str:
    """Lower ``jax.jit(fn)`` on ``args`` (``jax.ShapeDtypeStruct`` or arrays) for ``platform``
    and return the StableHLO text; a Pallas TPU kernel shows up as a ``tpu_custom_call``."""
    import jax

    jitted = jax.jit(fn)
    trace = getattr(jitted, "trace", None)
    if trace is None:
        raise UnsupportedFeatureError(
            f"cross-lowering needs jax.jit(f).trace(...), which JAX {installed_jax()} lacks; "
            "upgrade to jax>=0.4.30"
        )
    return trace(*args).lower(lowering_platforms=(platform,)).as_text()
