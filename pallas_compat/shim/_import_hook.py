"""The import hook of ``patch()``: a JAX module gets its fills when it is first imported, and a
module JAX no longer has is served by the shim's namespace when it is imported, so that
``patch()`` itself imports nothing (importing every Pallas backend cost a second, and on
0.4.33-0.6.0 ``pallas.gpu``'s own ``DeprecationWarning``, under ``-W error``, read as absent)."""

from __future__ import annotations

import contextlib
import contextvars
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Iterator, Mapping, Sequence

#: What the import system writes on a module it creates; a served namespace keeps its own.
_MODULE_ATTRIBUTES = ("__spec__", "__loader__", "__package__", "__path__", "__file__", "__cached__")


_as_it_is = contextvars.ContextVar("pallas_compat_jax_as_it_is", default=False)


@contextlib.contextmanager
def jax_as_it_is() -> Iterator[None]:
    """Within the block, imports find JAX's own modules only, never a served namespace: the
    shim looks up what JAX itself has (a namespace built while ``pallas.triton`` is served
    must not find itself there)."""
    token = _as_it_is.set(True)
    try:
        yield
    finally:
        _as_it_is.reset(token)


#: What a watched module runs in (``patch()``'s fills out of the way), and what is called
#: with its name once it has run.
Running = Callable[[], contextlib.AbstractContextManager[None]]
Imported = Callable[[str], None]


class PatchFinder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path`` while patched. For a ``watched`` module it finds what the
    other finders find, with a loader that runs the module inside ``running()`` and then calls
    ``imported(name)``; for a ``served`` module that no other finder finds, the namespace
    ``served[name]()``."""

    def __init__(
        self,
        watched: frozenset[str],
        served: Mapping[str, Callable[[], types.ModuleType]],
        imported: Imported,
        running: Running,
    ) -> None:
        self.watched, self.served = watched, served
        self.imported, self.running = imported, running

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.watched and fullname not in self.served:
            return None
        spec = self.found_elsewhere(fullname, path, target)
        if spec is None:
            if fullname in self.served and not _as_it_is.get():
                return importlib.machinery.ModuleSpec(fullname, ServedLoader(self, fullname))
            return None
        if fullname in self.watched and spec.loader is not None:
            spec.loader = ChainedLoader(spec.loader, self.imported, self.running)
        return spec

    def found_elsewhere(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """What the import would find without this finder (no module is run to find it)."""
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or isinstance(finder, PatchFinder) or find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is not None:
                return spec
        return None


class ChainedLoader(importlib.abc.Loader):
    """JAX's own loader inside ``running()``, then ``imported(name)``; the module keeps JAX's
    loader."""

    def __init__(self, loader: importlib.abc.Loader, imported: Imported, running: Running) -> None:
        self.loader, self.imported, self.running = loader, imported, running

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        with self.running():
            self.loader.exec_module(module)
        self.imported(module.__name__)


class ServedLoader(importlib.abc.Loader):
    """A module JAX lacks, served by the shim's namespace for it, which stays as it was (the
    import system's attributes on it are put back)."""

    def __init__(self, finder: PatchFinder, name: str) -> None:
        self.finder, self.name = finder, name
        self.kept: dict[str, object] = {}

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = self.finder.served[self.name]()
        self.kept = {k: vars(module)[k] for k in _MODULE_ATTRIBUTES if k in vars(module)}
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        for name in _MODULE_ATTRIBUTES:
            if name in self.kept:
                vars(module)[name] = self.kept[name]
            else:
                vars(module).pop(name, None)
