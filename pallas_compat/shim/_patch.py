"""``patch()``: put the back-fills into JAX's own Pallas modules, so that unmodified code
written for an old JAX runs on a new one; ``unpatch()`` puts every attribute back."""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import threading
import types
from collections.abc import Callable, Iterator
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
from pallas_compat.shim._import_hook import PatchFinder
from pallas_compat.shim._module_like import Namespace, fills_of, wrapped
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


#: Modules JAX dropped (or never had on a release), served by the shim's namespace for them:
#: ``pallas.gpu`` after 0.6.0, ``jax.util`` after 0.7.2, ...
SERVED = (TRITON, GPU_LEGACY, *OUTSIDE_MODULES)
#: Their parent packages, which old code reads them from as attributes (``jax.util.subvals``).
PARENTS = frozenset(name.rpartition(".")[0] for name in SERVED)


#: (module, attribute, what JAX had there), in the order they were installed.
_installed: list[tuple[types.ModuleType, str, Any]] = []
#: Old spellings of objects (classes, enums) served through each module's ``__getattr__``:
#: name -> (object, warning key, message), so that the use warns, at the user's line.
_on_lookup: dict[str, dict[str, Callable[[], Any]]] = {}
#: The import hook while patched, and the modules it has filled.
_hooks: list[PatchFinder] = []
_filled: set[str] = set()
#: While a JAX module runs (``running``): how deep, the fills put out of the way, and the
#: modules to fill when it has run.
_depth = 0
_hidden: list[tuple[types.ModuleType, str, Any]] = []
_queued: list[str] = []
#: One patch or unpatch at a time: threads of a test runner or server may both call them, and
#: a fill built while another thread installs would wrap the other's fill, not JAX's object.
_lock = threading.RLock()


def patched() -> bool:
    with _lock:
        return bool(_installed or _hooks)


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
    """The hook that fills each JAX module as it is imported, the fills of those already
    imported, and ``Compiled.cost_analysis``: nothing is imported that the program does not."""
    hook = PatchFinder(
        watched=frozenset(NAMESPACE_OF) | PARENTS,
        served={name: functools.partial(namespace, NAMESPACE_OF[name]) for name in SERVED},
        imported=imported,
        running=running,
    )
    sys.meta_path.insert(0, hook)
    _hooks.append(hook)
    install_cost_analysis()
    for name in [*NAMESPACE_OF, *PARENTS]:
        if name in sys.modules:
            imported(name)


def imported(name: str) -> None:
    """``name`` is in ``sys.modules``: its fills go in once per patch (when no JAX module is
    still running, ``running``), and its children that JAX lacks are served when read as its
    attributes."""
    with _lock:
        if not _hooks or name in _filled:
            return
        if _depth:
            _queued.append(name)
            return
        _filled.add(name)
        module = sys.modules[name]
        alias = NAMESPACE_OF.get(name)
        if alias is not None:
            space = namespace(alias)
            if wrapped(space) is module:  # fills go where the namespace finds JAX's names
                install_fills(space, module)
        for child in SERVED:
            if child.rpartition(".")[0] == name:
                serve_if_absent(module, child)


@contextlib.contextmanager
def running() -> Iterator[None]:
    """A JAX module runs its own code against JAX as it is: every fill is out of the way while
    it runs (0.5.3's ``pallas.gpu`` star-imports ``pallas.triton``, and would otherwise keep
    the fills it copied after ``unpatch()``). Modules it imports in turn are filled when the
    outermost has run. Other threads see no fills meanwhile: import JAX's modules before
    threads use them, as one does anyway."""
    global _depth
    with _lock:
        if _depth == 0:
            while _installed:
                module, name, previous = _installed.pop()
                _hidden.append((module, name, vars(module).get(name, _resolve.MISSING)))
                _resolve.unshadow(module, name, previous)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and not _hooks:  # unpatched meanwhile: JAX is as it was already
                _hidden.clear()
                _queued.clear()
            if _depth == 0:
                while _hidden:
                    module, name, value = _hidden.pop()
                    install(module, name, value)
                queued, _queued[:] = list(_queued), []
                for name in queued:
                    imported(name)


