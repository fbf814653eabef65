"""Old masked loads and stores whose static block overhangs the array, on JAX that refuses it.

The Triton idiom ``pl.load(x_ref, (pl.dslice(0, 128),), mask=cols < n, other=-inf)`` with
``n = 100`` reads a power-of-two block and masks the tail. Newer JAX checks static slices
against the array before the mask applies ("Out of bound slice"); JAX's own newer kernels
write the same read as an index array, ``x_ref.at[jnp.arange(128)]`` with the mask. The
back-filled ``pl.load`` / ``pl.store`` / ``pl.swap`` rewrite the index the same way, and only
when a mask is given and a static slice overhangs: every other call reaches JAX unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

_STATIC = (int, np.integer)


def _is_slice(element: Any) -> bool:
    """``pl.dslice(start, size)`` / ``pl.ds``: JAX's ``Slice`` with a static size."""
    return (
        type(element).__name__ == "Slice"
        and isinstance(getattr(element, "size", None), _STATIC)
        and getattr(element, "stride", 1) == 1
    )


def _overhangs(element: Any, dim: int) -> bool:
    return (
        _is_slice(element)
        and isinstance(element.start, _STATIC)
        and element.start + element.size > dim
    )


def as_index_arrays(shape: tuple[int, ...], idx: Any) -> Any:
    """``idx`` as an outer grid of index arrays when one of its static slices overhangs
    ``shape``; ``idx`` itself otherwise (or when it holds something the grid cannot express)."""
    import jax.numpy as jnp

    elements = idx if isinstance(idx, tuple) else (idx,)
    if len(elements) > len(shape) or not any(
        _overhangs(e, d) for e, d in zip(elements, shape, strict=False)
    ):
        return idx
    elements = elements + (slice(None),) * (len(shape) - len(elements))
    ranges: list[Any] = []
    for element, dim in zip(elements, shape, strict=True):
        if _is_slice(element):
            ranges.append(element.start + jnp.arange(element.size))
        elif isinstance(element, slice) and element == slice(None):
            ranges.append(jnp.arange(dim))
        elif isinstance(element, _STATIC) or (hasattr(element, "shape") and element.shape == ()):
            ranges.append(element)  # a scalar index drops its dimension, as before
        else:
            return idx
    arrays = [r for r in ranges if hasattr(r, "shape") and r.shape != ()]
    grid = iter(range(len(arrays)))
    out = []
    for r in ranges:
        if hasattr(r, "shape") and r.shape != ():
            axis = next(grid)
            out.append(r.reshape([-1 if i == axis else 1 for i in range(len(arrays))]))
        else:
            out.append(r)
    return tuple(out)


def bounds_safe(native: Callable[..., Any]) -> Callable[..., Any]:
    """``native(ref, idx, ...)`` that turns an overhanging masked static slice into indices."""

    @functools.wraps(native)
    def call(x_ref: Any, idx: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("mask") is not None:
            idx = as_index_arrays(tuple(x_ref.shape), idx)
        return native(x_ref, idx, *args, **kwargs)

    return call
