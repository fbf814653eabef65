"""JAX APIs outside Pallas that kernel files use, rebuilt from public ones where JAX dropped
them: the in-kernel ``for_loop`` over refs (gone in 0.7.2) and ``dtypes.bit_width`` (0.8.1
renamed it ``itemsize_bits``, and 0.8.2 dropped the old name). The shim serves them (``pallas_compat.for_loop``,
``pallas_compat.dtypes``) and ``patch()`` puts them back where old code imports them.
"""

from __future__ import annotations

from typing import Any

from pallas_compat.shim._for_loop_local import for_loop

__all__ = ["bit_width", "for_loop"]


def bit_width(dtype: Any) -> int:
    """``jax._src.dtypes.bit_width`` (JAX 0.5.0-0.8.1) with public APIs: bits per element, sub-byte
    integers (int4) and bool (8 bits, as stored) included."""
    import jax.numpy as jnp
    import numpy as np

    if np.dtype(dtype) == np.dtype(bool):
        return 8
    if jnp.issubdtype(dtype, jnp.integer):
        return int(jnp.iinfo(dtype).bits)
    if jnp.issubdtype(dtype, jnp.floating):
        return int(jnp.finfo(dtype).bits)
    if jnp.issubdtype(dtype, jnp.complexfloating):
        return 2 * int(jnp.finfo(dtype).bits)
    raise ValueError(f"unexpected input: {dtype=}")
