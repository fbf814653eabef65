"""``pallas_compat.pl`` for type checkers: the shim's fills, then JAX's own jax.experimental.pallas.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

ANY: Any
BlockSpec: Any
Blocked: Any
CostEstimate: Any
DeviceIdType: Any
Element: Any
HOST: Any
MemoryRef: Any
Squeezed: Any
Unblocked: Any
atomic_add: Any
atomic_and: Any
atomic_cas: Any
atomic_max: Any
atomic_min: Any
atomic_or: Any
atomic_xchg: Any
atomic_xor: Any
blocked: Any
core_map: Any
dot: Any
kernel: Any
load: Any
loop: Any
max_contiguous: Any
pallas_call: Any
reciprocal: Any
run_scoped: Any
semaphore: Any
semaphore_read: Any
semaphore_signal: Any
semaphore_wait: Any
squeezed: Any
store: Any
swap: Any
unblocked: Any

from jax.experimental.pallas import *  # noqa: E402, F403
