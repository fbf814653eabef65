"""Module-like namespaces: the native Pallas module's names untouched, plus the shim's fills."""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any

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
        if name in fills:
            value = fills[name]()
            self.__dict__[name] = value
            return value
        native = self.__dict__["__wrapped__"]
        if native is None or name.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        try:
            return getattr(native, name)
        except AttributeError:
            from pallas_compat._errors import missing_name

            raise missing_name(native.__name__, name) from None

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
