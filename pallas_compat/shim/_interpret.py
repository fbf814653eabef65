"""``interpret=`` for code that must run everywhere, and resetting the simulators."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import enum
import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from typing import Any

from pallas_compat.facts._table import (
    FEATURES_BY_KEY,
    KEYWORD_RENAMES,
    PL,
    TPU,
    installed_jax,
    keyword_spellings,
)
from pallas_compat.shim._errors import RefusedArgumentError, unsupported
from pallas_compat.shim._facade import facade
from pallas_compat.shim._resolve import Resolution, resolve


class InterpretMode(str, enum.Enum):
    """The modes ``interpret()`` takes; values are what people write."""

    INTERPRET = "interpret"
    """The HLO interpreter: ``interpret=True``, on every release and backend."""
    TPU_SIM = "tpu_sim"
    """The TPU simulator (``pltpu.InterpretParams``): races, DMAs, semaphores, on CPU."""
    GPU_SIM = "gpu_sim"
    """The Mosaic GPU simulator (``plgpu.InterpretGPUParams``)."""
    AUTO = "auto"
    """Compiled on TPU and GPU, the interpreter on CPU."""


def interpret(mode: str | InterpretMode = InterpretMode.INTERPRET, **params: Any) -> Any:
    """The value to pass as ``pallas_call(interpret=...)`` for ``mode`` on this JAX.

    ``params`` go to the simulator's params class (e.g. ``detect_races=True``).
    """
    try:
        mode = InterpretMode(mode)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in InterpretMode)
        raise ValueError(f"interpret mode {mode!r} is not one of {choices}") from None
    if mode is InterpretMode.INTERPRET:
        return True
    if mode is InterpretMode.AUTO:
        import jax

        return jax.default_backend() not in ("tpu", "gpu", "cuda", "rocm")
    key = "tpu_simulator" if mode is InterpretMode.TPU_SIM else "gpu_simulator"
    resolved = resolve(FEATURES_BY_KEY[key])
    if resolved.status is Resolution.UNAVAILABLE:
        raise unsupported(
            resolved.feature, f"interpret({mode.value!r})", 'use interpret("interpret")'
        )
    if mode is InterpretMode.TPU_SIM:
        return tpu_params_class(resolved.obj)(**params)
    return resolved.obj(**params)


def adapt_recorder(recorder: Callable[..., Any]) -> Callable[..., Any]:
    """A ``grid_point_recorder`` that works whichever way JAX calls it.

    JAX 0.6.2-0.10.0 call ``recorder(grid_point, core_id)`` and want nothing back; 0.10.1 on
    call ``recorder(token, grid_point, core_id)`` and want the token back (the release scan
    reads it from the field's annotation: ``grid_point_recorder=f(grid_point, core_id)``). People write one
    or the other; the number of arguments JAX passes says which protocol is live."""
    try:
        takes_token = len(inspect.signature(recorder).parameters) >= 3
    except (TypeError, ValueError):
        takes_token = True

    @functools.wraps(recorder)
    def adapted(*args: Any) -> Any:
        if len(args) == 3:
            token, grid_point, core_id = args
            if takes_token:
                return recorder(token, grid_point, core_id)
            recorder(grid_point, core_id)
            return token
        grid_point, core_id = args
        if takes_token:
            recorder(None, grid_point, core_id)
        else:
            recorder(grid_point, core_id)
        return None

    adapted.__pallas_compat_adapted__ = True  # type: ignore[attr-defined]
    return adapted


def tpu_params_class(native: type) -> type:
    """``pltpu.InterpretParams`` whose ``grid_point_recorder`` may use either protocol and
    whose renamed fields take every spelling (``num_cores_per_device`` of 0.6-0.8.1 is
    ``num_cores_or_threads`` from 0.9)."""

    known = (
        {f.name for f in dataclasses.fields(native)} if dataclasses.is_dataclass(native) else None
    )
    spellings = keyword_spellings(KEYWORD_RENAMES[(TPU, "InterpretParams")], known or set())

    def convert(
        args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        kwargs = {spellings.get(name, name): value for name, value in kwargs.items()}
        unknown = sorted(set(kwargs) - known) if known is not None else []
        if unknown:
            raise RefusedArgumentError(
                f"InterpretParams({unknown[0]}=...) is not known to the TPU simulator of JAX "
                f"{installed_jax()}, and without it the run would not do what was asked; "
                "upgrade JAX or leave it out"
            )
        recorder = kwargs.get("grid_point_recorder")
        if recorder is not None and not getattr(recorder, "__pallas_compat_adapted__", False):
            kwargs = {**kwargs, "grid_point_recorder": adapt_recorder(recorder)}
        return args, kwargs

    return facade(native, convert, name="InterpretParams")


SIMULATOR_MODULE = "jax._src.pallas.mosaic.interpret"


def reset_interpret_state() -> None:
    """Clear the TPU simulator's global state (needed after a kernel raised inside it).

    Releases 0.5.1 to 0.6.2 have the state but no reset function: there the shim clears the
    same two module globals that 0.7.0's ``reset_tpu_interpret_mode_state`` clears. A no-op
    where the installed JAX has no simulator."""
    clear_failed_effects()
    resolved = resolve(FEATURES_BY_KEY["tpu_simulator_reset"])
    if resolved.obj is not None:
        resolved.obj()
        return
    module = sys.modules.get(SIMULATOR_MODULE)
    lock = getattr(module, "_shared_memory_init_lock", None)
    if module is None or lock is None:
        return
    with lock:
        module._shared_memory = None  # type: ignore[attr-defined]
        module.races = None  # type: ignore[attr-defined]


def clear_failed_effects() -> None:
    """A callback that raised inside the simulator leaves its error in JAX's ordered-effects
    token, and every later computation with effects re-raises it (seen on 0.6.2). Wait for
    the tokens; if one carries an error, drop them so that the next kernel starts clean."""
    import jax

    try:
        jax.effects_barrier()
    except Exception:
        tokens = getattr(sys.modules.get("jax._src.dispatch"), "runtime_tokens", None)
        clear = getattr(tokens, "clear", None)
        if clear is not None:
            clear()


#: The ``interpret=`` value forced on ``pallas_call`` by ``force_tpu_interpret_mode`` (back-fill).
FORCED: contextvars.ContextVar[Any] = contextvars.ContextVar("pallas_compat_forced", default=None)
PALLAS = PL


def forced_interpret(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with the forced ``interpret=`` where the caller gave none (or False)."""
    forced = FORCED.get()
    if forced is None or kwargs.get("interpret"):
        return kwargs
    return {**kwargs, "interpret": forced}


@contextlib.contextmanager
def force_tpu_interpret_mode(params: Any = None) -> Iterator[None]:
    """``pltpu.force_tpu_interpret_mode`` (JAX 0.7.0) on older releases: every ``pallas_call``
    made inside the block without ``interpret=`` runs interpreted, in the TPU simulator where
    the release has one (or with ``params``), else in the HLO interpreter. So a TPU kernel
    that takes no ``interpret=`` of its own can be tested on a CPU.

    As in JAX, it acts on calls traced inside the block. Unlike JAX it reaches
    ``pl.pallas_call`` looked up at call time (the usual ``pl.pallas_call(...)``), not a
    ``pallas_call`` imported by name before the block."""
    if params is None:
        available = resolve(FEATURES_BY_KEY["tpu_simulator"]).status is not Resolution.UNAVAILABLE
        params = interpret(InterpretMode.TPU_SIM if available else InterpretMode.INTERPRET)
    pallas: Any = sys.modules.get(PALLAS) or __import__(PALLAS, fromlist=["pallas_call"])
    native = pallas.pallas_call

    @functools.wraps(native)
    def pallas_call(*args: Any, **kwargs: Any) -> Any:
        return native(*args, **forced_interpret(kwargs))

    token = FORCED.set(params)
    pallas.pallas_call = pallas_call
    try:
        yield
    finally:
        pallas.pallas_call = native
        FORCED.reset(token)
