"""``for_loop`` over refs (``jax._src.lax.control_flow.for_loop``, gone in JAX 0.7.2) with
public APIs. The shim serves it where JAX lacks it, and ``migrate`` writes the code below,
without its annotations, into a module that used it: it imports nothing at module level."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _RefBox:
    """A value that reads and writes like a ref (``box[idx]``, ``box[...] = v``, ``box[:] +=
    v``), for the body of ``for_loop``. A write with static slices and scalar indices is a
    ``dynamic_update_slice``: no scatter, so no index constant for a kernel to capture."""

    def __init__(self, value: Any) -> None:
        import jax.numpy as jnp

        self.value = jnp.asarray(value)
        self.shape, self.dtype, self.ndim = self.value.shape, self.value.dtype, self.value.ndim

    def __getitem__(self, idx: Any) -> Any:
        return self.value[idx]

    def __setitem__(self, idx: Any, new: Any) -> None:
        import jax.numpy as jnp
        from jax import lax

        parts = list(idx) if isinstance(idx, tuple) else [idx]
        if Ellipsis in parts:
            at = parts.index(Ellipsis)
            parts[at : at + 1] = [slice(None)] * (self.ndim - len(parts) + 1)
        parts += [slice(None)] * (self.ndim - len(parts))
        starts: list[Any] = []
        sizes: list[int] = []
        kept: list[int] = []
        for part, dim in zip(parts, self.shape):  # noqa: B905 (no strict= on Python 3.9)
            static = isinstance(part, slice) and all(
                bound is None or isinstance(bound, int) for bound in (part.start, part.stop)
            )
            if static and part.step in (None, 1):
                start, stop, _ = part.indices(dim)
                starts.append(start)
                sizes.append(stop - start)
                kept.append(stop - start)
            elif isinstance(part, int) or getattr(part, "shape", None) == ():
                starts.append(part)
                sizes.append(1)
            else:  # an index array or a strided slice: a scatter
                self.value = self.value.at[idx].set(new)
                return
        update = jnp.broadcast_to(jnp.asarray(new, self.dtype), kept).reshape(sizes)
        self.value = lax.dynamic_update_slice(self.value, update, starts)


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
