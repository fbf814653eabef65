"""``pallas_call`` that takes the call forms of every release and passes JAX what it wants.

Trace-time only: the wrapper rewrites arguments and calls the native ``pallas_call`` once; the
kernel it returns is the native one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from pallas_compat.facts._served import DROPPABLE
from pallas_compat.facts._table import CALL_BACKENDS, installed_jax
from pallas_compat.shim import _compiler_params
from pallas_compat.shim._atomic_ops import interpreting
from pallas_compat.shim._errors import RefusedArgumentError
from pallas_compat.shim._interpret import forced_interpret, interpret
from pallas_compat.shim._warnings import warn_once


def interpret_value(value: Any) -> Any:
    """``interpret="tpu_sim"`` and friends -> the object this JAX wants."""
    if isinstance(value, str):
        return interpret(value)
    return value


def make_pallas_call(
    native: Callable[..., Any], scratch_grid_spec: Callable[..., Any] | None
) -> Any:
    params = inspect.signature(native).parameters
    accepted = frozenset(params)
    kernel_name = next(iter(params))
    annotation = str(params["compiler_params"].annotation) if "compiler_params" in params else ""
    accepts_dicts = "dict[" in annotation  # 0.6.1+ take Mapping[Backend, CompilerParams]

    @functools.wraps(native)
    def pallas_call(*args: Any, **kwargs: Any) -> Any:
        for old in ("f", "kernel"):
            if old != kernel_name and old in kwargs:
                if old == "f":
                    warn_once(
                        "pallas_call_f", "pallas_call(f=...) is old; write pallas_call(kernel, ...)"
                    )
                kwargs[kernel_name] = kwargs.pop(old)
        if "backend" in kwargs and "backend" not in accepted:
            kwargs = backend_as_params(kwargs)
        if "compiler_params" in kwargs:
            kwargs["compiler_params"] = _compiler_params.normalize(
                kwargs["compiler_params"], accepts_dicts=accepts_dicts
            )
        kwargs = forced_interpret(kwargs)
        if "interpret" in kwargs:
            kwargs["interpret"] = interpret_value(kwargs["interpret"])
        for name in [n for n in kwargs if n not in accepted]:
            value = kwargs.pop(name)
            if name == "scratch_shapes" and value:
                kwargs = with_scratch_grid_spec(kwargs, value, scratch_grid_spec)
            elif name in DROPPABLE or not value:
                if value:
                    warn_once(
                        f"pallas_call:{name}",
                        f"pallas_call({name}=...) is not known to JAX {installed_jax()}; "
                        "pallas-compat dropped it (it does not change results)",
                    )
            else:
                raise RefusedArgumentError(
                    f"pallas_call({name}={value!r}) is not known to JAX {installed_jax()} and "
                    "dropping it could change results; remove it or upgrade JAX"
                )
        call = native(*args, **kwargs)
        interpret = bool(kwargs.get("interpret"))

        @functools.wraps(call)
        def traced(*call_args: Any, **call_kwargs: Any) -> Any:
            with interpreting(interpret):  # the shim's atomics see the mode they run in
                return call(*call_args, **call_kwargs)

        return traced

    return pallas_call


def backend_as_params(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``backend="triton"`` where ``pallas_call`` lost it: the backend's empty CompilerParams,
    whose type picks the same lowering (Mosaic TPU is the only TPU lowering: nothing to pick)."""
    backend = kwargs.pop("backend")
    if backend is None:
        return kwargs
    if backend not in CALL_BACKENDS:
        raise RefusedArgumentError(
            f"pallas_call(backend={backend!r}): JAX knew {', '.join(map(repr, CALL_BACKENDS))}"
        )
    chosen = CALL_BACKENDS[backend]
    if not chosen.default and _compiler_params.params_class(chosen.key) is None:
        raise RefusedArgumentError(
            f"pallas_call(backend={backend!r}): JAX {installed_jax()} has no such backend"
        )
    warn_once(
        "pallas_call:backend",
        f"pallas_call(backend=...) is not known to JAX {installed_jax()}; pallas-compat passes "
        "the backend's CompilerParams instead, which pick the same lowering",
    )
    if kwargs.get("compiler_params") is None and not chosen.default:
        kwargs["compiler_params"] = {chosen.key: {}}
    return kwargs


def with_scratch_grid_spec(
    kwargs: dict[str, Any], scratch: Any, grid_spec_cls: Callable[..., Any] | None
) -> dict[str, Any]:
    """Before 0.4.35, scratch buffers went through ``pltpu.PrefetchScalarGridSpec``."""
    if grid_spec_cls is None or kwargs.get("grid_spec") is not None:
        raise RefusedArgumentError(
            f"pallas_call(scratch_shapes=...) is not known to JAX {installed_jax()}; put the "
            "scratch shapes in pltpu.PrefetchScalarGridSpec(scratch_shapes=...) or upgrade JAX"
        )
    moved = {name: kwargs.pop(name) for name in ("grid", "in_specs", "out_specs") if name in kwargs}
    grid_spec = grid_spec_cls(num_scalar_prefetch=0, scratch_shapes=scratch, **moved)
    return {**kwargs, "grid_spec": grid_spec}
