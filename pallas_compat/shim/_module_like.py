"""Module-like namespaces: the native Pallas module's names untouched, plus the shim's fills."""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any

from pallas_compat.facts._table import installed_jax
from pallas_compat.shim._errors import MissingFeatureError, missing_name

#: Builds one fill the first time it is looked up; may raise a PallasCompatError.
Fill = Callable[[], Any]


class Namespace(types.ModuleType):
    """``pl``, ``pltpu``, ...: attribute lookups go to the fills first, then the native module.

    A fill is built once, on first lookup, and cached; a native name is looked up on the
    module every time, so JAX's own deprecation warnings still fire.
    """

    def __init__(self, name: str, native: types.ModuleType | None, fills: Mapping[str, Fill]):
        super().__init__(name, native.__doc__ if native is not None else None)
        self.__dict__["__wrapped__"] = native
        self.__dict__["_fills"] = dict(fills)

    def __getattr__(self, name: str) -> Any:
        fills: dict[str, Fill] = self.__dict__["_fills"]
        if name == "__all__":  # ``from pallas_compat.pl import *``
            return self.public_names()
        if name in fills:
            value = fills[name]()
            self.__dict__[name] = value
            return value
        native = self.__dict__["__wrapped__"]
        if name.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if native is None:  # the contract: a name the installed JAX lacks is MissingFeatureError
            raise MissingFeatureError(
                f"{self.__name__}.{name}: the JAX module this namespace wraps does not import "
                f"on the installed JAX {installed_jax()}, and pallas-compat does not serve {name}"
            )
        try:
            return getattr(native, name)
        except AttributeError:
            raise missing_name(native.__name__, name) from None

    def public_names(self) -> list[str]:
        """What a star import takes: the native module's public names and the fills this JAX
        can build (a fill that raises is a name this JAX cannot have)."""
        native = self.__dict__["__wrapped__"]
        names = getattr(native, "__all__", None) or [
            n for n in dir(native) if not n.startswith("_")
        ]
        found = set(names) if native is not None else set()
        for name in self.__dict__["_fills"]:
            try:
                getattr(self, name)
            except Exception:  # a fill this JAX cannot build, whatever it raises
                continue
            found.add(name)
        return sorted(found)

    def __dir__(self) -> list[str]:
        native = self.__dict__["__wrapped__"]
        names = set(dir(native)) if native is not None else set()
        return sorted(names | set(self.__dict__["_fills"]))

    def __repr__(self) -> str:
        native = self.__dict__["__wrapped__"]
        target = native.__name__ if native is not None else "nothing on this JAX"
        return f"<pallas_compat namespace {self.__name__!r} over {target}>"


def wrapped(space: Namespace) -> types.ModuleType | None:
    """The native Pallas module behind ``space`` (None where this JAX lacks it)."""
    native: types.ModuleType | None = space.__dict__["__wrapped__"]
    return native


def fills_of(space: Namespace) -> Mapping[str, Fill]:
    """The fills of ``space``, by name, unbuilt: what ``patch()`` installs."""
    fills: dict[str, Fill] = space.__dict__["_fills"]
    return types.MappingProxyType(fills)
