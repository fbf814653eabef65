"""``pallas_compat.jax_util`` for type checkers: the shim's fills, then any name of JAX's private jax.util, untyped.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

HashableFunction: Any
as_hashable_function: Any
cache: Any
safe_map: Any
safe_zip: Any
split_dict: Any
split_list: Any
split_list_checked: Any
split_merge: Any
subvals: Any
toposort: Any
unzip2: Any
wrap_name: Any
wraps: Any

def __getattr__(name: str) -> Any: ...
