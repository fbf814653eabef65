"""``for_loop`` over refs (``jax._src.lax.control_flow.for_loop``, gone in JAX 0.7.2) with
public APIs. The shim serves it where JAX lacks it, and ``migrate`` writes the code below,
without its annotations, into a module that used it: it imports nothing at module level.

It runs inside kernels, so it must lower where kernels are compiled: Pallas's Triton and
Mosaic TPU lowerings implement neither ``dynamic_update_slice`` nor ``scatter``. A write
selects (``where``) between the old value and the new over a mask built with ``iota``, and a
read at an index sums the masked row away: elementwise ops both backends lower."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _RefBox:
    """A value that reads and writes like a ref (``box[idx]``, ``box[...] = v``, ``box[:] +=
    v``), for the body of ``for_loop``. Whole-array writes replace the value; writes and reads
    at integer indices (static or traced) with whole slices elsewhere are masks over ``iota``.
    Other indexing (partial or strided slices, index arrays) falls back to ``jnp`` indexing,
    which the interpreters run and the compiling backends may refuse."""

    def __init__(self, value: Any) -> None:
        import jax.numpy as jnp

        self.value = jnp.asarray(value)
        self.shape, self.dtype, self.ndim = self.value.shape, self.value.dtype, self.value.ndim

    def _parts(self, idx: Any) -> list[Any] | None:
        """One entry per dimension: ``None`` for the whole of it, else an integer index; or
        ``None`` where some index is neither."""
        parts = list(idx) if isinstance(idx, tuple) else [idx]
        if parts.count(Ellipsis) > 1 or len(parts) - parts.count(Ellipsis) > self.ndim:
            return None
        if Ellipsis in parts:
            at = parts.index(Ellipsis)
            parts[at : at + 1] = [slice(None)] * (self.ndim - len(parts) + 1)
        parts += [slice(None)] * (self.ndim - len(parts))
        found: list[Any] = []
        for part, dim in zip(parts, self.shape):  # noqa: B905 (no strict= on Python 3.9)
            if isinstance(part, slice):
                static = all(b is None or isinstance(b, int) for b in (part.start, part.stop))
                if not static or part.indices(dim) != (0, dim, 1):
                    return None
                found.append(None)
            elif isinstance(part, int) or (
                getattr(part, "shape", None) == () and "int" in str(getattr(part, "dtype", ""))
            ):
                found.append(part)
            else:
                return None
        return found

    def _mask(self, parts: list[Any]) -> Any:
        """True where every indexed dimension is at its index, over the whole shape."""
        from jax import lax

        mask = None
        for axis, part in enumerate(parts):
            if part is not None:
                at = lax.broadcasted_iota("int32", self.shape, axis) == part
                mask = at if mask is None else mask & at
        return mask

    def __getitem__(self, idx: Any) -> Any:
        import jax.numpy as jnp

        parts = self._parts(idx)
        if parts is None:
            return self.value[idx]
        if all(part is None for part in parts):
            return self.value
        axes = tuple(axis for axis, part in enumerate(parts) if part is not None)
        picked = jnp.where(self._mask(parts), self.value, jnp.zeros((), self.dtype))
        return picked.sum(axis=axes, dtype=self.dtype)

    def __setitem__(self, idx: Any, new: Any) -> None:
        import jax.numpy as jnp

        parts = self._parts(idx)
        if parts is None:
            self.value = self.value.at[idx].set(new)
            return
        kept = [dim for part, dim in zip(parts, self.shape) if part is None]  # noqa: B905
        sizes = [dim if part is None else 1 for part, dim in zip(parts, self.shape)]  # noqa: B905
        update = jnp.broadcast_to(jnp.asarray(new, self.dtype), kept).reshape(sizes)
        update = jnp.broadcast_to(update, self.shape)
        if all(part is None for part in parts):
            self.value = update
        else:
            self.value = jnp.where(self._mask(parts), update, self.value)


def for_loop(
    nsteps: int,
    body: Callable[[Any, Any], None],
    init_state: Any,
    *,
    reverse: bool = False,
    unroll: int = 1,
) -> Any:
    """jax._src.lax.control_flow.for_loop.for_loop (gone in JAX 0.7.2) with public APIs: a
    lax.fori_loop over the state's values that hands ``body(i, state)`` ref-like boxes and
    returns the final state. (The lasting fix is a body that takes and returns values.)"""
    import jax
    from jax import lax

    def step(i: Any, values: Any) -> Any:
        boxes = jax.tree_util.tree_map(_RefBox, values)
        body(nsteps - 1 - i if reverse else i, boxes)
        is_box = lambda leaf: isinstance(leaf, _RefBox)  # noqa: E731
        return jax.tree_util.tree_map(lambda box: box.value, boxes, is_leaf=is_box)

    return lax.fori_loop(0, nsteps, step, init_state, unroll=unroll)
