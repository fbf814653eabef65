"""``pallas_compat.pltriton`` for type checkers: the shim's fills, then JAX's own jax.experimental.pallas.triton.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

CompilerParams: Any
TritonCompilerParams: Any
atomic_add: Any
atomic_and: Any
atomic_cas: Any
atomic_max: Any
atomic_min: Any
atomic_or: Any
atomic_xchg: Any
atomic_xor: Any
dot: Any
load: Any
max_contiguous: Any
store: Any

from jax.experimental.pallas.triton import *  # noqa: E402, F403
