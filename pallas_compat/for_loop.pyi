"""``pallas_compat.for_loop`` for type checkers: the shim's fills, then any name of JAX's private jax._src.lax.control_flow.for_loop, untyped.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

for_loop: Any

def __getattr__(name: str) -> Any: ...
