"""``pallas_compat.dtypes`` for type checkers: the shim's fills, then any name of JAX's private jax._src.dtypes, untyped.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

bit_width: Any
itemsize_bits: Any

def __getattr__(name: str) -> Any: ...