def install_fills(space: Namespace, target: types.ModuleType) -> None:
    """Each fill of ``space`` that ``target`` lacks (or that adapts ``target``'s own), built now
    where that imports nothing, else when first looked up."""
    for name, build in fills_of(space).items():
        if name not in adapters() and name in vars(target):
            continue
        try:
            with _warnings.silenced() as held, _resolve.imports_held():
                build()  # what using it warns with: asked of the fill every time, never
                # of the namespace, which builds a fill once (a second patch() saw none)
                value = getattr(space, name)  # the namespace's object: one per process
        except (PallasCompatError, AttributeError):  # this JAX cannot have it at all
            continue
        except _resolve.WouldImport:
            if name in vars(target):  # an adapter must replace JAX's object now
                install(target, name, getattr(space, name))
            else:
                serve_on_lookup(target, name, built_when_used(space, name, build))
            continue
        if held and not callable_fill(value) and name not in vars(target):
            serve_on_lookup(target, name, old_spelling(value, *held[0]))
        else:  # a call warns itself, at the caller's line; anything else is no old name
            install(target, name, value)


def serve_if_absent(parent: types.ModuleType, child: str) -> None:
    """Where JAX lacks ``child`` (no finder finds it; nothing is run to ask), reading it as an
    attribute of ``parent`` imports it, which the hook serves."""
    attr = child.rpartition(".")[2]
    if child in sys.modules or attr in vars(parent):
        return
    path = getattr(parent, "__path__", None)
    if path is not None and _hooks[0].found_elsewhere(child, path) is not None:
        return
    serve_on_lookup(parent, attr, functools.partial(importlib.import_module, child))


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


class Absent(Exception):
    """This JAX cannot have the name: JAX's own ``__getattr__`` answers instead."""


def serve_on_lookup(module: types.ModuleType, name: str, look_up: Callable[[], Any]) -> None:
    """Serve ``name`` through the module's ``__getattr__`` (PEP 562), which asks ``look_up``
    each time (an old spelling warns once, at the line that looks it up: ``pltpu.TPUCompilerParams``
    or an import of it); JAX's own ``__getattr__`` (its deprecation table) answers every
    other name, and a name ``look_up`` finds ``Absent``."""
    table = _on_lookup.get(module.__name__)
    if table is None:
        table = _on_lookup[module.__name__] = {}
        previous = vars(module).get("__getattr__")

        def __getattr__(attr: str) -> Any:
            if attr in table:
                with contextlib.suppress(Absent):
                    return table[attr]()
            if previous is not None:
                return previous(attr)
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")

        install(module, "__getattr__", __getattr__)
    table[name] = look_up


def old_spelling(value: Any, key: str, message: str) -> Callable[[], Any]:
    """The lookup of an old spelling of an object: warns once, at the user's line."""

    def look_up() -> Any:
        _warnings.warn_once(key, message)
        return value

    look_up.old_spelling = True  # type: ignore[attr-defined]
    return look_up


def built_when_used(space: Namespace, name: str, build: Callable[[], Any]) -> Callable[[], Any]:
    """The lookup of a fill whose building imports a module the program has not imported
    (``pl.max_contiguous`` lives in the Triton backend): built at its first use."""

    def look_up() -> Any:
        try:
            with _warnings.silenced() as held:
                build()
                value = getattr(space, name)
        except (PallasCompatError, AttributeError):
            raise Absent(name) from None
        if held and not callable_fill(value):
            _warnings.warn_once(*held[0])
        return value

    return look_up


def install(module: types.ModuleType, name: str, value: Any) -> None:
    _installed.append((module, name, _resolve.shadow(module, name, value)))


def unpatch() -> None:
    """Undo ``patch()`` exactly: every attribute and ``sys.modules`` entry as it was."""
    with _lock:
        while _hooks:
            sys.meta_path.remove(_hooks.pop())
        while _installed:
            module, name, previous = _installed.pop()
            _resolve.unshadow(module, name, previous)
        for name in SERVED:
            take_out_served(name)
        _filled.clear()
        _on_lookup.clear()
        _warnings.set_quiet(False)


def take_out_served(name: str) -> None:
    """A served namespace leaves ``sys.modules`` and its parent (where the import put it)."""
    module = sys.modules.get(name)
    if not isinstance(module, Namespace):
        return
    del sys.modules[name]
    parent_name, _, attr = name.rpartition(".")
    parent = sys.modules.get(parent_name)
    if parent is not None and vars(parent).get(attr) is module:
        delattr(parent, attr)
