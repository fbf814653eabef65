"""The namespaces ``pl``, ``pltpu``, ``pltriton``, ``plmgpu`` (and the JAX modules outside
Pallas that kernel files import): built once, on first use, and importable as modules."""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

from pallas_compat.facts._table import ALIASES, FEATURES_BY_KEY, NAMESPACE_OF
from pallas_compat.shim._fills import NAMESPACES
from pallas_compat.shim._module_like import Namespace
from pallas_compat.shim._resolve import import_optional, resolve

PACKAGE = "pallas_compat"
#: Each namespace by its own name and by the alias people use for its module (``plgpu`` is
#: the chapter's and JAX's docs' alias for Mosaic GPU, not the pre-0.6.1 ``pallas.gpu``
#: module, which ``pltriton`` serves): both from the table.
SPELLINGS: dict[str, str] = {
    **{alias: alias for alias in NAMESPACES},
    **{ALIASES[module]: NAMESPACE_OF[module] for module in ALIASES if module in NAMESPACE_OF},
}


@functools.cache
def namespace(alias: str) -> Namespace:
    modules, fills = NAMESPACES[alias]
    native = None
    for name in modules:
        with warnings.catch_warnings():
            # 0.4.33-0.6.0 warn when the old ``pallas.gpu`` module is imported.
            warnings.simplefilter("ignore", DeprecationWarning)
            native = import_optional(name)
        if native is not None:
            break
    return Namespace(f"{PACKAGE}.{alias}", native, fills())


class NamespaceModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import pallas_compat.pltpu as pltpu`` and ``from pallas_compat.pl import BlockSpec``:
    the same namespace objects as ``from pallas_compat import pltpu``, as module paths."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != PACKAGE or name not in SPELLINGS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return namespace(SPELLINGS[spec.name.partition(".")[2]])

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the namespace builds its names on first lookup."""


def install_module_finder() -> None:
    if not any(isinstance(finder, NamespaceModules) for finder in sys.meta_path):
        sys.meta_path.append(NamespaceModules())


def enable_x64(new_val: bool = True) -> Any:
    """``jax.enable_x64`` (or ``jax.experimental.enable_x64`` before it moved)."""

    return resolve(FEATURES_BY_KEY["enable_x64"]).obj(new_val)
