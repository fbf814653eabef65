"""``pallas_compat.prng`` for type checkers: the shim's fills, then any name of JAX's private jax._src.prng, untyped.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

threefry2x32_p: Any
threefry_2x32: Any
threefry_fold_in: Any
threefry_seed: Any
threefry_split: Any

def __getattr__(name: str) -> Any: ...
