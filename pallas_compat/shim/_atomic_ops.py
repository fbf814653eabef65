"""``pl.atomic_*`` in the forms old Triton-style kernels wrote, in interpret mode on every JAX.

JAX's interpreter (the state discharge of ``atomic_rmw``) cannot index a 0-d ref from 0.8.0
(``pl.atomic_add(o_ref, (), x)``: "not enough values to unpack") and, on some releases, takes
no integer index (``pl.atomic_add(o_ref, (0,), x)``: "'int' object has no attribute 'shape'").
While the shim's ``pallas_call`` traces a kernel to interpret it, the atomics it serves take
those forms apart: an integer index becomes a one-element slice, and a 0-d ref, on releases
whose interpreter refuses it (found by trying once), is read and written in turn, which is
what the atomic is where the interpreter runs the grid one program at a time. Compiled
kernels (Triton) get JAX's own calls, untouched.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import Any

#: Set while the shim's ``pallas_call`` traces a kernel with ``interpret=`` truthy.
INTERPRETING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "pallas_compat_interpreting", default=False
)


@contextlib.contextmanager
def interpreting(flag: bool) -> Iterator[None]:
    token = INTERPRETING.set(flag)
    try:
        yield
    finally:
        INTERPRETING.reset(token)


def combine(op: str) -> Callable[[Any, Any], Any] | None:
    """What ``atomic_<op>`` stores, from the old value and the new one."""
    import jax.numpy as jnp

    ops: dict[str, Callable[[Any, Any], Any]] = {
        "add": jnp.add,
        "max": jnp.maximum,
        "min": jnp.minimum,
        "and": jnp.bitwise_and,
        "or": jnp.bitwise_or,
        "xor": jnp.bitwise_xor,
        "xchg": lambda old, new: new,
    }
    return ops.get(op)


@functools.cache
def interpreter_takes_0d(native: Callable[..., Any]) -> bool:
    """Does this JAX's interpreter run ``native(o_ref, (), x)`` on a 0-d ref? Tried once."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    def kernel(x_ref: Any, o_ref: Any) -> None:
        native(o_ref, (), x_ref[()])

    try:
        call = pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct((), jnp.float32), interpret=True
        )
        jax.jit(call).lower(jnp.float32(1)).as_text()
    except Exception:
        return False
    return True


def one_element_slices(idx: Any) -> tuple[Any, tuple[int, ...]] | None:
    """``(0, pl.ds(...))`` -> ``(pl.ds(0, 1), pl.ds(...))`` and the axes to squeeze after;
    None when nothing in the index is an integer."""
    from jax.experimental import pallas as pl

    parts = idx if isinstance(idx, tuple) else (idx,)
    axes = tuple(i for i, part in enumerate(parts) if isinstance(part, int))
    if not axes:
        return None
    return tuple(pl.ds(p, 1) if i in axes else p for i, p in enumerate(parts)), axes


def interpretable(native: Callable[..., Any], op: str) -> Callable[..., Any]:
    """``native(x_ref, idx, val, mask=...)`` that, while interpreting, runs the forms this
    JAX's interpreter refuses (see the module docstring)."""
    store = combine(op)

    @functools.wraps(native)
    def call(x_ref: Any, idx: Any, val: Any, *args: Any, **kwargs: Any) -> Any:
        if not INTERPRETING.get() or args or kwargs.get("mask") is not None:
            return native(x_ref, idx, val, *args, **kwargs)
        import jax.numpy as jnp

        if store is not None and len(x_ref.shape) == 0 and idx in ((), Ellipsis):
            if interpreter_takes_0d(native):
                return native(x_ref, idx, val, **kwargs)
            old = x_ref[()]
            x_ref[()] = store(old, jnp.asarray(val, old.dtype))
            return old
        sliced = one_element_slices(idx)
        if sliced is None:
            return native(x_ref, idx, val, **kwargs)
        index, axes = sliced
        return jnp.squeeze(native(x_ref, index, jnp.expand_dims(val, axes), **kwargs), axes)

    return call
