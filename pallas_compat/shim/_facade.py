"""Classes that take old or new call forms and hand back the native JAX object.

A facade subclasses the native class (so ``dataclasses.fields`` and docs work) but its
``__new__`` returns an instance of the native class itself, so kernels trace to exactly the
jaxpr they would give without the shim; ``isinstance`` works both ways.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

Convert = Callable[[tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]]


class _FacadeChecks:
    """Metaclass mixin: instances and subclasses of the native class count as the facade's."""

    __native__: type

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls.__native__)

    def __subclasscheck__(cls, sub: type) -> bool:
        # By the MRO, not issubclass(): where the native class is an ABC (0.4.35's params
        # subclass a runtime Protocol), its check walks its subclasses, this facade among
        # them, which would ask the native class again: RecursionError.
        return cls.__native__ in getattr(sub, "__mro__", ())


@functools.cache
def _metaclass(native_meta: type) -> type:
    """A facade metaclass derived from the native class's own (some are ABCMeta, some Protocol)."""
    return type(f"Facade{native_meta.__name__}", (_FacadeChecks, native_meta), {})


def facade(
    native: type,
    convert: Convert,
    *,
    name: str | None = None,
    instead: Callable[[tuple[Any, ...], dict[str, Any]], Any] | None = None,
) -> type:
    """A class named like ``native`` whose calls go through ``convert`` first; where
    ``instead`` gives something other than None for a call, that is what the call makes
    (``pl.Blocked()``, the old indexing mode, on releases whose ``Blocked`` needs a size)."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if instead is not None and (made := instead(args, kwargs)) is not None:
            return made
        args, kwargs = convert(args, kwargs)
        return native(*args, **kwargs)

    namespace = {
        "__new__": __new__,
        "__native__": native,
        "__doc__": native.__doc__,
        "__module__": native.__module__,
        "__qualname__": name or native.__qualname__,
    }
    made: type = _metaclass(type(native))(name or native.__name__, (native,), namespace)
    return made
