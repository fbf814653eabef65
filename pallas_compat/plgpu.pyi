"""``pallas_compat.plgpu`` for type checkers: the shim's fills, then JAX's own jax.experimental.pallas.mosaic_gpu.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

CompilerParams: Any
GPUCompilerParams: Any
InterpretGPUParams: Any
kernel: Any

from jax.experimental.pallas.mosaic_gpu import *  # noqa: E402, F403
