"""``patch()``: put the back-fills into JAX's own Pallas modules, so that unmodified code
written for an old JAX runs on a new one; ``unpatch()`` puts every attribute back."""

from __future__ import annotations

import importlib
import sys
import threading
import types
from typing import Any

from pallas_compat import _resolve, _warnings
from pallas_compat._errors import PallasCompatError
from pallas_compat._facts import (
    FEATURES_BY_KEY,
    GPU_LEGACY,
    KEYWORD_RENAMES,
    MEMBER_MOVES,
    NAMESPACE_OF,
    OUTSIDE_MODULES,
    TRITON,
    params_class_names,
)
from pallas_compat._namespace import fills_of, wrapped

#: Fills that replace a name JAX has, because they accept more call forms than JAX does: the
#: call, the spec and estimate classes (and ``pl.Blocked``, whose zero-argument form was the
#: indexing mode), every name of a dict-era backend's params class (they
#: take dict-era fields), the functions whose keywords JAX renamed, and the enums JAX moved
#: members out of (``pltpu.MemorySpace.ANY``; the view is the native enum where none moved).
ADAPTERS = frozenset(
    {
        "pallas_call",
        "BlockSpec",
        "Blocked",
        "CostEstimate",
        *params_class_names(),
        *(name for _, name in KEYWORD_RENAMES),
        *(loc.attr for owner, _ in MEMBER_MOVES for loc in FEATURES_BY_KEY[owner].locations),
    }
)

#: (module, attribute, what JAX had there), in the order they were installed.
_installed: list[tuple[types.ModuleType, str, Any]] = []
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
    each, unless ``warn=False``."""
    with _lock:
        _warnings.set_quiet(not warn)
        if patched():
            return
        try:
            with _warnings.silenced():
                install_all()
        except BaseException:
            unpatch()
            raise


def install_all() -> None:
    from pallas_compat._api import namespace

    for alias in ("pl", "pltpu", "pltriton", *(NAMESPACE_OF[m] for m in OUTSIDE_MODULES)):
        space = namespace(alias)
        target = wrapped(space)
        if target is None:
            continue
        for name in fills_of(space):
            if name not in ADAPTERS and name in vars(target):
                continue
            try:
                value = getattr(space, name)
            except (PallasCompatError, AttributeError):  # this JAX cannot have it at all
                continue
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
        _warnings.set_quiet(False)


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except Exception:
        return False
    return True
