"""``patch()``: put the back-fills into JAX's own Pallas modules, so that unmodified code
written for an old JAX runs on a new one; ``unpatch()`` puts every attribute back."""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import types
from typing import Any

from pallas_compat.facts._table import (
    FEATURES_BY_KEY,
    GPU_LEGACY,
    KEYWORD_MOVES,
    KEYWORD_RENAMES,
    LOOP_BODIES,
    MEMBER_FORMS,
    MEMBER_MOVES,
    NAMESPACE_OF,
    OUTSIDE_MODULES,
    TRITON,
    Location,
    params_class_names,
    positions_dropped,
)
from pallas_compat.shim import _resolve, _warnings
from pallas_compat.shim._errors import PallasCompatError
from pallas_compat.shim._module_like import fills_of, wrapped
from pallas_compat.shim._namespaces import namespace

#: Fills that replace a name JAX has, because they accept more call forms than JAX does: the
#: call, the spec and estimate classes (and ``pl.Blocked``, whose zero-argument form was the
#: indexing mode), the Mosaic GPU mesh and ``pl.core_map`` (the options JAX moved off the mesh
#: travel from one to the other), every name of a dict-era backend's params class (they
#: take dict-era fields), the functions whose keywords JAX renamed or moved, the enums JAX
#: moved members out of or replaced members of (``pltpu.MemorySpace.ANY``,
#: ``plgpu.Layout.WGMMA_ROW``; the view is the native enum where none did), and the loops
#: whose body JAX hands an info object (``plgpu.nd_loop``).
BASE_ADAPTERS = frozenset(
    {
        "pallas_call",
        "BlockSpec",
        "Blocked",
        "CostEstimate",
        "core_map",
        "GPUMesh",
        *params_class_names(),
        *(name for _, name in KEYWORD_RENAMES),
        *(loc.attr for owner, _ in MEMBER_MOVES for loc in FEATURES_BY_KEY[owner].locations),
        *(FEATURES_BY_KEY[owner].modern.attr for owner, _ in MEMBER_FORMS),
        *(name for _, name in LOOP_BODIES),
        *(name for _, name, _ in KEYWORD_MOVES),
    }
)


@functools.cache
def adapters() -> frozenset[str]:
    """``BASE_ADAPTERS`` and the callables whose positions changed (``plgpu.Barrier`` became
    keyword-only in 0.6.2): the scan's, read when ``patch()`` first runs, not at import."""
    return BASE_ADAPTERS | {Location.parse(key).attr for key in positions_dropped()}


#: (module, attribute, what JAX had there), in the order they were installed.
_installed: list[tuple[types.ModuleType, str, Any]] = []
#: Old spellings of objects (classes, enums) served through each module's ``__getattr__``:
#: name -> (object, warning key, message), so that the use warns, at the user's line.
_on_lookup: dict[str, dict[str, tuple[Any, str, str]]] = {}
_added_modules: list[str] = []
#: One patch or unpatch at a time: threads of a test runner or server may both call them, and
#: a fill built while another thread installs would wrap the other's fill, not JAX's object.
_lock = threading.RLock()


def patched() -> bool:
    with _lock:
        return bool(_installed or _added_modules)


def patch(*, warn: bool = True) -> None:
    """Install the shim's fills into ``jax.experimental.pallas`` and its backend modules.

    Idempotent; reversible with ``unpatch()``. Names the installed JAX cannot provide at all
    stay absent (looking them up still raises JAX's own error). Installing warns about
    nothing (so ``-W error`` suites can call it); the old spellings warn when used, once
    each, at the line that uses them, unless ``warn=False``."""
    with _lock:
        _warnings.set_quiet(not warn)
        if patched():
            return
        try:
            install_all()
        except BaseException:
            unpatch()
            raise


