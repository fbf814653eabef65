"""``pallas_compat.plgpu`` for type checkers: the shim's fills, then JAX's own jax.experimental.pallas.mosaic_gpu.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

Barrier: Any
BlockSpec: Any
ClusterBarrier: Any
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
async_load_tmem: Any
copy_gmem_to_smem: Any
emit_pipeline: Any
inline_mgpu: Any
kernel: Any
load: Any
nd_loop: Any
tcgen05_mma: Any
transpose_ref: Any

from jax.experimental.pallas.mosaic_gpu import *  # noqa: E402, F403
