"""``pallas_compat.plmgpu`` for type checkers: the shim's fills, then JAX's own jax.experimental.pallas.mosaic_gpu.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

Barrier: Any
BlockSpec: Any
CompilerParams: Any
GPUBlockSpec: Any
GPUCompilerParams: Any
GPUMemorySpace: Any
GPUMesh: Any
InterpretGPUParams: Any
Layout: Any
LoweringSemantics: Any
MemorySpace: Any
ThreadSemantics: Any
copy_gmem_to_smem: Any
emit_pipeline: Any
kernel: Any
nd_loop: Any
transpose_ref: Any

from jax.experimental.pallas.mosaic_gpu import *  # noqa: E402, F403