def install_all() -> None:

    for alias in dict.fromkeys(NAMESPACE_OF.values()):  # every namespace, Mosaic GPU too
        space = namespace(alias)
        target = wrapped(space)
        if target is None:  # the module does not import on this JAX
            continue
        for name, build in fills_of(space).items():
            if name not in adapters() and name in vars(target):
                continue
            try:
                with _warnings.silenced() as held:
                    build()  # what using it warns with: asked of the fill every time, never
                    # of the namespace, which builds a fill once (a second patch() saw none)
                    value = getattr(space, name)  # the namespace's object: one per process
            except (PallasCompatError, AttributeError):  # this JAX cannot have it at all
                continue
            if held and not callable_fill(value) and name not in vars(target):
                serve_on_lookup(target, name, value, *held[0])
            else:  # a call warns itself, at the caller's line; anything else is no old name
                install(target, name, value)
    install_cost_analysis()
    for module_name in (TRITON, GPU_LEGACY, *OUTSIDE_MODULES):
        install_module(module_name, namespace(NAMESPACE_OF[module_name]))


def install_module(module_name: str, space: types.ModuleType) -> None:
    """Where old code imports a module this JAX lacks (``pallas.gpu``, ``jax.util``), the
    shim's namespace for it: in ``sys.modules`` and as an attribute of its parent."""
    if module_name in sys.modules or _importable(module_name):
        return
    sys.modules[module_name] = space
    _added_modules.append(module_name)
    parent_name, _, attr = module_name.rpartition(".")
    parent = sys.modules.get(parent_name) or importlib.import_module(parent_name)
    install(parent, attr, space)


class CostAnalysis(dict):  # type: ignore[type-arg]
    """``Compiled.cost_analysis()`` as one dict (newer JAX) that old code may still index as
    the one-element list older JAX returned: ``cost[0]["flops"]``."""

    def __getitem__(self, key: Any) -> Any:
        if key == 0 and 0 not in self:
            return self
        return super().__getitem__(key)


def install_cost_analysis() -> None:
    """Old TPU kernels build cost estimates from ``compiled.cost_analysis()[0]``."""
    import functools

    import jax.stages

    native = jax.stages.Compiled.cost_analysis

    @functools.wraps(native)
    def cost_analysis(self: Any) -> Any:
        result = native(self)
        return CostAnalysis(result) if isinstance(result, dict) else result

    install(jax.stages.Compiled, "cost_analysis", cost_analysis)  # type: ignore[arg-type]


def callable_fill(value: Any) -> bool:
    """A served function: its call wrapper warns when called (``_fills.backfilled``)."""
    import inspect

    return inspect.isroutine(value)


def serve_on_lookup(
    module: types.ModuleType, name: str, value: Any, key: str, message: str
) -> None:
    """Serve an old spelling through the module's ``__getattr__`` (PEP 562), which warns
    once, at the line that looks it up (``pltpu.TPUCompilerParams``, or an import of it);
    JAX's own ``__getattr__`` (its deprecation table) answers every other name."""
    table = _on_lookup.get(module.__name__)
    if table is None:
        table = _on_lookup[module.__name__] = {}
        previous = vars(module).get("__getattr__")

        def __getattr__(attr: str) -> Any:
            if attr in table:
                obj, warning, text = table[attr]
                _warnings.warn_once(warning, text, stacklevel=3)
                return obj
            if previous is not None:
                return previous(attr)
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")

        install(module, "__getattr__", __getattr__)
    table[name] = (value, key, message)


def install(module: types.ModuleType, name: str, value: Any) -> None:
    _installed.append((module, name, _resolve.shadow(module, name, value)))


def unpatch() -> None:
    """Undo ``patch()`` exactly: every attribute and ``sys.modules`` entry as it was."""
    with _lock:
        while _installed:
            module, name, previous = _installed.pop()
            _resolve.unshadow(module, name, previous)
        while _added_modules:
            sys.modules.pop(_added_modules.pop(), None)
        _on_lookup.clear()
        _warnings.set_quiet(False)


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except Exception:
        return False
    return True
