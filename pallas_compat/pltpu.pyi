"""``pallas_compat.pltpu`` for type checkers: the shim's fills, then JAX's own jax.experimental.pallas.tpu.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

ANY: Any
ARBITRARY: Any
ChipVersion: Any
CompilerParams: Any
CoreType: Any
CostEstimate: Any
DeviceIdType: Any
GridDimensionSemantics: Any
HOST: Any
InterpretParams: Any
KernelType: Any
MemorySpace: Any
PARALLEL: Any
TPUCompilerParams: Any
TPUMemorySpace: Any
force_tpu_interpret_mode: Any
get_tpu_info_for_chip: Any
matmul_acc_lhs: Any
matmul_pop: Any
reciprocal: Any
repeat: Any
reset_tpu_interpret_mode_state: Any
run_scoped: Any
semaphore: Any
semaphore_read: Any
semaphore_signal: Any
semaphore_wait: Any

from jax.experimental.pallas.tpu import *  # noqa: E402, F403
